#!/usr/bin/env bash
# The GPU machine's jobs, from the repository root:
#   scripts/device.sh MODE [ARGS...]
# Modes:
#   build [CMAKE ARGS...]  on the build machine: the sm_90 Release build folder, with the Debian
#                          libraries a GPU machine may lack (Boost, SQLite, Google Benchmark) copied into its lib/
#                          and every binary finding them through an $ORIGIN RPATH, so that the
#                          folder can be carried to the GPU machine and run there as it is
#   pack                   on the build machine, after build: build-slim, the build folder
#                          without objects, static libraries and plotly.js, its binaries
#                          stripped, small enough to carry (64 MiB with the tree); on the GPU
#                          machine `mv build-slim build-device` puts it where its paths point
#   test                   every test of the build folder (the GPU ones run there)
#   study NAME...          the runner commands behind docs/studies/data/h100/: each study's
#                          results files, named as there with today's date. NAMEs: matmul sort
#                          logreg mandelbrot vecadd copy solvebak ann resources harness-cost
#   sweep [RUNNER ARGS...] the default sweep (runner with no arguments, or RUNNER ARGS), timed;
#                          on several GPUs also on GPU 0 alone, with what each measured and
#                          runner compare
#   before-after DIR [RUNNER ARGS...]
#                          the default sweep (or RUNNER ARGS) by DIR/bin/runner, an earlier
#                          build, then by this build, then by the earlier one again, on the
#                          same machine in one call: runner compare of each pair, and the
#                          median over the GPU entries of this build's compute median over
#                          the earlier build's (does a refactoring leave the measurements be?)
#   first-result           a fresh process to its first verified vecadd_cuda result beside a
#                          bare CUDA context, 5 times: every GPU visible, then GPU 0 alone
#   ncu                    Nsight Compute's readings of matmul_cuda and matmul_cublas at 8192, float32 and float64
#   bridge                 the embedded-Python bridge against CuPy's own events, three rounds
#   hold [held|unheld]     the held stream: GPU times with and without --no-stream-hold against
#                          cupyx.profiler.benchmark (bench/cupyx_benchmark.py), host time per call
#                          (untraced: CUPTI attached adds host time to each call); each entry's
#                          cupyx run by python3, then in the bridge's libpython
#                          (bench/embedded_python), right after the runner's. Each
#                          half takes over three minutes on an H200: name one to run it alone
#   sharding               on several GPUs (after devices): scale-out.md's mpirun recipe as written,
#                          the GPU backends as one MPI rank per GPU, at least two (each rank's
#                          wall time, and runner merge's table of each shard's predicted and
#                          actual wall time), planned by predictions and then by the first
#                          round's recorded wall times (--shard-costs), and one rank with
#                          --devices all
#   devices                on several GPUs: the GPU backends with --devices 0, then all, timed,
#                          each lane's share of the host, and each GPU's entries compared
#   allreduce              allreduce_nccl up to 4 GiB per GPU on every GPU: from one process,
#                          then one rank per GPU (mpirun, or the same variables without it),
#                          busbw and %PEAK of both side by side; then PyTorch's
#   hostile                the default sweep with the hostile test plugins on the plugin path
#   counted                --counters judged both ways: the CUDA corpus's honest and wrongly
#                          declared work (fixture_reduction, fixture_cuda_joins, BabelStream) at
#                          1e3, 1e6 and 1e8, each entry's flags and counted/declared figures in
#                          one table; then the default sweep without and with --counters, timed,
#                          with what each measured and how many series were counted
#   corpus                 the legal and broken test plugins (tests/fixtures) at 1e3, 1e6 and
#                          1e8, each entry's verdict in one table (scripts/verdicts.py)
# The build folder is ${GPUBENCH_BUILD_DIR:-build-device}; results and logs go to ${OUT:-out}.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() { awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; }
mode=${1:-}
[ -n "$mode" ] || { usage >&2; exit 2; }
shift
case $mode in -h|--help|help) usage; exit 0 ;; esac

