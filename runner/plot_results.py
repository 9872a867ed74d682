#!/usr/bin/env python3
"""Plot gpubench results: one figure per workload and parameter setting, size on the x axis.

    plot_results.py RESULTS.json [MORE.json ...] [--out-dir DIR] [--name STEM]
        -> DIR/<STEM>-<workload>.png and .svg, or, for entries run with plugin parameters,
           DIR/<STEM>-<workload>-<key>-<value>[-<key>-<value>].png and .svg (one per setting)
           (DIR: beside the first file unless --out-dir; STEM: the first file's name unless --name)

Panels, only those the results have data for (the layout adapts, no panel is left empty):
  time                  median compute time (the headline: per launch for short GPU runs, else
                        single runs), log-log
  end to end            median upload + run + download per sample, drawn when some backend
                        moves data: a panel of its own, in the same colours and line styles
                        (so never mistaken for a Python line); CPU backends: their run alone
  throughput            the plugins' headline rate (GFLOP/s, GB/s or items/s)
  % of GPU roofline     GPU backends against the GPU's roofline (gpu.roofline)
  % of host roofline    CPU backends against the host's measured roofline (host.roofline),
                        never a CPU backend against a GPU peak. Both: each entry's recorded
                        percent_of_peak where it was taken against that device, else worked
                        out from the roofline. Above 100%: past the roofline, e.g. data held
                        in a cache faster than the memory the roofline assumes
  GPU memory            device memory held at the peak
  CPU use               cores busy (CPU time / wall time), from 0
  GPU use               fraction of wall time the GPU was busy, from 0
Shaded bands: the interquartile range of the samples each median came from.

Lines: one colour per backend, the same in every figure and every run (a fixed palette keyed by
backend name); solid for compiled code (C, C++, CUDA), dashed for Python, dash-dot for other
languages (from the plugins' build records; solid where unknown). Several files are drawn
together: separate sweeps of one study, or several machines, whose lines are then labelled
"@ <GPU or host>" and told apart by marker. The x axis says what the size counts (the plugins'
size_meaning, shortened). Only entries that verified are plotted: a wrong result is never drawn
as a fast one. Needs matplotlib (Debian: apt-get install python3-matplotlib); run by a Python
without it, it re-runs itself in the one sdk/python/find-python.sh finds.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import zlib

# The series module beside this script, wherever it is installed or run from.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from plot_series import load_series, model_at, size_label  # noqa: E402


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"  # SVG text stays text: searchable
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        # Run by an interpreter without matplotlib (`runner/plot_results.py` takes python3 on
        # PATH): re-run once in the one gpubench's finder chooses for matplotlib.
        if os.environ.get("GPUBENCH_PLOT_REEXEC"):
            sys.exit("plot_results.py: error: %s has no matplotlib" % sys.executable)
        finder = python_finder()
        found = subprocess.run(["sh", finder, "matplotlib"], capture_output=True, text=True) \
            if finder else None
        if not found or found.returncode != 0 or not found.stdout.strip():
            why = found.stderr.strip() if found else "no sdk/python/find-python.sh beside it"
            sys.exit("plot_results.py: error: matplotlib: %s" % why)
        os.environ["GPUBENCH_PLOT_REEXEC"] = "1"
        python = found.stdout.strip()
        os.execv(python, [python] + sys.argv)


def python_finder():
    """sdk/python/find-python.sh: beside this script where installed, in the source tree."""
    here = os.path.dirname(os.path.realpath(__file__))
    for candidate in (os.path.join(here, "find-python.sh"),
                      os.path.join(here, "..", "sdk", "python", "find-python.sh")):
        if os.path.isfile(candidate):
            return candidate
    return None


# 24 distinct colours: matplotlib's tab10, then Kelly's colours of maximum contrast.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#222222", "#875692", "#a1caf1", "#be0032",
           "#c2b280", "#008856", "#f3c300", "#604e97", "#882d17", "#8db600", "#654522",
           "#e68fac", "#2b3d26", "#f99379"]
# Known backends take the first colours in this order, so they never change.
KNOWN_BACKENDS = ["naive", "omp", "cuda", "cublas", "thrust", "numpy", "numba", "numba_cuda",
                  "cupy", "torch", "nccl", "cusolver", "jax", "triton"]


def backend_colour(backend):
    """The backend's colour: its place among the known backends, else one of the remaining
    colours by a stable hash of its name (never by the order backends appear in a file)."""
    if backend in KNOWN_BACKENDS:
        return PALETTE[KNOWN_BACKENDS.index(backend)]
    spare = PALETTE[len(KNOWN_BACKENDS):]
    return spare[zlib.crc32(backend.encode()) % len(spare)]


LANGUAGE_STYLES = {"C": "-", "C++": "-", "CUDA": "-", "Python": "--"}
STYLE_NAMES = {"-": "solid", "--": "dashed", "-.": "dash-dot"}


def line_style(language):
    return LANGUAGE_STYLES.get(language, "-." if language else "-")


def style_key(languages):
    """Which style is which language, e.g. 'solid: C++, CUDA; dashed: Python'."""
    by_style = {}
    for language in sorted(languages):
        by_style.setdefault(STYLE_NAMES[line_style(language)], []).append(language or "unknown")
    return "; ".join(f"{style}: {', '.join(names)}" for style, names in by_style.items())


# The panels: (point key, title, y label, y axis kind). Kinds: log, or a linear axis from 0
# with a minimum top (percent, fraction, cores).
PANELS = [("compute", "time (compute)", "median time [s]", "log"),
          ("e2e", "end to end: upload + run + download", "median time [s]", "log"),
          ("rate", "throughput", None, "log"),
          ("pct_gpu", "GPU backends: % of the GPU's roofline", "% of gpu.roofline", "percent"),
          ("pct_cpu", "CPU backends: % of the host's roofline", "% of host.roofline", "percent"),
          ("gpu_mib", "GPU memory", "device memory held [MiB]", "log"),
          ("cpu_cores", "CPU use", "CPU cores busy (CPU time / wall time)", "cores"),
          ("gpu_busy", "GPU use", "fraction of wall time the GPU was busy", "fraction")]
MINIMUM_TOP = {"percent": 110.0, "fraction": 1.05, "cores": 2.0}


def panels_with_data(lines):
    """The PANELS some line has a value for, in order: never an empty panel. End to end only
    where some backend moves data (else it would repeat the time panel)."""
    points = [p for line in lines.values() for p in line["points"]]
    return [panel for panel in PANELS if any(p.get(panel[0]) is not None for p in points)
            and (panel[0] != "e2e" or any(p.get("moves_data") for p in points))]


def grid_shape(count):
    """(rows, columns) for count panels: one row up to three, then two rows."""
    columns = count if count <= 3 else math.ceil(count / 2) if count <= 8 else 3
    return math.ceil(count / columns), columns


def axis_range(kind, values):
    """(bottom, top) of a y axis. Linear kinds start at 0 and reach at least their minimum
    top, so noise never looks like a trend; log axes span at least a factor of 10."""
    values = [v for v in values if v is not None and v > 0] if kind == "log" else \
        [v for v in values if v is not None]
    if kind == "log":
        if not values:
            return None
        low, high = min(values), max(values)
        middle = math.sqrt(low * high)
        return min(low / 1.3, middle / math.sqrt(10)), max(high * 1.3, middle * math.sqrt(10))
    return 0.0, max([MINIMUM_TOP[kind]] + [1.1 * v for v in values])


def figure_file_stem(stem, workload, params):
    """<stem>-<workload>, then -<key>-<value> for each parameter; safe in any file system."""
    parts = [stem, workload]
    for setting in filter(None, (params or "").split(",")):
        parts.extend(setting.split("=", 1))
    return "-".join(re.sub(r"[^A-Za-z0-9._+-]+", "_", part).strip("_") or "_" for part in parts)


def draw_line(axes, key, line, label):
    """One backend's line on one panel, with its quartile band where known."""
    points = [p for p in line["points"] if p.get(key) is not None]
    if not points:
        return
    colour = backend_colour(line["backend"])
    sizes = [p["size"] for p in points]
    axes.plot(sizes, [p[key] for p in points], line["marker"] + line_style(line["language"]),
              color=colour, label=label, markersize=4)
    banded = [p for p in points if p.get(key + "_band")]
    if banded:
        axes.fill_between([p["size"] for p in banded], [p[key + "_band"][0] for p in banded],
                          [p[key + "_band"][1] for p in banded], color=colour, alpha=0.2,
                          linewidth=0)


