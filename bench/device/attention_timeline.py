#!/usr/bin/env python3
"""Summarizes the timelines of block 0 that SparseAttnGpuTest.DISABLED_Timing
writes with JITK_ATTN_TIMELINE (kernel templates compiled with
JITK_ATTN_TRACE; bench/device/attention_timeline.sh makes both).

Input lines: case, recorder (a warpgroup of block 0: the computing ones,
then the copying one), SM clock, event (kernel_templates/sparse_attn_trace.h).
Per case, in SM clocks, means over the query tiles of each computing
warpgroup:

  tile      from one query tile's start to the next one's
  to_mma    start to the first MMA issued (waits for Q, the turn and K)
  fill      start to the first softmax done (what comes before any P V)
  drain     the last P V issued to done (the next tile's block-mask reads under it)
  store     staging O into a K buffer (stage_rows)
  idle      share of block 0's time with no MMA of either computing
            warpgroup in flight (issued and not yet waited for)

then per warpgroup the steps from one event to the next that took the most
clocks ("4>5 x93 mean 1507 med 1570 p90 1641 (41%)": S ready to softmax done,
93 times, and the share of the warpgroup's time they took).

  python3 attention_timeline.py TIMELINE.tsv
"""

import collections
import sys

TILE_START, TURN, ISSUED, S_READY, SOFTMAX, PV_DONE, LAST_PV, STAGE_START, STAGED = range(1, 10)
FIRST_COPY_EVENT = 16  # events from here on are the copying thread's


def consumer_tiles(events):
    """[(clock, event)] of one computing warpgroup -> list of per-tile event lists."""
    tiles = []
    for clock, event in events:
        if event == TILE_START:
            tiles.append([])
        if tiles:
            tiles[-1].append((clock, event))
    return tiles


def mma_intervals(events):
    """(issued, waited) clock pairs of one computing warpgroup: a tile's first
    S = Q K^T until it is ready, every later issue (S and the P V before it)
    until that P V is done, the last P V until it is done."""
    intervals, issued, first = [], None, False
    for clock, event in events:
        if event == TILE_START:
            first = True
        elif event == ISSUED:
            if issued is not None:  # a wait not recorded: close at the next issue
                intervals.append((issued, clock))
            issued = clock
        elif issued is not None and (event in (PV_DONE, LAST_PV) or
                                     (event == S_READY and first)):
            intervals.append((issued, clock))
            issued, first = None, False
    return intervals


def covered(intervals):
    total, end = 0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def percentile(values, p):
    """The p-th percentile by rank (no interpolation): a wait that only some
    tiles pay shows as a p90 far above the median."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, len(ordered) * p // 100)]


def summarize(case, recorders):
    consumers = {r: ev for r, ev in recorders.items() if ev and ev[0][1] < FIRST_COPY_EVENT}
    rows = collections.defaultdict(list)
    intervals = []
    first = min(ev[0][0] for ev in recorders.values() if ev)
    last = max(ev[-1][0] for ev in recorders.values() if ev)
    for events in consumers.values():
        intervals += mma_intervals(events)
        tiles = consumer_tiles(events)
        for i, tile in enumerate(tiles):
            start = tile[0][0]
            clocks = collections.defaultdict(list)
            for clock, event in tile:
                clocks[event].append(clock)
            if i + 1 < len(tiles):
                rows["tile"].append(tiles[i + 1][0][0] - start)
            if clocks[ISSUED]:
                rows["to_mma"].append(clocks[ISSUED][0] - start)
                rows["key tiles"].append(len(clocks[ISSUED]) - 1)
            if clocks[SOFTMAX]:
                rows["fill"].append(clocks[SOFTMAX][0] - start)
            if clocks[LAST_PV] and clocks[ISSUED]:
                rows["drain"].append(clocks[LAST_PV][0] - clocks[ISSUED][-1])
            if clocks[STAGE_START] and clocks[STAGED]:
                rows["store"].append(clocks[STAGED][0] - clocks[STAGE_START][0])
    span = max(last - first, 1)
    idle = 1.0 - covered(intervals) / float(span)
    cells = ["{} {:.0f}".format(name, sum(v) / len(v)) for name, v in rows.items() if v]
    print("{}: {} query tiles over {} warpgroups, {} clocks; {}; idle {:.1%}".format(
        case, len(rows["to_mma"]), len(consumers), span, ", ".join(cells), idle))
    # Where each warpgroup's clocks go: from one event to the next, largest first.
    for recorder, events in sorted(recorders.items()):
        steps = collections.defaultdict(list)
        for (a, ea), (b, eb) in zip(events, events[1:]):
            steps[(ea, eb)].append(b - a)
        total = max(events[-1][0] - events[0][0], 1)
        top = sorted(steps.items(), key=lambda kv: -sum(kv[1]))[:8]
        print("  warpgroup {}: ".format(recorder) + "; ".join(
            "{}>{} x{} mean {:.0f} med {:.0f} p90 {:.0f} ({:.0%})".format(
                a, b, len(v), sum(v) / len(v), percentile(v, 50), percentile(v, 90),
                sum(v) / float(total))
            for (a, b), v in top))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cases = collections.OrderedDict()
    with open(sys.argv[1]) as f:
        for line in f:
            case, recorder, clock, event = line.rstrip("\n").split("\t")
            cases.setdefault(case, collections.defaultdict(list))[int(recorder)].append(
                (int(clock), int(event)))
    for case, recorders in cases.items():
        for events in recorders.values():
            events.sort()
        summarize(case, recorders)


if __name__ == "__main__":
    main()
