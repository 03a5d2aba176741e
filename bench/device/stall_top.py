"""Top instructions by warp-stall samples in an Nsight Compute SASS page CSV.

  python3 stall_top.py sass.csv [N]
Prints the total, then per instruction: its index, samples, share, source
text and the three largest stall reasons.
"""
import csv
import sys


def main():
    path, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f)]
    head_at = next(i for i, r in enumerate(rows) if "Source" in r)
    head, body = rows[head_at], rows[head_at + 1:]
    col = {name: i for i, name in enumerate(head)}
    total_col = next(i for i, n in enumerate(head)
                     if n.startswith("Warp Stall Sampling (All"))
    reason_cols = [i for i, n in enumerate(head)
                   if n.lower().startswith("stall_") or n.startswith("smsp__pcsamp")]

    def num(r, i):
        try:
            return float(r[i].replace(",", ""))
        except (ValueError, IndexError):
            return 0.0

    total = sum(num(r, total_col) for r in body)
    print(f"total samples {total:.0f} instrs {len(body)}")
    ranked = sorted(range(len(body)), key=lambda k: -num(body[k], total_col))[:top]
    for k in sorted(ranked):
        r = body[k]
        s = num(r, total_col)
        reasons = sorted(((num(r, i), head[i]) for i in reason_cols), reverse=True)[:3]
        text = r[col["Source"]][:60]
        print(f"{k:5d} {s:7.0f} {100 * s / total:5.1f}% {text:60s} "
              + ", ".join(f"{n}={v:.0f}" for v, n in reasons if v > 0))


if __name__ == "__main__":
    main()
