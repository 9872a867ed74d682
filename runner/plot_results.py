#!/usr/bin/env python3
"""Plot gpubench results: per workload, median time vs size on log-log axes, one colour per
backend, compute-only and end-to-end with transfers (dotted); and a panel each for
throughput, % of the GPU's roofline, GPU memory, CPU use and GPU use vs size: the figures of
the studies. A workload's backends in every language share its figure: solid lines for
compiled ones (C++, CUDA), dashed for Python (the language from the plugins' build records;
solid where unknown), each labelled with its language. PNG and SVG.

    plot_results.py RESULTS.json [MORE.json ...] [--out-dir DIR] [--name STEM]
        -> DIR/<STEM>-<workload>.png and .svg   (STEM: the first file's name unless --name)

Several files are drawn together: separate sweeps of one study (GPU and CPU backends run with
different options), or several machines, whose lines are then labelled "@ <GPU or host>".
An entry run with plugin parameters is labelled with them, so `vecadd_cuda
[variant=increment]` and `vecadd_cuda` stay separate lines.

Needs matplotlib (Debian: apt-get install python3-matplotlib). Only entries that verified are
plotted: a wrong result is never drawn as a fast one.
"""
import argparse
import json
import os
import sys


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        # Debian's matplotlib imports only under the system interpreter; try that once.
        system = "/usr/bin/python3"
        if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system) \
                and not os.environ.get("GPUBENCH_PLOT_REEXEC"):
            os.environ["GPUBENCH_PLOT_REEXEC"] = "1"
            os.execv(system, [system] + sys.argv)
        sys.exit("plot_results.py: error: matplotlib is not installed "
                 "(Debian: sudo apt-get install python3-matplotlib)")


RATE_LABELS = {"gflops": "GFLOP/s", "gbytes_per_s": "GB/s", "items_per_s": "{item}/s"}


def headline_of(entry):
    """(key, axis label) of the throughput the plugin shows first."""
    throughput = entry["throughput"]
    key = throughput.get("headline") or ("gflops" if throughput["gflops"] > 0 else "gbytes_per_s")
    item = entry.get("work", {}).get("item_name") or "items"
    return key, RATE_LABELS.get(key, key).format(item=item)


def machine_of(document):
    """The GPU a results file was measured with, else its host."""
    gpu = document.get("gpu", {})
    return gpu.get("name", "GPU") if gpu.get("available") else \
        document.get("host", {}).get("host_name", "host")


# Line style by language: compiled code solid, Python dashed, any other dash-dotted.
LANGUAGE_STYLES = {"C": "-", "C++": "-", "CUDA": "-", "Python": "--"}
STYLE_NAMES = {"-": "solid", "--": "dashed", "-.": "dash-dot"}


def line_style(language):
    return LANGUAGE_STYLES.get(language, "-." if language else "-")


def style_key(languages):
    """The legend's title: which style is which language, e.g. 'solid: C++, CUDA; dashed: Python'."""
    by_style = {}
    for language in sorted(languages):
        by_style.setdefault(STYLE_NAMES[line_style(language)], []).append(language or "unknown")
    return "; ".join(f"{style}: {', '.join(names)}" for style, names in by_style.items())


def entry_gpu_model(entry):
    """The name of the GPU an entry ran on, where it recorded one (runner --devices)."""
    devices = entry.get("devices") or [{}]
    return devices[0].get("name", "")


def gpu_models(document):
    return {entry_gpu_model(e) for e in document.get("entries", [])} - {""}


def load_series(documents):
    """({workload: {line label: [point]}}, {workload: rate label}, {line label: language}) of
    the verified entries of every document; a point is a dict of size, compute, e2e, rate and,
    where the results have them, pct_peak, gpu_mib, cpu_cores and gpu_busy. A line's label
    names its language where the plugin's build record gives it."""
    workload_of = {p["name"]: p["workload"] for d in documents for p in d.get("plugins", [])}
    language_of = {p["name"]: p.get("build_record", {}).get("language", "")
                   for d in documents for p in d.get("plugins", [])}
    machines = [machine_of(d) for d in documents]
    several_machines = len(set(machines)) > 1  # then each line names its machine
    series, rate_label, languages = {}, {}, {}
    for machine, entry, models in ((m, e, gpu_models(d)) for m, d in zip(machines, documents)
                                   for e in d.get("entries", [])):
        if not entry.get("valid"):
            continue
        timing = entry["timing"]
        key, label = headline_of(entry)
        workload = workload_of.get(entry["plugin"], "unknown")
        resources = entry.get("resources", {})
        # The headline: per launch for short GPU runs (timing.compute), else single runs.
        compute = timing.get("compute", timing["run"])["median"]
        point = {"size": entry["size"], "compute": compute,
                 "e2e": timing["end_to_end"]["median"],
                 "rate": entry["throughput"].get(key, 0.0),
                 "pct_peak": entry["throughput"].get("percent_of_peak"),
                 "gpu_mib": (resources["device_allocated_bytes"] / 2**20
                             if "device_allocated_bytes" in resources else None),
                 "cpu_cores": resources.get("cpu_cores"),
                 "gpu_busy": resources.get("gpu_busy")}
        rate_label.setdefault(workload, label)
        language = language_of.get(entry["plugin"], "")
        line = entry["plugin"] + (f" [{entry['params']}]" if entry.get("params") else "")
        if language:
            line += f" ({language})"
        if len(models) > 1 and entry_gpu_model(entry):
            line += f" on {entry_gpu_model(entry)}"  # one file, unlike GPUs (--devices, merge)
        if several_machines:
            line += f" @ {machine}"
        languages[line] = language
        series.setdefault(workload, {}).setdefault(line, []).append(point)
    for plugins in series.values():
        for points in plugins.values():
            points.sort(key=lambda p: p["size"])
    return series, rate_label, languages


