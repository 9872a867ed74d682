// gpubench HTML report: the plots. Each panel is a spec {div, traces, layout} built from the
// page's data; drawPlots() draws them all once plotly.js is loaded (loadPlotly).

// Spread of a figure that is a rate (work / time) from the time's quartiles: the slower
// quartile gives the lower rate.
function rateSpread(value) {
  return (p) => (p.q1 > 0 && p.q3 > 0 ? [value(p) * p.t / p.q3, value(p) * p.t / p.q1] : undefined);
}

// A range for a percentage axis: from 0 to at least 100, never an autoscaled sliver.
function percentRange(values) { return [0, Math.max(100, ...values) * 1.08]; }

// From 0 to a little above the largest value: % of peak is often a few percent, which a
// 0-100 axis would flatten.
function zeroBasedRange(values) { return [0, (Math.max(...values) || 1) * 1.15]; }

// The panels of a workload, in page order. value: the figure of a point (undefined: none);
// spread: its [low, high]; log: log y axis; range: a fixed y range from the values.
function workloadPanels(workload) {
  const units = {};
  for (const c of workload.columns) for (const p of c.points) if (p.tput_unit) units[p.tput_unit] = (units[p.tput_unit] || 0) + 1;
  const unit = Object.keys(units).sort((a, b) => units[b] - units[a])[0];
  const tput = (p) => (p.tput_unit === unit ? p.tput : undefined);
  return [
    {id: "time", title: "Median compute time (dotted: end to end, with transfers)", axis: "time per run (s)",
      value: (p) => p.t, spread: (p) => (p.n ? [p.q1, p.q3] : undefined), log: true, format: fmtSeconds,
      second: {value: (p) => p.e2e, name: "end to end", dash: "dot", when: (c) => c.points.some((p) => p.e2e > p.t * 1.0001)}},
    {id: "throughput", title: "Throughput", axis: unit ? "throughput (" + unit + ")" : "", value: tput,
      spread: rateSpread(tput), log: true, format: (v) => fmtNumber(v) + " " + unit},
    {id: "peak", title: "% of peak (each backend against its own device's roofline)", axis: "% of peak",
      value: (p) => p.peak, spread: rateSpread((p) => p.peak), range: zeroBasedRange, format: (v) => fmtPercent(v, 1),
      note: (p) => (p.bound ? p.bound + " bound" : "")},
    {id: "memory", title: "Peak memory (open markers: GPU memory)", axis: "bytes", value: (p) => p.cpu_mem,
      log: true, format: fmtBytes, second: {value: (p) => p.gpu_mem, name: "GPU memory", open: true, when: () => true}},
    {id: "cpu", title: "CPU use", axis: "CPU use (% of the host's cores)", value: (p) => p.cpu_pct,
      range: percentRange, format: (v) => fmtPercent(v, 1)},
    {id: "gpu", title: "GPU use", axis: "GPU busy (% of the sampling time)", value: (p) => p.gpu_pct,
      range: () => [0, 105], format: (v) => fmtPercent(v, 0)},
    {id: "energy", title: "Energy per run", axis: "energy per run (J)", value: (p) => p.energy_j, log: true,
      format: (v) => fmtNumber(v) + " J"},
  ].concat(workloadMetrics(workload).map((m) => ({id: "metric-" + m.name, title: metricHeading(m),
    axis: m.unit ? m.name + " (" + m.unit + ")" : m.name, value: (p) => metricValue(p, m.name),
    format: (v) => fmtNumber(v) + (m.unit ? " " + m.unit : "")})));
}

const sourceSymbols = ["circle", "square", "diamond", "triangle-up", "cross", "x", "star", "hexagon"];

function hoverText(workload, column, p, value, panel, name) {
  const lines = [plotText(column.label + (name ? " " + name : "")),
    plotText((workload.size_meaning || "size").split(":")[0]) + " = " + fmtSize(p.size),
    "median: " + panel.format(value)];
  const spread = panel.spread && !name && panel.spread(p);
  if (spread) lines.push("quartiles: " + panel.format(spread[0]) + " .. " + panel.format(spread[1]));
  if (panel.id === "time" && !name && p.n) lines.push("min/max: " + fmtSeconds(p.min) + " / " + fmtSeconds(p.max) + " (" + p.n + " samples)");
  if (panel.note && panel.note(p)) lines.push(panel.note(p));
  if (p.flags.length) lines.push("flags: " + plotText(p.flags.join(", ")));
  return lines.join("<br>");
}

