#!/usr/bin/env bash
# Configures and builds gpubench into ${GPUBENCH_BUILD_DIR:-build} (Release). Extra arguments go
# to cmake's configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=90 or -DGPUBENCH_WITH_CUDA=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${GPUBENCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build_dir" --parallel
