#!/usr/bin/python3
"""Scores scand's face detection and tracking against the ground truth written by make_clips.py, and runs
the naive baseline (baseline.py) in the same run. Both run pinned to one core (taskset -c 0).

Metrics (per clip and overall):
  recall / precision   detections matched one-to-one to ground-truth faces at IoU >= 0.3 (optimal per frame);
                       faces marked "ignore" (less than 80 % inside the frame) count neither way
  ID switches          times a ground-truth face (one appearance: a "segment") is matched to a different
                       faceID than on its previous matched frame; reported per 1,000 matched face-frames
  wrong merges         faceIDs matched to two or more ground-truth segments (two people, or one person
                       before and after leaving the picture)
  roll MAE             mean |rollAngle - truth| over matched faces with |truth| <= 45 that report a roll;
                       "roll cov." is the share of matched faces that report one
  fps                  frames / wall-clock seconds of the whole process (start-up included), one core

Usage: score.py [--scand PATH] [--clips DIR] [--only a,b] [--repeat N] [--no-baseline] [-- extra scand args]
"""
import itertools, json, os, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def iou(a, b):
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    u = a[2] * a[3] + b[2] * b[3] - inter
    return inter / u if u > 0 else 0.0


def match(truth, dets):
    """Optimal one-to-one matching (maximum count, then maximum IoU) of small sets; pairs need IoU >= 0.3."""
    best = (0, 0.0, [])
    cand = [[iou(t["box"], d["box"]) for d in dets] for t in truth]
    def rec(i, used, count, total, pairs):
        nonlocal best
        if i == len(truth):
            if (count, total) > best[:2]: best = (count, total, list(pairs))
            return
        rec(i + 1, used, count, total, pairs)
        for j in range(len(dets)):
            if j not in used and cand[i][j] >= 0.3:
                used.add(j); pairs.append((i, j))
                rec(i + 1, used, count + 1, total + cand[i][j], pairs)
                pairs.pop(); used.discard(j)
    rec(0, set(), 0, 0.0, [])
    return best[2]


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(["taskset", "-c", "0"] + cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()], dt


def score(truth, events):
    W, H = truth["width"], truth["height"]
    by_frame = {e["frame"]: e for e in events if e.get("event") == "metadata"}
    s = dict(tp=0, fn=0, fp=0, switches=0, matched=0, roll_err=[], roll_n=0, roll_pairs=0, frames=len(truth["frames"]))
    last_id = {}
    id_segments = {}
    for fr in truth["frames"]:
        gts = [dict(box=(f["x"], f["y"], f["w"], f["h"]), **f) for f in fr["faces"]]
        ev = by_frame.get(fr["frame"], {"objects": []})
        dets = []
        for o in ev["objects"]:
            if o.get("type") != "face": continue
            b = o["bounds"]
            dets.append(dict(box=(b["x"] * W, b["y"] * H, b["width"] * W, b["height"] * H), id=o.get("faceID"),
                             roll=o.get("rollAngle")))
        pairs = match(gts, dets)
        mg = {i for i, _ in pairs}; md = {j for _, j in pairs}
        for i, j in pairs:
            g, d = gts[i], dets[j]
            if g["ignore"]:
                continue
            s["tp"] += 1
            seg = (g["person"], g["segment"])
            if d["id"] is not None:
                id_segments.setdefault(d["id"], set()).add(seg)
                if seg in last_id and last_id[seg] != d["id"]:
                    s["switches"] += 1
                last_id[seg] = d["id"]
            if abs(g["roll"]) <= 45:
                s["roll_pairs"] += 1
                if d["roll"] is not None:
                    s["roll_err"].append(abs((d["roll"] - g["roll"] + 180) % 360 - 180))
        # matched "ignore" faces are neither; unmatched ones are not misses
        s["fn"] += sum(1 for i, g in enumerate(gts) if i not in mg and not g["ignore"])
        s["fp"] += sum(1 for j in range(len(dets)) if j not in md)
        # detections on ignore-faces were matched above, so they are not false positives either
    s["merges"] = sum(1 for segs in id_segments.values() if len(segs) > 1)
    s["ids"] = len(id_segments)
    s["segments"] = len({(f["person"], f["segment"]) for fr in truth["frames"] for f in fr["faces"] if not f["ignore"]})
    return s


