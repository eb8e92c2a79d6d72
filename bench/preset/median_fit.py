#!/usr/bin/env python3
"""Builds a CPU preset entry from several `wolong calibrate --host` fits.

    CLOCK_GHZ=2.6 python3 bench/preset/median_fit.py NAME VARIANT_OF "WHAT" FIT.json... > entry.json

Every numeric parameter (host costs, efficiencies, expected-error bands)
is the median over the fits; booleans the majority; the rest the first
fit's. The fits must come from the same code on the same machine (refit
kept suites with `wolong calibrate --host --from DIR` to bring older
measurements to the current code). WHAT says which fits, for the
description; CLOCK_GHZ is the clock /proc/cpuinfo reports (cpu MHz /
1000: the fits copy their base preset's, and the catalogue shows it). The
entry is printed; put it into simulate/hw/presets.json
after the preset it is a variant of (docs/calibration.md, "One name, one
fit per CPU"). cpu-1t-xeon was made so on 2026-12-06
(docs/calibration-protocol.md, "cpu-1t on the Intel VM").
"""
import json
import os
import statistics
import sys


def med(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    if all(isinstance(v, bool) for v in vals):
        return sum(vals) * 2 >= len(vals)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        m = statistics.median(vals)
        return int(round(m)) if all(isinstance(v, int) for v in vals) else m
    if all(isinstance(v, dict) for v in vals):
        keys = []
        for v in vals:
            keys += [k for k in v if k not in keys]
        return {k: med([v.get(k) for v in vals]) for k in keys}
    return vals[0]


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    name, variant_of, what = sys.argv[1:4]
    fits = [json.load(open(f)) for f in sys.argv[4:]]
    dates = sorted(f["fitted"]["date"] for f in fits)
    f0 = dict(fits[0]["fitted"])
    for k in ("models", "profiler_node_us", "kernel_inflation_us", "noise_pct", "train_mape_pct", "held_out_mape_pct", "held_out"):
        f0[k] = med([f["fitted"].get(k) for f in fits])
    bands = []
    for i, c in enumerate(f0.get("expected_error", [])):
        cs = [f["fitted"]["expected_error"][i] for f in fits if len(f["fitted"].get("expected_error", [])) > i]
        c = dict(c, pct=round(med([x["pct"] for x in cs]), 1), p90_pct=round(med([x["p90_pct"] for x in cs]), 1), models=med([x["models"] for x in cs]))
        c["source"] = ("|error| of the suite models held out of each fit, the median over %d fits (generated models; real models of families "
                       "the suite does not cover err more: docs/calibration-protocol.md), measured %s to %s") % (len(fits), dates[0], dates[-1])
        bands.append(c)
    f0["expected_error"] = bands
    f0["date"] = dates[-1]
    f0["method"] = "the per-parameter median of %d calibrate --host fits (%s; each: %s)" % (len(fits), what, fits[0]["fitted"]["method"])
    cpu = f0["cpu_id"] or f0["cpu"]
    e = {"name": name, "kind": "cpu", "variant_of": variant_of}
    clock = float(os.environ["CLOCK_GHZ"])
    e["description"] = ("one core of a virtual machine on %s (%s), %g GHz reported, %d vCPUs, %d KiB L2: ONNX Runtime 1.30 (onnxruntime-node) "
                        "on %d thread, graph optimizations disabled, profiling off; fitted by wolong calibrate --host (%s); --hw %s "
                        "predicts with it on that CPU (for another CPU run wolong calibrate --host)") % (
                            f0["cpu"], cpu, clock, f0["cores"], f0["l2_kb"], f0["threads"], what, variant_of)
    e["sources"] = ["measured on that machine by wolong calibrate --host, %d fits from %s to %s: %s" % (len(fits), dates[0], dates[-1], f0["runtime"])]
    e["sources"] += [s for s in fits[0]["sources"][1:]]
    e["assumptions"] = [s.replace(" here ", " on that machine ") for s in fits[0]["assumptions"]]
    for k in fits[0]:
        if k not in e and k != "fitted":
            e[k] = med([f.get(k) for f in fits])
    e["clock_ghz"] = clock
    e["fitted"] = f0
    json.dump(e, sys.stdout, indent=2, ensure_ascii=False)
    print()


if __name__ == "__main__":
    main()