// One trace of a column: its points that have the figure.
function columnTrace(workload, column, panel, series, symbol) {
  const points = column.points.filter((p) => series.value(p) !== undefined && series.value(p) !== null);
  if (!points.length) return null;
  const colour = data.backends[column.backend] || "#444";
  const values = points.map(series.value);
  const trace = {
    type: "scatter", mode: "lines+markers", name: plotText(column.label), legendgroup: column.label,
    x: points.map((p) => p.size), y: values, hoverinfo: "text",
    text: points.map((p, i) => hoverText(workload, column, p, values[i], panel, series.name)),
    line: {color: colour, dash: series.dash || column.dash, width: series.dash ? 1.5 : 2},
    marker: {color: colour, size: 7, symbol: symbol + (series.open ? "-open" : "")},
  };
  const spreads = series === panel && panel.spread ? points.map(panel.spread) : [];
  if (spreads.some((s) => s)) {
    trace.error_y = {type: "data", symmetric: false, color: colour, thickness: 1.2, width: 4,
      array: spreads.map((s, i) => (s ? Math.max(0, s[1] - values[i]) : 0)),
      arrayminus: spreads.map((s, i) => (s ? Math.max(0, values[i] - s[0]) : 0))};
  }
  return trace;
}

function panelTraces(workload, panel) {
  const sources = [...new Set(workload.columns.map((c) => c.source))];
  const traces = [];
  for (const column of workload.columns) {
    const symbol = sourceSymbols[sources.indexOf(column.source) % sourceSymbols.length];
    const main = columnTrace(workload, column, panel, panel, symbol);
    if (main) traces.push(main);
    if (panel.second && panel.second.when(column)) {
      const second = columnTrace(workload, column, panel, panel.second, symbol);
      if (second) {
        second.showlegend = !main;
        traces.push(second);
      }
    }
  }
  return traces;
}

// A cost model's figure at `size`: core/report/answer.hpp's CostModel::at, from the page's data.
function modelAt(m, size) {
  const work = Math.pow(size, m.exponent);
  let figure = m.latency, below = 0;
  m.knots.forEach((knot, k) => {
    const edge = Math.pow(knot, m.exponent);
    figure += m.slopes[k] * Math.min(Math.max(work - below, 0), edge - below);
    below = edge;
  });
  (m.steps || []).forEach((step, j) => { if (size > step) figure += m.jumps[j]; });
  return figure + m.slopes[m.slopes.length - 1] * Math.max(0, work - below);
}

// The time panel's cost models, thin dashed lines over each column's measured sizes (compute;
// dash-dot: end to end, where it differs).
function modelTraces(workload) {
  const traces = [];
  for (const column of workload.columns) {
    const models = workload.answer.models[column.label] || {};
    const sizes = column.points.map((p) => p.size);
    const lo = Math.min(...sizes), hi = Math.max(...sizes);
    const xs = Array.from({length: 49}, (_, i) => lo * Math.pow(hi / lo, i / 48));
    for (const [key, dash] of [["compute", "dash"], ["end_to_end", "dashdot"]]) {
      const m = models[key];
      if (!m || (key === "end_to_end" && !column.points.some((p) => p.e2e > p.t * 1.0001))) continue;
      traces.push({type: "scatter", mode: "lines", legendgroup: column.label, showlegend: false, hoverinfo: "text",
        x: xs, y: xs.map((x) => modelAt(m, x)), opacity: 0.8,
        line: {color: data.backends[column.backend] || "#444", dash, width: 1},
        text: xs.map(() => plotText("model of " + column.label + " (" + key.replace(/_/g, " ") + "): " +
          (m.leave_out.sizes ? "left-out error " + fmtPercent(100 * m.leave_out.median_error, 1) + " median, " +
            fmtPercent(100 * m.leave_out.max_error, 1) + " max" : "too few sizes to leave one out")))});
    }
  }
  return traces;
}