build=${GPUBENCH_BUILD_DIR:-build-device}
out=${OUT:-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
# NVLink multicast stays off in every process (the GPU machines' notes say why).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
runner="$build/bin/runner"
today=$(date -u +%F)
# The studies' sweeps read each entry's hardware counters too (docs/profiling.md), after its samples.
quick="--min-time 0.2 --max-time 3 --counters"

need_runner() {
  [ -x "$runner" ] || { echo "device.sh: error: no runner at $runner (scripts/device.sh build)" >&2; exit 2; }
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
}

# The workload's plugins as --list names them: gpu W (CUDA device kind), cpp W (no Python backend).
gpu() { "$runner" --list | awk -v w="$1" '$2 == w && $4 == "cuda" {print $1}' | paste -sd, -; }
cpp() {
  "$runner" --list | awk -v w="$1" '$2 == w && $3 !~ /^(numpy|numba|numba_cuda|cupy)$/ {print $1}' \
    | paste -sd, -
}

# timed WHAT LOG COMMAND...: runs it with its output into LOG, then prints WHAT with its exit
# status and wall time.
timed() {
  local what=$1 log=$2 started rc
  shift 2
  started=$(date +%s.%N)
  "$@" > "$log" 2>&1
  rc=$?
  echo "$what: exit $rc, $(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $started}") s wall"
  return $rc
}

# measure NAME RUNNER-ARGS...: one results file $out/NAME-<today>.json, the console table beside it.
measure() {
  local name=$1
  shift
  "$runner" "$@" -o "$out/$name-$today.json" > "$out/$name-$today.txt" 2>&1
  echo "$name: exit $?, $(grep -E '^[0-9]+ ok' "$out/$name-$today.txt" | tr '\n' ' ')"
}

# every_backend NAME ALL_SIZES GPU_SIZES [OPTIONS...]: every backend at ALL_SIZES, then the GPU
# ones at GPU_SIZES resumed into the same file.
every_backend() {
  local name=$1 all=$2 large=$3 workload=${1%%-*}
  shift 3
  measure "$name" --plugin "${workload}_*" --sizes "$all" $quick "$@"
  [ -z "$large" ] || "$runner" --plugin "$(gpu "$workload")" --sizes "$large" $quick "$@" \
    --resume "$out/$name-$today.json" >> "$out/$name-$today.txt" 2>&1
}

# BabelStream, the device-only example, built from the SDK's headers alone (as a third party
# would) into the build folder, unless it has it already; prints that folder.
babelstream_example() {
  local examples="$build/examples"
  [ -f "$examples/example_babelstream_cuda.so" ] || { mkdir -p "$examples" &&
    nvcc -std=c++17 -O2 -arch=sm_90 -Xcompiler -fPIC -shared -cudart shared -Isdk/include \
      examples/babelstream/babelstream.cu -o "$examples/example_babelstream_cuda.so" >&2; }
  echo "$examples"
}

