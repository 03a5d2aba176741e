#!/usr/bin/env python3
"""One table from SparseAttnGpuTest.DISABLED_Timing result files.

    timing_table.py DIR PASSES NAME...

reads DIR/timing_<NAME>_<pass>.txt (lines "case | config[ (default)] | ms | TFLOP/s | ...")
and prints a Markdown table: per case and config (the default marked *), "ms / TFLOP/s" of
every variant in every pass, and "-" where a variant has no row (its config did not build).
"""
import sys


def rows_of(path):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return {}
    rows = {}
    for line in lines:
        fields = [x.strip() for x in line.split("|")]
        if len(fields) < 4:
            continue
        config = fields[1].replace(" (default)", "*")
        rows[(fields[0], config)] = f"{fields[2].split()[0]} / {fields[3].split()[0]}"
    return rows


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    out, passes, names = argv[1], int(argv[2]), argv[3:]
    columns, table = [], {}
    for i in range(1, passes + 1):
        for name in names:
            column = f"{name} {i}"
            columns.append(column)
            for key, value in rows_of(f"{out}/timing_{name}_{i}.txt").items():
                table.setdefault(key, {})[column] = value
    print("| case | config | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for (case, config), values in table.items():
        print(f"| {case} | {config} | " + " | ".join(values.get(c, "-") for c in columns) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
