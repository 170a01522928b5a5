#!/usr/bin/env python3
"""Extracts the per-step means of the real single-host Ceph lab run
(e2e/ceph/results/latest.json) that package queueing scores itself on:
step, reads %, Ceph op rate (IOPS), mean OSD op latency (s) and the
frontier capacity storcast computed at the step's mix (IOPS).

    python3 forecaster/queueing/testdata/ceph_steps.py > forecaster/queueing/testdata/ceph_steps.json
"""
import json
import os

root = os.path.join(os.path.dirname(__file__), "..", "..", "..")
d = json.load(open(os.path.join(root, "e2e", "ceph", "results", "latest.json")))
out = [
    {
        "step": s["name"],
        "readPct": s["readPct"],
        "iops": s["cephIops"],
        "latencySeconds": s["cephLatencySeconds"],
        "capacityIops": s["storcastMaxIops"],
    }
    for s in d["steps"]
]
print(json.dumps({"when": d.get("when"), "steps": out}, indent=1))
