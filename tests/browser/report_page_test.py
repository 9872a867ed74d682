#!/usr/bin/env python3
"""The HTML report in a real browser: headless Chromium loads a page made by
`runner report --format html` from disk, with no console errors and no uncaught exceptions,
every plot holds drawn traces, and a screenshot of the plots is not blank.

Usage: report_page_test.py RUNNER PLUGIN_DIR OUT_DIR
Makes OUT_DIR/report_page.json (a small sweep of CPU plugins, vecadd's with --counters faked by
GPUBENCH_FAKE_COUNTERS, one entry's made "not read"), a six-commit history of it (where
`runner history` works), OUT_DIR/report_page.html, OUT_DIR/report_page.png (the screenshot of
the first plots), OUT_DIR/report_page_roofline.png (of the measured roofline, which must list
the work_mismatch and the unread entry, and say to run sort with --counters) and
OUT_DIR/report_page_history.png (of the history's). Drives Chromium over the DevTools protocol on a pipe
(--remote-debugging-pipe: NUL-terminated JSON, commands on fd 3, replies on fd 4), with the
standard library only. Exit 0: passed; 1: failed (the reasons printed); 77: chromium missing.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

TIMEOUT_S = 120


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


# What the CPU entries' counters read under GPUBENCH_FAKE_COUNTERS: vecadd declares n flops, so
# the faked 1e4 disagree beyond 2x at 1000 and 100000 (work_mismatch), not at 10000.
FAKE_COUNTERS = {"llc_misses_per_run": 2000, "fp32_flops_per_run": 10000}


def sweep(runner, plugin_dir, plugins, results, more=(), environment=None):
    command = [runner, "--plugin-dir", plugin_dir, "--plugin", plugins, "--sizes", "1000,10000,100000",
               "--min-samples", "3", "--max-samples", "5", "--min-time", "0", "-q", "-o", results] + list(more)
    done = subprocess.run(command, capture_output=True, text=True, env=environment)
    if not os.path.exists(results):
        fail("the sweep wrote no results: " + done.stdout + done.stderr)


def counted_sweep(runner, plugin_dir, out_dir):
    """vecadd with --counters, faked; vecadd_omp's at 1000 made "not read", as on a VM."""
    results = os.path.join(out_dir, "report_page_counted.json")
    fake = os.path.join(out_dir, "report_page_fake_counters.json")
    with open(fake, "w") as f:
        json.dump(FAKE_COUNTERS, f)
    sweep(runner, plugin_dir, "vecadd_naive,vecadd_omp,vecadd_numpy", results, ["--counters"],
          dict(os.environ, GPUBENCH_FAKE_COUNTERS=fake))
    document = json.load(open(results))
    for entry in document["entries"]:
        if entry["plugin"] == "vecadd_omp" and entry["size"] == 1000:
            entry["counters"] = "not read: perf_event_open: (made so by the browser test)"
            entry["metrics"] = [m for m in entry.get("metrics", []) if m["name"] not in FAKE_COUNTERS]
    with open(results, "w") as f:
        json.dump(document, f)
    return results


def make_page(runner, plugin_dir, out_dir):
    results = os.path.join(out_dir, "report_page.json")
    page = os.path.join(out_dir, "report_page.html")
    sweep(runner, plugin_dir, "sort_naive,sort_omp", results)
    counted = counted_sweep(runner, plugin_dir, out_dir)
    history = make_history(runner, results, out_dir)
    made = subprocess.run([runner, "report", "--format", "html", "-o", page, counted, results] + history,
                          capture_output=True, text=True)
    if made.returncode != 0:
        fail("runner report --format html: " + made.stdout + made.stderr)
    return page


def scaled(value, factor):
    """Every time in a results entry's timing scaled (floats only: counts stay whole)."""
    if isinstance(value, float):
        return value * factor
    if isinstance(value, list):
        return [scaled(v, factor) for v in value]
    if isinstance(value, dict):
        return {k: scaled(v, factor) for k, v in value.items()}
    return value


