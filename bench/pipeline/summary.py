#!/usr/bin/python3
"""Markdown tables from `scand bench --json FILE` (every run): medians per case and pipeline, each figure
of scand next to the naive baseline's and their ratio, as docs/performance.md shows them.

Usage: bench/pipeline/summary.py bench/out/bench.json
"""
import json, statistics, sys

runs = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "bench/out/bench.json"))
cases = []
for r in runs:
    if r["name"] not in cases and r["pipeline"] != "long":
        cases.append(r["name"])


def med(name, pipeline, key):
    values = [key(r) for r in runs if r["name"] == name and r["pipeline"] == pipeline]
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def f(v, d=1):
    return "–" if v is None else f"{v:.{d}f}"


def ratio(a, b):
    return "–" if a is None or not b else f"{a / b:.2f}×"


def pct(v):
    return "–" if v is None else f"{v * 100:.1f}"


print("| case | fps scand / base (ratio) | live fps scand (dropped) / base | latency p50 ms scand / base (ratio) | "
      "latency p99 ms scand / base (ratio) | cpu ms/frame scand / base (ratio) | peak RSS MB scand / base (ratio) | "
      "code recall % scand / base / full | face recall % scand / base / full |")
print("|---|---|---|---|---|---|---|---|---|")
for c in cases:
    g = lambda p, k: med(c, p, k)
    fps, bfps = g("scand", lambda r: r["fps"]), g("baseline", lambda r: r["fps"])
    lfps, blfps = g("live", lambda r: r["fps"]), g("baseline-live", lambda r: r["fps"])
    drop, bdrop = g("live", lambda r: r["framesDropped"]), g("baseline-live", lambda r: r["framesDropped"])
    p50, bp50 = g("live", lambda r: r["latencyP50"]), g("baseline-live", lambda r: r["latencyP50"])
    p99, bp99 = g("live", lambda r: r["latencyP99"]), g("baseline-live", lambda r: r["latencyP99"])
    cpu, bcpu = g("scand", lambda r: r["cpuSecondsPerFrame"] * 1000), g("baseline", lambda r: r["cpuSecondsPerFrame"] * 1000)
    rss, brss = g("scand", lambda r: r["peakRSSMB"]), g("baseline", lambda r: r["peakRSSMB"])
    cr = [g(p, lambda r: r.get("codeRecall")) for p in ("scand", "baseline", "full-frame")]
    fr = [g(p, lambda r: r.get("faceRecall")) for p in ("scand", "baseline", "full-frame")]
    print(f"| {c} | {f(fps)} / {f(bfps)} ({ratio(fps, bfps)}) | {f(lfps)} ({f(drop, 0)}) / {f(blfps)} ({f(bdrop, 0)}) | "
          f"{f(p50)} / {f(bp50)} ({ratio(p50, bp50)}) | {f(p99)} / {f(bp99)} ({ratio(p99, bp99)}) | "
          f"{f(cpu)} / {f(bcpu)} ({ratio(cpu, bcpu)}) | {f(rss)} / {f(brss)} ({ratio(rss, brss)}) | "
          f"{' / '.join(pct(v) for v in cr) if cr[0] is not None else '–'} | "
          f"{' / '.join(pct(v) for v in fr) if fr[0] is not None else '–'} |")

print()
print("| case | decode ms p50/p99 | barcode ms p50/p99 scand (base) | face ms p50/p99 scand (base) | encode ms p50/p99 | live p99 of each run ms |")
print("|---|---|---|---|---|---|")
for c in cases:
    g = lambda p, k: med(c, p, k)
    st = lambda p, s: f"{f(g(p, lambda r: r['stages'][s]), 2)}/{f(g(p, lambda r: r.get('stagesP99', {}).get(s)), 2)}"
    each = ", ".join(f(r["latencyP99"]) for r in runs if r["name"] == c and r["pipeline"] == "live")
    print(f"| {c} | {st('scand', 'decode')} | {st('scand', 'barcode')} ({st('baseline', 'barcode')}) | "
          f"{st('scand', 'face')} ({st('baseline', 'face')}) | {st('scand', 'encode')} | {each} |")
