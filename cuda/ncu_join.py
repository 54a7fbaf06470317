#!/usr/bin/env python3
"""Join an ncu raw-page CSV with warpsim_twins' manifest lines.

usage: ncu_join.py RAW_CSV PROGRAM_STDOUT METRIC_LIST OUT_CSV

RAW_CSV is `ncu --import X.ncu-rep --csv --page raw` (row 1 names, row 2 units, then one row per
profiled launch, in launch order).  PROGRAM_STDOUT holds the lines `@@ kernel|size|params|ok`
printed by warpsim_twins, one per launch, in the same order.  Rows are appended to OUT_CSV
(the header is written when the file is new):
    kernel,size,params,launch,<metric...>,verify,ncu_kernel
`launch` is ncu's launch ID within that process.
"""
import csv
import os
import sys


def clean(v):
    v = v.strip()
    if v.replace(",", "").replace(".", "", 1).lstrip("-").isdigit():
        return v.replace(",", "")
    return v


def main():
    raw_csv, stdout_path, metric_list, out_csv = sys.argv[1:5]
    metrics = [m for m in metric_list.split(",") if m]
    with open(raw_csv, newline="") as f:
        rows = [r for r in csv.reader(f)]
    # skip any lines ncu printed before the header
    start = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    header, units, data = rows[start], rows[start + 1], rows[start + 2:]
    data = [r for r in data if len(r) == len(header)]
    col = {name: i for i, name in enumerate(header)}
    manifest = []
    with open(stdout_path, errors="replace") as f:
        for line in f:
            if line.startswith("@@ "):
                manifest.append(line[3:].rstrip("\n").split("|"))
    if len(manifest) != len(data):
        print(f"WARNING {raw_csv}: {len(manifest)} manifest lines but {len(data)} profiled launches",
              file=sys.stderr)
    new = not os.path.exists(out_csv)
    with open(out_csv, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["kernel", "size", "params", "launch"] + metrics + ["verify", "ncu_kernel"])
        for (kernel, size, params, verify), r in zip(manifest, data):
            vals = [clean(r[col[m]]) if m in col else "" for m in metrics]
            w.writerow([kernel, size, params, r[col["ID"]]] + vals +
                       [verify, r[col.get("Kernel Name", 0)]])
    missing = [m for m in metrics if m not in col]
    if missing:
        print(f"WARNING {raw_csv}: metrics missing from the raw page: {missing}", file=sys.stderr)
    print(f"{raw_csv}: {min(len(manifest), len(data))} rows; units: " +
          ", ".join(f"{m}={units[col[m]]}" for m in metrics if m in col))


if __name__ == "__main__":
    main()