study() {
  case $1 in
    matmul)
      # float32: matmul_cuda's kernels (3xTF32, FFMA) and cuBLAS's math (SGEMM, fast TF32) side by side.
      local kernels="--param kernel=tensor,ffma --param math=fp32,tf32"
      measure matmul-gpu --plugin "$(gpu matmul)" --sizes 128,1024,4096,8192 $quick $kernels
      measure matmul-float64-gpu --plugin "$(gpu matmul)" --sizes 1024,4096,8192 $quick --param dtype=float64
      measure matmul-odd-and-16384 --plugin matmul_cuda,matmul_cublas --sizes 100,777,1000,4096,8192,16384 $quick $kernels
      measure matmul-float64-odd-and-16384 --plugin matmul_cuda,matmul_cublas --sizes 100,777,1000,4096,8192,16384 \
        $quick --param dtype=float64
      every_backend matmul-cpp-and-python 128,1024,4096 8192
      measure matmul-cpp --plugin "$(cpp matmul)" --sizes 128,1024,4096,8192
      measure matmul-float64-cpp --plugin "$(cpp matmul)" --sizes 1,7,33,1000,4096 --param dtype=float64 --min-time 0.1 ;;
    sort)
      measure sort-gpu --plugin "$(gpu sort)" --sizes 1e4,1e6,1e8,1e9 $quick
      measure sort-keys-gpu --plugin sort_cuda,sort_thrust,sort_cupy,sort_torch --sizes 1e8,1e9 $quick --param keys=float32,uint32,uint64
      measure sort-descending-gpu --plugin "$(gpu sort)" --sizes 1e8,1e9 $quick --param input=descending
      every_backend sort-cpp-and-python 1e4,1e6 1e8,1e9
      measure sort-cpu --plugin sort_naive,sort_omp --sizes '10..1e8:*10' --max-time 5
      measure sort-descending-cpu --plugin sort_naive,sort_omp --sizes 1e6,1e8 --param input=descending --max-time 5 ;;
    logreg)
      measure logreg-gpu --plugin "$(gpu logreg)" --sizes 600,6000,60000 $quick
      measure logreg-10steps-gpu --plugin "$(gpu logreg)" --sizes 60000 $quick --param iterations=10
      every_backend logreg-cpp-and-python 600,6000 ""
      "$runner" --plugin "$(gpu logreg)" --sizes 60000 $quick --param iterations=10 \
        --resume "$out/logreg-cpp-and-python-$today.json" >> "$out/logreg-cpp-and-python-$today.txt" 2>&1
      measure logreg-cpp --plugin "$(cpp logreg)" --sizes 60,600,6000,60000 --max-time 5 ;;
    mandelbrot)
      measure mandelbrot-gpu --plugin "$(gpu mandelbrot)" --sizes 256,1024,8192 $quick --param iterations=256
      every_backend mandelbrot-cpp-and-python 256,1024 ""
      "$runner" --plugin "$(gpu mandelbrot)" --sizes 1024,8192 $quick --param iterations=256 \
        --resume "$out/mandelbrot-cpp-and-python-$today.json" >> "$out/mandelbrot-cpp-and-python-$today.txt" 2>&1
      measure mandelbrot-cpp --plugin "$(cpp mandelbrot)" --sizes 1024,2048,4096,8192 --param iterations=256 --max-time 5 ;;
    vecadd)
      measure vecadd-cpp --plugin "$(cpp vecadd)" --sizes '1e3..1e9:*10'
      measure vecadd-increment-cpp --plugin "$(cpp vecadd)" --sizes '1e3..1e9:*10' --param variant=increment
      every_backend vecadd-cpp-and-python 1e3,1e6,1e8 1e9
      every_backend vecadd-increment-cpp-and-python 1e3,1e6,1e8 "" --param variant=increment ;;
    copy)
      measure copy-cpp --plugin 'copy_*' --sizes '1e3..1e9:*10' ;;
    solvebak)
      measure solvebak-cpp --plugin "$(cpp solvebak)" --sizes 1e4,1e5,1e6 --max-time 5
      measure solvebak-batch100-cpp --plugin "$(cpp solvebak)" --sizes 1e4,1e5,1e6 --param batch=100 --max-time 5
      every_backend solvebak-cpp-and-python 1e4,1e5 1e6 ;;
    ann)
      measure ann-gpu --plugin "$(gpu ann)" --sizes 1e4,1e5,1e6 $quick ;;
    resources)
      measure resources-matmul-vecadd --plugin "$(cpp matmul),$(cpp vecadd)" --sizes 256,1024,4096,1e6,1e8 \
        --max-time 3 --worker-per-entry
      measure resources-cublas-4096-200-samples --plugin matmul_cublas --sizes 4096 --min-samples 200 \
        --max-samples 200 --max-noise 0
      echo "the same SGEMM timed by bench/cublas_reference (must agree within 2%):"
      "$build/bin/cublas_reference" 4096 200 ;;
    harness-cost)
      measure harness-cost-n10 --plugin vecadd_cuda,copy_cuda,matmul_cublas --sizes 10
      OUT=$out bench/sweep_cost.sh "$build" | tee "$out/sweep-cost.txt"
      mv "$out/sweep-cost.json" "$out/harness-cost-summary-$today.json"
      mv "$out/default-sweep.json" "$out/harness-cost-default-sweep-$today.json" ;;
    *) echo "device.sh: error: unknown study '$1' (scripts/device.sh --help lists them)" >&2; exit 2 ;;
  esac
}

