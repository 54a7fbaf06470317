#!/usr/bin/env python3
"""Print a compact Markdown table of an h100.csv written by profile.sh.

usage: summarize.py results/h100.csv > results/summary.md

Columns: global load/store requests and sectors, shared load/store wavefronts and bank
conflicts, branch targets / divergent, branch efficiency (ncu prints 0 when a kernel has no
branch at all; shown here as "-"), warp execution efficiency = thread_inst/inst/32 in %, and the same counting only threads whose
predicate is on (nvprof's warp_nonpred_execution_efficiency).
"""
import csv
import sys

COLS = [
    ("ld req", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    ("ld sec", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("st req", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    ("st sec", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
    ("ld eff%", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"),
    ("st eff%", "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"),
    ("LDS", "smsp__sass_inst_executed_op_shared_ld.sum"),
    ("LDS wf", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("LDS cf", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("STS", "smsp__sass_inst_executed_op_shared_st.sum"),
    ("STS wf", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    ("STS cf", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    ("br", "smsp__sass_branch_targets.sum"),
    ("div br", "smsp__sass_branch_targets_threads_divergent.sum"),
]
BR_EFF = "smsp__sass_average_branch_targets_threads_uniform.pct"
WEE = "smsp__thread_inst_executed_per_inst_executed.ratio"
WARPS = "sm__warps_launched.sum"
PRED_ON = "smsp__thread_inst_executed_pred_on.sum"
INST = "smsp__inst_executed.sum"


def short_params(p):
    drop = ("grid=", "iters=", "smem-bytes=", "block=32x8", "block=16x16")
    return ",".join(x for x in p.split(",") if not x.startswith(drop))


def main():
    rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else "h100.csv")))
    head = ["kernel", "size", "params", "warps"] + [c for c, _ in COLS] + ["br eff%", "warp eff%", "pred-on eff%"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        br = float(r.get("smsp__sass_branch_targets.sum") or 0)
        bre = "-" if br == 0 else f"{float(r[BR_EFF]):.2f}"
        wee = f"{100 * float(r[WEE]) / 32:.2f}"
        vals = [r["kernel"], r["size"], short_params(r["params"]), r[WARPS]]
        pon = "" if not r.get(PRED_ON) else f"{100 * float(r[PRED_ON]) / (32 * float(r[INST])):.2f}"
        vals += [r.get(m, "") for _, m in COLS] + [bre, wee, pon]
        print("| " + " | ".join(vals) + " |")


if __name__ == "__main__":
    main()
