#!/usr/bin/env bash
# Proves the installed SDK package works for a third party:
#   1. cmake --install the gpubench build into a fresh prefix;
#   2. check the installed package files and that they hold no absolute build paths;
#   3. configure and build examples/saxpy against that prefix only (find_package(gpubench));
#   4. the installed runner lists example_saxpy_cpu from the example's build folder;
#   5. the installed runner measures it at sizes 1,1000 and writes it to the results file;
#   6. the other installed examples build and run: plain_c, babelstream (with CUDA; run where
#      there is a GPU, else skipped with the runner's reason), python.
#   7. the installed runner writes a new plugin repository (runner new-plugin), which builds
#      against the prefix and passes its own test (ctest: runner check on its backends);
#   8. every code block of the installed writing-a-plugin.md builds against the prefix
#      (doc_blocks.py: its CMake blocks as projects, its C++ as C++17, its Python and shell
#      parsed), and its section 3 and 4 commands build, list and run section 2's plugin.
#
# Usage: out_of_tree_plugin.sh --build-dir DIR --source-dir DIR [--cmake CMAKE]
#          [--config CONFIG] [--generator GEN] [--make-program PROG] [--cxx-compiler CXX]
#          [--with-cuda ON|OFF] [--cuda-compiler NVCC] [--cuda-architectures 80,90]
# Set GPUBENCH_KEEP_WORK=1 to keep the work folder for inspection.
set -euo pipefail

build_dir="" source_dir="" cmake="cmake" config="" generator="" make_program=""
cxx_compiler="" with_cuda="OFF" cuda_compiler="" cuda_architectures=""
while (($#)); do
  [[ $# -ge 2 ]] || { echo "error: option $1 needs a value" >&2; exit 2; }
  case "$1" in
    --build-dir) build_dir=$2 ;;
    --source-dir) source_dir=$2 ;;
    --cmake) cmake=$2 ;;
    --config) config=$2 ;;
    --generator) generator=$2 ;;
    --make-program) make_program=$2 ;;
    --cxx-compiler) cxx_compiler=$2 ;;
    --with-cuda) with_cuda=$2 ;;
    --cuda-compiler) cuda_compiler=$2 ;;
    --cuda-architectures) cuda_architectures=$2 ;;
    *) echo "error: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
# A build folder copied to another machine keeps this machine's tool paths: where one is
# missing there, use the tool of the same name on PATH.
on_this_machine() {
  if [[ -z $1 || -x $1 ]]; then echo "$1"; else command -v "$(basename "$1")" || echo "$1"; fi
}
cmake=$(on_this_machine "$cmake")
make_program=$(on_this_machine "$make_program")
cxx_compiler=$(on_this_machine "$cxx_compiler")
cuda_compiler=$(on_this_machine "$cuda_compiler")
[[ -n $build_dir && -n $source_dir ]] || { echo "error: --build-dir and --source-dir are required" >&2; exit 2; }
case "${with_cuda^^}" in
  ON | TRUE | YES | 1) with_cuda=ON ;;
  *) with_cuda=OFF ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-package.XXXXXX")
