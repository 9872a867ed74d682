# Sourced by the scripts/device-issue*.sh scripts, from the repository root, as
#   source scripts/device-common.sh BUILD_FOLDER MODE DEFAULT_MODE
# Sets build (default build-device), mode, out (${OUT:-out}, created) and runner; puts the
# CUDA tools on PATH; keeps NVLink multicast off in every process (the machines' notes say
# why); lists the GPUs. run_ctest DIR runs every test under DIR (ctest -j4; the GPU tests
# take the GPU one at a time) into $out/ctest.log and prints the summary.
build=${1:-build-device}
mode=${2:-$3}
out=${OUT:-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L
runner="$build/bin/runner"

run_ctest() {
  ctest --test-dir "$1" -j4 --output-on-failure > "$out/ctest.log" 2>&1
  grep -E "tests passed|tests failed|Failed|\*\*\*|Total Test|^SKIPPED" "$out/ctest.log" | head -40
  grep -h "not tested:" "$1"/Testing/Temporary/LastTest.log | sort -u | head
}

# report_and_plot NAME: a report (.md) beside every results file in $out, and the plots of
# them all in $out/plots, named NAME-<workload>.
report_and_plot() {
  for f in "$out"/*.json; do
    "$runner" report "$f" --output "${f%.json}.md" > /dev/null 2>&1
  done
  python3 runner/plot_results.py "$out"/*.json --name "$1" --out-dir "$out/plots" > /dev/null 2>&1 \
    || echo "plots failed"
}
