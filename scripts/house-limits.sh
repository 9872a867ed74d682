#!/usr/bin/env bash
# The house's size limits on the code of core/, runner/ and sdk/ (docs/development.md): every
# file at most 400 lines and every function at most 60, so that a newcomer can read any one
# of them whole. Functions are found by Universal Ctags (Debian's universal-ctags, which
# scripts/install-deps.sh installs); a table is data, not a function: write it as one.
#   scripts/house-limits.sh    prints each file or function over its limit; exit 1 if any
# Exit status: 0 within the limits, 1 over them, 2 without ctags.
set -uo pipefail
cd "$(dirname "$0")/.."
max_file_lines=400
max_function_lines=60
ctags=$(command -v ctags-universal || command -v ctags)
[ -n "$ctags" ] && "$ctags" --version 2>/dev/null | grep -q "Universal Ctags" ||
  { echo "house-limits.sh: error: no Universal Ctags (apt-get install universal-ctags)" >&2; exit 2; }
mapfile -t files < <(git ls-files -co --exclude-standard core runner sdk | grep -E '\.(c|h|cpp|hpp|cu|cuh)$' |
                     while read -r f; do [ -f "$f" ] && echo "$f"; done)
over=0
while read -r lines file; do
  [ "$file" = total ] && continue
  if [ "$lines" -gt "$max_file_lines" ]; then
    echo "$file: $lines lines (at most $max_file_lines)"
    over=1
  fi
done < <(wc -l "${files[@]}")
while read -r end start file name; do
  if [ $((end - start + 1)) -gt "$max_function_lines" ]; then
    echo "$file:$start: $name is $((end - start + 1)) lines (at most $max_function_lines)"
    over=1
  fi
done < <("$ctags" --langmap=C++:+.cu.cuh --kinds-C++=f --kinds-C=f --fields=+ne -x \
           --_xformat="%{end} %{line} %F %N" "${files[@]}" 2>/dev/null)
[ "$over" -eq 0 ] && echo "house-limits.sh: ${#files[@]} files of core/, runner/ and sdk/ within $max_file_lines lines, their functions within $max_function_lines"
exit "$over"
