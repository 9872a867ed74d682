"""Results files as plot series, for plot_results.py: each verified entry as a point of its
backend's line, with the medians, quartiles and percent of its own device's roofline that the
panels draw. No matplotlib here: the choices are tested without it."""

import collections
import re
import statistics

MARKERS = "osD^vPX*"  # one per machine (or GPU model) when several are drawn together

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


def entry_gpu_model(entry):
    """The name of the GPU an entry ran on, where it recorded one (runner --devices)."""
    devices = entry.get("devices") or [{}]
    return devices[0].get("name", "")


def entry_device(entry, plugin):
    """'gpu' or 'cpu': the device an entry ran on (the plugin's kind; older files: its devices)."""
    kind = plugin.get("device_kind")
    if kind:
        return "cpu" if kind == "cpu" else "gpu"
    return "gpu" if entry.get("devices") else "cpu"


def quartiles(samples):
    """(first, third) quartile of the samples (linear interpolation), None without samples."""
    if len(samples) < 2:
        return (samples[0], samples[0]) if samples else None
    first, _, third = statistics.quantiles(samples, n=4, method="inclusive")
    return first, third


def headline_samples(timing):
    """The samples the headline median came from: per launch where it was timed so."""
    per_launch = timing.get("per_launch", {})
    if "compute" in timing and per_launch.get("samples"):
        return per_launch["samples"]
    return timing.get("samples", {}).get("run", [])


def end_to_end_samples(timing):
    """Per sample: upload + run + download, where the three lists line up."""
    samples = timing.get("samples", {})
    run = samples.get("run", [])
    parts = [samples.get(name) or [0.0] * len(run) for name in ("upload", "download")]
    if not all(len(part) == len(run) for part in parts):
        return []
    return [sum(values) for values in zip(run, *parts)]


def device_roofline(document, device):
    """gpu.roofline or host.roofline of a results file ({flops: {math: rate}, bytes_per_s})."""
    return document.get("host" if device == "cpu" else "gpu", {}).get("roofline")


def percent_of_own_peak(entry, device, document):
    """The entry's % of its own device's roofline: the recorded percent_of_peak where it was
    taken against that device, else worked out as the runner does (the larger of the flop and
    byte rates over their peaks); None where that device's roofline is not known."""
    throughput = entry.get("throughput", {})
    recorded = throughput.get("percent_of_peak")
    roofline = device_roofline(document, device)
    ceiling = throughput.get("ceiling")
    if recorded is not None and recorded > 0:
        if device == "gpu" or (ceiling and roofline
                               and ceiling.get("bytes_per_s") == roofline.get("bytes_per_s")):
            return recorded  # a CPU figure counts only when its ceiling is the host's
    if not roofline:
        return None
    math_kind = entry.get("work", {}).get("math") or "fp32"
    flops_peak = roofline.get("flops", {}).get(math_kind, 0)
    bytes_peak = roofline.get("bytes_per_s", 0)
    ratios = [throughput.get("gflops", 0) * 1e9 / flops_peak if flops_peak else 0,
              throughput.get("gbytes_per_s", 0) * 1e9 / bytes_peak if bytes_peak else 0]
    return 100 * max(ratios) if max(ratios) > 0 else None


def entry_point(entry, device, document):
    """One entry as a point: size, medians with their quartile bands, and the other panels'
    figures (None where the results lack them)."""
    timing, resources = entry["timing"], entry.get("resources", {})
    compute = timing.get("compute", timing["run"])["median"]
    band = quartiles(headline_samples(timing))
    rate = entry["throughput"].get(headline_of(entry)[0]) or None
    percent = percent_of_own_peak(entry, device, document)
    # Rates scale as 1/time, so the time band gives the rate band.
    scale = (compute / band[1], compute / band[0]) if band and min(band) > 0 else None
    return {"size": entry["size"], "compute": compute, "compute_band": band,
            "e2e": timing["end_to_end"]["median"],
            "moves_data": any(timing.get(phase, {}).get("count") for phase in ("upload",
                                                                                "download")),
            "e2e_band": quartiles(end_to_end_samples(timing)),
            "rate": rate, "rate_band": scale and rate and (rate * scale[0], rate * scale[1]),
            "pct_" + device: percent,
            "pct_" + device + "_band": scale and percent and (percent * scale[0],
                                                               percent * scale[1]),
            "gpu_mib": resources["device_allocated_bytes"] / 2**20
            if "device_allocated_bytes" in resources else None,
            "cpu_cores": resources.get("cpu_cores"), "gpu_busy": resources.get("gpu_busy")}


def own_keys(plugins):
    """{workload: keys only some of its plugins declare}: as runner report, such a key (matmul_cuda's
    kernel) names the plugin's line ("matmul_cuda [kernel=ffma]") instead of a figure. Plugins
    that declare nothing (older files) do not vote."""
    declared = collections.defaultdict(list)
    for p in plugins.values():
        keys = {param.get("key", "") for param in p.get("params", [])}
        if keys:
            declared[p.get("workload", "unknown")].append(keys)
    return {w: set.union(*sets) - set.intersection(*sets) for w, sets in declared.items()}


