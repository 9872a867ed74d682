#!/usr/bin/env bash
# Issue 12: the GPU halves of the committed H100 study sweeps (sort, logreg, solvebak, vecadd,
# copy) re-run with this tree, each compared with its committed file (runner compare; the
# CPU entries show as "only in baseline"). --max-time 3 keeps it inside one device call.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
out=${OUT:-out}
mkdir -p "$out"
runner="$build/bin/runner"
rerun() {  # name plugins sizes [options...]
  local name=$1 plugins=$2 sizes=$3
  shift 3
  "$runner" -q --plugin "$plugins" --sizes "$sizes" --max-time 3 -o "$out/$name.json" "$@" >/dev/null 2>&1
  echo "== $name"
  "$runner" compare "results/h100-$name-2026-11-23.json" "$out/$name.json" | grep -v "only in baseline"
}
{
  rerun sort-gpu 'sort_cuda,sort_thrust' '10..1e9:*10'
  rerun logreg 'logreg_cuda,logreg_cublas' '60,600,6000,60000'
  rerun solvebak 'solvebak_cuda,solvebak_cublas' '1e4,1e5,1e6'
  rerun vecadd 'vecadd_cuda,vecadd_cublas' '1e3..1e9:*10'
  rerun copy 'copy_cuda' '1e3..1e9:*10'
} 2>&1 | tee "$out/studies-compare.txt"