def make_history(runner, results, out_dir):
    """A history of six commits, 50% slower from the fourth on: ["--history", DB], or [] when
    `runner history` cannot make one."""
    database = os.path.join(out_dir, "report_page_history.sqlite")
    if os.path.exists(database):
        os.remove(database)
    document = json.load(open(results))
    for i in range(6):
        run = dict(document, created=f"2026-01-0{i + 1}T12:00:00Z")
        run["entries"] = [dict(e, timing=scaled(e["timing"], 1.5 if i >= 3 else 1.0)) if "timing" in e else e
                          for e in document["entries"]]
        path = os.path.join(out_dir, f"report_page_commit{i}.json")
        with open(path, "w") as f:
            json.dump(run, f)
        added = subprocess.run([runner, "history", "add", path, "--db", database, "--commit", f"c0mmit{i}"],
                               capture_output=True, text=True)
        if added.returncode != 0:
            print("no history in the page: " + (added.stdout + added.stderr).strip())
            return []
    return ["--history", database]


class DevTools:
    """Chromium's DevTools protocol over --remote-debugging-pipe."""

    def __init__(self, chromium, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4.
        high_r, high_w = fcntl_dup(to_chrome_r), fcntl_dup(from_chrome_w)

        def child_fds():
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--user-data-dir=" + profile, "about:blank"],
            # Not close_fds: it would close 3 and 4 after child_fds; our own pipes are close-on-exec.
            close_fds=False, preexec_fn=child_fds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (to_chrome_r, from_chrome_w, high_r, high_w):
            os.close(fd)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail(method + ": " + json.dumps(reply["error"]))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                fail("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def close(self):
        try:
            self.send("Browser.close")
        except SystemExit:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def fcntl_dup(fd):
    import fcntl
    return fcntl.fcntl(fd, fcntl.F_DUPFD, 10)  # above 4, so that dup2 onto 3 and 4 clobbers nothing


def problems_of(events):
    """Uncaught exceptions, console errors and warnings, and error log entries."""
    found = []
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            found.append("exception: " + details.get("exception", {}).get("description", details.get("text", "")))
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "warning", "assert"):
            found.append("console." + params["type"] + ": " +
                         " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            found.append("log: " + params["entry"]["text"])
    return found


def evaluate(tools, session, expression):
    result = tools.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
    return result["result"].get("value")


def load_page(tools, page):
    target = tools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = tools.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Runtime", "Log", "Page"):
        tools.send(domain + ".enable", {}, session)
    tools.send("Emulation.setDeviceMetricsOverride",
               {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False}, session)
    tools.send("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session)
    deadline = time.time() + TIMEOUT_S
    state = ""
    while time.time() < deadline:
        state = evaluate(tools, session, "document.body ? (document.body.dataset.rendered || '') : ''")
        if state in ("yes", "error"):
            break
        time.sleep(0.5)
    return session, state


def pixels(png_path):
    """The screenshot's pixels as (r, g, b) tuples: matplotlib where it imports, else zlib."""
    try:
        import matplotlib.image
        image = matplotlib.image.imread(png_path)
        rgb = (image[:, :, :3] * 255).round().astype("uint8").reshape(-1, 3)
        return [tuple(p) for p in rgb.tolist()]
    except ImportError:
        return decode_png(open(png_path, "rb").read())


def decode_png(data):
    """8-bit RGB or RGBA, not interlaced: what Chromium writes."""
    chunks, at = {}, 8
    while at < len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        kind = data[at + 4:at + 8]
        chunks.setdefault(kind, []).append(data[at + 8:at + 8 + length])
        at += 12 + length
    header = chunks[b"IHDR"][0]
    width, height = int.from_bytes(header[0:4], "big"), int.from_bytes(header[4:8], "big")
    channels = {2: 3, 6: 4}[header[9]]
    raw = zlib.decompress(b"".join(chunks[b"IDAT"]))
    stride, previous, out = width * channels, bytearray(width * channels), []
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.extend(tuple(line[x:x + 3]) for x in range(0, stride, channels))
        previous = line
    return out


def roofline_problems(roofline):
    """What the measured roofline of the page lacks: vecadd's plot, its mismatches, its unread
    entry; sort's sentence saying to run with --counters."""
    print("measured roofline: " + json.dumps(roofline))
    found = []
    if roofline["plots"] != 1:
        found.append(f"{roofline['plots']} measured roofline plots, not 1 (vecadd's)")
    if not roofline["mismatched"]:
        found.append("no work_mismatch listed under the measured roofline")
    if not any("vecadd_omp" in line and "made so by the browser test" in line for line in roofline["unread"]):
        found.append("vecadd_omp's unread counters are not listed under the measured roofline")
    if roofline["none"] != 1:
        found.append("sort, without counters, does not say to run with --counters")
    return found


def check_screenshot(png_path):
    colours = pixels(png_path)
    distinct = len(set(colours))
    saturated = sum(1 for r, g, b in colours if max(r, g, b) - min(r, g, b) > 80)
    print(f"screenshot {png_path}: {distinct} distinct colours, {saturated} coloured pixels")
    if distinct < 50 or saturated < 2000:
        fail("the screenshot looks blank (few colours): the plots were not drawn")


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    runner, plugin_dir, out_dir = sys.argv[1:]
    chromium = find_chromium()
    if not chromium:
        print("SKIPPED: chromium is not installed")
        return 77
    os.makedirs(out_dir, exist_ok=True)
    page = make_page(runner, plugin_dir, out_dir)
    with tempfile.TemporaryDirectory(prefix="gpubench-chromium-") as profile:
        tools = DevTools(chromium, profile)
        try:
            session, state = load_page(tools, page)
            plots = evaluate(tools, session, """Array.from(document.querySelectorAll('div.plot')).map((d) => ({
                panel: d.dataset.panel, traces: (d.data || []).length,
                drawn: d.querySelectorAll('.scatterlayer .trace path').length}))""")
            problem = evaluate(tools, session, "(document.querySelector('.problem') || {}).textContent || ''")
            roofline = evaluate(tools, session, """({
                plots: document.querySelectorAll('div.plot[data-panel=roofline]').length,
                mismatched: document.querySelectorAll('ul.roofline-mismatch li').length,
                unread: Array.from(document.querySelectorAll('ul.roofline-not-read li')).map((li) => li.textContent),
                none: document.querySelectorAll('p.roofline-none').length})""")
            evaluate(tools, session, "document.querySelector('.plots').scrollIntoView(); true")
            time.sleep(0.5)
            shot = tools.send("Page.captureScreenshot", {"format": "png"}, session)
            roofline_shot = None
            if roofline["plots"]:
                evaluate(tools, session, "document.querySelector('div.plot[data-panel=roofline]').scrollIntoView(); true")
                time.sleep(0.5)
                roofline_shot = tools.send("Page.captureScreenshot", {"format": "png"}, session)
            history_shot = None
            if evaluate(tools, session, "!!document.querySelector('#history .plot')"):
                evaluate(tools, session, "document.querySelector('#history .plot').scrollIntoView(); true")
                time.sleep(0.5)
                history_shot = tools.send("Page.captureScreenshot", {"format": "png"}, session)
        finally:
            tools.close()
    png_path = os.path.join(out_dir, "report_page.png")
    with open(png_path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    if roofline_shot:
        with open(os.path.join(out_dir, "report_page_roofline.png"), "wb") as f:
            f.write(base64.b64decode(roofline_shot["data"]))
    if history_shot:
        with open(os.path.join(out_dir, "report_page_history.png"), "wb") as f:
            f.write(base64.b64decode(history_shot["data"]))
    failures = problems_of(tools.events)
    if state != "yes":
        failures.append(f"the page did not signal it had drawn (rendered={state!r}) {problem}")
    if not plots:
        failures.append("the page has no plots")
    failures += [f"plot {p['panel']} has no drawn traces" for p in plots or [] if not p["traces"] or not p["drawn"]]
    failures += roofline_problems(roofline)
    print(f"{len(plots or [])} plots drawn: " + ", ".join(sorted({p['panel'] for p in plots or []})))
    if failures:
        fail("; ".join(failures))
    check_screenshot(png_path)
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