// Each compute crossover's 95% interval as a band across the time panel, in its GPU's colour.
function crossoverBands(workload, values) {
  const low = Math.min(...values.filter((v) => v > 0)), high = Math.max(...values);
  return workload.answer.answers.filter((a) => a.compute.verdict === "from").map((a) => {
    const c = a.compute, column = workload.columns.find((x) => x.label === a.gpu);
    const x0 = c.size.lo || c.smallest, x1 = c.size.hi === null ? c.largest : c.size.hi;
    return {type: "scatter", mode: "lines", fill: "toself", name: plotText(a.gpu + ": n* " + fmtSize(Math.round(c.size.value)) +
        " (95%: " + fmtSize(Math.round(x0)) + "–" + fmtSize(Math.round(x1)) + ")"), hoverinfo: "name",
      x: [x0, x1, x1, x0, x0], y: [low, low, high, high, low], line: {width: 0},
      fillcolor: (column && data.backends[column.backend] || "#444") + "30"};
  });
}

// The legend goes below the plot, growing it by a row per two entries, so that the plot keeps
// its width however many backends there are.
function plotLayout(title, xTitle, yaxis, legendEntries) {
  const plotHeight = 260, legendHeight = 22 * Math.ceil((legendEntries || 0) / 2);
  const bottom = 95 + legendHeight;
  return {
    title: {text: plotText(title), font: {size: 14}, x: 0.01, xanchor: "left"}, height: 40 + plotHeight + bottom,
    hovermode: "closest", margin: {l: 70, r: 20, t: 40, b: bottom},
    legend: {font: {size: 11}, orientation: "h", x: 0, xanchor: "left", y: -85 / plotHeight, yanchor: "top"},
    xaxis: {title: {text: plotText(shortSizeMeaning(xTitle))}, type: "log"},
    yaxis: yaxis,
  };
}

