// gpubench HTML report: the page's sections and tables, then the plots once plotly.js is
// loaded. The page sets document.body.dataset.rendered to "yes" when every plot is drawn
// ("error" when they could not be: the reason is shown at the top).

const data = JSON.parse(document.getElementById("gpubench-data").textContent);
const flagMeanings = Object.fromEntries(data.flags.map((f) => [f.flag, f.meaning]));

function table(headers, rows, className) {
  return el("table", {class: className || ""},
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) => (c instanceof Node && c.tagName === "TD" ? c : el("td", {}, c)))))));
}

function keyValueTable(pairs) {
  return table(["", ""], pairs.filter(([, v]) => v !== undefined && v !== "").map(([k, v]) => [el("b", {}, k), v]), "header");
}

function fileHeader(file, index) {
  return el("section", {class: "file", id: "run-" + index},
    el("h3", {}, file.file + (file.label ? " (" + file.label + ")" : "")),
    keyValueTable([["machine", file.machine], ["OS", file.os], ["GPUs", file.gpus || "none"],
      ["driver", file.driver], ["commit", file.commit], ["date", file.created], ["build", file.build],
      ["plugin ABI", file.plugin_abi], ["command line", file.command_line.join(" ")]]),
    el("details", {}, el("summary", {}, "Options of this run"),
      table(["option", "value", "what it means"], file.options.map((o) => [o.key, o.value, o.meaning]), "options")));
}

// The page's header: what the results files were measured on, in one line, then one row per
// file (folded when there are many); each file's build, command line and options further down.
function runsSummary() {
  const distinct = (key) => [...new Set(data.files.map((f) => f[key]).filter((v) => v))];
  const dates = distinct("created").sort();
  const gpus = distinct("gpus"), drivers = distinct("driver"), commits = distinct("commit");
  const line = data.files.length + " results file" + (data.files.length > 1 ? "s" : "") +
    ", measured on " + distinct("machine").join("; ") + " with " + (gpus.length ? gpus.join("; ") : "no GPU") +
    (drivers.length ? " (driver " + drivers.join(", ") + ")" : "") + ", " +
    (commits.length > 1 ? commits.length + " commits" : "commit " + (commits[0] || "unknown")) + ", " +
    (dates.length > 1 ? dates[0] + " to " + dates[dates.length - 1] : dates[0] || "date unknown") + ".";
  const rows = table(["results file", "machine", "GPUs", "driver", "commit", "date"],
    data.files.map((f, i) => [el("a", {href: "#run-" + i}, f.file), f.machine, f.gpus || "none",
      f.driver || "—", f.commit, f.created]), "header-runs");
  return el("section", {id: "runs"}, el("p", {class: "summary"}, line),
    el("details", data.files.length <= 4 ? {open: ""} : {}, el("summary", {}, "The results files"), rows));
}

function contents() {
  const link = (id, text) => el("li", {}, el("a", {href: "#" + id}, text));
  return el("nav", {id: "contents"}, el("ul", {},
    data.workloads.map((w) => link(workloadId(w), w.title)),
    data.history ? link("history", "History") : [],
    link("flags", "Flags"),
    data.files.length ? link("files", "Runs: build, command line and options") : []));
}

function workloadId(workload) {
  return "w-" + workload.title.replace(/[^A-Za-z0-9_-]+/g, "-");
}

function flagGlossary() {
  return el("section", {id: "flags"}, el("h2", {}, "Flags"),
    el("p", {}, "A flagged table cell carries the flag's name; hover over it for this explanation."),
    el("dl", {}, data.flags.map((f) => [el("dt", {class: "flag"}, f.flag), el("dd", {}, f.meaning)])));
}

// A cell of a per-size table, its flags marked and explained on hover.
function flaggedCell(text, flags) {
  const cell = el("td", {class: flags.length ? "flagged" : ""}, text);
  for (const flag of flags) cell.appendChild(el("span", {class: "flag", title: flagMeanings[flag] || flag}, flag));
  return cell;
}

function sizeTable(workload, cellOf) {
  return table(["size"].concat(workload.columns.map((c) => c.label)),
    workload.sizes.map((size) => [fmtSize(size)].concat(workload.columns.map((c) => {
      const p = pointAt(c, size);
      return p ? cellOf(c, p) : "—";
    }))));
}

function timeCell(c, p) {
  return flaggedCell(fmtSeconds(p.t) + (p.e2e > p.t * 1.0001 ? " (" + fmtSeconds(p.e2e) + ")" : ""), p.flags);
}