case $mode in
  build)
    # Release, sm_90; every binary looks in ../lib beside it, where the libraries go.
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      '-DCMAKE_BUILD_RPATH=$ORIGIN/../lib' "$@" || exit 1
    cmake --build "$build" --parallel || exit 1
    mkdir -p "$build/lib"
    find "$build/bin" -maxdepth 1 -type f -executable -exec ldd {} + 2>/dev/null \
      | awk '$3 ~ /^\// {print $3}' | grep -E 'libboost|libsqlite3|libbenchmark' | sort -u \
      | xargs -r cp -L -t "$build/lib/"
    echo "built $build; libraries beside it: $(ls "$build/lib" | grep -E 'boost|sqlite|benchmark' | paste -sd' ' -)" ;;
  pack)
    [ -d "$build" ] || { echo "device.sh: error: no $build (scripts/device.sh build)" >&2; exit 2; }
    rm -rf build-slim && mkdir build-slim
    (cd "$build" && find . \( -type f -o -type l \) ! -name '*.o' ! -name '*.a' ! -name '*.d' \
       ! -name '.ninja_*' ! -name plotly.js ! -path '*/CMakeFiles/*' ! -path './Testing/*' |
       tar -cf - -T -) | tar -xf - -C build-slim
    find build-slim -type f ! -name 'hostile_*' -exec sh -c \
      'head -c 4 "$1" | grep -q ELF && strip --strip-unneeded "$1"' _ {} \;
    echo "packed build-slim: $(du -sh build-slim | cut -f1)" ;;
  test)
    need_runner
    ctest --test-dir "$build" -j4 --output-on-failure > "$out/ctest.log" 2>&1
    grep -E "tests passed|tests failed|Failed|\*\*\*|Total Test|^SKIPPED" "$out/ctest.log" | head -40
    grep -h "not tested:" "$build"/Testing/Temporary/LastTest.log | sort -u | head ;;
  study)
    need_runner
    [ $# -gt 0 ] || { echo "device.sh: error: study needs a NAME (scripts/device.sh --help lists them)" >&2; exit 2; }
    for name in "$@"; do study "$name"; done ;;
  sweep)
    need_runner
    # The default sweep, timed: on every GPU, then (on a host with several) on GPU 0 alone, and
    # what each measured: every entry the one-GPU sweep measured must be measured on every GPU.
    # Both start alike: the host's peaks and each GPU's L2 measured before (once per machine),
    # the CPU references' cache emptied before each.
    "$runner" --plugin vecadd_naive,vecadd_cuda --devices all --sizes 10 -q -o "$out/warm-up.json" > /dev/null 2>&1
    references="${GPUBENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpubench}/references"
    rm -rf "$references"
    timed "default sweep" /dev/stdout measure default-sweep "$@"
    [ "$(nvidia-smi -L | grep -c '^GPU')" -lt 2 ] && exit 0
    rm -rf "$references"
    CUDA_VISIBLE_DEVICES=0 timed "default sweep on GPU 0 alone" /dev/stdout measure default-sweep-one-gpu "$@"
    "$(sdk/python/find-python.sh)" - "$out/default-sweep-one-gpu-$today.json" "$out/default-sweep-$today.json" <<'PY'
import json, sys
def read(path):
    doc = json.load(open(path))
    ok = {(e["plugin"], e["size"], e.get("params", "")) for e in doc["entries"] if e["status"] == "ok"}
    wall = max(e["harness"]["finished_after_s"] for e in doc["entries"] if "harness" in e)
    return doc, ok, wall
(one, one_ok, one_s), (every, every_ok, every_s) = read(sys.argv[1]), read(sys.argv[2])
gpus = len(every["options"].get("cuda_devices") or [0])
print(f"one GPU: {len(one_ok)} ok in {one_s:.1f} s; {gpus} GPUs: {len(every_ok)} ok in {every_s:.1f} s "
      f"({every_s / one_s:.2f} x the one-GPU time)")
