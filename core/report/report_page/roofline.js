// gpubench HTML report: the measured roofline (--counters) and the counted work beside the
// declared. Per workload, each entry whose hardware counters were read stands at its counted
// arithmetic intensity and achieved rate (the point's `counted`, computed by
// core/report/report_html_roofline.cpp) against the roofs of the device it ran on
// (workload.roofline.devices); under the plot, the entries flagged work_mismatch and those
// without a point, with why.

// Roof lines: one dash per device, one colour per roof.
const roofDashes = ["solid", "dash", "dot"];
const roofColours = {memory: ["#444444", "#999999"], compute: ["#5b3a8c", "#2b6cb0", "#8a5a00"]};
const mismatchColour = "#d62728";

function countedEntries(workload) {
  return workload.columns.flatMap((c) => c.points.filter((p) => p.counters !== undefined).map((p) => ({column: c, point: p})));
}

function entryName(column, p) {
  return column.label + " (" + p.plugin + ") at size " + fmtSize(p.size) + (p.params ? " [" + p.params + "]" : "");
}

// A point's hover: the entry, where it stands, its declared work beside the counted, the source.
function rooflineHover(column, p) {
  const c = p.counted;
  const lines = [plotText(entryName(column, p)),
    "intensity: " + fmtNumber(c.intensity) + " flop/B; rate: " + fmtSi(c.rate, "FLOP/s") + " at " + fmtSeconds(p.t),
    "declared per run(): " + fmtSi(p.work.bytes, "B") + ", " + fmtSi(p.work.flops, "flop") + " (" + plotText(p.work.math) + ")",
    "counted per run(): " + fmtSi(c.bytes, "B") + " (" + plotText(c.bytes_what) + ")" +
      (c.l2_bytes !== undefined ? ", L2 " + fmtSi(c.l2_bytes, "B") : "") + ", " + fmtSi(c.flops, "flop"),
    c.flops_declared ? "flops: the declared ones (the CPU's counters count none)" : null,
    "counters: " + plotText(p.counters) + "; roofs of " + plotText(c.device),
    p.work_mismatch ? "work_mismatch: " + plotText(p.work_mismatch) : null];
  return lines.filter((line) => line !== null).join("<br>");
}

// A device's roofs as line traces over [lo, hi]: each bandwidth rising until it meets the
// highest compute roof, each compute roof from where it meets the fastest bandwidth.
function roofTraces(device, dash, lo, hi) {
  const top = Math.max(0, ...device.compute.map((r) => r.flops));
  const fastest = Math.max(0, ...device.memory.map((r) => r.bytes_per_s));
  const line = (name, colour, x, y, hover) => ({type: "scatter", mode: "lines", name: plotText(device.name + ": " + name),
    x, y, hoverinfo: "text", text: x.map(() => plotText(device.name + ": " + hover)), line: {color: colour, dash, width: 1.5}});
  const traces = device.memory.map((r, i) => {
    const end = top > 0 ? top / r.bytes_per_s : hi;
    return line(r.name + " " + fmtSi(r.bytes_per_s, "B/s"), roofColours.memory[i % 2], [lo, end], [r.bytes_per_s * lo, r.bytes_per_s * end],
      r.name + " bandwidth " + fmtSi(r.bytes_per_s, "B/s"));
  });
  device.compute.forEach((r, i) => {
    const start = fastest > 0 ? r.flops / fastest : lo;
    traces.push(line(r.name + " " + fmtSi(r.flops, "FLOP/s"), roofColours.compute[i % 3], [start, hi], [r.flops, r.flops],
      "peak " + r.name + " " + fmtSi(r.flops, "FLOP/s")));
  });
  return traces;
}

// The plot's spec: a trace per column, the mismatched points ringed, the roofs of each device.
function rooflinePlot(workload, plotted) {
  const traces = [];
  for (const column of workload.columns) {
    const points = plotted.filter((e) => e.column === column).map((e) => e.point);
    if (!points.length) continue;
    const colour = data.backends[column.backend] || "#444";
    traces.push({type: "scatter", mode: "markers", name: plotText(column.label), legendgroup: column.label,
      x: points.map((p) => p.counted.intensity), y: points.map((p) => p.counted.rate), hoverinfo: "text",
      text: points.map((p) => rooflineHover(column, p)),
      marker: {color: colour, size: 9, symbol: column.gpu ? "circle" : "square"}});
  }
  const mismatched = plotted.filter((e) => e.point.work_mismatch);
  if (mismatched.length)
    traces.push({type: "scatter", mode: "markers",
      name: "work_mismatch: counted and declared work differ over " + workload.roofline.mismatch_factor + "x",
      x: mismatched.map((e) => e.point.counted.intensity), y: mismatched.map((e) => e.point.counted.rate),
      hoverinfo: "text", text: mismatched.map((e) => rooflineHover(e.column, e.point)),
      marker: {color: mismatchColour, size: 17, symbol: "diamond-open", line: {width: 2.5, color: mismatchColour}}});
  const devices = workload.roofline.devices;
  const xs = plotted.map((e) => e.point.counted.intensity).concat(devices.flatMap((d) =>
    d.compute.flatMap((c) => d.memory.map((m) => c.flops / m.bytes_per_s))));
  const lo = Math.min(...xs) / 8, hi = Math.max(...xs) * 8;
  devices.forEach((device, i) => traces.push(...roofTraces(device, roofDashes[i % roofDashes.length], lo, hi)));
  const layout = plotLayout("Measured roofline: counted flops per DRAM byte against the achieved rate", "",
    {title: {text: "achieved rate (FLOP/s)"}, type: "log", exponentformat: "SI"}, traces.length);
  layout.xaxis = {title: {text: "arithmetic intensity (flops per DRAM byte, counted)"}, type: "log"};
  return {div: el("div", {class: "plot roofline", dataset: {panel: "roofline"}}), traces, layout};
}

