#!/usr/bin/env python3
"""A plugin author's doc (the installed writing-a-plugin.md) against the installed SDK.
    doc_blocks.py DOC OUTDIR       writes every code block out as files that can be built
    doc_blocks.py --names DOC PREFIX   checks what the doc names against what PREFIX installs
The first prints one line per thing to check, for out_of_tree_plugin.sh, "KIND PATH":
  project DIR   a CMake project: a block with project(), or a fragment under a standard head,
                with the files its SOURCES or SCRIPT or backends name taken from the doc's
                whole-file blocks (the C++ one with GPUBENCH_PLUGIN, the Python script)
  cpp FILE      a C++ block: a whole file, or declarations after #include <gpubench/plugin.hpp>
  python FILE   a Python block
  sh FILE       a shell block
Blocks without a language (folder trees) are not code. The second prints each name the doc
gives that the SDK lacks, and exits 1 if there is one: the ABI version (its versioning table's
last row and every "ABI 1.N"), each gpubench_add_* CMake function, each GPUBENCH_* name, the
keys a Python work() may return, the C++ standard gpubench_add_plugin asks for, and each
examples/ path it points to. Standard library only."""
import os
import re
import sys

HEAD = "cmake_minimum_required(VERSION 3.24)\nproject(doc_fragment LANGUAGES CXX)\nfind_package(gpubench 0.1 REQUIRED)\n"


def blocks(text):
    """(language, body, lead-in) of each fenced block, in order; the lead-in is the prose just
    before it, where the doc names the file a block is (`python_half.cpp`:)."""
    return [(m.group(1), m.group(2), text[max(0, m.start() - 300):m.start()])
            for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)]


def named_block(found, lang, name, fallback):
    """The block of `lang` whose lead-in names the file `name` (its last line), else `fallback`.
    `found`: the blocks of one CMake block's part of the doc, between the CMake blocks around it."""
    for block_lang, body, lead in found:
        last_line = lead.rstrip().splitlines()[-1] if lead.strip() else ""
        if block_lang == lang and f"`{name}`" in last_line:
            return body
    return fallback


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def project(out, n, cmake, found, plugin_cpp, script):
    """A project of the CMake block `cmake`, with the files it names: each the block the doc
    names so (`python_half.cpp`:), else the whole C++ plugin or the Python script."""
    folder = os.path.join(out, f"project{n}")
    write(os.path.join(folder, "CMakeLists.txt"), cmake if "project(" in cmake else HEAD + cmake)
    for source in set(re.findall(r"\b([\w.]+\.cpp)\b", cmake)):
        write(os.path.join(folder, source), named_block(found, "cpp", source, plugin_cpp))
    for header in set(re.findall(r"\b([\w.]+\.hpp)\b", cmake)):  # a header it shares: its lines counted
        write(os.path.join(folder, header), named_block(found, "cpp", header, "#pragma once\n"))
    scripts = re.findall(r"SCRIPT\s+([\w.]+\.py)", cmake)
    for backends in re.findall(r"gpubench_add_python_backends\(\s*\w+((?:\s+\w+)+)", cmake):
        scripts += [backend + ".py" for backend in backends.split() if backend != "ADAPTER"]
    for name in scripts:
        write(os.path.join(folder, name), named_block(found, "python", name, script))
    return folder


def main(doc, out):
    with open(doc, encoding="utf-8") as f:
        found = blocks(f.read())
    plugin_cpp = next((b for lang, b, _ in found if lang == "cpp" and "GPUBENCH_PLUGIN(" in b), "")
    script = next((b for lang, b, _ in found if lang == "python"), "")
    if not plugin_cpp or not script:
        sys.exit(f"doc_blocks.py: {doc} has no whole C++ plugin or no Python script")
    cmake_at = [n for n, (lang, _, _) in enumerate(found) if lang == "cmake"]
    for n, (lang, body, _) in enumerate(found):
        if lang == "cmake":
            before = max((c for c in cmake_at if c < n), default=-1)
            after = min((c for c in cmake_at if c > n), default=len(found))
            print("project", project(out, n, body, found[before + 1:after], plugin_cpp, script))
        elif lang == "cpp":
            path = os.path.join(out, f"block{n}.cpp")
            write(path, body if "GPUBENCH_PLUGIN(" in body or "#include <gpubench/" in body
                  else "#include <gpubench/plugin.hpp>\n" + body)
            print("cpp", path)
        elif lang in ("python", "sh"):
            path = os.path.join(out, f"block{n}.{'py' if lang == 'python' else 'sh'}")
            write(path, body)
            print(lang, path)
        elif lang:
            sys.exit(f"doc_blocks.py: {doc}: a ```{lang} block, which this test cannot check")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def installed_text(prefix):
    """Every installed file but the docs, as text (the runner's strings included)."""
    texts = []
    for folder, _, files in os.walk(prefix):
        if os.path.join("share", "gpubench", "doc") not in folder:
            texts += [read(os.path.join(folder, name)) for name in files]
    return "\n".join(texts)