def split_params(params, own):
    """(the figure's params, the line's own setting), each in its order."""
    items = [item for item in (params or "").split(",") if item]
    mine = [item for item in items if item.split("=", 1)[0] in own]
    return ",".join(item for item in items if item not in mine), ",".join(mine)


def line_label(entry, language, machine, models, several_machines, setting=""):
    label = entry["plugin"] + (f" [{setting}]" if setting else "") + (f" ({language})" if language else "")
    if len(models) > 1 and entry_gpu_model(entry):
        label += f" on {entry_gpu_model(entry)}"  # one file, unlike GPUs (--devices, merge)
    if several_machines:
        label += f" @ {machine}"
    return label


def model_at(model, size):
    """A cost model's figure at size (the results file's answers[].models, user-guide.md#the-answer)."""
    work, below = size ** model["exponent"], 0.0
    figure = model["latency"]
    for knot, slope in zip(model["knots"], model["slopes"]):
        edge = knot ** model["exponent"]
        figure += slope * min(max(work - below, 0.0), edge - below)
        below = edge
    figure += sum(jump for step, jump in zip(model.get("steps", []), model.get("jumps", [])) if size > step)
    return figure + model["slopes"][-1] * max(0.0, work - below)


def attach_answers(figure, line, column, answer):
    """The recorded answer of the line's workload: its column's cost models (compute, end to
    end) on the line, each GPU column's compute crossover as a band of the figure (once)."""
    models = (answer or {}).get("models", {}).get(column, {})
    line.setdefault("models", {"compute": models.get("compute"), "e2e": models.get("end_to_end")})
    for each in (answer or {}).get("answers", []):
        crossover = each.get("compute", {})
        band = (each["gpu"], crossover.get("size", {}), crossover.get("smallest"),
                crossover.get("largest"))
        if crossover.get("verdict") == "from" and band not in figure["bands"]:
            figure["bands"].append(band)


def load_series(documents):
    """{(workload, params): figure} of the verified entries of every document. A figure is a
    dict: lines ({label: line}), rate_label, params, size_meanings (a Counter), bands (each GPU
    column's compute crossover where the file records its answers: column, size {value, lo,
    hi}, smallest, largest). A line is a dict: backend, language, marker, models (its cost
    models by panel key, where recorded) and points sorted by size (see entry_point)."""
    machines = [machine_of(d) for d in documents]
    several_machines = len(set(machines)) > 1  # then each line names its machine
    marker_keys = []
    figures = {}
    for machine, document in zip(machines, documents):
        plugins = {p["name"]: p for p in document.get("plugins", [])}
        own = own_keys(plugins)
        models = {entry_gpu_model(e) for e in document.get("entries", [])} - {""}
        answers = {(a["workload"], a["params"]): a for a in document.get("answers", [])}
        for entry in document.get("entries", []):
            if not entry.get("valid"):
                continue
            plugin = plugins.get(entry["plugin"], {})
            language = plugin.get("build_record", {}).get("language", "")
            device = entry_device(entry, plugin)
            params, setting = split_params(entry.get("params", ""), own.get(plugin.get("workload", "unknown"), set()))
            figure = figures.setdefault((plugin.get("workload", "unknown"), params), {
                "lines": {}, "rate_label": headline_of(entry)[1], "params": params,
                "size_meanings": collections.Counter(), "bands": []})
            figure["size_meanings"][plugin.get("size_meaning", "")] += 1
            marker_key = (machine, entry_gpu_model(entry) if len(models) > 1 else "")
            if marker_key not in marker_keys:
                marker_keys.append(marker_key)
            label = line_label(entry, language, machine, models, several_machines, setting)
            backend = plugin.get("backend") or entry["plugin"].split("_", 1)[-1]
            line = figure["lines"].setdefault(label, {
                "backend": backend + (f" [{setting}]" if setting else ""),
                "language": language, "points": [],
                "marker": MARKERS[marker_keys.index(marker_key) % len(MARKERS)]})
            line["points"].append(entry_point(entry, device, document))
            on_model = len(models) > 1 and entry_gpu_model(entry)
            column = line["backend"] + (f" on {entry_gpu_model(entry)}" if on_model else "")
            attach_answers(figure, line, column, answers.get((plugin.get("workload", "unknown"), params)))
    for figure in figures.values():
        for line in figure["lines"].values():
            line["points"].sort(key=lambda p: p["size"])
    return figures


def size_label(meanings, params=""):
    """The x axis label from the plugins' size_meaning (the most common one where backends
    disagree), shortened: up to its first '(' or ';', then up to its first ',' if still long,
    then the part before ':' if still long; the element type the figure's dtype parameter
    sets. 'size' when none is known."""
    counts = collections.Counter(meanings)  # a list of meanings, or a Counter of them
    counts.pop("", None)
    if not counts:
        return "size"
    meaning = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[0][0]
    text = re.split(r"[(;]", meaning)[0].strip()
    if len(text) > 40:
        text = text.split(",")[0].strip()
    if len(text) > 40 and ":" in text:
        text = text.split(":")[0].strip()
    dtype = dict(s.split("=", 1) for s in params.split(",") if "=" in s).get("dtype")
    return re.sub(r"\b(float|int|uint)\d+\b", dtype, text) if dtype else text or "size"
