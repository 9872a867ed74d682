#!/usr/bin/env python3
"""plot_results.py's choices, tested without matplotlib: lines by language, colours by backend
(stable across files and runs), panels with data only, % of each device's own roofline, axis
ranges, size labels, one figure per parameter setting and its file name.

    test_plot_results.py PATH/TO/plot_results.py
"""
import copy
import importlib.util
import os
import subprocess
import sys

spec = importlib.util.spec_from_file_location("plot_results", sys.argv[1])
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)
import plot_series as series  # noqa: E402  (beside the script, on the path it set)

MATMUL_MEANING = "N: square matrices N x N, float32 (C = A*B; dtype=float64 for double)"
GPU_ROOFLINE = {"flops": {"fp32": 6.0e13, "fp64": 3.0e13}, "bytes_per_s": 3.0e12}
HOST_ROOFLINE = {"flops": {"fp32": 2.0e12, "fp64": 1.0e12}, "bytes_per_s": 1.0e11}


def plugin(name, language=None, kind="cpu", meaning=MATMUL_MEANING):
    workload, backend = name.split("_", 1)
    record = {"name": name, "workload": workload, "backend": backend, "device_kind": kind,
              "size_meaning": meaning}
    if language:
        record["build_record"] = {"language": language}
    return record


def entry(name, size=64, params="", samples=(1e-3, 2e-3, 3e-3, 4e-3, 5e-3), **throughput):
    return {"plugin": name, "size": size, "valid": True, "params": params,
            "timing": {"run": {"median": 3e-3}, "end_to_end": {"median": 3e-3},
                       "samples": {"run": list(samples)}},
            "throughput": {"gflops": 1.0, "gbytes_per_s": 0.0, **throughput},
            "resources": {"cpu_cores": 1.001}}


def document(plugins, entries, gpu=True, host_roofline=True):
    host = {"host_name": "box", "cpu_model": "cpu"}
    if host_roofline:
        host["roofline"] = HOST_ROOFLINE
    return {"plugins": plugins, "entries": entries, "host": host,
            "gpu": {"available": True, "name": "GPU X", "roofline": GPU_ROOFLINE}
            if gpu else {"available": False}}


def languages_and_styles():
    names = ["matmul_naive", "matmul_cuda", "matmul_numpy", "matmul_old"]
    doc = document([plugin("matmul_naive", "C++"), plugin("matmul_cuda", "CUDA", "cuda"),
                    plugin("matmul_numpy", "Python"), plugin("matmul_old")],
                   [entry(name) for name in names])
    lines = plot.load_series([doc])[("matmul", "")]["lines"]  # every language on one figure
    assert sorted(lines) == ["matmul_cuda (CUDA)", "matmul_naive (C++)",
                             "matmul_numpy (Python)", "matmul_old"], sorted(lines)
    styles = {label: plot.line_style(line["language"]) for label, line in lines.items()}
    assert styles == {"matmul_cuda (CUDA)": "-", "matmul_naive (C++)": "-",
                      "matmul_numpy (Python)": "--", "matmul_old": "-"}, styles
    key = plot.style_key({line["language"] for line in lines.values()})
    assert key == "solid: unknown, C++, CUDA; dashed: Python", key
    figure = plot.load_series([doc])[("matmul", "")]
    title = plot.legend_title(figure, plot.panels_with_data(figure["lines"]))
    assert key in title and "interquartile" in title and "end to end" not in title, title
    assert "end to end" in plot.legend_title(figure, plot.PANELS)


def two_gpu_models():
    on_a, on_b = entry("matmul_cuda"), entry("matmul_cuda", size=128)
    on_a["devices"] = [{"index": 0, "name": "model A"}]
    on_b["devices"] = [{"index": 1, "name": "model B"}]
    doc = document([plugin("matmul_cuda", "CUDA", "cuda")], [on_a, on_b])
    lines = plot.load_series([doc])[("matmul", "")]["lines"]
    assert sorted(lines) == ["matmul_cuda (CUDA) on model A",
                             "matmul_cuda (CUDA) on model B"], sorted(lines)
    assert lines["matmul_cuda (CUDA) on model A"]["marker"] != \
        lines["matmul_cuda (CUDA) on model B"]["marker"]
    on_b["devices"][0]["name"] = "model A"  # one model: no model in the label
    assert sorted(plot.load_series([doc])[("matmul", "")]["lines"]) == ["matmul_cuda (CUDA)"]


