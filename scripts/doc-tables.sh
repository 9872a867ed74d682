#!/usr/bin/env bash
# Regenerates the generated tables of the docs (docs/*.md, docs/studies/*.md): the recorded
# studies' from their results files, the checks' from the runner's table of checks:
#   scripts/doc-tables.sh [--check] [BUILD_DIR]
# Each block of a page between
#   <!-- generated: runner report data/h100/sort-gpu-2026-11-24.json --baseline thrust -->
#   <!-- end generated -->
# is replaced by what that runner command prints, run in the page's folder (so paths are
# relative to it), with BUILD_DIR/bin/runner (default ${GPUBENCH_BUILD_DIR:-build}). Then the HTML report
# of every H100 results file (runner report --newest: each entry as last measured) is written
# to docs/studies/h100-report.html.
# --check rewrites nothing: it names each stale block (and a stale HTML report) and exits 1.
# Exit status: 0 done (or, with --check, everything current), 1 stale, 2 bad input.
set -uo pipefail
cd "$(dirname "$0")/.."

check=false
if [ "${1:-}" = --check ]; then check=true; shift; fi
case "${1:-}" in -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;; esac
[ $# -le 1 ] || { echo "doc-tables.sh: error: expected [--check] [BUILD_DIR], got: $*" >&2; exit 2; }
build=${1:-${GPUBENCH_BUILD_DIR:-build}}
runner=$(cd "$build" 2>/dev/null && pwd)/bin/runner
[ -x "$runner" ] || { echo "doc-tables.sh: error: no runner at $build/bin/runner (build it first)" >&2; exit 2; }
studies=docs/studies
html=h100-report.html   # in $studies
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stale=0

# run_block PAGE N ARGS...: the runner's output for one block into $work/block; exits 2 on failure.
run_block() {
  local page=$1 n=$2
  shift 2
  local status=0
  (cd "$(dirname "$page")" && "$runner" "$@") > "$work/block" 2> "$work/stderr" || status=$?
  # runner compare exits 1 for an entry found slower: a verdict the block shows, not a failure.
  if [ "$status" -ne 0 ] && ! [ "$1" = compare ] || [ "$status" -gt 1 ]; then
    echo "doc-tables.sh: error: $page, block $n: 'runner $*' failed: $(head -n 1 "$work/stderr")" >&2
    exit 2
  fi
}

# regenerate PAGE: writes the page with every block regenerated to $work/page.
regenerate() {
  local page=$1 n=0 line inside=false
  : > "$work/page"
  while IFS= read -r line || [ -n "$line" ]; do
    if [[ $line =~ ^'<!-- generated: runner '(.*)' -->'$ ]]; then
      $inside && { echo "doc-tables.sh: error: $page: block $n has no '<!-- end generated -->'" >&2; exit 2; }
      n=$((n + 1))
      inside=true
      read -ra args <<< "${BASH_REMATCH[1]}"
      run_block "$page" "$n" "${args[@]}"
      { printf '%s\n\n' "$line"; cat "$work/block"; printf '\n'; } >> "$work/page"
    elif [ "$line" = '<!-- end generated -->' ]; then
      $inside || { echo "doc-tables.sh: error: $page: an end marker without its block" >&2; exit 2; }
      inside=false
      printf '%s\n' "$line" >> "$work/page"
    elif ! $inside; then
      printf '%s\n' "$line" >> "$work/page"
    fi
  done < "$page"
  $inside && { echo "doc-tables.sh: error: $page: block $n has no '<!-- end generated -->'" >&2; exit 2; }
  blocks=$n
}

# stale_blocks PAGE: the numbers of the blocks whose text differs between PAGE and $work/page.
stale_blocks() {
  diff <(awk '/^<!-- generated: /{n++} /^<!-- generated: /,/^<!-- end generated -->$/{print n": "$0}' "$1") \
       <(awk '/^<!-- generated: /{n++} /^<!-- generated: /,/^<!-- end generated -->$/{print n": "$0}' "$work/page") \
    | sed -n 's/^[<>] \([0-9]*\): .*/\1/p' | sort -un | paste -sd, -
}

for page in docs/*.md "$studies"/*.md; do
  regenerate "$page"
  [ "$blocks" -gt 0 ] || continue
  if cmp -s "$page" "$work/page"; then
    $check || echo "$page: $blocks tables, unchanged"
  elif $check; then
    echo "$page: stale: block $(stale_blocks "$page") no longer matches what its runner command prints (scripts/doc-tables.sh regenerates it)"
    stale=1
  else
    cp "$work/page" "$page"
    echo "$page: $blocks tables, regenerated"
  fi
done

# The HTML report of every H100 results file (the bench summary beside them is not one), each
# entry from the newest file that holds it.
mapfile -t files < <(cd "$studies" && ls data/h100/*.json | grep -v -- '-summary-')
if (cd "$studies" && "$runner" report "${files[@]}" --newest --format html --output "$work/$html") 2> "$work/stderr"; then
  if $check; then
    cmp -s "$work/$html" "$studies/$html" || { echo "$studies/$html: stale (scripts/doc-tables.sh regenerates it)"; stale=1; }
  elif cmp -s "$work/$html" "$studies/$html"; then
    echo "$studies/$html: unchanged"
  else
    cp "$work/$html" "$studies/$html"
    echo "$studies/$html: written from ${#files[@]} results files"
  fi
elif grep -q "plotly.js" "$work/stderr"; then
  # The tables above are checked all the same; the page needs Debian's python3-plotly.
  echo "$studies/$html: not $($check && echo checked || echo written): $(head -n 1 "$work/stderr")" >&2
else
  echo "doc-tables.sh: error: the HTML report failed: $(head -n 1 "$work/stderr")" >&2
  exit 2
fi
exit $stale