function speedupSection(workload) {
  const backends = [...new Set(workload.columns.map((c) => c.backend))];
  const select = el("select", {}, backends.map((b) => el("option", b === workload.baseline ? {value: b, selected: ""} : {value: b}, b)));
  const holder = el("div", {});
  const draw = () => {
    const baseline = select.value;
    holder.replaceChildren(sizeTable(workload, (c, p) => {
      if (c.backend === baseline) return "baseline";
      const compute = speedupOf(workload, baseline, c, p.size, false);
      const e2e = c.gpu ? speedupOf(workload, baseline, c, p.size, true) : undefined;
      return compute === undefined ? "—" : fmtRatio(compute) + (e2e !== undefined ? "; " + fmtRatio(e2e) : "");
    }));
  };
  select.addEventListener("change", draw);
  draw();
  return [el("h4", {}, "Speedup over ", select, " (compute; end to end for GPU backends)"), holder];
}

// The workload's answer line, then each GPU backend's crossovers with their intervals.
function answerSection(workload) {
  const answer = workload.answer;
  if (!answer.answers.length) return [];
  const interval = (c) => (c.size.lo ? fmtSize(Math.round(c.size.lo)) : "<" + fmtSize(c.smallest)) + "–" +
    (c.size.hi === null ? ">" + fmtSize(c.largest) : fmtSize(Math.round(c.size.hi)));
  const ratio = (e) => fmtNumber(e.value) + "× (" + fmtNumber(e.lo) + "–" + fmtNumber(e.hi) + ")";
  return [el("h4", {},
    "Crossovers with the best CPU backend at each size (95% intervals for " + answer.intervals_for +
    "; the band on the time plot)"),
    el("table", {class: "crossover"}, el("tr", {}, ["GPU backend", "compared", "n*", "95% interval",
      "margin at largest", "best CPU"].map((h) => el("th", {}, h))),
    answer.answers.flatMap((a) => ["compute", "end_to_end", "energy"].map((k) => {
      const c = a[k];
      return c.verdict === "unknown"
        ? el("tr", {}, el("td", {}, a.gpu), el("td", {}, k.replace(/_/g, " ")), el("td", {colspan: 4}, "— " + c.why))
        : el("tr", {}, el("td", {}, a.gpu), el("td", {}, k.replace(/_/g, " ")),
          el("td", {}, c.verdict === "from" ? fmtSize(Math.round(c.size.value)) : c.verdict), el("td", {}, interval(c)),
          el("td", {}, ratio(c.margin) + " at " + fmtSize(c.largest)), el("td", {}, c.best_cpu));
    })))];
}

// Compiled code: its build's compile time; Python: the first run's extra time (JIT) and the loading.
function compileText(c, p) {
  if (c.compile_s !== undefined) return fmtSeconds(c.compile_s);
  if (c.language !== "Python") return "—";
  return "JIT " + fmtSeconds(Math.max(0, p.first_run_s - p.run_s)) + ", load " + fmtSeconds(p.load_s);
}

function studiesTable(workload) {
  const columns = workload.columns.slice().sort((a, b) =>
    languageGroup(a.language) - languageGroup(b.language) || a.language.localeCompare(b.language) ||
    Number(a.gpu) - Number(b.gpu) || a.backend.localeCompare(b.backend));
  const rows = [];
  for (const size of workload.sizes) {
    let shown = fmtSize(size);
    for (const c of columns) {
      const p = pointAt(c, size);
      if (!p) continue;
      rows.push([shown, c.language || "unknown", c.label, timeCell(c, p),
        p.cpu_mem !== undefined ? fmtBytes(p.cpu_mem) : "—", p.gpu_mem !== undefined ? fmtBytes(p.gpu_mem) : "—",
        p.cpu_pct !== undefined ? fmtPercent(p.cpu_pct, 1) : "—", p.gpu_pct !== undefined ? fmtPercent(p.gpu_pct, 0) : "—",
        p.energy_j !== undefined ? fmtNumber(p.energy_j) + " J" : "—", compileText(c, p),
        c.lines !== undefined ? String(c.lines) : "—"]);
      shown = "";
    }
  }
  return [el("h4", {}, "Studies view: by language"),
    table(["size", "language", "backend", "time", "CPU RAM", "GPU RAM", "CPU %", "GPU %", "energy/run", "compile", "lines"], rows, "studies")];
}

function legendKey(workload) {
  return el("p", {class: "key"}, workload.columns.map((c) => el("span", {class: "backend"},
    el("span", {class: "swatch " + (c.dash === "dash" ? "dashed" : "solid"), style: "border-color: " + (data.backends[c.backend] || "#444")}),
    c.label + " (" + (c.language || "language unknown") + ")")));
}

