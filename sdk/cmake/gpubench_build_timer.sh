#!/bin/sh
# gpubench_build_timer.sh (--object | --record FILE) COMMAND [ARG...]
#
# The compile and link launcher gpubench_add_plugin sets (gpubenchPlugin.cmake): runs COMMAND
# as it is, so that its output and exit status are the build's, and writes its wall time in
# seconds to FILE or, with --object, to COMMAND's "-o" argument plus ".compile_s" (one record
# per object file: a recompile replaces it). A failed COMMAND leaves no record. Recording
# never fails a build: a record that cannot be written is let go. POSIX sh, date and awk;
# where date has no %N (nanoseconds), whole seconds.
mode=$1
record=
case $mode in
  --record) record=$2; shift 2 ;;
  --object) shift ;;
  *) echo "usage: gpubench_build_timer.sh (--object | --record FILE) COMMAND [ARG...]" >&2; exit 2 ;;
esac
if [ "$mode" = --object ]; then
  previous=
  for argument in "$@"; do
    [ "$previous" = -o ] && record=$argument.compile_s
    previous=$argument
  done
fi

start=$(date +%s.%N 2>/dev/null)
"$@"
status=$?
end=$(date +%s.%N 2>/dev/null)

if [ -n "$record" ]; then
  rm -f "$record" 2>/dev/null
  if [ "$status" -eq 0 ]; then
    # Whole and fractional seconds apart: epoch seconds with nanoseconds exceed a double.
    { awk -v a="$start" -v b="$end" 'function part(t, i,  p) {
          split(t, p, "."); return p[i] ~ /^[0-9]+$/ ? p[i] : 0 }
        BEGIN { s = (part(b, 1) - part(a, 1)) + (part(b, 2) - part(a, 2)) / 1e9
                printf "%.6f\n", s < 0 ? 0 : s }' > "$record" || rm -f "$record"; } 2>/dev/null
  fi
fi
exit "$status"
