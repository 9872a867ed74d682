#!/usr/bin/env bash
# scripts/doc-tables.sh against a build that lacks plugins, as one made with
# -DGPUBENCH_WITH_CUDA=OFF or without NCCL does: a copy of BUILD_DIR's runner with only its C++
# plugins beside it (no CUDA, no Python), checking a copy of docs/plugins.md.
#   tests/plugin_tables_test.sh SOURCE_DIR BUILD_DIR
# The rows of the plugins that build lacks pass --check and survive a regeneration; a row of a
# plugin it has must match what the plugin says; a plugin it has that the page lacks, and a
# row of a plugin with no source in plugins/, are stale, named, with the command that
# regenerates the page.
set -uo pipefail
source_dir=$1 build=$2
script=$source_dir/scripts/doc-tables.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GPUBENCH_CACHE_DIR=$work/cache  # the copies' scan results stay out of the user's cache
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

fake=$work/build
mkdir -p "$fake/bin" "$fake/lib/gpubench/plugins"
cp "$build/bin/runner" "$fake/bin/"
cp "$build"/lib/*.so* "$fake/lib/" 2>/dev/null
for record in "$build"/lib/gpubench/plugins/*.so.build.json; do
  grep -q '"language": "C++"' "$record" && cp "$record" "${record%.build.json}" "$fake/lib/gpubench/plugins/"
done
cpp_plugins=$(ls "$fake"/lib/gpubench/plugins/*.so | wc -l)
[ "$cpp_plugins" -gt 0 ] || { echo "FAILED: no C++ plugins in $build"; exit 1; }
page=$work/plugins.md
cp "$source_dir/docs/plugins.md" "$page"

# expect STATUS NAME... : runs the check of $page, which must exit STATUS and, failing, name each NAME.
expect() {
  local status=$1 said
  shift
  said=$("$script" --check "$fake" "$page" 2>&1)
  [ $? -eq "$status" ] || fail "--check exited $? instead of $status: $said"
  for name in "$@"; do
    grep -q -- "$name" <<< "$said" || fail "--check did not name $name: $said"
  done
  [ "$status" -eq 0 ] || grep -qF "scripts/doc-tables.sh $fake regenerates them" <<< "$said" ||
    fail "--check did not say which command regenerates the page: $said"
}

# The committed page against the C++ plugins alone: current, the other rows kept.
expect 0 "current with the $cpp_plugins plugins" "rows kept for plugins this build lacks"
"$script" "$fake" "$page" > /dev/null || fail "regenerating with the C++ plugins alone failed"
cmp -s "$page" "$source_dir/docs/plugins.md" || fail "regenerating with the C++ plugins alone changed the page"

# A row of a plugin the build lacks is not checked: its plugin is not there to say otherwise.
sed -i 's/^| `matmul_cuda` | CUDA | cuda | \([^|]*\) | /| `matmul_cuda` | CUDA | cuda | \1 | (edited) /' "$page"
grep -q '(edited)' "$page" || fail "the test could not edit matmul_cuda's row"
expect 0

# A row of a plugin the build has must say what the plugin says.
cp "$source_dir/docs/plugins.md" "$page"
sed -i 's/^\(| `matmul_naive` | [^|]*| [^|]*| [^|]*| \)/\1(edited) /' "$page"
grep -q '(edited)' "$page" || fail "the test could not edit matmul_naive's row"
expect 1 "stale: the rows of matmul_naive differ"

# A plugin the build has is missing from the page.
cp "$source_dir/docs/plugins.md" "$page"
sed -i '/^| `vecadd_omp` |/d' "$page"
expect 1 "stale: the rows of vecadd_omp differ"
"$script" "$fake" "$page" > /dev/null
cmp -s "$page" "$source_dir/docs/plugins.md" || fail "regenerating did not restore vecadd_omp's row"

# A row of a plugin with no source in the tree (renamed or removed) is stale, and dropped.
sed -i 's/^\(| `matmul_omp` | .*\)$/\1\n| `matmul_gone` | C++ | cpu | 1 – 2048 | a plugin removed from the tree |/' "$page"
grep -q 'matmul_gone' "$page" || fail "the test could not add a row"
expect 1 "matmul_gone" "1 rows of plugins with no source in plugins/"
"$script" "$fake" "$page" > /dev/null
cmp -s "$page" "$source_dir/docs/plugins.md" || fail "regenerating did not drop the row of a plugin with no source"

# No page to check, or a page without a block, is bad input.
"$script" --check "$fake" "$work/none.md" > /dev/null 2>&1
[ $? -eq 2 ] || fail "a missing page did not exit 2"
echo "no block" > "$work/plain.md"
"$script" --check "$fake" "$work/plain.md" > /dev/null 2>&1
[ $? -eq 2 ] || fail "a page without a block did not exit 2"

[ "$failures" -eq 0 ] && echo "doc-tables.sh: partial builds checked ($cpp_plugins C++ plugins)"
exit $((failures > 0))
