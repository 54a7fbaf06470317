#!/usr/bin/env bash
# Build warpsim_twins and profile every catalogue kernel with Nsight Compute.
#
#   bash cuda/profile.sh OUTDIR        (OUTDIR defaults to cuda/out)
#
# Writes into OUTDIR (at most 8 files, so the device tool can return them all):
#   h100.csv        one row per (kernel, size, launch): kernel,size,params,launch,<metrics>,verify,ncu_kernel
#   h100_repeat.csv the same again (only with REPEAT=1)
#   sass.txt        cuobjdump -sass of the binary (demangled, encodings and NOPs removed;
#                   the full dump is in raw.tar.gz)
#   env.txt         nvcc/ncu versions, nvidia-smi, the ptxas -v build log, metric validation
#   verify.txt      every configuration run once without the profiler (ok/FAIL lines)
#   ncu_log.txt     stdout/stderr of the ncu runs
#   raw.tar.gz      the .ncu-rep reports and the raw-page CSVs (with units) per family
# Needs: nvcc, ncu, cuobjdump (CUDA 12/13), python3 (standard library only), an sm_90 GPU.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/warpsim_twins.XXXXXX)
BIN=$WORK/warpsim_twins
ARCH=${ARCH:-sm_90}
T0=$(date +%s)
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*; do
  [ -d "$d" ] && PATH="$PATH:$d"
done
export PATH
log() { echo "[profile.sh +$(( $(date +%s) - T0 ))s] $*" | tee -a "$OUT/env.txt" >&2; }

: > "$OUT/env.txt"
{
  echo "== date"; date -u
  echo "== nvcc"; which nvcc; nvcc --version
  echo "== ncu"; which ncu; ncu --version
  echo "== nvidia-smi"; nvidia-smi
} >> "$OUT/env.txt" 2>&1

log "building ($ARCH)"
if ! nvcc -O3 -arch=$ARCH -Xptxas -v -o "$BIN" "$HERE/kernels.cu" >> "$OUT/env.txt" 2>&1; then
  log "BUILD FAILED"; exit 1
fi
cuobjdump -sass "$BIN" > "$WORK/sass_full.txt" 2>&1
# readable copy: demangled names, no encodings, no padding NOPs
{ command -v c++filt >/dev/null && c++filt < "$WORK/sass_full.txt" || cat "$WORK/sass_full.txt"; } |
  sed -E '/^ *\/\* 0x[0-9a-f]+ \*\/ *$/d; s@ */\* 0x[0-9a-f]+ \*/ *$@@; /NOP;/d' > "$OUT/sass.txt"

# ------------------------------------------------------------------ configurations
# Each family runs in one process; every configuration launches exactly one kernel.
R=(reduce-interleaved reduce-interleaved-strided reduce-sequential reduce-first-add
   reduce-unroll-warp reduce-unrolled reduce-multi reduce-shuffle)
T=(transpose-copy transpose-copy-strided transpose-naive transpose-copy-shared
   transpose-coalesced transpose-no-conflicts transpose-diagonal)

FAM_reductions=()
for n in 1048576 4194307; do for k in "${R[@]}"; do FAM_reductions+=(: $k --n $n --block 256); done; done
FAM_transposes=()
for n in 1024 1000; do for k in "${T[@]}"; do FAM_transposes+=(: $k --n $n); done; done
FAM_memory=()
for k in read-offset write-offset read-offset-unroll4; do
  for off in 0 11 128; do FAM_memory+=(: $k --n 1048576 --block 512 --offset $off); done
done
for off in 1 2 4 8 16; do FAM_memory+=(: read-offset --n 1048576 --block 512 --offset $off); done
FAM_memory+=(: aos --n 1048576 --block 512 : soa --n 1048576 --block 512)
# The second size: 2^22 + 3 elements (not a multiple of the block or a warp).
for k in read-offset write-offset read-offset-unroll4; do
  for off in 0 11; do FAM_memory+=(: $k --n 4194307 --block 512 --offset $off); done
done
FAM_memory+=(: aos --n 4194307 --block 512 : soa --n 4194307 --block 512)
FAM_divergence=(: vector-add --n 1003 --block 64 : vector-add --n 1048576 --block 256
                : rgb-to-gray --width 76 --height 62 : rgb-to-gray --width 1920 --height 1080
                : branch-by-lane --n 8192 --block 256 : branch-by-warp --n 8192 --block 256
                : branch-by-lane --n 1048576 --block 256 : branch-by-warp --n 1048576 --block 256)
S=(smem-pattern --n 256 --block 256 --iters 1000)
FAM_smem=()
for c in 1 2 4 8 16 32 33; do FAM_smem+=(: "${S[@]}" --pattern stride --c $c --elem-bytes 4 --op load); done
for c in 1 2 4; do FAM_smem+=(: "${S[@]}" --pattern stride --c $c --elem-bytes 8 --op load); done
for c in 1 2; do FAM_smem+=(: "${S[@]}" --pattern stride --c $c --elem-bytes 16 --op load); done
for c in 1 4 32; do FAM_smem+=(: "${S[@]}" --pattern modulo --c $c --elem-bytes 4 --op load); done
FAM_smem+=(: "${S[@]}" --pattern offset --c 1 --elem-bytes 4 --op load
           : "${S[@]}" --pattern offset --c 5 --elem-bytes 4 --op load
           : "${S[@]}" --pattern offset --c 1 --elem-bytes 8 --op load
           : "${S[@]}" --pattern offset --c 1 --elem-bytes 16 --op load)
