#!/usr/bin/env python3
"""Fit the timing model's DRAM run cost on the panel sweep; print the error of every choice.

    cargo build --release && python3 scripts/dram_runs_fit.py

`cuda/timing/page_order.cu` copies the same matrix with its tiles visited in panels of 1 to all
tiles wide (cuda/timing/results/page_order*.csv: the H100's medians, two runs). Only the order
changes, so the times relative to row order say what short runs cost DRAM. This script runs the
program once under `warpsim cu` (one launch per configuration), rebuilds each launch's predicted
time from its JSON parts with the DRAM part scaled by the share `Timing::scatter` gives for
candidate (cost per halving, run bytes), and prints the mean absolute error of the relative
times for each candidate, best first, and for the values now in `src/predict.rs` (CURRENT
below: keep the two in step). Standard library only.
"""
import csv
import json
import math
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "cuda", "timing", "results")
WARPSIM = os.path.join(ROOT, "target", "release", "warpsim")
CURRENT = (0.015, 65536.0)
COSTS = [0.005 * k for k in range(1, 9)]
RUN_BYTES = [4096.0 * 2 ** k for k in range(7)]
BANDWIDTH = ("dram_ms", "l2_ms", "l1_ms", "shared_ms", "atomics_ms", "issue_ms")


def scatter(granules_by_run, cost, run_bytes):
    """`Timing::scatter` of src/predict.rs."""
    total = sum(granules_by_run)
    if total == 0:
        return 0.0
    paid = sum(n * max(0.0, math.log2(run_bytes / (64.0 * 2 ** (k + 0.5))))
               for k, n in enumerate(granules_by_run))
    return cost * paid / total


def predicted_us(launch, cost, run_bytes):
    p = launch["predicted"]
    dram = p["dram_ms"] / (1.0 + p["dram_scatter"]) * (
        1.0 + scatter(p["wave_granules_by_run"], cost, run_bytes))
    bandwidth = max([dram] + [p[k] for k in BANDWIDTH if k != "dram_ms"])
    return (p["launch_ms"] + math.hypot(bandwidth, p["latency_ms"])) * 1e3


def main():
    measured = {}
    for name in ("page_order.csv", "page_order_repeat.csv"):
        with open(os.path.join(RESULTS, name)) as f:
            for row in csv.DictReader(f):
                key = (int(row["size"]), int(row["panel"]))
                measured.setdefault(key, []).append(float(row["median_us"]))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "launches.json")
        subprocess.run([WARPSIM, "cu", os.path.join(ROOT, "cuda", "timing", "page_order.cu"),
                        "--json-out", out, "--", "once"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            launches = json.load(f)["launches"]
    # The program launches the sizes in order, each with panel 0, then 1, 2, 4, … all tiles.
    keys = sorted(measured, key=lambda k: (k[0], k[1] if k[1] else -1))
    assert len(keys) == len(launches), (len(keys), len(launches))
    mean = {k: sum(v) / len(v) for k, v in measured.items()}

    def error(cost, run_bytes):
        pred = {k: predicted_us(l, cost, run_bytes) for k, l in zip(keys, launches)}
        errs = []
        for k in keys:
            row = (k[0], k[0] // 32)  # row order: a panel as wide as the matrix
            errs.append(abs(pred[k] / pred[row] - mean[k] / mean[row]) * 100)
        return sum(errs) / len(errs)

    # The current values must reproduce warpsim's own predictions.
    for k, l in zip(keys, launches):
        assert abs(predicted_us(l, *CURRENT) - l["predicted_ms"] * 1e3) < 0.05, k
    fits = sorted((error(c, b), c, b) for c in COSTS for b in RUN_BYTES)
    print("mean |error| of times relative to row order, %; cost per halving, run bytes:")
    for e, c, b in fits[:8]:
        print(f"  {e:.2f}  {c:.3f}  {b:.0f}")
    print(f"current {CURRENT}: {error(*CURRENT):.2f}; no cost: {error(0.0, 1.0):.2f}")


if __name__ == "__main__":
    main()
