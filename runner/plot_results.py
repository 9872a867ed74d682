#!/usr/bin/env python3
"""Plot a gpubench results file: per workload, median time vs size on log-log axes, one colour
per backend, compute-only (solid) and end-to-end with transfers (dashed), plus throughput.

    plot_results.py RESULTS.json [MORE.json ...] [--out-dir DIR] [--name STEM]
        -> DIR/<STEM>-<workload>.png   (STEM: the first file's name unless --name)

Several files (separate sweeps of one study, say GPU and CPU backends run with different
options) are drawn together; an entry run with plugin parameters is labelled with them, so
`vecadd_cuda [variant=increment]` and `vecadd_cuda` stay separate lines.

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


def load_series(documents):
    """({workload: {line label: [(size, run_median, e2e_median, rate)]}}, {workload: rate
    label}) of the verified entries of every document."""
    workload_of = {p["name"]: p["workload"] for d in documents for p in d.get("plugins", [])}
    series, rate_label = {}, {}
    for entry in (e for d in documents for e in d.get("entries", [])):
        if not entry.get("valid"):
            continue
        timing = entry["timing"]
        key, label = headline_of(entry)
        workload = workload_of.get(entry["plugin"], "unknown")
        point = (entry["size"], timing["run"]["median"], timing["end_to_end"]["median"],
                 entry["throughput"].get(key, 0.0))
        rate_label.setdefault(workload, label)
        label = entry["plugin"] + (f" [{entry['params']}]" if entry.get("params") else "")
        series.setdefault(workload, {}).setdefault(label, []).append(point)
    for plugins in series.values():
        for points in plugins.values():
            points.sort()
    return series, rate_label


def plot_workload(plt, workload, plugins, rate_label, title, path):
    figure, (time_axes, rate_axes) = plt.subplots(1, 2, figsize=(13, 5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for index, (plugin, points) in enumerate(sorted(plugins.items())):
        colour = colours[index % len(colours)]
        sizes = [p[0] for p in points]
        time_axes.plot(sizes, [p[1] for p in points], "o-", color=colour, label=plugin + " (compute)")
        if any(p[2] > p[1] for p in points):
            time_axes.plot(sizes, [p[2] for p in points], "s--", color=colour, alpha=0.7,
                           label=plugin + " (end-to-end)")
        rate_axes.plot(sizes, [p[3] for p in points], "o-", color=colour, label=plugin)
    time_axes.set(xscale="log", yscale="log", xlabel="size", ylabel="median time [s]",
                  title=f"{workload}: time vs size")
    rate_axes.set(xscale="log", yscale="log", xlabel="size",
                  ylabel=rate_label, title=f"{workload}: throughput")
    for axes in (time_axes, rate_axes):
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize="small")
    figure.suptitle(title, fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


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
    series, rate_labels = load_series(documents)
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
        path = os.path.join(out_dir, f"{stem}-{workload}.png")
        plot_workload(plt, workload, plugins, rate_labels[workload], title, path)
        print(path)


if __name__ == "__main__":
    main()