for c in 1 2 32 33; do FAM_smem+=(: "${S[@]}" --pattern stride --c $c --elem-bytes 4 --op store); done
# The second size: one block of 128 threads.
S2=(smem-pattern --n 128 --block 128 --iters 1000)
for c in 1 2 8 32; do FAM_smem+=(: "${S2[@]}" --pattern stride --c $c --elem-bytes 4 --op load); done
FAM_smem+=(: "${S2[@]}" --pattern stride --c 2 --elem-bytes 8 --op load
           : "${S2[@]}" --pattern stride --c 1 --elem-bytes 16 --op load
           : "${S2[@]}" --pattern modulo --c 4 --elem-bytes 4 --op store)
for c in 1 2; do FAM_smem+=(: "${S[@]}" --pattern stride --c $c --elem-bytes 8 --op store); done
FAM_smem+=(: "${S[@]}" --pattern stride --c 1 --elem-bytes 16 --op store
           : "${S[@]}" --pattern modulo --c 4 --elem-bytes 4 --op store)
FAMILIES=(reductions transposes memory divergence smem)

# ------------------------------------------------------------------ plain verification run
: > "$OUT/verify.txt"
for fam in "${FAMILIES[@]}"; do
  eval "args=(\"\${FAM_$fam[@]}\")"
  echo "== $fam" >> "$OUT/verify.txt"
  "$BIN" "${args[@]}" >> "$OUT/verify.txt" 2>&1; echo "rc=$?" >> "$OUT/verify.txt"
done
log "verification: $(grep -c '|ok$' "$OUT/verify.txt") ok, $(grep -c '|FAIL$' "$OUT/verify.txt") FAIL"

# ------------------------------------------------------------------ metrics
METRICS=(
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  smsp__sass_inst_executed_op_global_ld.sum
  smsp__sass_inst_executed_op_global_st.sum
  smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct
  smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct
  smsp__sass_inst_executed_op_shared_ld.sum
  smsp__sass_inst_executed_op_shared_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  smsp__sass_average_branch_targets_threads_uniform.pct
  smsp__sass_branch_targets.sum
  smsp__sass_branch_targets_threads_uniform.sum
  smsp__sass_branch_targets_threads_divergent.sum
  smsp__thread_inst_executed_per_inst_executed.ratio
  smsp__inst_executed.sum
  smsp__thread_inst_executed.sum
  smsp__thread_inst_executed_pred_on.sum
  sm__warps_launched.sum
  launch__grid_size
  launch__block_size
  launch__registers_per_thread
)
NCU=(ncu --clock-control none --print-units base)
probe=(vector-add --n 1003 --block 64)
join_metrics() { local IFS=,; echo "$*"; }
echo "== metric probe" >> "$OUT/env.txt"
if ! "${NCU[@]}" --metrics "$(join_metrics "${METRICS[@]}")" "$BIN" "${probe[@]}" >> "$OUT/env.txt" 2>&1; then
  log "full metric list rejected; validating one by one"
  GOOD=()
  for m in "${METRICS[@]}"; do
    if "${NCU[@]}" --metrics "$m" "$BIN" "${probe[@]}" > "$WORK/probe.txt" 2>&1 && ! grep -q '==ERROR==' "$WORK/probe.txt"; then
      GOOD+=("$m")
    else
      echo "DROPPED metric $m: $(grep -m1 ERROR "$WORK/probe.txt")" >> "$OUT/env.txt"
    fi
  done
  METRICS=("${GOOD[@]}")
fi
MLIST=$(join_metrics "${METRICS[@]}")
echo "== metrics used: $MLIST" >> "$OUT/env.txt"
log "metrics: ${#METRICS[@]}"

# ------------------------------------------------------------------ profile
# REPEAT=1 profiles everything a second time into h100_repeat.csv (the shared-memory wavefront
# and bank-conflict counters of many-block launches are not deterministic; see README.md).
: > "$OUT/ncu_log.txt"
profile_all() {  # $1 = csv name, $2 = file suffix
  local CSV=$OUT/$1 sfx=$2
  rm -f "$CSV"
  for fam in "${FAMILIES[@]}"; do
    eval "args=(\"\${FAM_$fam[@]}\")"
    log "ncu $fam$sfx"
    echo "===== $fam$sfx" >> "$OUT/ncu_log.txt"
    "${NCU[@]}" --metrics "$MLIST" --export "$WORK/$fam$sfx" --force-overwrite "$BIN" "${args[@]}" \
        > "$WORK/$fam$sfx.stdout" 2>> "$OUT/ncu_log.txt"
    echo "rc=$?" >> "$OUT/ncu_log.txt"
    cat "$WORK/$fam$sfx.stdout" >> "$OUT/ncu_log.txt"
    ncu --print-units base --import "$WORK/$fam$sfx.ncu-rep" --csv --page raw > "$WORK/$fam$sfx.raw.csv" 2>> "$OUT/ncu_log.txt"
    python3 "$HERE/ncu_join.py" "$WORK/$fam$sfx.raw.csv" "$WORK/$fam$sfx.stdout" "$MLIST" "$CSV" >> "$OUT/ncu_log.txt" 2>&1
  done
  log "done: $(($(wc -l < "$CSV") - 1)) rows in $1"
}
profile_all h100.csv ""
if [ "${REPEAT:-0}" = 1 ]; then profile_all h100_repeat.csv _repeat; fi
(cd "$WORK" && tar czf "$OUT/raw.tar.gz" *.ncu-rep *.raw.csv *.stdout sass_full.txt 2>/dev/null)
