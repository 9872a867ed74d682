// gpubench HTML report: helpers shared by the tables (report.js) and the plots (plots.js,
// roofline.js). Plain JavaScript, no build step; core/report/CMakeLists.txt compiles common.js,
// plots.js, roofline.js and report.js (in that order) into the runner as one script.
"use strict";

// An element with properties and children (strings become text nodes: never HTML).
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    node.appendChild(typeof child === "string" || typeof child === "number"
      ? document.createTextNode(String(child)) : child);
  }
  return node;
}

// Text for Plotly, which reads a little HTML in names and hover text: none may come from data.
function plotText(text) {
  return String(text).replace(/&/g, "&amp;").replace(/[<]/g, "&lt;").replace(/>/g, "&gt;");
}

// As core/base/text_format.cpp writes them, so the page reads like the Markdown report.
function fmtSeconds(s) {
  if (s === undefined || s === null) return "";
  if (s < 1e-3) return (s * 1e6).toFixed(2) + " us";
  if (s < 1) return (s * 1e3).toFixed(3) + " ms";
  return s.toFixed(3) + " s";
}

function fmtSize(n) {
  return n < 100000 ? String(n) : Number(n).toPrecision(3).replace(/\.?0+e/, "e");
}

function fmtBytes(b) {
  if (b >= 2 ** 30) return (b / 2 ** 30).toPrecision(3) + " GiB";
  if (b >= 2 ** 20) return (b / 2 ** 20).toPrecision(3) + " MiB";
  return (b / 1024).toPrecision(3) + " KiB";
}

function fmtNumber(x) {
  if (x === undefined || x === null) return "";
  const a = Math.abs(x);
  return a !== 0 && (a >= 1e6 || a < 1e-3) ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}

// With an SI prefix: fmtSi(3.35e12, "B/s") is "3.35 TB/s".
function fmtSi(x, unit) {
  if (x === undefined || x === null) return "";
  for (const [scale, prefix] of [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]])
    if (Math.abs(x) >= scale) return Number((x / scale).toPrecision(3)) + " " + prefix + unit;
  return Number(x.toPrecision(3)) + " " + unit;
}

function fmtPercent(x, digits) { return x === undefined ? "" : x.toFixed(digits) + "%"; }

function fmtRatio(r) {
  if (r === undefined || r === null || !isFinite(r)) return "";
  return (r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)) + "x";
}

// 0 compiled (C, C++, CUDA), 1 Python, 2 another language, 3 unknown: core/report/report_studies.cpp.
function languageGroup(language) {
  if (["C", "C++", "CUDA"].includes(language)) return 0;
  if (language === "Python") return 1;
  return language ? 2 : 3;
}

// The column of `backend` from the same source as `like`, else from any (core/report/report.cpp).
function findColumn(workload, backend, source) {
  let any = null;
  for (const c of workload.columns) {
    if (c.backend !== backend) continue;
    if (c.source === source) return c;
    if (!any) any = c;
  }
  return any;
}

function pointAt(column, size) { return column.points.find((p) => p.size === size); }

// Baseline time / column time at `size`, or undefined when either lacks it.
function speedupOf(workload, baseline, column, size, endToEnd) {
  const base = findColumn(workload, baseline, column.source);
  const b = base && pointAt(base, size), c = pointAt(column, size);
  if (!b || !c) return undefined;
  const tb = endToEnd ? b.e2e : b.t, tc = endToEnd ? c.e2e : c.t;
  return tb > 0 && tc > 0 ? tb / tc : undefined;
}

// The metrics (the plugin's and the runner's own) any point of the workload has, one per name
// in the order met: a table and a plot each.
function workloadMetrics(workload) {
  const seen = new Map();
  for (const c of workload.columns) for (const p of c.points) for (const m of p.metrics || []) if (!seen.has(m.name)) seen.set(m.name, m);
  return [...seen.values()];
}
function metricValue(p, name) {
  const m = (p.metrics || []).find((x) => x.name === name);
  return m && m.value !== null ? m.value : undefined;
}
function metricHeading(m) {
  return m.name + (m.unit ? " [" + m.unit + "]" : "") +
    (m.better === "higher" ? " ↑ (higher is better)" : m.better === "lower" ? " ↓ (lower is better)" : "");
}