// The size axis's title: what the size counts, without the plugin's longer explanation
// ("N: square matrices N x N, float32 (C = A*B; ...)" -> "N: square matrices N x N, float32").
function shortSizeMeaning(meaning) {
  let text = meaning.split(/[(;]/)[0].trim();
  if (text.length > 48) text = text.split(",")[0].trim();
  return text || meaning;
}

// The workload's panels that have data, each as a spec for drawPlots.
function workloadPlots(workload) {
  const specs = [];
  for (const panel of workloadPanels(workload)) {
    let traces = panelTraces(workload, panel);
    if (!traces.length) continue;
    const values = traces.flatMap((t) => t.y);
    if (panel.id === "time") traces = crossoverBands(workload, values).concat(traces, modelTraces(workload));
    const yaxis = {title: {text: plotText(panel.axis)}, type: panel.log ? "log" : "linear"};
    if (panel.range) yaxis.range = panel.range(values);
    const div = el("div", {class: "plot", dataset: {panel: panel.id}});
    const legendEntries = traces.filter((t) => t.showlegend !== false).length;
    specs.push({div, traces, layout: plotLayout(panel.title, workload.size_meaning || "size", yaxis, legendEntries)});
  }
  return specs;
}

// One plot per history group (an entry's time, or one of its metrics, on one machine and
// build): a trace per size over the group's runs, change points as vertical lines with the
// step's size.
function historyPlots(series) {
  const groups = new Map();
  for (const s of series) {
    const key = [s.plugin, s.params, s.machine, s.gpus, s.build, s.metric || ""].join("\n");
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(s);
  }
  const specs = [];
  for (const members of groups.values()) {
    const runs = [];
    const runIndex = (p) => runs.findIndex((r) => r.commit === p.commit && r.date === p.date);
    for (const s of members) for (const p of s.points) if (runIndex(p) < 0) runs.push({commit: p.commit, date: p.date});
    runs.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    const traces = [], shapes = [], steps = new Map();  // steps: at x, the lines of its label
    const metric = members[0].metric;
    const format = metric ? (v) => fmtNumber(v) + (members[0].unit ? " " + members[0].unit : "") : fmtSeconds;
    for (const s of members) {
      const x = s.points.map(runIndex);
      traces.push({type: "scatter", mode: "lines+markers", name: "size " + fmtSize(s.size), x, y: s.points.map((p) => p.median),
        error_y: {type: "data", symmetric: false, array: s.points.map((p) => Math.max(0, p.high - p.median)),
          arrayminus: s.points.map((p) => Math.max(0, p.median - p.low)), thickness: 1.2, width: 4},
        hoverinfo: "text", text: s.points.map((p) => plotText(s.label) + "<br>commit " + plotText(p.commit) +
          "<br>" + plotText(p.date) + (metric ? "<br>" + plotText(format(p.median))
            : "<br>median " + format(p.median) + "<br>quartiles " + format(p.low) + " .. " + format(p.high)))});
      for (const c of s.change_points) {
        const at = x[c.index] - 0.5;
        if (!steps.has(at)) {
          steps.set(at, []);
          shapes.push({type: "line", xref: "x", yref: "paper", x0: at, x1: at, y0: 0, y1: 1, line: {color: "#d62728", width: 2, dash: "dash"}});
        }
        steps.get(at).push((c.relative_step >= 0 ? "+" : "") + (100 * c.relative_step).toFixed(1) + "% at size " + fmtSize(s.size));
      }
    }
    // One label per step, its sizes one a line, right of the line inside the plot.
    const annotations = [...steps].map(([at, lines]) => ({x: at, xanchor: "left", yref: "paper", y: 1, yanchor: "top",
      showarrow: false, align: "left", font: {color: "#d62728", size: 11}, bgcolor: "rgba(255,255,255,0.8)", text: lines.join("<br>")}));
    const first = members[0];
    const layout = plotLayout(first.plugin + (first.params ? " [" + first.params + "]" : "") + (metric ? ": " + metric : "") + " on " + first.machine,
      "commit, in run order", metric ? {title: {text: plotText(metricHeading({name: metric, unit: first.unit, better: first.better}))}, type: "linear"}
        : {title: {text: "median time per run (s)"}, type: "log"}, traces.length);
    layout.xaxis = {title: {text: "commit, in run order"}, zeroline: false, tickmode: "array", tickvals: runs.map((r, i) => i),
      ticktext: runs.map((r) => plotText(r.commit.slice(0, 8))), range: [-0.5, runs.length - 0.5]};
    layout.shapes = shapes;
    layout.annotations = annotations;
    layout.margin.t = 60;
    layout.height += 20;
    specs.push({div: el("div", {class: "plot", dataset: {panel: "history"}}), traces, layout, group: first.plugin});
  }
  return specs;
}

// plotly.js, carried gzip-compressed and base64-encoded, inflated and run.
async function loadPlotly() {
  if (typeof DecompressionStream !== "function")
    throw new Error("this browser lacks DecompressionStream, which unpacks the embedded plotly.js: " +
      "open the report in a current Chromium, Firefox (113+) or Safari (16.4+) to see the plots");
  const text = document.getElementById("plotly-gzip-base64").textContent.trim();
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const code = await new Response(stream).text();
  const script = document.createElement("script");
  script.textContent = code;
  document.head.appendChild(script);
  if (!window.Plotly) throw new Error("the embedded plotly.js did not load");
}

// Clicking a backend in one legend shows or hides it in every plot of its group.
function linkLegends(specs) {
  const hidden = new Set();
  for (const spec of specs) {
    spec.div.on("plotly_legendclick", (event) => {
      const group = event.data[event.curveNumber].legendgroup;
      if (!group) return true;
      if (hidden.has(group)) hidden.delete(group); else hidden.add(group);
      for (const other of specs) {
        const indices = other.div.data.map((t, i) => (t.legendgroup === group ? i : -1)).filter((i) => i >= 0);
        if (indices.length) Plotly.restyle(other.div, {visible: hidden.has(group) ? "legendonly" : true}, indices);
      }
      return false;
    });
  }
}

// Draws every spec; groups: arrays of specs whose legends act together.
function drawPlots(specs, groups) {
  const config = {displaylogo: false, responsive: true};
  return Promise.all(specs.map((s) => Plotly.newPlot(s.div, s.traces, s.layout, config))).then(() => {
    for (const group of groups) linkLegends(group);
  });
}