def colours_by_backend():
    assert len(set(plot.PALETTE)) >= 20
    known = [plot.backend_colour(b) for b in plot.KNOWN_BACKENDS]
    assert len(set(known)) == len(known), "known backends share a colour"
    assert plot.backend_colour("naive") == plot.PALETTE[0]
    assert plot.backend_colour("cupy") == plot.PALETTE[plot.KNOWN_BACKENDS.index("cupy")]
    # Unknown backends: a colour of their own name, not of the order they come in.
    first = document([plugin("vecadd_sycl"), plugin("vecadd_hip")],
                     [entry("vecadd_sycl"), entry("vecadd_hip")])
    second = document(list(reversed(first["plugins"])), list(reversed(first["entries"])))
    colours = [{label: plot.backend_colour(line["backend"])
                for label, line in plot.load_series([doc])[("vecadd", "")]["lines"].items()}
               for doc in (first, second)]
    assert colours[0] == colours[1], colours
    assert plot.backend_colour("sycl") not in known and plot.backend_colour("hip") not in known
    # And the same in every run of the script, whatever Python's string hash seed.
    probe = ("import importlib.util, sys; s = importlib.util.spec_from_file_location('p', "
             "sys.argv[1]); m = importlib.util.module_from_spec(s); s.loader.exec_module(m); "
             "print([m.backend_colour(b) for b in ('sycl', 'hip', 'kokkos', 'cuda')])")
    runs = {subprocess.run([sys.executable, "-c", probe, sys.argv[1]], check=True, text=True,
                           capture_output=True, env=dict(os.environ, PYTHONHASHSEED=seed)).stdout
            for seed in ("1", "2", "3")}
    assert len(runs) == 1, runs


