"""jitk kernels on torch tensors: device pointers, the current stream, and
dtype / device / layout checks with errors that say what to change."""

import json
import threading

from . import _capi, _core

_SUPPORTED = ("float32", "float16", "bfloat16")


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError("this jitk function works on torch tensors, and torch is not "
                          "installed (pip install torch)")
    return torch


def _check_tensor(torch, what, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError("{} must be a torch.Tensor, got {}".format(what, type(t).__name__))
    if not t.is_cuda:  # ROCm's tensors too
        raise ValueError("{} is on {}; jitk kernels run on GPU tensors (device 'cuda', which "
                         "is also ROCm's name in torch): use {}.cuda()".format(
                             what, t.device, what))
    if t.dtype not in _supported_dtypes(torch):
        raise TypeError("{} has dtype {}; jitk kernels take torch.float32, torch.float16 or "
                        "torch.bfloat16".format(what, t.dtype))


_supported_dtype_set = None  # the torch dtypes of _SUPPORTED, once torch is imported


def _supported_dtypes(torch):
    global _supported_dtype_set
    if _supported_dtype_set is None:
        _supported_dtype_set = frozenset(getattr(torch, name) for name in _SUPPORTED)
    return _supported_dtype_set


# Both on GPUs (_check_tensor): the devices compare by index, which is
# cheaper than comparing torch.device objects on every call.
def _check_like(what, t, ref_name, ref, same_shape=True):
    if t.dtype != ref.dtype:
        raise TypeError("{} has dtype {} but {} has {}; convert one with .to()".format(
            what, t.dtype, ref_name, ref.dtype))
    if t.get_device() != ref.get_device():
        raise ValueError("{} is on {} but {} is on {}; move them to one GPU".format(
            what, t.device, ref_name, ref.device))
    if same_shape and t.shape != ref.shape:
        raise ValueError("{} has shape {} but {} has {} (no broadcasting)".format(
            what, tuple(t.shape), ref_name, tuple(ref.shape)))


def _check_contiguous(what, t):
    if not t.is_contiguous():
        raise ValueError("{} is not contiguous (strides {}); pass {}.contiguous()".format(
            what, tuple(t.stride()), what))


# torch device index -> jitk device ordinal (jitk numbers GPUs over all its
# backends; torch over one).
_device_lock = threading.Lock()
_device_map = {}


def _jitk_device(torch, index):
    """The jitk device of torch's GPU `index` (a tensor's get_device())."""
    ordinal = _device_map.get(index)
    if ordinal is not None:
        return ordinal
    backend = "hip" if getattr(torch.version, "hip", None) else "cuda"
    devices = _core.discover()["devices"]
    for d in devices:
        if d["backend"] == backend and d.get("backend_ordinal") == index:
            with _device_lock:
                _device_map[index] = d["ordinal"]
            return d["ordinal"]
    raise _capi.JitkError(_capi.NOT_FOUND, "NOT_FOUND",
                          "torch device cuda:{} has no jitk {} device (jitk sees: {})".format(
                              index, backend, json.dumps(devices)))


def _current_stream(torch, index):
    """The raw handle of torch's current stream on GPU `index` (None: the
    default stream). torch's own raw getter, where it has one, skips building
    a torch.cuda.Stream per call (3 us of a 41 us call on the H200)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(index) or None
    return torch.cuda.current_stream(index).cuda_stream or None


def _bucket(n):
    """n rounded up to a power of two: the shape jitk looks the kernel up with,
    so tensors of every length share a few dozen compiled kernels (the launch
    itself takes the exact n)."""
    return 1 << (n - 1).bit_length() if n > 1 else 1


def scaled_add(x, y, scale, out=None):
    """out = x + y * scale (as torch.add(x, y, alpha=scale)), elementwise, on
    GPU tensors of one dtype (float32, float16 or bfloat16), shape and device;
    fp32 arithmetic. `out` may be x or y itself. Returns out."""
    torch = _torch()
    _check_tensor(torch, "x", x)
    _check_tensor(torch, "y", y)
    _check_like("y", y, "x", x)
    _check_contiguous("x", x)
    _check_contiguous("y", y)
    if out is None:
        out = torch.empty_like(x, memory_format=torch.contiguous_format)
    else:
        _check_tensor(torch, "out", out)
        _check_like("out", out, "x", x)
        _check_contiguous("out", out)
    n = x.numel()
    if n == 0:
        return out
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError("scale must be a Python number, got {}".format(type(scale).__name__))
    index = x.get_device()
    device = _jitk_device(torch, index)
    key = "{};n={}".format(_core.dtype_name(x.dtype), _bucket(n))
    kernel = _core.kernel_cache.get("scaled_add", key, device)
    args = _scaled_add_args()
    args[0].pointer = out.data_ptr()
    args[1].pointer = x.data_ptr()
    args[2].pointer = y.data_ptr()
    args[3].integer = n
    args[4].real = float(scale)
    kernel.launch_array(args, _current_stream(torch, index))
    return out


# One jitk_arg array per thread, names and kinds filled once: building a
# ctypes array per call costs several microseconds, patching five values a
# fraction of one. The C call copies the values before it returns.
_SCALED_ADD_SLOTS = ((b"out", _capi.ARG_POINTER), (b"x", _capi.ARG_POINTER),
                     (b"y", _capi.ARG_POINTER), (b"n", _capi.ARG_INT),
                     (b"scale", _capi.ARG_FLOAT))
_per_thread = threading.local()


def _scaled_add_args():
    args = getattr(_per_thread, "scaled_add", None)
    if args is None:
        args = (_capi.Arg * len(_SCALED_ADD_SLOTS))()
        for slot, (name, kind) in zip(args, _SCALED_ADD_SLOTS):
            slot.name, slot.kind = name, kind
        _per_thread.scaled_add = args
    return args


# --- sparse attention ----------------------------------------------------------

# jitk's AttentionLayout and MaskMod values (include/jitk/block_mask.h).
LAYOUTS = {"dense": 0, "causal": 1, "sliding_window": 2, "bigbird": 3, "strided": 4,
           "custom": 5}
MASK_MODS = {"none": 0, "causal": 1, "sliding_window_causal": 2, "sliding_window": 3}
_DEFAULT_MASK = {0: 0, 1: 1, 2: 2, 3: 0, 4: 1, 5: 0}  # DefaultMaskMod(layout)
_LAYOUT_OF_MASK = {"none": "custom", "causal": "causal",
                   "sliding_window_causal": "sliding_window", "sliding_window": "custom"}


def _block_size(block_mask):
    size = getattr(block_mask, "BLOCK_SIZE", None)
    if size is None:
        size = getattr(block_mask, "block_size")
    if isinstance(size, (tuple, list)):
        if len(set(size)) != 1:
            raise ValueError("jitk needs equal query and key block sizes, got BLOCK_SIZE={}"
                             .format(tuple(size)))
        size = size[0]
    return int(size)


def sparse_attn(q, k, v, block_mask, mask="causal", window=0, global_tokens=0, scale=None,
                layout=None, out=None, return_lse=False, q_offset=0, config=None):
    """Block-sparse attention softmax(q k^T * scale) v over the blocks of
    `block_mask`, on GPU tensors q [B, Hq, Lq, D], k and v [B, Hkv, Lk, D]
    (Hq a multiple of Hkv; float16, bfloat16 or float32).

    block_mask: a torch FlexAttention BlockMask (or any object with its
    kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices int32 CUDA
    tensors and BLOCK_SIZE). Partial blocks apply the element mask `mask`
    ('none', 'causal', 'sliding_window_causal', 'sliding_window'; the last two
    use `window` and `global_tokens`), full blocks none, the way FlexAttention
    applies its mask_mod. The element mask puts query row i at key position
    i + q_offset: 0 aligns the first query with the first key (SDPA's
    is_causal), Lk - Lq the last with the last, as for the newest Lq tokens
    of a KV cache (a decode step, a prefill chunk). `layout` ('causal',
    'sliding_window', 'custom', ...) picks the tuned configs; by default it
    follows `mask`. `config` ('BLOCK_M=128,BLOCK_N=128,...' or a dict) runs
    that config instead of the tuned or default one.

    Returns out [B, Hq, Lq, D], or (out, lse) with lse [B, Hq, Lq] float32
    (natural log) when return_lse."""
    torch = _torch()
    plans = _thread_plans()
    config = _core.config_text(config)
    try:
        key = _plan_key(q, k, v, block_mask, mask, window, global_tokens, scale, layout, out,
                        return_lse, q_offset, config)
        plan = plans.get(key)
    except (AttributeError, TypeError):
        # Not tensors, or unhashable options: checked in full below, where
        # the checks name what is wrong.
        key = plan = None
    if plan is None:
        plan = _SparseAttnPlan(torch, q, k, v, block_mask, mask, window, global_tokens, scale,
                               layout, out, q_offset, config)
        if key is not None and plan.reusable:
            if len(plans) >= _MAX_PLANS:
                plans.clear()
            plans[key] = plan
    if out is None:
        out = torch.empty_like(q, memory_format=torch.contiguous_format)
    lse = (torch.empty(plan.lse_shape, dtype=torch.float32, device=q.device) if return_lse
           else None)
    plan.launch(torch, q, k, v, out, lse)
    return (out, lse) if return_lse else out


# Validated launches kept per thread: a call whose tensors have the shapes,
# strides, dtypes and devices of an earlier one, with the same block-mask
# object and arrays and the same options, skips the checks and the argument
# building and patches only the pointers. A plan keeps its block mask alive,
# so few are kept: a loop that builds a new mask per step holds at most this
# many old ones (and pays the full checks, as it would anyway).
_MAX_PLANS = 16


def _thread_plans():
    plans = getattr(_per_thread, "sparse_attn_plans", None)
    if plans is None:
        plans = _per_thread.sparse_attn_plans = {}
    return plans


def _tensor_key(t):
    return t.is_cuda, t.shape, t.stride(), t.dtype, t.get_device()


# Option values a plan may keep: immutable numbers. Others (a 0-d tensor for
# the scale, say) are read on every call.
_PLAIN_NUMBERS = (int, float, type(None))


def _plan_key(q, k, v, block_mask, mask, window, global_tokens, scale, layout, out, return_lse,
              q_offset, config):
    """Everything a plan's checks and values depend on; TypeError where a
    value could change under the same key."""
    if any(type(value) not in _PLAIN_NUMBERS for value in (window, global_tokens, scale,
                                                            q_offset)):
        raise TypeError("an option that is not a plain number")
    return (_tensor_key(q), _tensor_key(k), _tensor_key(v),
            None if out is None else _tensor_key(out),
            id(block_mask), id(getattr(block_mask, "kv_num_blocks", None)),
            id(getattr(block_mask, "kv_indices", None)),
            id(getattr(block_mask, "full_kv_num_blocks", None)),
            id(getattr(block_mask, "full_kv_indices", None)),
            mask, window, global_tokens, scale, layout, return_lse, q_offset, config)


class _SparseAttnPlan(object):
    """One checked sparse_attn launch: the kernel and its argument array with
    every value but the pointers filled in."""

    def __init__(self, torch, q, k, v, block_mask, mask, window, global_tokens, scale, layout,
                 out, q_offset, config):
        if "sparse_attn" not in _core.kernel_names():  # memoized: no C call
            raise NotImplementedError("this libjitk_c.so ({}) has no sparse_attn kernel".format(
                _capi.library_path()))
        for what, t in (("q", q), ("k", k), ("v", v)):
            _check_tensor(torch, what, t)
            if t.dim() != 4:
                raise ValueError("{} must be 4-D [batch, heads, length, head_dim], got shape {}"
                                 .format(what, tuple(t.shape)))
            if t.stride(-1) != 1:
                raise ValueError("{}'s head dimension must be contiguous (stride 1), got strides"
                                 " {}; pass {}.contiguous()".format(what, tuple(t.stride()), what))
        _check_like("k", k, "q", q, same_shape=False)
        _check_like("v", v, "q", q, same_shape=False)
        b, hq, lq, d = q.shape
        if k.shape != v.shape:
            raise ValueError("k and v must have one shape, got {} and {}".format(
                tuple(k.shape), tuple(v.shape)))
        if k.shape[0] != b or k.shape[3] != d:
            raise ValueError("k has shape {}; batch and head_dim must match q's {}".format(
                tuple(k.shape), tuple(q.shape)))
        hkv, lk = k.shape[1], k.shape[2]
        if hq % hkv != 0:
            raise ValueError("q has {} heads, k and v {}: the query heads must be a multiple of "
                             "the key/value heads".format(hq, hkv))
        if mask not in MASK_MODS:
            raise ValueError("mask must be one of {}, got {!r}".format(sorted(MASK_MODS), mask))
        layout = _LAYOUT_OF_MASK[mask] if layout is None else layout
        if layout not in LAYOUTS:
            raise ValueError("layout must be one of {}, got {!r}".format(sorted(LAYOUTS),
                                                                          layout))
        block = _block_size(block_mask)
        index = q.get_device()
        arrays, mask_b, mask_h, self.reusable = _mask_arrays(torch, block_mask, index, q.device,
                                                             lq, lk, block)
        if out is not None:
            _check_tensor(torch, "out", out)
            _check_like("out", out, "q", q)
            if out.stride(-1) != 1:
                raise ValueError("out's head dimension must be contiguous")
            o_strides = out.stride()[:3]
        else:  # a new contiguous tensor per call
            o_strides = (hq * lq * d, lq * d, d)

        dims = (("b", b), ("block", block), ("d", d), ("hkv", hkv), ("hq", hq),
                ("layout", LAYOUTS[layout]), ("lk", lk), ("lq", lq))
        if MASK_MODS[mask] != _DEFAULT_MASK[LAYOUTS[layout]]:
            dims += (("mask", MASK_MODS[mask]),)
        if mask_h > 1 and hq > hkv and hq // hkv * lq <= block:
            # a mask per query head keeps the grouped heads from sharing a
            # tile's rows (GroupedRowsFitOneBlock, as BlockMask::AttentionShape)
            dims += (("mask_per_head", 1),)
        self.index = index
        self.kernel = _core.kernel_cache.get_dims("sparse_attn", q.dtype, dims,
                                                  _jitk_device(torch, index), config)
        self.lse_shape = (b, hq, lq)
        self.block_mask = block_mask  # keeps the key's ids unique while the plan lives
        full = "full_kv_num_blocks" in arrays or "full_kv_indices" in arrays
        self.mask_arrays = tuple(arrays.get(name) for name in _MASK_ARRAYS[:4 if full else 2])
        strides = {"q": q.stride()[:3], "k": k.stride()[:3], "v": v.stride()[:3], "o": o_strides}
        scalars = _sparse_attn_scalars(strides, mask_b, mask_h, window, global_tokens, q_offset,
                                       scale)
        self.array = _sparse_attn_array(full, scale is not None)
        for i, value in enumerate(scalars, len(self.array) - len(scalars)):
            setattr(self.array[i], _VALUE_FIELDS[self.array[i].kind], value)

    def launch(self, torch, q, k, v, out, lse):
        # The pointer slots come first, in the order of _ATTN_POINTERS and
        # _ATTN_FULL_POINTERS.
        for slot, t in zip(self.array, (q, k, v, out, lse) + self.mask_arrays):
            slot.pointer = t.data_ptr() if t is not None else 0
        self.kernel.launch_array(self.array, _current_stream(torch, self.index))


def _mask_arrays(torch, block_mask, index, device, lq, lk, block):
    """The block mask's arrays, checked: (arrays by name, mask batch, mask
    heads, whether a plan may keep them). Rows wider than the key blocks come
    back as trimmed copies, made per call."""
    arrays = {}
    for name in _MASK_ARRAYS:
        t = getattr(block_mask, name, None)
        if t is None:
            if name.startswith("full_"):
                continue
            raise ValueError("block_mask has no {}".format(name))
        if t.dtype != torch.int32 or t.get_device() != index or not t.is_contiguous():
            raise ValueError("block_mask.{} must be a contiguous int32 tensor on {}, got {} on {}"
                             .format(name, device, t.dtype, t.device))
        arrays[name] = t
    counts = arrays["kv_num_blocks"]
    if counts.dim() != 3:
        raise ValueError("block_mask.kv_num_blocks must be [B, H, num_q_blocks], got {}".format(
            tuple(counts.shape)))
    mask_b, mask_h = counts.shape[0], counts.shape[1]
    num_q_blocks, num_kv_blocks = (lq + block - 1) // block, (lk + block - 1) // block
    reusable = True
    for name in ("kv_indices", "full_kv_indices"):
        t = arrays.get(name)
        if t is None:
            continue
        if t.dim() == 4 and t.shape[3] > num_kv_blocks:
            # Rows wider than the key blocks (padding): the first entries are
            # the ones a row's count covers; the kernel wants rows of exactly
            # num_kv_blocks.
            t = arrays[name] = t[..., :num_kv_blocks].contiguous()
            reusable = False
        if t.shape != (mask_b, mask_h, num_q_blocks, num_kv_blocks):
            raise ValueError("block_mask.{} has shape {}; lq={} and lk={} in blocks of {} need "
                             "[{}, {}, {}, {}]".format(name, tuple(t.shape), lq, lk, block, mask_b,
                                                       mask_h, num_q_blocks, num_kv_blocks))
    for name in ("kv_num_blocks", "full_kv_num_blocks"):
        t = arrays.get(name)
        if t is not None and t.shape != (mask_b, mask_h, num_q_blocks):
            raise ValueError("block_mask.{} has shape {}; expected [{}, {}, {}]".format(
                name, tuple(t.shape), mask_b, mask_h, num_q_blocks))
    return arrays, mask_b, mask_h, reusable


# The launch arguments of lib/attention/sparse_attn_template.h, in the order
# jitk.sparse_attn passes them; the block mask's full_* arrays and the scale
# are optional.
_ATTN_POINTERS = ("q", "k", "v", "o", "lse", "kv_num_blocks", "kv_indices")
_ATTN_FULL_POINTERS = ("full_kv_num_blocks", "full_kv_indices")
# The block mask's arrays, in the order of their launch arguments.
_MASK_ARRAYS = _ATTN_POINTERS[5:] + _ATTN_FULL_POINTERS
_ATTN_INTS = ("mask_batch", "mask_heads", "window", "global_tokens", "q_offset")
_ATTN_STRIDED = ("q", "k", "v", "o")


def _full_given(pointers):
    return bool(pointers.get("full_kv_num_blocks") or pointers.get("full_kv_indices"))


def _sparse_attn_scalars(strides, mask_batch, mask_heads, window, global_tokens, q_offset,
                         scale):
    """The launch arguments after the pointers, in the order of
    _sparse_attn_names."""
    ints = {"mask_batch": mask_batch, "mask_heads": mask_heads, "window": window,
            "global_tokens": global_tokens, "q_offset": q_offset}
    values = [int(ints[name]) for name in _ATTN_INTS]
    if scale is not None:
        values.append(float(scale))
    for what in _ATTN_STRIDED:
        values += [int(stride) for stride in strides[what]]
    return values


def _sparse_attn_names(full, scaled):
    names = list(_ATTN_POINTERS) + (list(_ATTN_FULL_POINTERS) if full else []) + list(_ATTN_INTS)
    if scaled:
        names.append("scale")
    for what in _ATTN_STRIDED:
        names += [what + "_stride_b", what + "_stride_h", what + "_stride_l"]
    return names


def _sparse_attn_kind(name):
    if name in _ATTN_POINTERS or name in _ATTN_FULL_POINTERS:
        return _capi.ARG_POINTER
    return _capi.ARG_FLOAT if name == "scale" else _capi.ARG_INT


def sparse_attn_args(pointers, strides, mask_batch, mask_heads, window=0, global_tokens=0,
                     scale=None, q_offset=0):
    """The sparse_attn launch arguments (lib/attention/sparse_attn_template.h)
    as (name, value) pairs. `pointers` maps q, k, v, o, lse (0: none) and the
    block-mask arrays to addresses (full_kv_* may be absent); `strides` maps
    q, k, v, o to their (batch, head, row) element strides."""
    full = _full_given(pointers)
    values = [pointers.get(name, 0) for name in
              _ATTN_POINTERS + (_ATTN_FULL_POINTERS if full else ())]
    values += _sparse_attn_scalars(strides, mask_batch, mask_heads, window, global_tokens,
                                   q_offset, scale)
    names = _sparse_attn_names(full, scale is not None)
    return [(name, _core.Pointer(value) if _sparse_attn_kind(name) == _capi.ARG_POINTER
             else value) for name, value in zip(names, values)]


_VALUE_FIELDS = {_capi.ARG_POINTER: "pointer", _capi.ARG_INT: "integer",
                 _capi.ARG_FLOAT: "real"}


def _sparse_attn_array(full, scaled):
    """A jitk_arg array for one argument layout, names and kinds set (building
    and encoding 25 arguments per call took longer than the rest of the Python
    side together, bench/results/2026-12-06-cpu-sparse-attn-fill/)."""
    names = _sparse_attn_names(full, scaled)
    array = (_capi.Arg * len(names))()
    for slot, name in zip(array, names):
        slot.name, slot.kind = name.encode(), _sparse_attn_kind(name)
    return array
