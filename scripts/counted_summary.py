#!/usr/bin/env python3
"""What --counters found, from gpubench results files (scripts/device.sh counted). Standard
library only.
    scripts/counted_summary.py CORPUS.json... [-- UNCOUNTED.json COUNTED.json]
First each corpus entry on one line: plugin, parameters, size, status, whether it is flagged
work_mismatch, and its bytes_over_declared and flops_over_declared figures. Then, for two
sweeps of the same entries without and with --counters: their wall time, the entries each
measured, the series (plugin and parameters) with an ok entry and how many of them the counted
sweep counted at one size at least, and its flagged entries."""
import json
import sys


def entries_of(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("entries", [])


def figure(entry, name):
    for m in entry.get("metrics", []):
        if m.get("name") == name:
            return f"{m['value']:.3g}"
    return "-"


def flagged(entry):
    return "work_mismatch" in entry.get("flags", [])


def corpus_table(paths):
    print(f"{'plugin':<26} {'params':<22} {'size':>10}  {'status':<8} {'flag':<14} {'bytes x':>8} {'flops x':>8}")
    for path in paths:
        for e in entries_of(path):
            flag = "work_mismatch" if flagged(e) else ""
            print(f"{e['plugin']:<26} {e.get('params', ''):<22} {e['size']:>10}  {e['status'][:8]:<8} {flag:<14} "
                  f"{figure(e, 'bytes_over_declared'):>8} {figure(e, 'flops_over_declared'):>8}")


def sweep_wall_s(entries):
    return max((e.get("harness", {}).get("finished_after_s", 0.0) for e in entries), default=0.0)


def counted(entry):
    return "counters" in entry and not entry["counters"].startswith("not read")


def sweeps(uncounted_path, counted_path):
    plain, with_counters = entries_of(uncounted_path), entries_of(counted_path)
    ok = lambda entries: [e for e in entries if e["status"] == "ok"]
    series = {(e["plugin"], e.get("params", "")) for e in ok(with_counters)}
    series_counted = {(e["plugin"], e.get("params", "")) for e in ok(with_counters) if counted(e)}
    print(f"default sweep:            {sweep_wall_s(plain):7.1f} s, {len(ok(plain))} entries ok")
    print(f"default sweep --counters: {sweep_wall_s(with_counters):7.1f} s, {len(ok(with_counters))} entries ok "
          f"({len(ok(with_counters)) / max(1, len(ok(plain))):.2f} of the uncounted), "
          f"{sum(counted(e) for e in with_counters)} counted; series counted: {len(series_counted)} of {len(series)}")
    for plugin, params in sorted(series - series_counted):
        print(f"  not counted: {plugin} {params}")
    for e in with_counters:
        if flagged(e):
            print(f"  flagged: {e['plugin']} {e.get('params', '')} {e['size']}: "
                  f"{e.get('throughput', {}).get('work_mismatch', '')}")


def main(arguments):
    corpus, rest = (arguments[:arguments.index("--")], arguments[arguments.index("--") + 1:]) \
        if "--" in arguments else (arguments, [])
    if not corpus and not rest or len(rest) not in (0, 2):
        sys.exit("usage: counted_summary.py CORPUS.json... [-- UNCOUNTED.json COUNTED.json]")
    if corpus:
        corpus_table(corpus)
    if rest:
        sweeps(*rest)


if __name__ == "__main__":
    main(sys.argv[1:])
