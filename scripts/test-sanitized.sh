#!/usr/bin/env bash
# CI's second build: everything (core, runner, plugins, fixtures, tests) with AddressSanitizer
# and UBSan, CUDA off, into ${GPUBENCH_SANITIZE_BUILD_DIR:-build-asan}, and the test suite under
# it but for the tests of scripts, documents and the package (labels script and package: their
# verdict does not depend on how the C++ was compiled, and the default build runs them). Any
# sanitizer report fails the process that made it, so the test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${GPUBENCH_SANITIZE_BUILD_DIR:-build-asan}
# -Og -g1: instrumented code compiles slowly (UBSan's checks at -O1 double a file's compile
# time; -Og takes 40% less), and the reports still name functions and lines.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-Og -g1" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-Og -g1" \
  -DGPUBENCH_WITH_CUDA=OFF -DGPUBENCH_BUILD_BENCHMARKS=OFF \
  -DGPUBENCH_SANITIZE=address,undefined > /dev/null
cmake --build "$build_dir" --parallel
# Leak detection stays on: what the plugins (loaded with RTLD_NODELETE) and OpenMP's thread
# pools hold at exit is still reachable, so not reported; tests/sanitizer/lsan.supp names
# only the leak a fixture makes on purpose.
# allocator_may_return_null: an impossible malloc() returns NULL, as without the sanitizer,
# so that a plugin's "out of memory" path is what is tested.
export ASAN_OPTIONS="halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer/lsan.supp:print_suppressions=0"
ctest --test-dir "$build_dir" --output-on-failure -j2 -LE "^(script|package)$"