def draw_model(axes, key, line):
    """The line's cost model over its measured sizes, thin and dashed, where recorded."""
    model = line.get("models", {}).get(key)
    sizes = [p["size"] for p in line["points"] if p.get(key) is not None]
    if not model or len(sizes) < 2:
        return
    xs = [sizes[0] * (sizes[-1] / sizes[0]) ** (i / 48) for i in range(49)]
    axes.plot(xs, [model_at(model, x) for x in xs], "--", color=backend_colour(line["backend"]), linewidth=0.8,
              alpha=0.8)


def draw_bands(axes, figure):
    """Each GPU column's compute crossover: its 95% interval shaded in the column's colour."""
    for column, size, smallest, largest in figure["bands"]:
        axes.axvspan(size.get("lo") or smallest, size.get("hi") or largest, alpha=0.12, linewidth=0,
                     color=backend_colour(column.split()[0]), label=f"{column}: n* {size['value']:.3g} (95% shaded)")


def draw_panel(axes, panel, figure, x_label):
    key, title, y_label, kind = panel
    values = []
    if key == "compute":
        draw_bands(axes, figure)
    for label, line in sorted(figure["lines"].items()):
        draw_line(axes, key, line, label)
        draw_model(axes, key, line)
        values += [p[key] for p in line["points"] if p.get(key) is not None]
        values += [b for p in line["points"] if p.get(key + "_band") for b in p[key + "_band"]]
    axes.set(xscale="log", xlabel=x_label, ylabel=y_label or figure["rate_label"], title=title)
    if kind == "log":
        axes.set_yscale("log")
    axes.set_ylim(*axis_range(kind, values))
    if kind == "percent":
        axes.axhline(100, color="grey", linewidth=0.8, linestyle=":")
        if max(values, default=0) > 100:
            axes.text(0.01, 0.99, "above 100%: past the roofline (e.g. data held in a cache)",
                      transform=axes.transAxes, va="top", fontsize="x-small", color="grey")
    axes.grid(True, which="both", alpha=0.3)