def summary(stats, seconds, frames):
    tp = sum(s["tp"] for s in stats); fn = sum(s["fn"] for s in stats); fp = sum(s["fp"] for s in stats)
    sw = sum(s["switches"] for s in stats); merges = sum(s["merges"] for s in stats)
    errs = [e for s in stats for e in s["roll_err"]]; rp = sum(s["roll_pairs"] for s in stats)
    return dict(recall=tp / (tp + fn) if tp + fn else None, precision=tp / (tp + fp) if tp + fp else None, fp=fp, switches_per_1000=1000 * sw / max(1, tp),
                switches=sw, merges=merges, roll_mae=(sum(errs) / len(errs)) if errs else float("nan"),
                roll_cov=len(errs) / max(1, rp), fps=frames / seconds if seconds else float("nan"))


def fmt(name, r):
    f3 = lambda v: "  n/a" if v is None else f"{v:.3f}"
    return (f"{name:<10} recall {f3(r['recall'])}  precision {f3(r['precision'])} (FP {r['fp']})  ID sw/1000 {r['switches_per_1000']:.2f}"
            f" ({r['switches']})  merges {r['merges']}  roll MAE {r['roll_mae']:.2f}° (cov. {r['roll_cov']:.2f})  fps {r['fps']:.1f}")


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        k = args.index("--"); extra = args[k + 1:]; args = args[:k]
    scand = os.path.join(ROOT, ".build/release/scand"); clips = os.path.join(ROOT, "bench/out/faces")
    only = None; repeat = 1; baseline = True
    while args:
        a = args.pop(0)
        if a == "--scand": scand = args.pop(0)
        elif a == "--clips": clips = args.pop(0)
        elif a == "--only": only = set(args.pop(0).split(","))
        elif a == "--repeat": repeat = int(args.pop(0))
        elif a == "--no-baseline": baseline = False
        else: sys.exit(__doc__)
    names = sorted(f[:-5] for f in os.listdir(clips) if f.endswith(".json"))
    if only: names = [n for n in names if n in only]
    if not names: sys.exit(f"no clips in {clips}: run bench/faces/make_clips.py first")
    models = os.path.join(ROOT, "Models")
    systems = {"scand": lambda clip: [scand, "scan", "--types", "face", "--models", models] + extra + [clip]}
    if baseline:
        systems["baseline"] = lambda clip: ["/usr/bin/python3", os.path.join(ROOT, "bench/faces/baseline.py"), clip, models]
    results = {k: dict(stats=[], times={n: [] for n in names}) for k in systems}
    for rep in range(repeat):
        for n in names:
            truth = json.load(open(os.path.join(clips, n + ".json")))
            for k, cmd in systems.items():
                events, dt = run(cmd(os.path.join(clips, n + ".y4m")))
                results[k]["times"][n].append(dt)
                if rep == 0:
                    s = score(truth, events); s["clip"] = n
                    results[k]["stats"].append(s)
    total_frames = sum(s["frames"] for s in results["scand"]["stats"])
    print(f"clips: {', '.join(names)}; {total_frames} frames of 640x480; median of {repeat} timing run(s); one core (taskset -c 0)")
    print("per clip:")
    for k in systems:
        for s in results[k]["stats"]:
            t = statistics.median(results[k]["times"][s["clip"]])
            print("  " + fmt(f"{k}:{s['clip']}", summary([s], t, s["frames"])) + f"  IDs {s['ids']} / segments {s['segments']}")
    print("overall:")
    overall = {}
    for k in systems:
        t = sum(statistics.median(v) for v in results[k]["times"].values())
        overall[k] = summary(results[k]["stats"], t, total_frames)
        print("  " + fmt(k, overall[k]))
    if baseline:
        print(f"  fps ratio scand/baseline: {overall['scand']['fps'] / overall['baseline']['fps']:.2f}x")


if __name__ == "__main__":
    main()
