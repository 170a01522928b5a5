#!/usr/bin/env python3
"""Extracts the per-step means of a real single-host Ceph lab run (a
results JSON of e2e/ceph) that package queueing scores itself on: step,
reads %, Ceph op rate (IOPS), mean OSD op latency (s) and the frontier
capacity storcast computed at the step's mix (IOPS). Only the 4 KiB steps:
the curve is one op size's, and the 16 KiB and mixed-size steps have their
own zero-load latency.

The committed ceph_steps.json is the run of 2026-11-28 12:13 UTC:

    python3 forecaster/queueing/testdata/ceph_steps.py \\
        e2e/ceph/scorer/testdata/runs/2026-11-28T1213.json \\
        > forecaster/queueing/testdata/ceph_steps.json

Runs before 2026-11-24 named the cluster's figures cephIops and
cephLatencySeconds; both spellings are read.
"""
import json
import sys

if len(sys.argv) != 2:
    sys.exit("usage: ceph_steps.py RESULTS.json > ceph_steps.json")
d = json.load(open(sys.argv[1]))


def field(s, new, old):
    return s[new] if new in s else s[old]


out = [
    {
        "step": s["name"],
        "readPct": s["readPct"],
        "iops": field(s, "clusterIops", "cephIops"),
        "latencySeconds": field(s, "clusterLatencySeconds", "cephLatencySeconds"),
        "capacityIops": s["storcastMaxIops"],
    }
    for s in d["steps"]
    if s.get("bs", "4k") == "4k"
]
print(json.dumps({"when": d.get("when"), "steps": out}, indent=1))
