"""sparse_attn parity with torch SDPA and FlexAttention on the same inputs and mask.

Reads the problems DISABLED_DumpForParity wrote (B=1, H=8, L=2048, D=128, BHLD
raw storage), computes an fp64 reference on the GPU, runs SDPA and
FlexAttention, and prints the errors of each against it and against ours.
With --time it also times SDPA and compiled FlexAttention on the issue's
shape (B=4, H=32, L=4096, D=128, causal fp16) for the side-by-side figure.

usage: python3 attention_parity.py DUMP_DIR [--time]
"""
import math
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

B, H, L, D = 1, 8, 2048, 128
CASES = [  # name, dtype, mask, window, global tokens (must match the C++ dump)
    ("causal_f16", torch.float16, "causal", 0, 0),
    ("causal_bf16", torch.bfloat16, "causal", 0, 0),
    ("sliding_f16", torch.float16, "sliding", 512, 64),
    ("causal_f32", torch.float32, "causal", 0, 0),
]


def load(path, dtype, shape):
    np_dtype = {torch.float16: np.float16, torch.bfloat16: np.uint16, torch.float32: np.float32}[dtype]
    t = torch.from_numpy(np.fromfile(path, dtype=np_dtype).reshape(shape))
    if dtype == torch.bfloat16:
        t = t.view(torch.bfloat16)
    return t.cuda()


def metrics(got, want):
    g, w = got.double().flatten(), want.double().flatten()
    finite = torch.isfinite(g)
    diff = (g - w)[finite]
    return dict(
        max_abs=diff.abs().max().item(),
        rel_l2=(diff.norm() / w[finite].norm()).item(),
        cos=F.cosine_similarity(g[finite], w[finite], dim=0).item(),
        non_finite=int((~finite).sum().item()),
    )


def fmt(m):
    return "max_abs %.2e rel_l2 %.2e cos %.8f nonfinite %d" % (m["max_abs"], m["rel_l2"], m["cos"], m["non_finite"])


def allowed_mask(kind, window, global_tokens):
    i = torch.arange(L, device="cuda")
    q, k = i[:, None], i[None, :]
    causal = k <= q
    if kind == "causal":
        return causal
    return causal & ((q - k < window) | (k < global_tokens))


def mask_mod_for(kind, window, global_tokens):
    if kind == "causal":
        return lambda b, h, q, k: q >= k
    return lambda b, h, q, k: (q >= k) & ((q - k < window) | (k < global_tokens))


def parity(dump):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    rows = []
    for name, dtype, kind, window, global_tokens in CASES:
        q, k, v, o = (load(f"{dump}/{name}.{x}", dtype, (B, H, L, D)) for x in "qkvo")
        lse = torch.from_numpy(np.fromfile(f"{dump}/{name}.lse", dtype=np.float32).reshape(B, H, L)).cuda()
        allowed = allowed_mask(kind, window, global_tokens)
        s = (q.double() @ k.double().transpose(-1, -2)) / math.sqrt(D)
        s = s.masked_fill(~allowed, float("-inf"))
        ref = torch.softmax(s, dim=-1) @ v.double()
        ref_lse = torch.logsumexp(s, dim=-1)
        line = {"case": name}
        line["ours"] = metrics(o, ref)
        line["ours_lse"] = (lse.double() - ref_lse).abs().max().item()
        with torch.no_grad():
            if kind == "causal":
                sdpa = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
            line["sdpa"] = metrics(sdpa, ref)
            line["ours_vs_sdpa"] = metrics(o, sdpa)
            try:
                bm = create_block_mask(mask_mod_for(kind, window, global_tokens), B, H, L, L, device="cuda")
                flex, flex_lse = flex_attention(q, k, v, block_mask=bm, return_lse=True)
                line["flex"] = metrics(flex, ref)
                line["flex_lse"] = (flex_lse.double() - ref_lse).abs().max().item()
                line["ours_vs_flex"] = metrics(o, flex)
            except Exception as e:  # report, keep going
                line["flex_error"] = repr(e)[:200]
        rows.append(line)
        print(name)
        for key, value in line.items():
            if key != "case":
                print("  %-13s %s" % (key, fmt(value) if isinstance(value, dict) else value))
        sys.stdout.flush()
    return rows


def bench(fn, reps=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def timing():
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    b, h, l, d = 4, 32, 4096, 128
    flops = 4 * b * h * l * l * d / 2
    q, k, v = (torch.rand(b, h, l, d, device="cuda", dtype=torch.float16) * 4 - 2 for _ in range(3))
    ms = bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    print("timing: SDPA causal f16 B4 H32 L4096 D128: %.3f ms, %.1f TFLOP/s" % (ms, flops / ms / 1e9))
    sys.stdout.flush()
    t0 = time.time()
    bm = create_block_mask(lambda bb, hh, qq, kk: qq >= kk, None, None, l, l, device="cuda")
    compiled = torch.compile(flex_attention)
    ms = bench(lambda: compiled(q, k, v, block_mask=bm))
    print("timing: FlexAttention causal f16 B4 H32 L4096 D128: %.3f ms, %.1f TFLOP/s (compile+bench %.0f s)"
          % (ms, flops / ms / 1e9, time.time() - t0))


if __name__ == "__main__":
    print("torch", torch.__version__, torch.cuda.get_device_name())
    parity(sys.argv[1])
    if "--time" in sys.argv:
        timing()