missing = sorted(one_ok - every_ok)
print(f"measured on one GPU but not on {gpus}: {len(missing)}" + "".join(f"\n  {p} {s} {q}" for p, s, q in missing))
PY
    "$runner" compare "$out/default-sweep-one-gpu-$today.json" "$out/default-sweep-$today.json" | tail -1 ;;
  before-after)
    need_runner
    [ $# -gt 0 ] && [ -x "$1/bin/runner" ] || { echo "device.sh: error: before-after needs a build folder with bin/runner, got '${1:-}'" >&2; exit 2; }
    earlier="$1/bin/runner"
    shift
    # Earlier, this, earlier again: drift of the machine over the calls shows as the two
    # earlier sweeps' difference.
    for side in earlier this earlier-again; do
      side_runner=$runner
      [ "$side" = this ] || side_runner=$earlier
      timed "$side ($side_runner)" "$out/$side-$today.txt" "$side_runner" "$@" -o "$out/$side-$today.json"
    done
    for pair in "earlier this" "earlier earlier-again"; do
      set -- $pair
      echo "== runner compare $1 $2"
      "$runner" compare "$out/$1-$today.json" "$out/$2-$today.json" | grep -E "slower or failed|metrics worse|verified:"
    done
    "$(sdk/python/find-python.sh)" - "$out" "$today" <<'PY'
import json, statistics, sys
out, today = sys.argv[1:]
def medians(side):
    doc = json.load(open(f"{out}/{side}-{today}.json"))
    gpu = {p["name"] for p in doc["plugins"] if p.get("device_kind") == "cuda"}
    return {(e["plugin"], e["size"], e.get("params", "")): e["timing"]["compute"]["median"]
            for e in doc["entries"] if e["status"] == "ok" and e["plugin"] in gpu and "timing" in e}
earlier, this, again = medians("earlier"), medians("this"), medians("earlier-again")
for name, other in (("this build / earlier", this), ("earlier again / earlier", again)):
    ratios = [other[k] / earlier[k] for k in earlier.keys() & other.keys() if earlier[k] > 0]
    if ratios:
        print(f"{name}: median ratio {statistics.median(ratios):.4f} over {len(ratios)} GPU entries")
    else:
        print(f"{name}: no GPU entry measured on both sides")
PY
    ;;
  first-result)
    need_runner
    # A fresh process to its first verified vecadd_cuda result, and a bare CUDA context, with
    # every GPU visible and (on a host with several) with GPU 0 alone.
    echo "== every GPU visible ($(nvidia-smi -L | grep -c '^GPU'))"
    bench/first_result.sh "$build"
    [ "$(nvidia-smi -L | grep -c '^GPU')" -lt 2 ] && exit 0
    echo "== CUDA_VISIBLE_DEVICES=0"
    CUDA_VISIBLE_DEVICES=0 bench/first_result.sh "$build" ;;
  ncu)
    need_runner
    # The hand-written kernels beside cuBLAS's: the first GEMM kernel of each run (not the fills).
    profile="--in-process --sizes 8192 --warmup 0 --min-samples 1 --max-samples 1 --min-time 0 -q"
    for dtype in float32 float64; do
      for plugin in matmul_cuda matmul_cublas; do
        ncu --kernel-name regex:gemm --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
          --section Occupancy --section WarpStateStats --section InstructionStats --section LaunchStats \
          "$runner" $profile --plugin $plugin --param dtype=$dtype 2>&1 | tee "$out/ncu-$plugin-$dtype.txt" \
          | grep -E "^  [a-zA-Z_]|Duration|Throughput|Pipe|Ipc|Achieved Occ|Registers|Stall|Executed Instructions " | head -24
      done
    done ;;
  bridge)
    need_runner
    # Rounds alternate the runner and the bench, so that drift in the machine shows in both.
    python=$(sdk/python/find-python.sh cupy numpy)
    bench="$python -W ignore::DeprecationWarning bench/cupy_events.py --min-time 0.5 --min-samples 30"
    for round in 1 2 3; do
      "$runner" --plugin matmul_cupy --sizes 128,1024,4096,8192 --max-time 3 -q -o "$out/bridge-matmul-$round.json" > /dev/null 2>&1
      "$runner" --plugin vecadd_cupy --sizes 1e3,1e6,1e8,1e9 --max-time 3 -q -o "$out/bridge-vecadd-$round.json" > /dev/null 2>&1
      $bench --results "$out/bridge-matmul-$round.json" matmul:128 matmul:1024 matmul:4096 matmul:8192 2>&1 | tee -a "$out/cupy-events.txt"
      $bench --results "$out/bridge-vecadd-$round.json" vecadd:1000 vecadd:1000000 vecadd:100000000 vecadd:1000000000 2>&1 | tee -a "$out/cupy-events.txt"
    done ;;
  hold)
    need_runner
    python=$(sdk/python/find-python.sh cupy numpy)
    entries="vecadd_cupy:1000 vecadd_cupy:1000000 vecadd_cupy:100000000 matmul_cupy:128 \
      matmul_cupy:4096 logreg_cupy:60000 sort_cupy:100000000 mandelbrot_numba_cuda:4096 \
      vecadd_cuda:100000000 vecadd_numba_cuda:1000000 vecadd_numba_cuda:100000000 \
      vecadd_torch:1000000 vecadd_torch:100000000"
    halves=${*:-held unheld}
    for hold in $halves; do
      case $hold in held|unheld) ;; *) echo "device.sh: error: hold takes held or unheld, got '$hold'" >&2; exit 2 ;; esac
      flag=; [ $hold = unheld ] && flag=--no-stream-hold
      # Each entry's cupyx timings follow its runner measurement at once, under python3 and
      # then in the bridge's own libpython (embedded_python), so that a slow spell of a shared
      # host falls on both sides of a row, not on one half of the table.
      interpreters=("$python" "$build/bin/embedded_python cupy,numpy")
      tables=("$out/cupyx-$hold-python3.txt" "$out/cupyx-$hold-libpython.txt")
      : > "${tables[0]}"; : > "${tables[1]}"
      for entry in $entries; do
        results="$out/hold-$hold-${entry%%:*}-${entry#*:}.json"
        "$runner" --plugin "${entry%%:*}" --sizes "${entry#*:}" --max-time 3 -q $flag \
          -o "$results" > /dev/null 2>&1
        [[ $entry =~ ^[a-z]+_cuda: ]] && continue  # CUDA C++: no Python script for cupyx
        header=; [ -s "${tables[0]}" ] && header=--no-header
        for i in 0 1; do
          ${interpreters[i]} -W ignore::DeprecationWarning bench/cupyx_benchmark.py --min-time 1 \
            $header --results "$results" "$entry" >> "${tables[i]}" 2>&1
        done
      done
      echo "== gpubench ($hold) against cupyx.profiler.benchmark, entry by entry"
      cat "${tables[@]}" | tee -a "$out/cupyx-benchmark.txt"
    done ;;
  sharding)
    need_runner
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # 1. docs/scale-out.md's recipe as written (one size is above matmul's range: skipped), with
    # build/ where the recipe looks for the runner.
    [ -e build ] || ln -s "$build" build
    rm -f results/shard-*.json
    timed "the recipe: mpirun -np 2" "$out/mpirun-recipe.log" \
      mpirun -np 2 --bind-to none sh -c 'exec build/bin/runner --shard auto --device $OMPI_COMM_WORLD_LOCAL_RANK \
      --plugin "matmul_cu*,sort_cu*,vecadd_cu*" --sizes 1e6,4096 -o results/shard-$OMPI_COMM_WORLD_RANK.json' 
    "$runner" merge results/shard-*.json -o "$out/mpirun-recipe-merged.json" | tail -1; echo "merge: exit $?"
    # 2. The GPU backends in one shard per GPU (at least two: on one GPU they share it), one
    # rank each: each rank's wall time, and merge's table of each shard's predicted and actual.
    # Planned by predictions, then again by the first round's recorded wall times.
    plugins='*_cuda,*_cublas,*_thrust,*_cupy'
    gpus=$(nvidia-smi -L | grep -c '^GPU')
    [ "$gpus" -ge 1 ] || { echo "device.sh: error: sharding needs a GPU (nvidia-smi -L lists none)" >&2; exit 2; }
    ranks=$(( gpus > 2 ? gpus : 2 ))
    predicted="$out/multi-gpu-mpirun-$ranks-shards-merged-$today.json"
    for round in predicted recorded; do
      costs=; [ $round = recorded ] && costs="--shard-costs $predicted"
      echo "== $ranks shards of the GPU backends on $gpus GPUs, planned by $round costs"
      rm -f "$out"/gpu-shard-*.json
      mpirun -np "$ranks" --bind-to none sh -c "s=\$(date +%s.%N); $runner --shard auto --device \$((OMPI_COMM_WORLD_LOCAL_RANK % $gpus)) \
        --plugin '$plugins' --max-time 0.5 --quiet $costs -o $out/gpu-shard-\$OMPI_COMM_WORLD_RANK.json > $out/gpu-shard-$round-\$OMPI_COMM_WORLD_RANK.log 2>&1; \
        rc=\$?; echo rank \$OMPI_COMM_WORLD_RANK: exit \$rc, \$(awk \"BEGIN {print \$(date +%s.%N) - \$s}\") s wall; exit \$rc" | sort -n -k2
      echo "mpirun -np $ranks: exit ${PIPESTATUS[0]}"
      merged="$out/multi-gpu-mpirun-$ranks-shards-$round-merged-$today.json"
      [ $round = predicted ] && merged=$predicted
      "$runner" merge "$out"/gpu-shard-*.json -o "$merged" | grep -v '^  [^ ]'; echo "merge: exit ${PIPESTATUS[0]}"
    done
    # 3. After `devices` (whose one-GPU sweep it is compared with): one rank taking every GPU.
    [ -f "$out/gpu-sweep-devices-0.json" ] || exit 0
    timed "mpirun -np 1 --devices all" "$out/one-rank-devices-all.log" mpirun -np 1 --bind-to none \
      "$runner" --shard auto --devices all --plugin "$plugins" --max-time 0.5 --quiet -o "$out/one-rank-devices-all.json"
    "$runner" compare "$out/gpu-sweep-devices-0.json" "$out/one-rank-devices-all.json" 2>/dev/null | tail -1 ;;
  devices)
    need_runner
    # The GPU backends, C++ and Python, at their default sizes (--max-time 0.5) with --devices 0,
    # then all: the wall-time ratio, each lane's share of the host, and runner compare of each
    # GPU's entries against the one-GPU run.
    for devices in 0 all; do
      # Each run computes its own CPU references (plugins.md): neither starts with the other's.
      rm -rf "${GPUBENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpubench}/references"
      timed "--devices $devices" "$out/gpu-sweep-devices-$devices.log" "$runner" \
        --plugin '*_cuda,*_cublas,*_thrust,*_cupy' --max-time 0.5 --quiet --devices $devices \
        -o "$out/gpu-sweep-devices-$devices.json"
    done
    "$(sdk/python/find-python.sh)" - "$out/gpu-sweep-devices-all.json" <<'PY'
