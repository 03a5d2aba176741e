#!/usr/bin/env python3
"""How long a causal sparse_attn launch takes against its ideal, by tile order.

A list-scheduling model of the non-persistent grid (no GPU needed): SLOTS
blocks per SM; blocks start in launch order as slots free up; a block's
work is its key tiles plus a fixed cost; an SM runs its blocks at one tile
per unit of time when full (each of SLOTS blocks at 1 / SLOTS) and each
block at LONE when not full (with two slots: a lone block). The ideal is
the total work spread evenly over the SMs. It models the tail only, not
memory traffic. Orders (TileOrder in
kernel_templates/sparse_attn_params.h): head-major (one head after another,
each head's longest query tile first) and rank-major (per batch, the query
tiles rank by rank, longest first, all heads side by side; the persistent
walk ranks every batch together).

  bench/launch_order_sim.py [--sms 132] [--slots 2] [--lone 0.65] [--fixed 1]
"""
import argparse


def launch_time(work, sms, slots, lone):
    """Time until the last block ends; work[i] is block i's, in launch order."""
    running = [[] for _ in range(sms)]
    nxt = 0
    for sm in range(sms):
        while len(running[sm]) < slots and nxt < len(work):
            running[sm].append(work[nxt])
            nxt += 1
    now = 0.0
    while any(running):
        rates = [1.0 / slots if len(r) == slots else lone for r in running]
        step = min(min(r) / rate for r, rate in zip(running, rates) if r)
        now += step
        for sm, r in enumerate(running):
            left = [w - step * rates[sm] for w in r]
            running[sm] = [w for w in left if w > 1e-9]
            while len(running[sm]) < slots and nxt < len(work):
                running[sm].append(work[nxt])
                nxt += 1
    return now


def causal_work(batch, heads, q_tiles, rank_major, fixed):
    """Work per block in launch order; rank 0 is the last, longest query tile,
    two 64-key tiles per 128 keys (the mma.sync default, 128x64)."""
    def length(rank):
        return (q_tiles - rank) * 2 + fixed
    if rank_major:
        return [length(r) for _ in range(batch) for r in range(q_tiles) for _ in range(heads)]
    return [length(r) for _ in range(batch) for _ in range(heads) for r in range(q_tiles)]


def persistent_deal(work, blocks):
    """The warp-specialized engine's persistent walk (QueryTileWalk): items
    dealt in rounds of `blocks`, every other round reversed; returns the
    busiest block's work over the mean. With a shared work counter instead
    (each block takes the next item when it is free) the result would be
    list scheduling with one slot per SM."""
    load = [0.0] * blocks
    for i, w in enumerate(work):
        r, k = divmod(i, blocks)
        load[k if r % 2 == 0 else blocks - 1 - k] += w
    return max(load) / (sum(load) / blocks)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--slots", type=int, default=2, help="resident blocks per SM")
    ap.add_argument("--lone", type=float, default=0.65, help="a lone block's speed, tiles per unit")
    ap.add_argument("--fixed", type=float, default=1.0, help="fixed cost per block, in tiles")
    args = ap.parse_args()
    resident = args.sms * args.slots
    print("| batch | heads | L | waves | head-major | rank-major |")
    print("|---|---|---|---|---|---|")
    for batch, heads in ((4, 32), (1, 32), (8, 16), (2, 64)):
        for length in (1024, 4096, 8192, 16384):
            q_tiles = length // 128
            row = []
            for rank_major in (False, True):
                work = causal_work(batch, heads, q_tiles, rank_major, args.fixed)
                ideal = sum(work) / args.sms
                row.append("%.3f" % (launch_time(work, args.sms, args.slots, args.lone) / ideal))
            waves = batch * heads * q_tiles / resident
            print("| %d | %d | %d | %.1f | %s |" % (batch, heads, length, waves, " | ".join(row)))
    print()
    print("Persistent grid, one block per SM, 128-key tiles (the warp-specialized engine),")
    print("causal from the first key; the busiest block over the ideal (the mean or the")
    print("longest tile, whichever is more):")
    print()
    print("| batch | heads | L | head-major rounds | rank-major rounds | rank-major, work counter |")
    print("|---|---|---|---|---|---|")
    for batch, heads, length in ((4, 32, 4096), (4, 32, 16384), (1, 8, 2560), (1, 16, 2560),
                                 (1, 32, 1280), (2, 8, 2560), (1, 8, 16384), (1, 32, 4096)):
        q_tiles = length // 128
        row = []
        for rank_major in (False, True):
            work = [w // 2 for w in causal_work(batch, heads, q_tiles, rank_major, 0)]
            if rank_major:  # the walk ranks every batch together
                work = sorted(work, reverse=True)
            work = [w + args.fixed for w in work]
            ideal = max(max(work), sum(work) / args.sms)
            row.append(persistent_deal(work, args.sms) * sum(work) / args.sms / ideal)
        counter = launch_time(work, args.sms, 1, 1.0) / ideal
        print("| %d | %d | %d | %.3f | %.3f | %.3f |" % (batch, heads, length, row[0], row[1], counter))

if __name__ == "__main__":
    main()
