#!/usr/bin/env bash
# Issue 13 on a GPU machine over a carried build folder (default build-device): every test
# (the GPU ones run there), then the default sweep with a folder of hostile plugin files on
# GPUBENCH_PLUGIN_PATH beside the real plugins, and what --list says of them.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
out=${OUT:-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
ctest --test-dir "$build" -j6 --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/ctest.log" | head -30
echo "== the default sweep, hostile files on the plugin path"
hostile=$(mktemp -d)  # 0700: a folder only we can write
cp "$build"/tests/hostile/*.so "$hostile"/
began=$(date +%s.%N)
GPUBENCH_PLUGIN_PATH=$hostile "$build/bin/runner" --scan-timeout 5 \
  -o "$out/hostile-sweep.json" > "$out/hostile-sweep.txt" 2>&1
status=$?
echo "runner exit status $status after $(python3 -c "print(round($(date +%s.%N) - $began))") s"
grep -E "^note:|^[0-9]+ ok, " "$out/hostile-sweep.txt"
python3 - "$out/hostile-sweep.json" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
by_status = collections.Counter(e["status"] for e in doc["entries"])
plugins = sorted({e["plugin"] for e in doc["entries"] if e["status"] == "ok"})
print("entries by status:", dict(by_status))
print(len(plugins), "plugins measured ok:", " ".join(plugins))
print("GPU:", doc["gpu"].get("name"))
PY
GPUBENCH_PLUGIN_PATH=$hostile "$build/bin/runner" --list --scan-timeout 5 | sed -n '/^Refused:/,$p'
rm -rf "$hostile"
