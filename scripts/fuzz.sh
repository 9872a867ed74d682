#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (AddressSanitizer and UBSan, CUDA off)
# into ${GPUBENCH_FUZZ_BUILD_DIR:-build-fuzz} and runs each for a bounded time: $1 seconds
# (default 60). Each starts from its committed corpus (tests/fuzz/corpus/<target>, read only)
# and writes what it finds to build-fuzz/found/<target>; a crash leaves its input there as
# crash-* and fails the script: add that input to the corpus with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build_dir=${GPUBENCH_FUZZ_BUILD_DIR:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGPUBENCH_WITH_CUDA=OFF -DGPUBENCH_BUILD_BENCHMARKS=OFF -DGPUBENCH_FUZZ=ON \
  -DGPUBENCH_SANITIZE=address,undefined -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link \
  -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link > /dev/null
cmake --build "$build_dir" --target gpubench_fuzz_targets
build_dir=$(realpath "$build_dir")
# One target per core at a time: each still has its full $seconds, and CI's 2 cores halve
# the wall time.
at_once=${GPUBENCH_FUZZ_JOBS:-$(nproc)}
failed="$build_dir/found/failed"
mkdir -p "$build_dir/found" && rm -f "$failed"
fuzz_one() {
  local target=$1 corpus=$2
  local found="$build_dir/found/$target" log="$build_dir/found/$target.log"
  mkdir -p "$found"
  if (cd "$found" && "$build_dir/bin/${target}_fuzz" -max_total_time="$seconds" \
        -rss_limit_mb=1024 -timeout=10 -print_final_stats=1 . "$corpus" > "$log" 2>&1); then
    echo "fuzz: $target for ${seconds} s: $(grep -E "^stat::(number_of_executed_units|new_units_added)" "$log" | tr '\n' ' ')"
  else
    echo "fuzz: $target FAILED: see $log and $found/crash-*" >&2
    tail -n 30 "$log" >&2
    echo "$target" >> "$failed"
  fi
}
for corpus in "$PWD"/tests/fuzz/corpus/*/; do
  while (( $(jobs -rp | wc -l) >= at_once )); do wait -n; done
  fuzz_one "$(basename "$corpus")" "$corpus" &
done
wait
[[ ! -e "$failed" ]]
