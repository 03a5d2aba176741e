"""GPU time of a causal prefill chunk: the newest LQ tokens of a KV cache of
LK (q_offset = LK - LQ) against all keys up to their own, jitk.sparse_attn
(its default config, and any pinned with --configs) against SDPA with the
lower-right causal mask (torch.nn.attention.bias.causal_lower_right).

Calls are captured into a CUDA graph and replayed (decode_step.replay_us).
Prints, per shape and config, microseconds per call (minimum over the
passes), TFLOP/s over the visible keys, time / SDPA's and the cosine against
SDPA's fp32 result. --rounds N times the configs N times in turn (a GPU's
clocks drift over a run: compare within a round). --per-head-mask gives the
block mask a row per query head, which keeps grouped heads unpacked (with
LQ = 1, a decode step's).

usage: python3 prefill_chunk.py [--calls 50] [--passes 5] [--dtype float16] [--rounds 1]
           [--shapes B,HQ,HKV,LQ,LK;...] [--configs 'BLOCK_M=..,KV_SPLITS=2;...']
           [--per-head-mask]
"""

import argparse

import torch
import jitk
from torch.nn.attention.bias import causal_lower_right
from torch.nn.attention.flex_attention import create_block_mask

from decode_step import replay_us

DEFAULT_SHAPES = ("1,32,8,128,32768;1,32,8,256,32768;1,32,8,384,32768;1,32,8,512,32768;"
                  "1,32,8,1024,32768;1,8,1,512,32768;1,32,8,256,8192")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--dtype", default="float16")
    parser.add_argument("--shapes", default=DEFAULT_SHAPES)
    parser.add_argument("--configs", default="")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--per-head-mask", action="store_true")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    d = 128
    sdpa = torch.nn.functional.scaled_dot_product_attention
    print("# {} {}, d={}, causal at the end of the keys, graph replay of {} calls, {} passes"
          .format(torch.cuda.get_device_name(), args.dtype, d, args.calls, args.passes))
    print("{:>22} {:>56} {:>9} {:>8} {:>9} {:>10}".format(
        "B,HQ,HKV,LQ,LK", "config", "us", "TFLOP/s", "/sdpa", "cosine"))
    for text in args.shapes.split(";"):
        b, hq, hkv, lq, lk = (int(x) for x in text.split(","))
        off = lk - lq
        q = torch.randn(b, hq, lq, d, device="cuda", dtype=dtype)
        k, v = (torch.randn(b, hkv, lk, d, device="cuda", dtype=dtype) for _ in range(2))
        out = torch.empty_like(q)
        mask = create_block_mask(lambda b_, h_, qi, ki: ki <= qi + off, None,
                                 hq if args.per_head_mask else None, lq, lk, device="cuda",
                                 BLOCK_SIZE=128)
        bias = causal_lower_right(lq, lk)
        # K / V expanded to the query heads once, outside the timing, for the
        # reference; SDPA is timed with grouped heads where the bias takes
        # them, else on the expanded K / V.
        k_all, v_all = (t.repeat_interleave(hq // hkv, 1) for t in (k, v))
        want = sdpa(q.float(), k_all.float(), v_all.float(), attn_mask=bias)
        flops = 4.0 * b * hq * d * (lq * off + lq * (lq + 1) / 2)
        try:
            run_sdpa, label = lambda: sdpa(q, k, v, attn_mask=bias, enable_gqa=True), "gqa"
            run_sdpa()
        except Exception:  # this torch's bias takes no grouped heads
            run_sdpa, label = lambda: sdpa(q, k_all, v_all, attn_mask=bias), "expanded"
        sdpa_us = replay_us(run_sdpa, args.calls, args.passes)[0]
        print("{:>22} {:>56} {:>9.2f} {:>8.1f} {:>9.2f}".format(
            text, "sdpa (causal_lower_right, {} k / v)".format(label), sdpa_us,
            flops / sdpa_us / 1e6, 1.0))
        configs = [None] + [c for c in args.configs.split(";") if c]
        for config in configs * args.rounds:
            run = lambda: jitk.sparse_attn(q, k, v, mask, q_offset=off, out=out, config=config)
            try:
                run()
            except Exception as e:  # a config this shape or GPU refuses
                print("{:>22} {:>56} refused: {}".format(text, config, str(e).splitlines()[0]))
                continue
            cosine = jitk.parity(out, want, name="chunk", verbose=False)["cosine"]
            us = replay_us(run, args.calls, args.passes)[0]
            dims = dict(b=b, block=128, d=d, hkv=hkv, hq=hq, layout=1, lk=lk, lq=lq)
            if args.per_head_mask and hq > hkv and hq // hkv * lq <= 128:
                dims["mask_per_head"] = 1  # as jitk.sparse_attn sets it
            name = config or "default " + jitk.get_kernel(
                "sparse_attn", jitk.shape_key(jitk.dtype_name(q.dtype), dims)).config
            print("{:>22} {:>56} {:>9.2f} {:>8.1f} {:>9.2f} {:>10.7f}".format(
                text, name, us, flops / us / 1e6, us / sdpa_us, cosine))


if __name__ == "__main__":
    main()
