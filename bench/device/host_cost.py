"""Per-call cost of jitk.sparse_attn and SDPA on a launch-bound shape (causal,
B=1 H=1 L=256 D=128 fp16), and of jitk.scaled_add and torch.add (n=1024 fp32,
out given), called from Python and replayed from a CUDA graph.

Eager: passes of `--calls` calls, the wall time per call (host-bound: the GPU
finishes each kernel before the next launch is ready). Graph: `--calls` calls
captured into one graph, replayed once per pass: what remains is the GPU's own
time per kernel plus the graph's per-node launch. Prints the minimum and the
median over the passes, one line per (way, kernel).

usage: python3 host_cost.py [--calls 2000] [--passes 7] [--profile FILE]
"""

import argparse
import statistics
import time

import torch
import jitk
from torch.nn.attention.flex_attention import create_block_mask


def per_call_us(fn, calls, passes):
    samples = []
    for _ in range(passes):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return min(samples), statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--profile", help="write a cProfile of the eager jitk calls here")
    args = parser.parse_args()

    l, d = 256, 128
    q, k, v = (torch.randn(1, 1, l, d, device="cuda", dtype=torch.float16) for _ in range(3))
    out = torch.empty_like(q)
    mask = create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, l, l, device="cuda",
                             BLOCK_SIZE=128)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    x, y = torch.randn(1024, device="cuda"), torch.randn(1024, device="cuda")
    added = torch.empty_like(x)
    kernels = {
        "jitk": lambda: jitk.sparse_attn(q, k, v, mask, mask="causal", out=out),
        "sdpa": lambda: sdpa(q, k, v, is_causal=True),
        "jitk_add": lambda: jitk.scaled_add(x, y, 0.5, out=added),
        "torch_add": lambda: torch.add(x, y, alpha=0.5, out=added),
    }

    def eager(fn):
        def run():
            for _ in range(args.calls):
                fn()
        return run

    graphs = {}
    for name, fn in kernels.items():
        for _ in range(20):  # compile, load and warm up outside the capture
            fn()
        torch.cuda.synchronize()
        graphs[name] = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graphs[name]):
            for _ in range(args.calls):
                fn()
    torch.cuda.synchronize()

    want = sdpa(q.float(), k.float(), v.float(), is_causal=True)
    out.zero_()
    graphs["jitk"].replay()
    torch.cuda.synchronize()
    replay_err = (out.float() - want).abs().max().item()

    for way in ("eager", "graph"):
        for name, fn in kernels.items():
            run = eager(fn) if way == "eager" else graphs[name].replay
            low, median = per_call_us(run, args.calls, args.passes)
            extra = "  max_abs_err {:.2e}".format(replay_err) if (way, name) == ("graph",
                                                                                 "jitk") else ""
            print("{} {} us/call min {:.2f} median {:.2f}{}".format(way, name, low, median,
                                                                    extra))

    if args.profile:
        import cProfile
        import pstats
        profiler = cProfile.Profile()
        profiler.enable()
        eager(kernels["jitk"])()
        torch.cuda.synchronize()
        profiler.disable()
        with open(args.profile, "w") as f:
            pstats.Stats(profiler, stream=f).sort_stats("tottime").print_stats(40)


if __name__ == "__main__":
    main()