def legend_title(figure, panels):
    """The key to the encodings: line style by language, bands, the end-to-end panel."""
    languages = {line["language"] for line in figure["lines"].values()}
    key = [style_key(languages) if any(languages) else "line style: no language recorded",
           "shaded: interquartile range of the samples",
           "thin dashed: each backend's cost model, where the file records it"]
    if any(panel[0] == "e2e" for panel in panels):
        key.append("end to end (with transfers): its own panel")
    return "\n".join(key)


def plot_figure(plt, figure, title, path_stem):
    """One figure: the panels with data, one legend outside them; PNG and SVG."""
    panels = panels_with_data(figure["lines"])
    rows, columns = grid_shape(len(panels))
    canvas, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 4.0 * rows),
                                squeeze=False)
    x_label = size_label(figure["size_meanings"], figure["params"])
    for panel_axes, panel in zip(axes.flat, panels):
        draw_panel(panel_axes, panel, figure, x_label)
    for unused in list(axes.flat)[len(panels):]:
        unused.remove()  # a grid with a spare cell: leave it blank, not an empty panel
    canvas.suptitle(title)
    canvas.tight_layout(rect=(0, 0, 1, 1 - 0.35 / canvas.get_figheight()))  # room for the title
    handles, labels = axes.flat[0].get_legend_handles_labels()  # time: every line
    canvas.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.95),
                  fontsize="small", title=legend_title(figure, panels), title_fontsize="small",
                  ncol=2 if len(labels) > 24 else 1, frameon=False)
    paths = [path_stem + ".png", path_stem + ".svg"]
    for path in paths:
        canvas.savefig(path, dpi=110, bbox_inches="tight")  # the box takes the legend in
    plt.close(canvas)
    return paths


def machines_title(documents):
    """Where the results were measured: host, CPU and GPU of each distinct machine."""
    machines = []
    for document in documents:
        host, gpu = document.get("host", {}), document.get("gpu", {})
        machines.append(f"{host.get('host_name', '?')}: {host.get('cpu_model', '?')}, GPU "
                        + (gpu.get("name", "?") if gpu.get("available") else "none"))
    return "; ".join(dict.fromkeys(machines))  # each once, in order


def parse_arguments():
    parser = argparse.ArgumentParser(
        prog="plot_results.py", description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="gpubench results JSON files")
    parser.add_argument("--out-dir",
                        help="where to write the figures (default: beside the first file)")
    parser.add_argument("--name", help="stem of the file names (default: the first file's name)")
    return parser.parse_args()


def main():
    args = parse_arguments()
    documents = []
    for path in args.results:
        try:
            with open(path) as handle:
                documents.append(json.load(handle))
        except (OSError, ValueError) as error:
            sys.exit(f"plot_results.py: error: cannot read {path}: {error}")
    figures = load_series(documents)
    if not figures:
        sys.exit(f"plot_results.py: error: {', '.join(args.results)}: no verified entries to plot")
    plt = import_pyplot()
    out_dir = args.out_dir or os.path.dirname(os.path.abspath(args.results[0]))
    os.makedirs(out_dir, exist_ok=True)
    stem = args.name or os.path.splitext(os.path.basename(args.results[0]))[0]
    where = machines_title(documents)
    for (workload, params), figure in sorted(figures.items()):
        title = f"{workload}" + (f" [{params}]" if params else "") + f"  —  {where}"
        path_stem = os.path.join(out_dir, figure_file_stem(stem, workload, params))
        for path in plot_figure(plt, figure, title, path_stem):
            print(path)


if __name__ == "__main__":
    main()