// A throughput cell: the declared work's rate, and the counted work's where counters read it.
function throughputCell(p, unit) {
  if (p.tput_unit !== unit) return "—";
  const counted = countedThroughput(p, unit);
  return counted === undefined ? fmtNumber(p.tput)
    : el("td", {title: "in parentheses: the counted work (" + p.counted.bytes_what + ", flops) over the same time"},
      fmtNumber(p.tput) + " (counted " + fmtNumber(counted) + ")");
}

function workloadSection(workload, specs) {
  const plots = workloadPlots(workload);
  const roofline = rooflineSection(workload);
  specs.push(plots.concat(roofline.specs));
  const unit = (workload.columns.flatMap((c) => c.points).find((p) => p.tput_unit) || {}).tput_unit;
  return el("section", {class: "workload", id: workloadId(workload)},
    el("h2", {}, workload.title),
    el("p", {}, "Size: " + (workload.size_meaning || "unknown") + ". Lines: C, C++ and CUDA solid, Python dashed; " +
      "error bars: the quartiles of each entry's samples. Click a backend in a legend to hide or show it in every plot."),
    legendKey(workload),
    el("div", {class: "plots"}, plots.map((s) => s.div)),
    roofline.nodes,
    el("h4", {}, "Median compute time (end to end, with transfers, in parentheses where it differs)"),
    sizeTable(workload, timeCell),
    unit ? [el("h4", {}, "Throughput (" + unit + ")" + (workload.columns.some((c) => c.points.some((p) => countedThroughput(p, unit) !== undefined))
      ? ", in parentheses the counted work's" : "")), sizeTable(workload, (c, p) => throughputCell(p, unit))] : [],
    workload.columns.some((c) => c.points.some((p) => p.work))
      ? [el("h4", {}, "Work per run(): declared by the plugin, and counted by the hardware counters (--counters)"),
        sizeTable(workload, workCell)] : [],
    workload.columns.some((c) => c.points.some((p) => p.peak !== undefined))
      ? [el("h4", {}, "% of peak (against the roofline of the device each backend ran on)"),
        sizeTable(workload, (c, p) => (p.peak !== undefined ? fmtPercent(p.peak, 1) + (p.bound ? " " + p.bound : "") : "—"))] : [],
    workloadMetrics(workload).map((m) => [el("h4", {}, metricHeading(m)),
      sizeTable(workload, (c, p) => {
        const found = (p.metrics || []).find((x) => x.name === m.name);
        return found ? el("td", {title: found.text || ""}, fmtNumber(found.value)) : "—";
      })]),
    speedupSection(workload), answerSection(workload), studiesTable(workload));
}

function historySection(specs) {
  const plots = historyPlots(data.history);
  for (const plot of plots) specs.push([plot]);
  return el("section", {id: "history"}, el("h2", {}, "History"),
    el("p", {}, "Each entry's median over the commits in the history database, with the quartiles as error bars; " +
      "dashed red lines mark the change points, labelled with the step's size."),
    plots.length ? el("div", {class: "plots"}, plots.map((s) => s.div)) : el("p", {}, "The history holds no series."));
}

function showProblem(message) {
  document.getElementById("report").prepend(el("p", {class: "problem"}, "Plots unavailable: " + message));
}

function main() {
  const root = document.getElementById("report");
  const specGroups = [];
  const lines = data.workloads.map((w) => w.answer.line).filter((line) => line);
  const parts = [el("h1", {}, "gpubench report"),
    lines.length ? el("section", {id: "answer"}, el("h2", {}, "The answer"),
      el("p", {}, "From which size each workload's best GPU backend beats its best CPU backend, with 95% " +
        "intervals for " + (data.workloads.find((w) => w.answer.intervals_for !== "a repeat run") || data.workloads[0]).answer.intervals_for +
        " (each workload's section shows how they were found):"), el("ul", {}, lines.map((l) => el("li", {}, l)))) : [],
    data.files.length ? runsSummary() : [],
    contents(),
    data.workloads.map((w) => workloadSection(w, specGroups)),
    data.history ? historySection(specGroups) : [],
    flagGlossary(),
    data.files.length ? el("section", {id: "files"}, el("h2", {}, "Runs"), data.files.map(fileHeader)) : []];
  for (const part of parts.flat(Infinity)) root.append(part);
  // The sections exist only now: follow a link into one (report.html#w-matmul).
  if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  loadPlotly()
    .then(() => drawPlots(specGroups.flat(), specGroups))
    .then(() => { document.body.dataset.rendered = "yes"; })
    .catch((error) => { showProblem(error.message); document.body.dataset.rendered = "error"; });
}

try {
  main();
} catch (error) {
  showProblem(error.message);
  document.body.dataset.rendered = "error";
  throw error;  // and to the console
}
