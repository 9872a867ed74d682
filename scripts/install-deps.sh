#!/usr/bin/env bash
# Installs the Debian 12 packages gpubench needs, only those missing. The CUDA toolkit is
# optional and not installed here: with /usr/local/cuda present the CUDA plugins are built too.
set -euo pipefail
packages=(cmake ninja-build g++ git pkg-config
          libboost-dev libboost-program-options-dev nlohmann-json3-dev catch2 libbenchmark-dev
          python3 python3-matplotlib
          python3-dev python3-numpy python3-numba  # the Python bridge's numpy and numba backends
          python3-jsonschema      # tests: core/base/results_schema.json against the built-in validator
          clang libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer (Debian 12's clang is 14)
          zlib1g-dev              # logreg's gzipped IDX files, the HTML report's packed plotly.js, gzipped results files
          libsqlite3-dev          # runner history: the results database
          python3-plotly          # the HTML report embeds its plotly.js
          chromium                # tests: the HTML report loaded in a headless browser
          universal-ctags         # tests: the house's limits on files and functions (house-limits.sh)
          dataset-fashion-mnist)  # logreg's default training data, in /usr/share/datasets
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: error: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
