"""GPU time of one decode step (a few query rows against a long K / V cache):
jitk.sparse_attn over a dense block mask against SDPA with grouped heads.

Each kernel's calls are captured into a CUDA graph and replayed, so the
figures are the GPU's time per call without the host's launch cost. Prints,
per shape, microseconds per call (minimum and median over the passes), the
K / V bytes read per microsecond (GB/s, each K / V element once) and
jitk / SDPA time; the parity of the two outputs is checked first. With
--eager, also the wall time per call of the same calls made one after
another from Python (the larger of the host's and the GPU's cost).

With --window W, a sliding-window model's step: the LQ queries at the last
keys (q_offset = LK - LQ) see W keys each, their own and those before,
through the sliding_window_causal element mask, against SDPA over the keys
any of them sees (that mask written out where LQ > 1); GB/s count those
keys' K / V. --per-head-mask gives the block mask one row
per query head (the same blocks), which keeps the grouped heads unpacked.

--configs times pinned configs too ('BLOCK_M=64,...;...'), a row each after
the default's, each row then naming its config.

usage: python3 decode_step.py [--calls 200] [--passes 7] [--dtype float16]
           [--shapes B,HQ,HKV,LQ,LK;...] [--window W] [--per-head-mask]
           [--layers N] [--configs CONFIG;...]
"""

import argparse
import itertools
import statistics
import time

import torch
import jitk
from torch.nn.attention.flex_attention import create_block_mask

DEFAULT_SHAPES = "1,32,8,1,4096;1,32,8,1,32768;8,32,8,1,8192;4,32,32,1,16384;1,32,8,4,32768"


def replay_us(fn, calls, passes):
    for _ in range(3):  # compile, load, warm up outside the capture
        fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    samples = []
    for _ in range(passes):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end) * 1e3 / calls)
    return min(samples), statistics.median(samples)


def in_turn(fns):
    """One callable that calls fns in turn, one per call."""
    turn = itertools.cycle(fns)
    return lambda: next(turn)()


def eager_us(fn, calls, passes):
    samples = []
    for _ in range(passes):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return min(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--dtype", default="float16")
    parser.add_argument("--shapes", default=DEFAULT_SHAPES)
    parser.add_argument("--eager", action="store_true")
    parser.add_argument("--window", type=int, default=0)
    parser.add_argument("--per-head-mask", action="store_true")
    parser.add_argument("--configs", default="")
    parser.add_argument("--layers", type=int, default=1)
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    d = 128
    print("# {} {}, d={}, graph replay of {} calls, {} passes{}{}{}".format(
        torch.cuda.get_device_name(), args.dtype, d, args.calls, args.passes,
        ", window {}".format(args.window) if args.window else "",
        ", a block-mask row per head" if args.per_head_mask else "",
        ", {} K / V caches in turn".format(args.layers) if args.layers > 1 else ""))
    print("{:>20} {:>10} {:>10} {:>9} {:>9} {:>10} {:>9}".format(
        "B,HQ,HKV,LQ,LK", "jitk_us", "sdpa_us", "jitk_GB/s", "sdpa_GB/s", "jitk/sdpa", "cosine"))
    for text in args.shapes.split(";"):
        b, hq, hkv, lq, lk = (int(x) for x in text.split(","))
        q = torch.randn(b, hq, lq, d, device="cuda", dtype=dtype)
        caches = [tuple(torch.randn(b, hkv, lk, d, device="cuda", dtype=dtype) for _ in range(2))
                  for _ in range(args.layers)]
        out = torch.empty_like(q)
        window, offset = args.window, lk - lq
        visible = ((lambda b_, h_, qi, ki: (ki <= offset + qi) & (offset + qi - ki < window))
                   if window else (lambda b_, h_, qi, ki: qi >= 0))
        mask = create_block_mask(visible, None, hq if args.per_head_mask else None, lq, lk,
                                 device="cuda", BLOCK_SIZE=128)
        sdpa = torch.nn.functional.scaled_dot_product_attention
        if window:
            mask_args = dict(mask="sliding_window_causal", window=window, q_offset=offset)
            first = max(0, offset - window + 1)
            pos = offset + torch.arange(lq, device="cuda")[:, None]
            key = first + torch.arange(lk - first, device="cuda")[None, :]
            seen = ((key <= pos) & (pos - key < window)) if lq > 1 else None
        else:
            mask_args = dict(mask="none")
            first, seen = 0, None
        seen_kv = [(k[:, :, first:], v[:, :, first:]) for k, v in caches]
        run_sdpa = in_turn([lambda k=k, v=v: sdpa(q, k, v, attn_mask=seen, enable_gqa=True)
                            for k, v in seen_kv])
        k_seen, v_seen = seen_kv[0]
        want = sdpa(q.float(), k_seen.float(), v_seen.float(), attn_mask=seen, enable_gqa=True)
        sdpa_us = replay_us(run_sdpa, args.calls, args.passes)
        sdpa_eager_us = eager_us(run_sdpa, args.calls, args.passes) if args.eager else None
        kv_bytes = 2 * b * hkv * k_seen.shape[2] * d * q.element_size()
        for config in [None] + [c for c in args.configs.split(";") if c]:
            calls = [lambda k=k, v=v, config=config: jitk.sparse_attn(q, k, v, mask, out=out,
                                                                      config=config, **mask_args)
                     for k, v in caches]
            run_jitk = in_turn(calls)
            name = config or "default"
            try:
                calls[0]()
            except Exception as e:  # a config this shape or GPU refuses
                print("{:>20} {} refused: {}".format(text, name, str(e).split("\n")[0]))
                continue
            parity = jitk.parity(out, want, name="decode", verbose=False)
            jitk_us = replay_us(run_jitk, args.calls, args.passes)
            print("{:>20} {:>10.2f} {:>10.2f} {:>9.0f} {:>9.0f} {:>10.2f} {:>9.7f}   (median {:.2f} / {:.2f}){}".format(
                text, jitk_us[0], sdpa_us[0], kv_bytes / jitk_us[0] / 1e3, kv_bytes / sdpa_us[0] / 1e3,
                jitk_us[0] / sdpa_us[0], parity["cosine"], jitk_us[1], sdpa_us[1],
                "  " + name if args.configs else ""))
            if args.eager:
                print("{:>20} eager: jitk {:.2f} us, sdpa {:.2f} us per call{}".format(
                    text, eager_us(run_jitk, args.calls, args.passes), sdpa_eager_us,
                    " (" + name + ")" if args.configs else ""))


if __name__ == "__main__":
    main()