cleanup() {
  if [[ ${GPUBENCH_KEEP_WORK:-0} == 1 ]]; then echo "kept work folder: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# Only the folders named here may provide plugins.
unset GPUBENCH_PLUGIN_PATH

prefix=$work/prefix
example_build=$work/example-build
step() { printf '\n=== %s\n' "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }
# Configures and builds the installed example NAME in BUILD against the prefix, as its
# reader would: build_installed_example NAME BUILD [CMAKE ARGS...]
build_installed_example() {
  local name=$1 build=$2
  shift 2
  local args=(-S "$prefix/share/gpubench/examples/$name" -B "$build" "-DCMAKE_PREFIX_PATH=$prefix"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "$@")
  [[ -n $generator ]] && args+=(-G "$generator")
  [[ -n $make_program ]] && args+=("-DCMAKE_MAKE_PROGRAM=$make_program")
  "$cmake" "${args[@]}" >/dev/null || fail "configure of the $name example failed"
  "$cmake" --build "$build" >/dev/null || fail "build of the $name example failed"
}

# Sets configure_args to configure the plugin project SOURCE in BUILD against the prefix, with
# this build's generator, build type, compilers and CUDA settings; CUDA_OPTION is the project's
# switch for its CUDA backend: set_configure_args SOURCE BUILD CUDA_OPTION
set_configure_args() {
  configure_args=(-S "$1" -B "$2" "-DCMAKE_PREFIX_PATH=$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    "-D$3=$with_cuda")
  [[ -n $generator ]] && configure_args+=(-G "$generator")
  [[ -n $make_program ]] && configure_args+=("-DCMAKE_MAKE_PROGRAM=$make_program")
  [[ -n $config ]] && configure_args+=("-DCMAKE_BUILD_TYPE=$config")
  [[ -n $cxx_compiler ]] && configure_args+=("-DCMAKE_CXX_COMPILER=$cxx_compiler")
  if [[ $with_cuda == ON ]]; then
    [[ -n $cuda_compiler ]] && configure_args+=("-DCMAKE_CUDA_COMPILER=$cuda_compiler")
    [[ -n $cuda_architectures ]] && configure_args+=("-DCMAKE_CUDA_ARCHITECTURES=${cuda_architectures//,/;}")
  fi
  return 0
}

step "install $build_dir into $prefix"
install_args=(--install "$build_dir" --prefix "$prefix")
[[ -n $config ]] && install_args+=(--config "$config")
"$cmake" "${install_args[@]}"

step "check the installed SDK package"
package_dir=$prefix/lib/cmake/gpubench
for file in include/gpubench/plugin.h include/gpubench/work.h include/gpubench/plugin.hpp \
            include/gpubench/cuda.hpp \
            include/gpubench/errors.hpp include/gpubench/params.hpp include/gpubench/descriptor.hpp \
            include/gpubench/guard.hpp include/gpubench/adapter.hpp include/gpubench/registration.hpp \
            include/gpubench/device_problem.hpp include/gpubench/cuda_graph.hpp \
            lib/cmake/gpubench/gpubenchConfig.cmake lib/cmake/gpubench/gpubenchConfigVersion.cmake \
            lib/cmake/gpubench/gpubenchTargets.cmake lib/cmake/gpubench/gpubenchPlugin.cmake \
            bin/runner share/gpubench/examples/saxpy/CMakeLists.txt \
            share/gpubench/examples/babelstream/babelstream.cu \
            share/gpubench/examples/plain_c/scale.c share/gpubench/examples/python/myload_cupy.py \
            share/gpubench/examples/python/myload_torch.py share/gpubench/doc/results-format.md \
            share/gpubench/template/CMakeLists.txt share/gpubench/template/workload.hpp \
            share/gpubench/doc/writing-a-plugin.md share/gpubench/doc/python-backends.md \
            lib/cmake/gpubench/gpubenchPython.cmake lib/cmake/gpubench/python/python_plugin.cpp \
            lib/cmake/gpubench/python/python_session.cpp; do
  [[ -e $prefix/$file ]] || fail "$prefix/$file is not installed"
  echo "ok: $file"
done
# Relocatable: nothing in the package may point at the build, the sources or the prefix.
for path in "$(cd "$build_dir" && pwd -P)" "$(cd "$source_dir" && pwd -P)" "$prefix"; do
  if grep -rnF -- "$path" "$package_dir"; then fail "the installed package names $path"; fi
done
echo "ok: no absolute build, source or install paths in $package_dir"

step "configure examples/saxpy against $prefix (CUDA: $with_cuda)"
set_configure_args "$source_dir/examples/saxpy" "$example_build" GPUBENCH_EXAMPLE_WITH_CUDA
"$cmake" "${configure_args[@]}"
found_dir=$(sed -n 's/^gpubench_DIR:PATH=//p' "$example_build/CMakeCache.txt")
[[ $found_dir == "$package_dir" ]] || fail "find_package(gpubench) used '$found_dir', not $package_dir"
echo "ok: find_package(gpubench) found $found_dir"

step "build examples/saxpy"
build_args=(--build "$example_build")
[[ -n $config ]] && build_args+=(--config "$config")
"$cmake" "${build_args[@]}"
expected=(example_saxpy_cpu.so)
[[ $with_cuda == ON ]] && expected+=(example_saxpy_cuda.so)
for plugin in "${expected[@]}"; do
  [[ -f $example_build/$plugin ]] || fail "$example_build/$plugin was not built"
  echo "ok: built $plugin"
  # The installed timer and record script work from the package too.
  grep -q '"compile_s": [0-9]' "$example_build/$plugin.build.json" ||
    fail "$example_build/$plugin.build.json holds no compile time"
  echo "ok: its build record holds its compile time"
done
# Out-of-tree plugins stay where their project builds them: the package sets no install rule.
if grep -q 'example_saxpy' "$example_build/cmake_install.cmake"; then
  fail "the installed package made the example's plugins install themselves"
fi
echo "ok: the example's plugins have no install rule from the package"

runner=$prefix/bin/runner

step "$runner --list --plugin-dir $example_build"
status=0
list_output=$("$runner" --list --plugin-dir "$example_build" 2>&1) || status=$?
printf '%s\n' "$list_output"
[[ $status == 0 ]] || fail "runner --list exited with status $status"
grep -q 'example_saxpy_cpu' <<<"$list_output" || fail "runner --list does not show example_saxpy_cpu"
echo "ok: runner --list shows example_saxpy_cpu"

results=$work/r.json
step "$runner --plugin example_saxpy_cpu --plugin-dir $example_build --sizes 1,1000 --output $results"
status=0
"$runner" --plugin example_saxpy_cpu --plugin-dir "$example_build" --sizes 1,1000 --output "$results" || status=$?
[[ $status == 0 ]] || fail "runner exited with status $status"
echo "ok: runner exited with status 0"
[[ -f $results ]] || fail "runner wrote no $results"
grep -q '"example_saxpy_cpu"' "$results" || fail "$results does not mention \"example_saxpy_cpu\""
echo "ok: $results holds \"example_saxpy_cpu\""

grep -q '"build_info": "[^"]*, optimized"' "$results" || fail "$results: build_info does not end in 'optimized'"
echo "ok: its build_info says it was optimised"
grep -q '"build_record": {' "$results" || fail "$results: the plugin has no build_record"
echo "ok: the results carry its build record"

step "a project that sets no build type: gpubench_add_plugin builds it as Release"
plain_build=$work/example-no-build-type
plain_args=(-S "$source_dir/examples/saxpy" -B "$plain_build" "-DCMAKE_PREFIX_PATH=$prefix"
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DGPUBENCH_EXAMPLE_WITH_CUDA=OFF)
[[ -n $generator ]] && plain_args+=(-G "$generator")
[[ -n $make_program ]] && plain_args+=("-DCMAKE_MAKE_PROGRAM=$make_program")
[[ -n $cxx_compiler ]] && plain_args+=("-DCMAKE_CXX_COMPILER=$cxx_compiler")
configure_log=$("$cmake" "${plain_args[@]}" 2>&1) || { echo "$configure_log"; fail "configure without a build type failed"; }
grep -q "no CMAKE_BUILD_TYPE set, building it as Release" <<<"$configure_log" || fail "no note that it builds as Release"
"$cmake" --build "$plain_build" >/dev/null || fail "build without a build type failed"
plain_results=$work/no-build-type.json
"$runner" --plugin example_saxpy_cpu --plugin-dir "$plain_build" --sizes 1000 --output "$plain_results" \
  >/dev/null 2>&1 || fail "runner failed on the plugin built without a build type"
grep -q '"build_info": "[^"]*, Release, [^"]*, optimized"' "$plain_results" ||
  fail "$plain_results: build_info does not say Release and optimized"
if grep -q '"unoptimized"' "$plain_results"; then fail "the plugin built without a build type was flagged unoptimized"; fi
echo "ok: built as Release, and not flagged unoptimized"

step "the plain-C example, from the installed examples"
c_build=$work/example-plain-c
build_installed_example plain_c "$c_build"
"$runner" --plugin example_scale_c --plugin-dir "$c_build" --sizes 10,1000 --output "$work/plain-c.json" \
  >/dev/null 2>&1 || fail "runner failed on the plain-C example"
grep -q '"status": "ok"' "$work/plain-c.json" || fail "the plain-C example did not verify"
echo "ok: built and verified"

step "the device-only example (examples/babelstream), from the installed examples"
if [[ $with_cuda == ON ]]; then
  bs_build=$work/example-babelstream
  bs_args=()
  [[ -n $cxx_compiler ]] && bs_args+=("-DCMAKE_CXX_COMPILER=$cxx_compiler")
  [[ -n $cuda_compiler ]] && bs_args+=("-DCMAKE_CUDA_COMPILER=$cuda_compiler")
  [[ -n $cuda_architectures ]] && bs_args+=("-DCMAKE_CUDA_ARCHITECTURES=${cuda_architectures//,/;}")
  build_installed_example babelstream "$bs_build" "${bs_args[@]}"
  [[ -f $bs_build/example_babelstream_cuda.so ]] || fail "example_babelstream_cuda.so was not built"
  echo "ok: built example_babelstream_cuda.so"
  bs_results=$work/babelstream.json
  status=0
  bs_output=$("$runner" --plugin example_babelstream_cuda --plugin-dir "$bs_build" --sizes 1000,100000 \
    --max-time 0.5 --output "$bs_results" 2>&1) || status=$?
  # 3: nothing failed, but entries were skipped (no GPU here: the runner says why).
  [[ $status == 0 || $status == 3 ]] || { printf '%s\n' "$bs_output"; fail "runner exited with status $status on the babelstream example"; }
  if [[ $status == 3 ]]; then
    reason=$(sed -n 's/.*"message": "\([^"]*\)".*/\1/p' "$bs_results" | head -n 1)
    echo "SKIPPED: running example_babelstream_cuda: ${reason:-the runner skipped it}"
  else
    [[ $(grep -c '"status": "ok"' "$bs_results") == 2 ]] || fail "example_babelstream_cuda: not every size verified"
    echo "ok: example_babelstream_cuda ran on the GPU and verified"
  fi
else
  echo "SKIPPED: the babelstream example needs CUDA (this build has none)"
fi

step "the Python example, from the installed examples: one script each, one CMake line for all"
py_build=$work/example-python
py_args=()
[[ -n $cxx_compiler ]] && py_args+=("-DCMAKE_CXX_COMPILER=$cxx_compiler")
build_installed_example python "$py_build" "${py_args[@]}"
for plugin in myload_numpy.so myload_cupy.so myload_torch.so; do  # gpubench_add_python_backends
  [[ -f $py_build/$plugin ]] || fail "$py_build/$plugin was not built"
done
echo "ok: built myload_numpy.so, myload_cupy.so and myload_torch.so"
if python=$("$source_dir/sdk/python/find-python.sh" numpy 2>&1); then
  "$runner" --plugin myload_numpy --plugin-dir "$py_build" --sizes 10,1000 --output "$work/python.json" \
    >/dev/null 2>&1 || fail "runner failed on the Python example"
  grep -q '"status": "ok"' "$work/python.json" || fail "the Python example did not verify"
  echo "ok: myload_numpy built, ran in $python and verified"
else
  echo "SKIPPED: running myload_numpy: $python"
fi

step "runner new-plugin: a new plugin repository, built against $prefix and tested"
new_repo=$work/newrepo
new_build=$work/newrepo-build
"$runner" new-plugin "$new_repo" --workload tmplcheck || fail "runner new-plugin exited with status $?"
set_configure_args "$new_repo" "$new_build" tmplcheck_WITH_CUDA
"$cmake" "${configure_args[@]}" >/dev/null || fail "configure of the new plugin repository failed"
new_build_args=(--build "$new_build")
[[ -n $config ]] && new_build_args+=(--config "$config")
"$cmake" "${new_build_args[@]}" >/dev/null || fail "build of the new plugin repository failed"
expected=(tmplcheck_omp.so tmplcheck_numpy.so)
[[ $with_cuda == ON ]] && expected+=(tmplcheck_cuda.so)
for plugin in "${expected[@]}"; do
  [[ -f $new_build/$plugin ]] || fail "$new_build/$plugin was not built"
done
echo "ok: built ${expected[*]}"
ctest_program=${cmake%cmake}ctest  # the ctest beside the cmake used
ctest_args=(--test-dir "$new_build" --output-on-failure)
[[ -n $config ]] && ctest_args+=(-C "$config")
test_list=$("$ctest_program" "${ctest_args[@]}" -N) || fail "ctest -N failed in $new_build"
grep -q 'runner_check' <<<"$test_list" ||
  fail "the new repository has no test runner_check (the package set no GPUBENCH_RUNNER?)"
# Until `runner check` exists, `runner check --help` is the sweep's help: it does not name it.
"$ctest_program" "${ctest_args[@]}" || fail "the new repository's test (runner check) failed"
echo "ok: its test, runner check on its backends, passed"

step "every code block of the installed writing-a-plugin.md, against $prefix"
# What the docs name, against what is installed: versions, CMake functions, GPUBENCH_* names,
# work() keys, the C++ standard, the examples they point to.
for doc in writing-a-plugin python-backends measurement results-format; do
  python3 "$source_dir/tests/package/doc_blocks.py" --names "$prefix/share/gpubench/doc/$doc.md" "$prefix" ||
    fail "$doc.md names what the installed SDK lacks"
  echo "ok: what $doc.md names is installed"
done
blocks=$work/doc-blocks
python3 "$source_dir/tests/package/doc_blocks.py" "$prefix/share/gpubench/doc/writing-a-plugin.md" "$blocks" \
  > "$work/doc-blocks.txt" || fail "the code blocks of writing-a-plugin.md could not be read"
walkthrough=$work/doc-walkthrough
while read -r kind path; do
  what="$(basename "$path") (a $kind block of writing-a-plugin.md)"
  case $kind in
    project)
      set_configure_args "$path" "$path/build" GPUBENCH_DOC_BLOCK_CUDA
      "$cmake" "${configure_args[@]}" >/dev/null 2>&1 || fail "$what does not configure against the SDK"
      "$cmake" --build "$path/build" >/dev/null || fail "$what does not build against the SDK"
      # The first project is section 2's plugin: its folder, for the doc's own commands below.
      [[ -d $walkthrough ]] || { mkdir -p "$walkthrough" && cp -r "$path" "$walkthrough/my_plugin" &&
        rm -rf "$walkthrough/my_plugin/build"; } ;;
    cpp) "${cxx_compiler:-c++}" -std=c++17 -fopenmp -fsyntax-only -I"$prefix/include" "$path" ||
           fail "$what does not compile as C++17 with the SDK's headers" ;;
    python) python3 -m py_compile "$path" || fail "$what is not Python" ;;
    sh) bash -n "$path" || fail "$what is not shell" ;;
  esac
  echo "ok: $what"
done < "$work/doc-blocks.txt"
# Sections 3 and 4 as written, the prefix for /opt/gpubench: build section 2's plugin, list it, run it.
while read -r kind path; do
  [[ $kind == sh ]] && grep -qE '^(cmake -S my_plugin|/opt/gpubench/bin/runner .*--plugin-dir build)' "$path" || continue
  (cd "$walkthrough" && sed -e "s#/opt/gpubench#$prefix#g" -e "s#^cmake #\"$cmake\" #" "$path" | bash -e) \
    >/dev/null 2>&1 || fail "$(basename "$path"), as writing-a-plugin.md shows it, failed"
  echo "ok: $(basename "$path") runs as written"
done < "$work/doc-blocks.txt"

step "the installed SDK builds, lists and runs an out-of-tree plugin: PASSED"