import json, sys
shares = {}
for e in json.load(open(sys.argv[1]))["entries"]:
    s = e.get("host_share")
    if s and e.get("devices"):
        shares.setdefault(e["devices"][0]["index"], set()).add((s["cpus"], s["threads"], s.get("basis", "")))
for device, seen in sorted(shares.items()):
    print(f"GPU {device}'s lane:", "; ".join(f"CPUs {c}, {t} threads ({b})" for c, t, b in sorted(seen)))
PY
    for device in $(seq 0 $(( $(nvidia-smi -L | grep -c '^GPU') - 1 ))); do
      echo "== the entries GPU $device measured against --devices 0"
      "$runner" compare "$out/gpu-sweep-devices-0.json" "$out/gpu-sweep-devices-all.json" --candidate-device "$device" | tail -2
    done ;;
  allreduce)
    need_runner
    # allreduce_nccl from 4 KiB to 4 GiB per GPU on every GPU: from one process (--devices all),
    # then as one rank per GPU (docs/scale-out.md), then PyTorch's on the same GPUs.
    gpus=$(nvidia-smi -L | grep -c '^GPU')
    sizes=4096,8388608,67108864,268435456,1073741824,4294967296
    measure "multi-gpu-allreduce-nccl-${gpus}gpu" --plugin allreduce_nccl --devices all \
      --sizes $sizes --min-time 0.5 --max-time 5
    ranked="multi-gpu-allreduce-nccl-${gpus}ranks"
    rank_command='exec '"$runner"' --device $OMPI_COMM_WORLD_LOCAL_RANK --plugin allreduce_nccl --sizes '"$sizes"' \
      --min-samples 10 -o '"$out/$ranked"'-rank-$OMPI_COMM_WORLD_RANK-'"$today"'.json > '"$out/$ranked"'-rank-$OMPI_COMM_WORLD_RANK-'"$today"'.txt 2>&1'
    if command -v mpirun > /dev/null; then
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timed "mpirun -np $gpus (one rank per GPU)" \
        "$out/$ranked-mpirun.log" mpirun -np "$gpus" --bind-to none sh -c "$rank_command"
    else
      # No MPI here: the ranks started as mpirun starts them, with its variables (the runner
      # reads nothing else of MPI).
      started=$(date +%s.%N)
      for ((r = 0; r < gpus; r++)); do
        OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$gpus OMPI_COMM_WORLD_LOCAL_RANK=$r \
          OMPI_COMM_WORLD_LOCAL_SIZE=$gpus OMPI_MCA_ess_base_jobid="device-sh-$$" sh -c "$rank_command" &
      done
      wait
      echo "$gpus ranks without mpirun (its variables set by hand): $(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $started}") s wall"
    fi
    "$(sdk/python/find-python.sh)" - "$out/multi-gpu-allreduce-nccl-${gpus}gpu-$today.json" \
      "$out/$ranked-rank-0-$today.json" <<'PY'
