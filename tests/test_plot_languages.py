#!/usr/bin/env python3
"""plot_results.py draws a workload's C++ and Python backends on one figure, told apart by
line style and named with their language (from the plugins' build records).

    test_plot_languages.py PATH/TO/plot_results.py
"""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("plot_results", sys.argv[1])
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)


def plugin(name, language=None):
    record = {"name": name, "workload": "matmul", "backend": name.split("_", 1)[1]}
    if language:
        record["build_record"] = {"language": language}
    return record


def entry(name):
    return {"plugin": name, "size": 64, "valid": True, "params": "",
            "timing": {"run": {"median": 1e-3}, "end_to_end": {"median": 1e-3}},
            "throughput": {"gflops": 1.0, "gbytes_per_s": 0.0}}


names = ["matmul_naive", "matmul_cuda", "matmul_numpy", "matmul_old"]
document = {"plugins": [plugin("matmul_naive", "C++"), plugin("matmul_cuda", "CUDA"),
                        plugin("matmul_numpy", "Python"), plugin("matmul_old")],
            "entries": [entry(name) for name in names]}
series, _, languages = plot.load_series([document])
lines = sorted(series["matmul"])  # one figure: every language's backends together
assert lines == ["matmul_cuda (CUDA)", "matmul_naive (C++)", "matmul_numpy (Python)",
                 "matmul_old"], lines
styles = {line: plot.line_style(languages[line]) for line in lines}
assert styles == {"matmul_cuda (CUDA)": "-", "matmul_naive (C++)": "-",
                  "matmul_numpy (Python)": "--", "matmul_old": "-"}, styles
key = plot.style_key(set(languages.values()))
assert key == "solid: unknown, C++, CUDA; dashed: Python", key

# One file with entries on two GPU models (runner --devices on unlike GPUs): a line per model.
on_a, on_b = entry("matmul_cuda"), entry("matmul_cuda")
on_a["devices"] = [{"index": 0, "name": "model A"}]
on_b["devices"] = [{"index": 1, "name": "model B"}]
on_b["size"] = 128
two_models = {"plugins": [plugin("matmul_cuda", "CUDA")], "entries": [on_a, on_b]}
lines = sorted(plot.load_series([two_models])[0]["matmul"])
assert lines == ["matmul_cuda (CUDA) on model A", "matmul_cuda (CUDA) on model B"], lines
on_b["devices"][0]["name"] = "model A"  # one model: no model in the label
assert sorted(plot.load_series([two_models])[0]["matmul"]) == ["matmul_cuda (CUDA)"]
print("ok:", key)
