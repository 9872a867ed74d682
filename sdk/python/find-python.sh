#!/bin/sh
# find-python.sh [MODULE[,MODULE]...]...
#
# gpubench's one rule for which Python runs a tool: prints the first interpreter, in this
# order, in which every MODULE is found (importlib.util.find_spec: nothing is imported, so the
# question stays quick even for torch and CuPy):
#   1. GPUBENCH_PYTHON (a path or a name on PATH), where set: the user's choice. Where it lacks
#      a module this fails, naming it; it never silently runs another interpreter.
#   2. python3 on PATH (a venv's, pyenv's...).
#   3. Debian's /usr/bin/python3 (python3-numpy, python3-matplotlib... install there).
# Else it prints one line on stderr (which interpreter lacks which module, what to install)
# and exits 1. With no MODULE, the first interpreter that runs.
#
# The scripts, the tests (ctest) and the Python bridge all ask it; the bridge embeds this file
# and runs it with /bin/sh -c, so there is one implementation of the rule. POSIX sh only.

set -f  # module names are words, never file patterns
modules=$(printf '%s ' "$@" | tr ',' ' ')
modules=$(echo $modules)  # words separated by one space

# The modules the interpreter $1 lacks (space-separated; empty: it has them all), or
# "cannot run it" where it does not answer.
missing_in() {
  answer=$("$1" -c '
import importlib.util, sys
if sys.path[:1] == [""]:  # -c puts the working folder first: its numpy.py is no NumPy
    del sys.path[0]
def found(name):
    try:
        return importlib.util.find_spec(name) is not None
    except Exception:  # a parent package that is missing or fails to load
        return False
print("gpubench-find-python:" + " ".join(m for m in sys.argv[1:] if not found(m)))
' $modules 2>/dev/null) || answer=""
  case $answer in
    *gpubench-find-python:*) printf '%s\n' "$answer" | sed -n 's/^gpubench-find-python://p' ;;
    *) echo "cannot run it" ;;
  esac
}

# What to install for each of the modules $*: Debian's package where Debian has one, else the
# pip package (CuPy's for CUDA 13, which has cupyx too).
install_hint() {
  apt="" pip=""
  for module in "$@"; do
    case $module in
      numpy | numba | matplotlib | plotly | jsonschema | scipy | yaml) apt="$apt python3-$module" ;;
      cupy | cupyx) case " $pip " in *" cupy-cuda13x "*) ;; *) pip="${pip:+$pip }cupy-cuda13x" ;; esac ;;
      *) pip="${pip:+$pip }$module" ;;
    esac
  done
  text=""
  [ -n "$apt" ] && text="Debian: apt-get install$apt"
  [ -n "$pip" ] && text="${text:+$text; }pip install $pip"
  echo "$text"
}

# The names of the modules in the space-separated list $1, quoted and comma-separated.
names() { printf '%s' "$1" | sed "s/[^ ][^ ]*/'&'/g; s/ /, /g"; }

if [ -n "${GPUBENCH_PYTHON:-}" ]; then
  chosen=$(command -v "$GPUBENCH_PYTHON" 2>/dev/null) || {
    echo "GPUBENCH_PYTHON=$GPUBENCH_PYTHON: cannot run it (no such file or command)" >&2
    exit 1
  }
  lacks=$(missing_in "$chosen")
  case $lacks in
    "") echo "$chosen"; exit 0 ;;
    "cannot run it") echo "GPUBENCH_PYTHON=$GPUBENCH_PYTHON: cannot run it" >&2 ;;
    *) echo "GPUBENCH_PYTHON=$GPUBENCH_PYTHON has no module $(names "$lacks"): install it" \
            "there ($(install_hint $lacks)) or unset GPUBENCH_PYTHON" >&2 ;;
  esac
  exit 1
fi

report=""
last_lacks=""
asked=""
on_path=$(command -v python3 2>/dev/null) || on_path=""
for candidate in "$on_path" /usr/bin/python3; do
  [ -n "$candidate" ] && [ -x "$candidate" ] || continue
  [ -n "$asked" ] && [ "$candidate" -ef "$asked" ] && continue  # python3 on PATH is Debian's
  asked=$candidate
  lacks=$(missing_in "$candidate")
  [ -z "$lacks" ] && { echo "$candidate"; exit 0; }
  case $lacks in
    "cannot run it") said="cannot run" ;;
    *) said="lacks $(names "$lacks")"; last_lacks=$lacks ;;
  esac
  report="${report:+$report; }$candidate $said"
done
if [ -z "$report" ]; then
  echo "no python3 on PATH and no /usr/bin/python3 (Debian: apt-get install python3)" >&2
elif [ -n "$last_lacks" ]; then
  echo "no Python with $(names "$modules"): $report ($(install_hint $last_lacks), or set GPUBENCH_PYTHON)" >&2
else
  echo "no Python that runs: $report (Debian: apt-get install python3, or set GPUBENCH_PYTHON)" >&2
fi
exit 1