# The panels after time vs size: (point key, y label, title, log y).
PANELS = [("rate", None, "throughput", True),
          ("pct_peak", "% of the GPU's roofline", "% of peak (GPU backends)", False),
          ("gpu_mib", "device memory held [MiB]", "GPU memory", True),
          ("cpu_cores", "CPU cores busy (CPU time / wall time)", "CPU use", False),
          ("gpu_busy", "fraction of wall time the GPU was busy", "GPU use", False)]


def plot_workload(plt, workload, plugins, languages, rate_label, title, stem):
    figure, axes = plt.subplots(2, 3, figsize=(18, 10))
    time_axes, panel_axes = axes.flat[0], list(axes.flat[1:])
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for index, (plugin, points) in enumerate(sorted(plugins.items())):
        colour = colours[index % len(colours)]
        style = "o" + line_style(languages.get(plugin, ""))
        sizes = [p["size"] for p in points]
        time_axes.plot(sizes, [p["compute"] for p in points], style, color=colour,
                       label=plugin + " compute")
        if any(p["e2e"] > p["compute"] for p in points):
            time_axes.plot(sizes, [p["e2e"] for p in points], "s:", color=colour, alpha=0.7,
                           label=plugin + " end to end")
        for panel, (key, _, _, _) in zip(panel_axes, PANELS):
            known = [p for p in points if p[key] is not None]
            if known:
                panel.plot([p["size"] for p in known], [p[key] for p in known], style,
                           color=colour, label=plugin)
    time_axes.set(xscale="log", yscale="log", xlabel="size", ylabel="median time [s]",
                  title=f"{workload}: time vs size (end to end dotted)")
    drawn = {languages.get(plugin, "") for plugin in plugins}
    time_axes.legend(fontsize="x-small", title=style_key(drawn) if any(drawn) else None,
                     title_fontsize="x-small")
    for panel, (key, ylabel, name, log_y) in zip(panel_axes, PANELS):
        panel.set(xscale="log", xlabel="size", ylabel=ylabel or rate_label,
                  title=f"{workload}: {name}")
        if panel.lines:
            if log_y:
                panel.set_yscale("log")
            panel.legend(fontsize="x-small")
        else:
            panel.text(0.5, 0.5, "not in these results", ha="center", va="center",
                       transform=panel.transAxes, color="grey")
    for ax in axes.flat:
        ax.grid(True, which="both", alpha=0.3)
    figure.suptitle(title, fontsize="small")
    figure.tight_layout()
    paths = [stem + ".png", stem + ".svg"]
    for path in paths:
        figure.savefig(path, dpi=110)
    plt.close(figure)
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="gpubench results JSON files")
    parser.add_argument("--out-dir", help="where to write the PNG files (default: beside the first file)")
    parser.add_argument("--name", help="stem of the PNG names (default: the first file's name)")
    args = parser.parse_args()
    documents = []
    for path in args.results:
        try:
            with open(path) as handle:
                documents.append(json.load(handle))
        except (OSError, ValueError) as error:
            sys.exit(f"plot_results.py: error: cannot read {path}: {error}")
    series, rate_labels, languages = load_series(documents)
    if not series:
        sys.exit(f"plot_results.py: error: {', '.join(args.results)}: no verified entries to plot")
    plt = import_pyplot()
    out_dir = args.out_dir or os.path.dirname(os.path.abspath(args.results[0]))
    os.makedirs(out_dir, exist_ok=True)
    stem = args.name or os.path.splitext(os.path.basename(args.results[0]))[0]
    gpu = documents[0].get("gpu", {})
    host = documents[0].get("host", {})
    title = f"{host.get('host_name', '?')}: {host.get('cpu_model', '?')}, " \
            f"GPU {gpu.get('name', 'none') if gpu.get('available') else 'none'}"
    for workload, plugins in sorted(series.items()):
        for path in plot_workload(plt, workload, plugins, languages, rate_labels[workload], title,
                                  os.path.join(out_dir, f"{stem}-{workload}")):
            print(path)


if __name__ == "__main__":
    main()