def panels_drop_empty_ones():
    cpu_only = document([plugin("matmul_naive", "C++"), plugin("matmul_omp", "C++")],
                        [entry("matmul_naive"), entry("matmul_omp", size=128)], gpu=False)
    figure = plot.load_series([cpu_only])[("matmul", "")]
    keys = [panel[0] for panel in plot.panels_with_data(figure["lines"])]
    assert keys == ["compute", "rate", "pct_cpu", "cpu_cores"], keys  # no GPU panel, no e2e
    gpu = entry("matmul_cuda", percent_of_peak=50.0)
    gpu["timing"]["upload"] = {"count": 5}
    gpu["resources"].update(device_allocated_bytes=2**20, gpu_busy=0.5)
    both = document(cpu_only["plugins"] + [plugin("matmul_cuda", "CUDA", "cuda")],
                    cpu_only["entries"] + [gpu])
    keys = [p[0] for p in plot.panels_with_data(plot.load_series([both])[("matmul", "")]["lines"])]
    assert keys == [p[0] for p in plot.PANELS], keys
    assert [plot.grid_shape(n) for n in (1, 2, 3, 4, 5, 6, 7, 8)] == \
        [(1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (2, 3), (2, 4), (2, 4)]


def percent_of_each_devices_peak():
    doc = document([], [])
    own = entry("vecadd_omp", percent_of_peak=376.0, ceiling={"bytes_per_s": 1.0e11})
    assert series.percent_of_own_peak(own, "cpu", doc) == 376.0  # recorded against the host
    # A CPU figure taken against the GPU's peak is not used: worked out against the host's.
    wrong = entry("vecadd_omp", gflops=0.0, gbytes_per_s=50.0, percent_of_peak=1.6,
                  ceiling={"bytes_per_s": 3.0e12})
    assert abs(series.percent_of_own_peak(wrong, "cpu", doc) - 50.0) < 1e-9
    assert series.percent_of_own_peak(wrong, "cpu", document([], [], host_roofline=False)) is None
    # No recorded figure: the larger of the flop and byte rates over the device's peaks.
    bare = entry("matmul_cuda", gflops=30000.0, gbytes_per_s=300.0)
    bare["work"] = {"math": "fp64"}
    assert abs(series.percent_of_own_peak(bare, "gpu", doc) - 100.0) < 1e-9
    assert series.percent_of_own_peak(entry("x_y", percent_of_peak=80.0), "gpu", doc) == 80.0
    # Points carry the figure under their device's key only.
    mixed = document([plugin("vecadd_omp", "C++"), plugin("vecadd_cuda", "CUDA", "cuda")],
                     [own, entry("vecadd_cuda", percent_of_peak=90.0)])
    lines = plot.load_series([mixed])[("vecadd", "")]["lines"]
    cpu_point = lines["vecadd_omp (C++)"]["points"][0]
    gpu_point = lines["vecadd_cuda (CUDA)"]["points"][0]
    assert cpu_point["pct_cpu"] == 376.0 and "pct_gpu" not in cpu_point, cpu_point
    assert gpu_point["pct_gpu"] == 90.0 and "pct_cpu" not in gpu_point, gpu_point


def spread_and_axis_ranges():
    assert series.quartiles([4, 1, 3, 2, 5]) == (2, 4) and series.quartiles([]) is None
    point = plot.load_series([document([plugin("matmul_naive", "C++")], [entry("matmul_naive")])])
    point = point[("matmul", "")]["lines"]["matmul_naive (C++)"]["points"][0]
    assert point["compute_band"] == (2e-3, 4e-3), point
    timed_per_launch = {"run": {"median": 1.0}, "compute": {"median": 2e-6},
                        "per_launch": {"samples": [1e-6, 2e-6, 3e-6]},
                        "samples": {"run": [1.0, 1.0]}}
    assert series.headline_samples(timed_per_launch) == [1e-6, 2e-6, 3e-6]
    assert plot.axis_range("cores", [1.0005, 1.0030]) == (0.0, 2.0)
    assert plot.axis_range("fraction", [0.4, 0.5]) == (0.0, 1.05)
    assert plot.axis_range("percent", [12.0]) == (0.0, 110.0)
    low, high = plot.axis_range("percent", [376.0])
    assert low == 0.0 and high > 376.0
    low, high = plot.axis_range("log", [1.0e-3, 1.1e-3])
    assert low < 1.0e-3 and high > 1.1e-3 and high / low >= 10, (low, high)


def size_labels():
    assert plot.size_label([MATMUL_MEANING]) == "N: square matrices N x N, float32"
    assert plot.size_label(["n: float32 elements (c = a + b; variant=increment: a[i] += 1)"]) \
        == "n: float32 elements"
    assert plot.size_label(["n: training samples, the first n images of the 60000 (785 float32 "
                            "features each)"]) == "n: training samples"
    assert plot.size_label(["H: image rows; W = round(1.5 H) columns"]) == "H: image rows"
    assert plot.size_label(["a very long meaning with no comma at all that goes on: and on "
                            "and on"]) == "a very long meaning with no comma at all that goes on"
    assert plot.size_label(["", ""]) == "size"
    assert plot.size_label(["x: one", "y: two", "y: two"]) == "y: two"  # the most common one
    assert plot.size_label([MATMUL_MEANING], "dtype=float64,iterations=2") == \
        "N: square matrices N x N, float64"  # the figure's dtype, not the default one


def one_figure_per_parameter_setting():
    doc = document([plugin("matmul_naive", "C++")],
                   [entry("matmul_naive"), entry("matmul_naive", params="dtype=float64"),
                    entry("matmul_naive", params="dtype=float64,iterations=10")])
    assert sorted(plot.load_series([doc])) == [("matmul", ""), ("matmul", "dtype=float64"),
                                              ("matmul", "dtype=float64,iterations=10")]
    assert plot.figure_file_stem("h100-run", "matmul", "") == "h100-run-matmul"
    assert plot.figure_file_stem("h100-run", "matmul", "dtype=float64,iterations=10") == \
        "h100-run-matmul-dtype-float64-iterations-10"
    assert plot.figure_file_stem("my run", "sort", "input=a/b c") == "my_run-sort-input-a_b_c"


def a_plugins_own_setting_is_a_line():
    def declaring(name, *keys):
        record = plugin(name, "CUDA", "cuda")
        record["params"] = [{"key": key, "type": "choice", "default": "", "help": ""} for key in keys]
        return record
    doc = document([declaring("matmul_cuda", "dtype", "kernel"), declaring("matmul_cublas", "dtype", "math")],
                   [entry("matmul_cuda", params="kernel=tensor"), entry("matmul_cuda", params="kernel=ffma"),
                    entry("matmul_cublas", params="math=fp32"),
                    entry("matmul_cuda", params="dtype=float64,kernel=tensor")])
    figures = plot.load_series([doc])
    assert sorted(figures) == [("matmul", ""), ("matmul", "dtype=float64")]  # dtype: declared by both
    assert sorted(figures[("matmul", "")]["lines"]) == [
        "matmul_cublas [math=fp32] (CUDA)", "matmul_cuda [kernel=ffma] (CUDA)", "matmul_cuda [kernel=tensor] (CUDA)"]
    assert figures[("matmul", "")]["lines"]["matmul_cuda [kernel=ffma] (CUDA)"]["backend"] == "cuda [kernel=ffma]"


def several_files_keep_apart():
    one = document([plugin("matmul_naive", "C++")], [entry("matmul_naive")])
    other = copy.deepcopy(one)
    other["gpu"]["name"] = "GPU Y"
    lines = plot.load_series([one, other])[("matmul", "")]["lines"]
    assert sorted(lines) == ["matmul_naive (C++) @ GPU X", "matmul_naive (C++) @ GPU Y"]
    assert len({line["marker"] for line in lines.values()}) == 2
    assert len({plot.backend_colour(line["backend"]) for line in lines.values()}) == 1


def recorded_models_and_crossovers():
    """A file's answers put each column's cost models on its line and each GPU column's
    compute crossover on the figure; a model is evaluated as the C++ one is."""
    one = document([plugin("matmul_omp", "C++"), plugin("matmul_cuda", "CUDA", "cuda")],
                   [entry("matmul_omp"), entry("matmul_cuda")])
    model = {"latency": 1e-6, "exponent": 3.0, "knots": [100.0], "slopes": [1e-9, 4e-9]}
    crossover = {"verdict": "from", "size": {"value": 50, "lo": 40, "hi": None}, "smallest": 16, "largest": 64}
    one["answers"] = [{"workload": "matmul", "params": "", "line": "...", "models": {"omp": {"compute": model}},
                       "answers": [{"gpu": "cuda", "compute": crossover},
                                   {"gpu": "cublas", "compute": {"verdict": "never"}}]}]
    figure = plot.load_series([one])[("matmul", "")]
    assert figure["lines"]["matmul_omp (C++)"]["models"]["compute"] == model
    assert figure["lines"]["matmul_cuda (CUDA)"]["models"] == {"compute": None, "e2e": None}
    assert figure["bands"] == [("cuda", {"value": 50, "lo": 40, "hi": None}, 16, 64)]  # never: no band
    assert abs(series.model_at(model, 10) - (1e-6 + 1e-9 * 1000)) < 1e-15
    assert abs(series.model_at(model, 200) - (1e-6 + 1e-9 * 1e6 + 4e-9 * (8e6 - 1e6))) < 1e-12
    assert plot.load_series([document([plugin("matmul_omp", "C++")], [entry("matmul_omp")])])[
        ("matmul", "")]["bands"] == []  # no answers recorded: nothing drawn


for test in (languages_and_styles, two_gpu_models, colours_by_backend, panels_drop_empty_ones,
             percent_of_each_devices_peak, spread_and_axis_ranges, size_labels,
             one_figure_per_parameter_setting, a_plugins_own_setting_is_a_line, several_files_keep_apart,
             recorded_models_and_crossovers):
    test()
    print("ok:", test.__name__)