def abi_problems(doc, prefix, required):
    header = read(os.path.join(prefix, "include", "gpubench", "plugin.h"))
    major, minor = (int(re.search(rf"#define GPUBENCH_ABI_{part}\s+(\d+)", header).group(1)) for part in ("MAJOR", "MINOR"))
    rows = [tuple(map(int, v)) for v in re.findall(r"^\s*\| (\d+)\.(\d+) \|", doc, re.M)]
    named = {tuple(map(int, v)) for v in re.findall(r"ABI (\d+)\.(\d+)", doc)}
    problems = [] if (rows and max(rows) == (major, minor)) or (not rows and not required) else [
        f"the versioning table ends at {max(rows, default=None)}, the installed plugin.h is ABI {major}.{minor}"]
    return problems + [f"names ABI {a}.{b}, after the installed {major}.{minor}" for a, b in sorted(named)
                       if (a, b) > (major, minor)]


def cmake_problems(doc, prefix, required):
    package = "\n".join(read(os.path.join(prefix, "lib", "cmake", "gpubench", name))
                        for name in os.listdir(os.path.join(prefix, "lib", "cmake", "gpubench")) if name.endswith(".cmake"))
    defined = set(re.findall(r"^\s*(?:function|macro)\((\w+)", package, re.M))
    named = {name for line in doc.splitlines() if "not part of the SDK" not in line
             for name in re.findall(r"\b(gpubench_add_\w+)", line)}
    problems = [f"names the CMake function {name}, which the package does not define" for name in sorted(named - defined)]
    standard = re.search(r"cxx_std_(\d+)", package)
    said = re.search(r"`gpubench_add_plugin` asks only for C\+\+(\d+)", doc)
    if (said or required) and (not standard or not said or standard.group(1) != said.group(1)):
        problems.append(f"says gpubench_add_plugin asks for C++{said and said.group(1)}, the package "
                        f"for C++{standard and standard.group(1)}")
    return problems


def work_key_problems(doc, prefix, required):
    helper = read(os.path.join(prefix, "lib", "cmake", "gpubench", "python", "bridge_helper.py"))
    taken = set(re.findall(r'"(\w+)"', re.search(r"WORK_NUMBERS = (.*)", helper).group(1)))
    taken |= set(re.findall(r'"(\w+)":', re.search(r"WORK_FLAGS = (.*)", helper).group(1))) | {"math", "launches"}
    sentence = re.search(r"`work\(\)` returns any of (.*?); any other key", doc, re.S)
    # The keys, then "the fields of the C ABI's `gpubench_work`".
    said = {k for k in re.findall(r"`(\w+)`", sentence.group(1)) if k != "gpubench_work"} if sentence else set()
    comment = read(os.path.join(prefix, "lib", "cmake", "gpubench", "gpubenchPython.cmake"))
    declared = re.search(r"work\(size, params\) -> \{(.*?)\}", comment, re.S)
    listed = set(re.findall(r'"(\w+)":', declared.group(1))) if declared else set()
    return [f"{where} lists work() keys {sorted(keys)}, the bridge takes {sorted(taken)}"
            for where, keys in (("the doc", said), ("gpubenchPython.cmake", listed))
            if keys != taken and (keys or required or where != "the doc")]


def example_problems(doc, prefix):
    """Every example the doc points to is installed with the SDK."""
    named = set(re.findall(r"\bexamples/[\w./-]*\w", doc))
    return [f"points to {path}, which is not installed in share/gpubench/"
            for path in sorted(named) if not os.path.exists(os.path.join(prefix, "share", "gpubench", path))]


def name_problems(doc_path, prefix):
    doc = read(doc_path)
    # The author's guide must state the version, the standard and the keys; another doc, where it does.
    required = os.path.basename(doc_path) == "writing-a-plugin.md"
    installed = installed_text(prefix)
    missing = sorted({n for n in re.findall(r"\bGPUBENCH_[A-Z0-9_]+\b", doc) if n not in installed})
    return (abi_problems(doc, prefix, required) + cmake_problems(doc, prefix, required) +
            work_key_problems(doc, prefix, required) +
            example_problems(doc, prefix) + [f"names {name}, which nothing installed has" for name in missing])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--names":
        problems = name_problems(*sys.argv[2:])
        for problem in problems:
            print(f"{sys.argv[2]}: {problem}")
        sys.exit(1 if problems else 0)
    if len(sys.argv) != 3:
        sys.exit("usage: doc_blocks.py DOC OUTDIR | doc_blocks.py --names DOC PREFIX")
    main(*sys.argv[1:])
