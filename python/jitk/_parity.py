"""Numerical parity of a result against a reference, as vendor ports are judged:
cosine similarity, max abs error, relative error, computed in float64."""

import math


def _is_torch(t):
    return type(t).__module__.startswith("torch") and hasattr(t, "detach")


def _is_numpy(a):
    return type(a).__module__ == "numpy" and hasattr(a, "astype")


def _flatten(values):
    out = []
    stack = [iter(values)]
    while stack:
        for item in stack[-1]:
            if isinstance(item, (list, tuple)):
                stack.append(iter(item))
                break
            out.append(float(item))
        else:
            stack.pop()
    return out


def _stats_python(a, b):
    a, b = _flatten(a), _flatten(b)
    if len(a) != len(b):
        raise ValueError("parity: {} values vs {} in the reference".format(len(a), len(b)))
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    diff = [x - y for x, y in zip(a, b)]
    nd = math.sqrt(sum(d * d for d in diff))
    max_abs = max((abs(d) for d in diff), default=0.0)
    if any(d != d for d in diff):  # NaN anywhere
        max_abs = float("nan")
    nonfinite = sum(1 for x in a if not math.isfinite(x))
    return len(a), dot, na, nb, nd, max_abs, nonfinite


def _stats_torch(a, b):
    import torch
    if not _is_torch(b):
        b = torch.as_tensor(b)
    if a.numel() != b.numel():
        raise ValueError("parity: {} values vs {} in the reference".format(a.numel(), b.numel()))
    device = a.device if a.device == b.device else "cpu"
    x = a.detach().to(device=device, dtype=torch.float64).reshape(-1)
    y = b.detach().to(device=device, dtype=torch.float64).reshape(-1)
    d = x - y
    max_abs = d.abs().max().item() if d.numel() else 0.0
    if d.numel() and torch.isnan(d).any().item():
        max_abs = float("nan")
    return (x.numel(), torch.dot(x, y).item(), x.norm().item(), y.norm().item(),
            d.norm().item(), max_abs, int((~torch.isfinite(x)).sum().item()))


def _stats_numpy(a, b):
    import numpy
    x = numpy.asarray(a, dtype=numpy.float64).reshape(-1)
    y = numpy.asarray(b, dtype=numpy.float64).reshape(-1)
    if x.size != y.size:
        raise ValueError("parity: {} values vs {} in the reference".format(x.size, y.size))
    d = x - y
    max_abs = float(numpy.abs(d).max()) if d.size else 0.0
    if d.size and numpy.isnan(d).any():
        max_abs = float("nan")
    return (x.size, float(x @ y), float(numpy.linalg.norm(x)), float(numpy.linalg.norm(y)),
            float(numpy.linalg.norm(d)), max_abs, int((~numpy.isfinite(x)).sum()))


def parity(a, b, name=None, verbose=True):
    """Compares result `a` with reference `b` (torch tensors, numpy arrays or
    nested sequences of numbers; any shapes with the same element count), in
    float64. Prints one line unless verbose=False, and returns
      {'n', 'cosine', 'max_abs', 'rel_err', 'nonfinite'}
    cosine: cosine similarity of a and b as vectors (1.0 when both are zero);
    max_abs: max |a - b|; rel_err: ||a - b|| / ||b|| (L2; 0 when both are
    zero, inf when only b is); nonfinite: NaN / inf values in a."""
    if _is_torch(a) or _is_torch(b):
        if not _is_torch(a):
            import torch
            a = torch.as_tensor(a)
        n, dot, na, nb, nd, max_abs, nonfinite = _stats_torch(a, b)
    elif _is_numpy(a) or _is_numpy(b):
        n, dot, na, nb, nd, max_abs, nonfinite = _stats_numpy(a, b)
    else:
        n, dot, na, nb, nd, max_abs, nonfinite = _stats_python(a, b)

    if na == 0 and nb == 0:
        cosine = 1.0
    elif na == 0 or nb == 0:
        cosine = 0.0
    else:
        cosine = dot / (na * nb)
    if nb == 0:
        rel_err = 0.0 if nd == 0 else float("inf")
    else:
        rel_err = nd / nb
    result = {"n": n, "cosine": cosine, "max_abs": max_abs, "rel_err": rel_err,
              "nonfinite": nonfinite}
    if verbose:
        print("parity{}: cosine {:.8f}  max_abs {:.3e}  rel_err {:.3e}  n={}{}".format(
            "[{}]".format(name) if name else "", cosine, max_abs, rel_err, n,
            "  NONFINITE={}".format(nonfinite) if nonfinite else ""))
    return result
