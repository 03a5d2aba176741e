"""jitk.sparse_attn from PyTorch: a FlexAttention block mask drives jitk's
kernel, the result is checked against SDPA, and the call is captured in a
CUDA graph (HIP graph on ROCm) and replayed. Then a decode step of a
sliding-window model: the newest token, placed at the end of the keys with
q_offset, against SDPA over the window's keys.

    PYTHONPATH=python JITK_LIBRARY=build/lib/c_api/libjitk_c.so \\
        python3 examples/sparse_attn_torch.py [--length 4096] [--dtype bfloat16]

Exits with 1 when the result does not match SDPA's.
"""

import argparse
import sys
import time

import torch
from torch.nn.attention.flex_attention import create_block_mask

import jitk


def per_call_us(fn, calls=200):
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--length", type=int, default=4096)
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--dtype", default="float16", choices=("float16", "bfloat16"))
    args = parser.parse_args()

    dtype = getattr(torch, args.dtype)
    shape = (args.batch, args.heads, args.length, args.head_dim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=dtype) for _ in range(3))
    # The same mask object FlexAttention takes; jitk reads its block lists.
    mask = create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, args.length,
                             args.length, device="cuda")

    out = jitk.sparse_attn(q, k, v, mask, mask="causal")
    want = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                            is_causal=True)
    report = jitk.parity(out, want, name="jitk.sparse_attn vs SDPA (fp32)")
    ok = report["cosine"] >= 0.99999

    # Capture one call; replays rerun the kernel on whatever q, k, v hold.
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        jitk.sparse_attn(q, k, v, mask, mask="causal", out=out)
    q.copy_(torch.randn_like(q))
    graph.replay()
    torch.cuda.synchronize()
    replayed = torch.equal(out, jitk.sparse_attn(q, k, v, mask, mask="causal"))
    print("graph replay on new q matches an eager call: {}".format(replayed))
    ok = ok and replayed

    # The newest token (query row 0 at key position `last`) sees the last
    # `window` keys of the cache: the same rule in the block mask's mask_mod
    # and, for the partial blocks, in jitk's element mask.
    window, last = 1024, args.length - 1
    step = q[:, :, -1:]
    step_mask = create_block_mask(lambda b, h, qi, ki: last + qi - ki < window, None, None, 1,
                                  args.length, device="cuda")
    got = jitk.sparse_attn(step, k, v, step_mask, mask="sliding_window_causal", window=window,
                           q_offset=last)
    want = torch.nn.functional.scaled_dot_product_attention(
        step.float(), k[:, :, -window:].float(), v[:, :, -window:].float())
    report = jitk.parity(got, want, name="decode step, window {}".format(window))
    ok = ok and report["cosine"] >= 0.99999

    eager = per_call_us(lambda: jitk.sparse_attn(q, k, v, mask, mask="causal", out=out))
    replay = per_call_us(graph.replay)
    print("per call: eager {:.1f} us, graph replay {:.1f} us ({} {} causal, {})".format(
        eager, replay, args.dtype, "x".join(str(n) for n in shape), torch.cuda.get_device_name()))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