// Entries grouped by `key`, each group as "reason: entry, entry".
function groupedBy(entries, key) {
  const groups = new Map();
  for (const e of entries) {
    if (!groups.has(key(e))) groups.set(key(e), []);
    groups.get(key(e)).push(entryName(e.column, e.point));
  }
  return [...groups].map(([reason, names]) => el("li", {}, reason + ": " + names.join("; ")));
}

// The workload's measured roofline: {specs, nodes}, the plot (when any entry has a point) to
// draw with the workload's other plots, and what the page shows of it.
function rooflineSection(workload) {
  const counted = countedEntries(workload);
  const heading = el("h4", {}, "Measured roofline (hardware counters, --counters)");
  if (!counted.length)
    return {specs: [], nodes: [heading, el("p", {class: "roofline-none"},
      "No entry of this workload has hardware counters: run it with --counters to see where it stands on its device's roofline.")]};
  const read = counted.filter((e) => e.point.counted);
  const plotted = read.filter((e) => e.point.counted.intensity !== undefined);
  const spec = plotted.length ? rooflinePlot(workload, plotted) : null;
  const mismatched = counted.filter((e) => e.point.work_mismatch);
  const list = (className, title, items) => (items.length ? [el("p", {}, title), el("ul", {class: className}, items)] : []);
  return {specs: spec ? [spec] : [], nodes: [heading,
    el("p", {}, "Each entry whose counters were read, at its arithmetic intensity (counted flops per DRAM byte read and " +
      "written in one run()) and achieved rate (counted flops over the median compute time), against the roofs of the device " +
      "it ran on: peak flops flat, memory bandwidths (the L2's and HBM's on a GPU) rising. On the host the DRAM bytes are " +
      "last-level cache misses x 64 B and the flops are the declared ones: the CPU's counters count none. Squares: CPU " +
      "entries; a red ring: work_mismatch."),
    spec ? el("div", {class: "plots"}, spec.div) : el("p", {}, "No entry has a point: see below."),
    workload.roofline.note ? el("p", {class: "roofline-note"}, workload.roofline.note) : [],
    workload.roofline.devices.filter((d) => d.missing).map((d) => el("p", {class: "roofline-note"}, "No roofs for " + d.name + ": " + d.missing + ".")),
    list("roofline-mismatch", "Declared and counted work differ by more than " + workload.roofline.mismatch_factor +
      "x (work_mismatch):",
      mismatched.map((e) => el("li", {}, el("span", {class: "flag", title: flagMeanings.work_mismatch || ""}, "work_mismatch"),
        " " + entryName(e.column, e.point) + ": " + e.point.work_mismatch))),
    list("roofline-off", "Counters read, but no point on the roofline:",
      groupedBy(read.filter((e) => e.point.counted.off_plot), (e) => e.point.counted.off_plot)),
    list("roofline-not-read", "Counters not read, so no point:",
      groupedBy(counted.filter((e) => !e.point.counted), (e) => e.point.counters.replace(/^not read: /, "")))]};
}

// A cell of the work table: the declared work per run() beside the counted, work_mismatch flagged.
function workCell(c, p) {
  if (!p.work) return "—";
  const declared = "declared " + fmtSi(p.work.bytes, "B") + ", " + fmtSi(p.work.flops, "flop");
  const counted = !p.counted ? "counters " + p.counters
    : "counted " + (p.counted.bytes !== undefined ? fmtSi(p.counted.bytes, "B") + " (" + p.counted.bytes_what + ")" : "no bytes") +
      ", " + (p.counted.flops !== undefined && !p.counted.flops_declared ? fmtSi(p.counted.flops, "flop") : "flops not counted");
  return flaggedCell(declared + "; " + counted, p.flags.filter((f) => f === "work_mismatch"));
}

// The counted rate in the throughput table's unit, where the counters give its work.
function countedThroughput(p, unit) {
  const c = p.counted;
  if (!c || !(p.t > 0)) return undefined;
  if (unit === "GB/s" && c.bytes !== undefined) return c.bytes / p.t / 1e9;
  if (unit === "GFLOP/s" && c.flops !== undefined && !c.flops_declared) return c.flops / p.t / 1e9;
  return undefined;
}
