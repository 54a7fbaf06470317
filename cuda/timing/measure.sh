#!/usr/bin/env bash
# Time every configuration of timing.cu on this machine's GPU with CUDA events.
#
#   bash cuda/timing/measure.sh OUTDIR     (writes OUTDIR/h100.csv, h100_repeat.csv, env.txt)
#
# Each configuration: 3 warm-up launches, then the median of 20 launches, each between two
# events. The whole set runs twice (the second run shows how much the medians move).
# Needs nvcc (CUDA 12/13) and an sm_90 GPU; about a minute on an H100.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/out}
mkdir -p "$OUT"
for d in /usr/local/cuda/bin; do [ -d "$d" ] && PATH="$PATH:$d"; done
BIN=$(mktemp -d)/timing
{
  echo "== date"; date -u
  echo "== nvcc"; nvcc --version | grep -i release
  echo "== nvidia-smi"; nvidia-smi
  echo "== clocks"; nvidia-smi -q -d CLOCK
} > "$OUT/env.txt" 2>&1
nvcc -O3 -arch=${ARCH:-sm_90} -o "$BIN" "$HERE/timing.cu" >> "$OUT/env.txt" 2>&1
"$BIN" > "$OUT/h100.csv" 2>> "$OUT/env.txt"
"$BIN" > "$OUT/h100_repeat.csv" 2>> "$OUT/env.txt"
tail -n 2 "$OUT/env.txt"