import json, sys
def rows(path):
    try:
        document = json.load(open(path))
    except OSError as error:
        sys.exit(f"device.sh: {error}")
    return {e["size"]: e for e in document["entries"]}
one, ranks = rows(sys.argv[1]), rows(sys.argv[2])
def cell(e):
    if not e or e["status"] != "ok":
        return f"{(e or {}).get('status', 'missing'):>28}"
    t = e["throughput"]
    peak = f"{t['percent_of_peak']:.0f}% {t.get('peak_level', '')}" if "percent_of_peak" in t else "-"
    return f"{t['gbytes_per_s']:9.1f} {peak:>11} {e['timing']['compute']['method']:>6}"
print(f"{'':>14}  {'one process (--devices all)':^28}  {'one rank per GPU (rank 0)':^28}")
print(f"{'bytes per GPU':>14}  {'busbw GB/s  %PEAK  timed':^28}  {'busbw GB/s  %PEAK  timed':^28}")
for size in sorted(set(one) | set(ranks)):
    print(f"{size:>14}  {cell(one.get(size))}  {cell(ranks.get(size))}")
PY
    "$(sdk/python/find-python.sh torch)" bench/torch_allreduce.py --sizes 8MiB,64MiB,256MiB,1GiB,4GiB --json "$out/torch-allreduce-${gpus}gpu.json" ;;
  hostile)
    need_runner
    hostile=$(mktemp -d)  # 0700: a folder only we can write
    cp "$build"/tests/hostile/*.so "$hostile"/
    GPUBENCH_PLUGIN_PATH=$hostile "$runner" --scan-timeout 5 -o "$out/hostile-sweep.json" > "$out/hostile-sweep.txt" 2>&1
    echo "runner exit status $?"
    grep -E "^note:|^[0-9]+ ok, " "$out/hostile-sweep.txt"
    GPUBENCH_PLUGIN_PATH=$hostile "$runner" --list --scan-timeout 5 | sed -n '/^Refused:/,$p'
    rm -rf "$hostile" ;;
  counted)
    need_runner
    fixtures="--plugin-dir $build/tests/fixtures"
    examples=$(babelstream_example)
    for spec in "reduction fixture_reduction declare=*" \
                "joins fixture_cuda_joins way=events,graph,host_func,cublas,overclaimed" \
                "babelstream example_babelstream_cuda dtype=float32,float64"; do
      set -f; set -- $spec; set +f
      "$runner" $fixtures --plugin-dir "$examples" --plugin "$2" --sizes 1e3,1e6,1e8 --param "$3" \
        --counters --max-time 1 -o "$out/counted-$1.json" > "$out/counted-$1.txt" 2>&1
    done
    "$runner" --plugin vecadd_naive,vecadd_cuda --sizes 10 -q -o "$out/warm-up.json" > /dev/null 2>&1
    timed "default sweep" /dev/stdout measure default-sweep
    timed "default sweep --counters" /dev/stdout measure default-sweep-counted --counters
    python3 scripts/counted_summary.py "$out"/counted-*.json -- "$out/default-sweep-$today.json" \
      "$out/default-sweep-counted-$today.json" ;;
  corpus)
    need_runner
    fixtures="--plugin-dir $build/tests/fixtures --plugin-dir $build/tests/python_fixtures"
    examples=$(babelstream_example)
    corpus() {  # NAME PLUGIN [AXIS]
      "$runner" $fixtures --plugin-dir "$examples" --plugin "$2" --sizes 1e3,1e6,1e8 \
        ${3:+--param "$3"} --max-time 1 -o "$out/corpus-$1.json" > "$out/corpus-$1.txt" 2>&1
    }
    corpus escapes fixture_cuda_escapes escape=none,own_stream,per_thread,legacy,memoised,declared
    corpus joins fixture_cuda_joins way=events,graph,graph_unjoined,host_func,cublas,overclaimed
    corpus torch pyfixture_torch_side_stream way=joined,unjoined
    corpus device-only example_babelstream_cuda dtype=float32,float64
    corpus cpu fixture_cpu_escapes escape=none,joined,omp,async,detached,helper
    python3 scripts/verdicts.py "$out"/corpus-*.json ;;
  *) echo "device.sh: error: unknown mode '$mode'" >&2; usage >&2; exit 2 ;;
esac
