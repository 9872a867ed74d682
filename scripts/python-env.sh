# Sourced by the scripts that run Python plugins: the Python bridge runs GPUBENCH_PYTHON, else
# python3 on PATH. Where that python3 cannot import NumPy (a pyenv shim, a bare venv) but
# Debian's can, use Debian's, so that the numpy and numba backends run after install-deps.sh.
if [ -z "${GPUBENCH_PYTHON:-}" ] && ! python3 -c 'import numpy' >/dev/null 2>&1 \
   && /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
  export GPUBENCH_PYTHON=/usr/bin/python3
fi
