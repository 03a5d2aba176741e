"""The DRAM floor of an attention launch: the GPU time of elementwise torch
kernels that move the bytes attention cannot avoid (Q, K and V read once, O
written once), at the headline shape.

A block-sparse launch at low density does a fifth of causal's FLOPs on the
same bytes, so its time cannot fall below this floor; prints, per kernel,
milliseconds (minimum and median over the passes of a CUDA graph's replay,
decode_step.replay_us), GB moved and TB/s.

usage: python3 memory_floor.py [--b 4] [--h 32] [--l 4096] [--d 128]
           [--dtype float16] [--calls 20] [--passes 7]
"""

import argparse

import torch

from decode_step import replay_us


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--b", type=int, default=4)
    parser.add_argument("--h", type=int, default=32)
    parser.add_argument("--l", type=int, default=4096)
    parser.add_argument("--d", type=int, default=128)
    parser.add_argument("--dtype", default="float16")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--passes", type=int, default=7)
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    q, k, v = (torch.randn(args.b, args.h, args.l, args.d, device="cuda", dtype=dtype)
               for _ in range(3))
    o = torch.empty_like(q)
    tensor_gb = q.numel() * q.element_size() / 1e9
    kernels = [
        ("O = Q + K * V (Q, K, V in, O out)", lambda: torch.addcmul(q, k, v, out=o), 4),
        ("O = Q (Q in, O out)", lambda: o.copy_(q), 2),
    ]
    print("# {} {}, B={} H={} L={} d={}, graph replay of {} calls, {} passes".format(
        torch.cuda.get_device_name(), args.dtype, args.b, args.h, args.l, args.d, args.calls,
        args.passes))
    print("{:>36} {:>8} {:>8} {:>6} {:>6}".format("kernel", "min_ms", "med_ms", "GB", "TB/s"))
    for name, fn, tensors in kernels:
        best, median = (us / 1e3 for us in replay_us(fn, args.calls, args.passes))
        gb = tensors * tensor_gb
        print("{:>36} {:>8.4f} {:>8.4f} {:>6.3f} {:>6.2f}".format(name, best, median, gb, gb / best))


if __name__ == "__main__":
    main()
