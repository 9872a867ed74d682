#!/usr/bin/env python3
"""Prints each entry of gpubench results files as one line (plugin, parameters, size, status,
the message of an entry that is not ok), then what the runner's checks cost: the wall time of
the stream audit and the thread audit against the entries' wall time. Standard library only.
    scripts/verdicts.py RESULTS.json...        every entry, then the checks' cost
    scripts/verdicts.py --cost RESULTS.json... the checks' cost alone"""
import json
import sys


def audit_cost_s(entry):
    """Seconds the entry's checks took, from whichever audits it records."""
    return sum(float(entry.get(audit, {}).get("audit_wall_s", 0.0))
               for audit in ("stream_audit", "thread_audit"))


def main(arguments):
    show_entries = arguments[:1] != ["--cost"]
    paths = arguments if show_entries else arguments[1:]
    if not paths:
        sys.exit("usage: verdicts.py [--cost] RESULTS.json...")
    if show_entries:
        print(f"{'plugin':<28} {'params':<24} {'size':>10}  {'status':<20} message")
    cost = wall = 0.0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            entries = json.load(f).get("entries", [])
        for e in entries:
            cost += audit_cost_s(e)
            wall += float(e.get("harness", {}).get("entry_wall_s", 0.0))
            if not show_entries:
                continue
            message = e.get("message", "")
            if len(message) > 150:
                message = message[:147] + "..."
            print(f"{e['plugin']:<28} {e.get('params', ''):<24} {e['size']:>10}  "
                  f"{e['status']:<20} {message}")
    share = f"{100 * cost / wall:.2f}%" if wall > 0 else "n/a"
    print(f"checks' cost: {cost:.3f} s of {wall:.3f} s of entry wall time ({share})")


if __name__ == "__main__":
    main(sys.argv[1:])
