#!/usr/bin/env python3
"""Writes fio-rbd.json: a synthetic fixture shaped like `fio --output-format=json`
(fio 3.33, rbd engine) for ImportFio's tests. The IOPS figures are made up; the
structure (global options, jobs[], job options as strings, read/write blocks,
groupid per stonewall, a banner line before the JSON) follows real fio output.
Run: python3 gen-fio-rbd.py"""
import json
def lat(mean):
    return {"min": int(mean*0.2), "max": int(mean*20), "mean": mean, "stddev": mean*0.4, "N": 1000,
            "percentile": {"1.000000": int(mean*0.4), "50.000000": int(mean*0.9), "99.000000": int(mean*4), "99.900000": int(mean*8)}}
def direction(iops, bs, runtime=60000, latns=0):
    if iops == 0:
        return {"io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0, "runtime": 0, "total_ios": 0,
                "short_ios": 0, "drop_ios": 0, "slat_ns": lat(0), "clat_ns": lat(0), "lat_ns": lat(0),
                "bw_min": 0, "bw_max": 0, "bw_agg": 0.0, "bw_mean": 0.0, "bw_dev": 0.0, "bw_samples": 0,
                "iops_min": 0, "iops_max": 0, "iops_mean": 0.0, "iops_stddev": 0.0, "iops_samples": 0}
    ios = int(iops*runtime/1000)
    b = ios*bs
    return {"io_bytes": b, "io_kbytes": b//1024, "bw_bytes": int(iops*bs), "bw": int(iops*bs/1024), "iops": iops,
            "runtime": runtime, "total_ios": ios, "short_ios": 0, "drop_ios": 0,
            "slat_ns": lat(4200), "clat_ns": lat(latns), "lat_ns": lat(latns+4200),
            "bw_min": int(iops*bs/1024*0.8), "bw_max": int(iops*bs/1024*1.2), "bw_agg": 100.0, "bw_mean": iops*bs/1024, "bw_dev": iops*bs/1024*0.05, "bw_samples": 120,
            "iops_min": int(iops*0.8), "iops_max": int(iops*1.2), "iops_mean": iops, "iops_stddev": iops*0.05, "iops_samples": 120}
def job(name, gid, opts, r, w, bs):
    return {"jobname": name, "groupid": gid, "error": 0, "eta": 0, "elapsed": 61, "job options": opts,
         "read": direction(r, bs, latns=900000), "write": direction(w, bs, latns=3500000),
         "trim": direction(0, bs), "sync": {"total_ios": 0, "lat_ns": lat(0)},
         "job_runtime": 60000, "usr_cpu": 3.1, "sys_cpu": 11.7, "ctx": 812345, "majf": 0, "minf": 41,
         "iodepth_level": {"1": 0.1, "2": 0.1, "4": 0.1, "8": 0.1, "16": 0.1, "32": 99.5, ">=64": 0.0},
         "latency_ns": {"2": 0.0}, "latency_us": {"250": 1.2, "500": 10.4, "750": 30.2, "1000": 40.1}, "latency_ms": {"2": 15.1, "4": 2.9},
         "latency_depth": 32, "latency_target": 0, "latency_percentile": 100.0, "latency_window": 0}
out = {
  "fio version": "fio-3.33",
  "timestamp": 1772438400, "timestamp_ms": 1772438400123, "time": "Mon Mar  2 08:00:00 2026",
  "global options": {"ioengine": "rbd", "clientname": "admin", "pool": "bench", "rbdname": "fio-img",
                     "direct": "1", "iodepth": "32", "runtime": "60", "time_based": "1", "numjobs": "1"},
  "jobs": [
    job("4k-randread-a", 0, {"bs": "4k", "rw": "randread"}, 45210.33, 0, 4096),
    job("4k-randread-b", 0, {"bs": "4k", "rw": "randread"}, 44890.12, 0, 4096),
    job("4k-randwrite-a", 1, {"bs": "4k", "rw": "randwrite", "stonewall": ""}, 0, 7533.9, 4096),
    job("4k-randwrite-b", 1, {"bs": "4k", "rw": "randwrite"}, 0, 7466.1, 4096),
    job("64k-randread", 2, {"bs": "64KiB", "kb_base": "1000", "rw": "randread", "stonewall": "", "group_reporting": ""}, 30125.5, 0, 65536),
    job("64k-randread-qd64", 3, {"bs": "64k", "rw": "randread", "iodepth": "64", "stonewall": ""}, 31020.0, 0, 65536),
    job("64k-randwrite", 4, {"bs": "64k", "rw": "randrw", "rwmixread": "0", "stonewall": ""}, 0, 6204.0, 65536),
    job("4k-mixed-70", 5, {"bs": "4k", "rw": "randrw", "rwmixread": "70", "stonewall": ""}, 24500.0, 10500.0, 4096),
  ],
  "disk_util": []
}
with open("fio-rbd.json", "w") as f:
    f.write("rbd engine: RBD version: 1.12.0\n" + json.dumps(out, indent=2) + "\n")
