#!/usr/bin/env python3
"""Plots of a side_by_side.py run (matplotlib, no display needed).

  attention.png   TFLOP/s over computed blocks against sequence length, one
                  panel per dtype, one line per (implementation, mask)
  scaled_add.png  TB/s against n, one panel per dtype, jitk and torch.add

  python3 bench/device/plot.py OUT_DIR      (reads OUT_DIR/*.csv, writes the PNGs there)
"""

import csv
import os
import sys


def read(path):
    if not os.path.isfile(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def title_of(out_dir):
    import json
    try:
        with open(os.path.join(out_dir, "header.json")) as f:
            h = json.load(f)
        return "{} · driver {} · {} · commit {}".format(h["gpu"], h["driver"], h["date"][:10],
                                                        h["commit"][:10])
    except (OSError, ValueError, KeyError):
        return ""


def plot_attention(plt, rows, path, title):
    rows = [r for r in rows if r.get("tflops")]
    if not rows:
        print("plot: no attention rows, no {}".format(path))
        return False
    dtypes = [d for d in ("fp16", "bf16", "fp32") if any(r["dtype"] == d for r in rows)]
    fig, axes = plt.subplots(1, len(dtypes), figsize=(6.5 * len(dtypes), 4.8), squeeze=False)
    styles = {"jitk": "-", "flex": "--", "sdpa": ":"}
    for ax, dtype in zip(axes[0], dtypes):
        series = {}
        for r in rows:
            if r["dtype"] == dtype:
                series.setdefault((r["impl"], r["mask"]), []).append(
                    (int(r["L"]), float(r["tflops"])))
        for (impl, mask), points in sorted(series.items()):
            points.sort()
            label = "SDPA dense causal" if impl == "sdpa" else "{} {}".format(impl, mask)
            ax.plot([p[0] for p in points], [p[1] for p in points], styles.get(impl, "-"),
                    marker="o", label=label)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("sequence length L (B=4, H=32, D=128)")
        ax.set_ylabel("TFLOP/s over computed blocks")
        ax.set_ylim(bottom=0)
        ax.set_title("sparse attention, {}".format(dtype))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    print("plot: wrote {}".format(path))
    return True


def plot_scaled_add(plt, rows, path, title):
    if not rows:
        print("plot: no scaled_add rows, no {}".format(path))
        return False
    dtypes = [d for d in ("fp32", "fp16", "bf16") if any(r["dtype"] == d for r in rows)]
    fig, axes = plt.subplots(1, len(dtypes), figsize=(5 * len(dtypes), 4), squeeze=False)
    for ax, dtype in zip(axes[0], dtypes):
        points = sorted((int(r["n"]), float(r["jitk_tbs"]), float(r["torch_tbs"]))
                        for r in rows if r["dtype"] == dtype)
        ax.plot([p[0] for p in points], [p[1] for p in points], "-o", label="jitk.scaled_add")
        ax.plot([p[0] for p in points], [p[2] for p in points], "--o", label="torch.add")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("TB/s (bytes read + written)")
        ax.set_ylim(bottom=0)
        ax.set_title("scaled_add, {}".format(dtype))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    print("plot: wrote {}".format(path))
    return True


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    out_dir = argv[1]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot: matplotlib is not installed; no plots")
        return 0
    title = title_of(out_dir)
    plot_attention(plt, read(os.path.join(out_dir, "attention.csv")),
                   os.path.join(out_dir, "attention.png"), title)
    plot_scaled_add(plt, read(os.path.join(out_dir, "scaled_add.csv")),
                    os.path.join(out_dir, "scaled_add.png"), title)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
