#!/usr/bin/env bash
# README command 2: install what is missing, build, run every test (ctest). GPU tests are
# reported as skipped, with the reason, on a machine without a usable GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh "$@"
build_dir=${GPUBENCH_BUILD_DIR:-build}
log="$build_dir/ctest-output.log"
status=0
# Two at a time, as the sanitized run: the tests that time things or hold a GPU are marked to
# run alone (RUN_SERIAL, a lock), and the rest wait on processes more than they compute.
ctest --test-dir "$build_dir" -j2 --output-on-failure 2>&1 | tee "$log" || status=$?
# ctest hides the output of skipped tests: say why each was skipped, then repeat the verdict.
grep -h "^SKIPPED:" "$build_dir"/Testing/Temporary/LastTest*.log 2>/dev/null | sort -u || true
grep -E "tests passed|tests failed" "$log" | tail -n 1
exit "$status"
