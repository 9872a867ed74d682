#!/bin/sh
# sdk/python/find-python.sh with fake interpreters first on PATH: wrappers of Debian's
# /usr/bin/python3 that lack a module (-E: PYTHONPATH ignored; -S: no site-packages), one
# that does not run, and one that has everything. The module they lack lives in a folder
# on PYTHONPATH, so the outcome does not depend on what this machine has installed.
#   find_python_test.sh FIND_PYTHON
set -u
finder=$1
real=/usr/bin/python3
if ! "$real" -c 'pass' 2>/dev/null; then
  echo "SKIPPED: no runnable $real to wrap (Debian: apt-get install python3)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/modules" "$work/without" "$work/nosite" "$work/with" "$work/broken" "$work/link"
ln -s "$real" "$work/link/python3"
echo "answer = 42" > "$work/modules/gpubench_finder_probe.py"
export PYTHONPATH="$work/modules"
shim() { printf '#!/bin/sh\nexec %s %s "$@"\n' "$real" "$2" > "$work/$1/python3"; chmod +x "$work/$1/python3"; }
shim without -E
shim nosite "-E -S"
shim with ""
printf '#!/bin/sh\necho "pyenv: python3: command not found" >&2\nexit 127\n' > "$work/broken/python3"
chmod +x "$work/broken/python3"
unset GPUBENCH_PYTHON
failures=0

# expect NAME STATUS STDOUT STDERR-PATTERN -- ENV-ASSIGNMENTS... -- MODULES...
# (STDERR-PATTERN "": nothing on stderr)
expect() {
  name=$1 status=$2 out=$3 err=$4
  shift 5
  assignments=""
  while [ "$1" != -- ]; do assignments="$assignments $1"; shift; done
  shift
  got_out=$(env $assignments "$finder" "$@" 2>"$work/stderr")
  got_status=$?
  got_err=$(cat "$work/stderr")
  lines=$(grep -c . "$work/stderr")
  if [ "$got_status" != "$status" ] || [ "$got_out" != "$out" ] \
     || { [ -z "$err" ] && [ -n "$got_err" ]; } \
     || { [ -n "$err" ] && ! printf '%s\n' "$got_err" | grep -q -e "$err"; } || [ "$lines" -gt 1 ]; then
    echo "FAIL: $name: status $got_status (expected $status), stdout '$got_out' (expected '$out')," \
         "stderr ($lines lines) '$got_err' (expected to match '$err')"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

expect "python3 on PATH comes first where it has the modules" 0 "$work/with/python3" "" -- \
  PATH="$work/with:$PATH" -- gpubench_finder_probe
expect "a python3 on PATH that lacks one is passed over for /usr/bin/python3" 0 "$real" "" -- \
  PATH="$work/without:$PATH" -- gpubench_finder_probe json
expect "so is one that does not run" 0 "$real" "" -- \
  PATH="$work/broken:$PATH" -- gpubench_finder_probe
expect "modules may be named comma-separated" 0 "$real" "" -- \
  PATH="$work/without:$PATH" -- gpubench_finder_probe,json
expect "no modules: the first interpreter that runs" 0 "$work/without/python3" "" -- \
  PATH="$work/without:$PATH" --
expect "GPUBENCH_PYTHON comes before python3 on PATH" 0 "$real" "" -- \
  PATH="$work/with:$PATH" GPUBENCH_PYTHON="$real" -- gpubench_finder_probe
expect "GPUBENCH_PYTHON may be a name on PATH" 0 "$work/with/python3" "" -- \
  PATH="$work/with:$PATH" GPUBENCH_PYTHON=python3 -- gpubench_finder_probe
expect "GPUBENCH_PYTHON without the module fails, naming it, and runs no other" 1 "" \
  "^GPUBENCH_PYTHON=$work/without/python3 has no module 'gpubench_finder_probe': install it there" -- \
  PATH="$work/with:$PATH" GPUBENCH_PYTHON="$work/without/python3" -- gpubench_finder_probe
expect "what to install: Debian's package where there is one" 1 "" \
  "has no module 'matplotlib': install it there (Debian: apt-get install python3-matplotlib)" -- \
  GPUBENCH_PYTHON="$work/nosite/python3" -- matplotlib
expect "a GPUBENCH_PYTHON that does not exist" 1 "" "^GPUBENCH_PYTHON=/nonexistent/python3: cannot run it" -- \
  GPUBENCH_PYTHON=/nonexistent/python3 -- json
expect "a GPUBENCH_PYTHON that does not run" 1 "" "^GPUBENCH_PYTHON=$work/broken/python3: cannot run it" -- \
  GPUBENCH_PYTHON="$work/broken/python3" -- json
expect "none has it: one line naming the module, each interpreter and what to install" 1 "" \
  "^no Python with 'gpubench_no_such_module': $work/without/python3 lacks 'gpubench_no_such_module'; $real lacks 'gpubench_no_such_module' (pip install gpubench_no_such_module, or set GPUBENCH_PYTHON)$" -- \
  PATH="$work/without:$PATH" -- gpubench_no_such_module
expect "CuPy's hint names its CUDA 13 wheel, once for cupy and cupyx" 1 "" \
  "(pip install cupy-cuda13x gpubench_no_such_module, or set GPUBENCH_PYTHON)$" -- \
  PATH="$work/without:$PATH" -- json cupy cupyx gpubench_no_such_module
expect "python3 on PATH that is Debian's itself is the answer" 0 "$work/link/python3" "" -- \
  PATH="$work/link:$PATH" -- gpubench_finder_probe
expect "and is asked once" 1 "" \
  ": $work/link/python3 lacks 'gpubench_no_such_module' (pip install gpubench_no_such_module" -- \
  PATH="$work/link:$PATH" -- gpubench_no_such_module
expect "as is Debian's alone on PATH" 0 "/usr/bin/python3" "" -- PATH=/usr/bin -- gpubench_finder_probe
[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "find-python.sh: every case passed"
