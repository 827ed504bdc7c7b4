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
  roll MAE             mean |rollAngle - truth| over matched faces with |truth| <= 45 that report a roll (faces
                       whose truth roll is not known, "rollUnknown", are left out);
                       "roll cov." is the share of matched faces that report one
  roll MAE >=15        the same on faces tilted 15 degrees or more (frontal faces only: profiles are excluded)
  bounds IoU           median IoU of `bounds` with the truth face square (marks.json faceSquare, moved with the
                       head) over matched faces
  yaw right            share of matched faces turned >= 45 degrees (the profiles) whose yawAngle equals the truth
  per person           recall per person (so one identity cannot carry the figure)
  held out             hopper and biden (and make_hard.py's even-numbered Solvay people) are held out of all tuning: their faces' recall and IoU
                       wherever they appear, and every metric on the clips with only held-out people
                       (truth "holdout": *_h, *_b, pair_h); "tuning clips" = all other clips
  fps                  frames / wall-clock seconds of the whole process (start-up included), one core

Systems, all in the same run: the naive baseline (baseline.py) and scand with each detector
(--face-detector lbp, haar, centerface).

A truth file with "file" names the input to scan instead of CLIP.y4m (make_hard.py's group photograph, a still).

Usage: score.py [--scand PATH] [--clips DIR] [--only a,b] [--repeat N] [--no-baseline] [--detectors a,b]
                [--variant NAME='ARGS']... [--plain] [-- extra scand args]
  --plain adds "plain-cf": the issue's reference, CenterFace at 320x256 on every frame, no tracking
          (plain_centerface.py; its ID metrics mean nothing).
  --variant adds a system "NAME": scand with ARGS (plus the extra args), scored in the same run.
"""
import itertools, json, os, shlex, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def iou(a, b):
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    u = a[2] * a[3] + b[2] * b[3] - inter
    return inter / u if u > 0 else 0.0


def match(truth, dets):
    """Optimal one-to-one matching (maximum count, then maximum IoU; scipy's assignment solver, which a group
    photograph's 29 faces need); pairs need IoU >= 0.3."""
    if not truth or not dets:
        return []
    import numpy as np
    from scipy.optimize import linear_sum_assignment
    cand = np.array([[iou(t["box"], d["box"]) for d in dets] for t in truth])
    # A kept pair is worth 1 + IoU (more pairs first, then more overlap); a pair under 0.3 is worth nothing.
    gain = np.where(cand >= 0.3, 1.0 + cand, 0.0)
    rows, cols = linear_sum_assignment(-gain)
    return [(int(i), int(j)) for i, j in zip(rows, cols) if cand[i, j] >= 0.3]


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(["taskset", "-c", "0"] + cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 4):   # 4: scand found no object in the input (the empty clip)
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()], dt


def score(truth, events):
    W, H = truth["width"], truth["height"]
    by_frame = {e["frame"]: e for e in events if e.get("event") == "metadata"}
    s = dict(tp=0, fn=0, fp=0, switches=0, matched=0, roll_err=[], roll_err15=[], roll_n=0, roll_pairs=0,
             frames=len(truth["frames"]), ious=[], yaw_n=0, yaw_ok=0, person={}, held=dict(tp=0, fn=0, ious=[]))
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
                             roll=o.get("rollAngle"), yaw=o.get("yawAngle")))
        pairs = match(gts, dets)
        mg = {i for i, _ in pairs}; md = {j for _, j in pairs}
        for i, j in pairs:
            g, d = gts[i], dets[j]
            if g["ignore"]:
                continue
            s["tp"] += 1
            v = iou(g["box"], d["box"])
            s["ious"].append(v)
            pp = s["person"].setdefault(g["person"], [0, 0]); pp[0] += 1
            if g.get("holdout"):
                s["held"]["tp"] += 1; s["held"]["ious"].append(v)
            if g.get("yaw", 0) in (90, 270):
                s["yaw_n"] += 1
                s["yaw_ok"] += d["yaw"] == g["yaw"]
            seg = (g["person"], g["segment"])
            if d["id"] is not None:
                id_segments.setdefault(d["id"], set()).add(seg)
                if seg in last_id and last_id[seg] != d["id"]:
                    s["switches"] += 1
                last_id[seg] = d["id"]
            if abs(g["roll"]) <= 45 and g.get("yaw", 0) == 0 and not g.get("rollUnknown"):
                s["roll_pairs"] += 1
                if d["roll"] is not None:
                    e = abs((d["roll"] - g["roll"] + 180) % 360 - 180)
                    s["roll_err"].append(e)
                    if abs(g["roll"]) >= 15: s["roll_err15"].append(e)
        # matched "ignore" faces are neither; unmatched ones are not misses
        for i, g in enumerate(gts):
            if i not in mg and not g["ignore"]:
                s["fn"] += 1
                s["person"].setdefault(g["person"], [0, 0])[1] += 1
                if g.get("holdout"): s["held"]["fn"] += 1
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
    e15 = [e for s in stats for e in s["roll_err15"]]
    ious = [v for s in stats for v in s["ious"]]
    yn = sum(s["yaw_n"] for s in stats); yok = sum(s["yaw_ok"] for s in stats)
    person = {}
    for s in stats:
        for k, (a, b) in s["person"].items():
            q = person.setdefault(k, [0, 0]); q[0] += a; q[1] += b
    htp = sum(s["held"]["tp"] for s in stats); hfn = sum(s["held"]["fn"] for s in stats)
    hious = [v for s in stats for v in s["held"]["ious"]]
    return dict(roll_mae15=(sum(e15) / len(e15)) if e15 else float("nan"),
                iou_median=statistics.median(ious) if ious else float("nan"),
                yaw_right=yok / yn if yn else None, yaw_n=yn,
                person={k: (a / (a + b) if a + b else None, a + b) for k, (a, b) in sorted(person.items())},
                held_recall=htp / (htp + hfn) if htp + hfn else None, held_n=htp + hfn,
                held_iou=statistics.median(hious) if hious else float("nan"),recall=tp / (tp + fn) if tp + fn else None, precision=tp / (tp + fp) if tp + fp else None, fp=fp, switches_per_1000=1000 * sw / max(1, tp),
                switches=sw, merges=merges, roll_mae=(sum(errs) / len(errs)) if errs else float("nan"),
                roll_cov=len(errs) / max(1, rp), fps=frames / seconds if seconds else float("nan"))


def fmt(name, r):
    f3 = lambda v: "  n/a" if v is None else f"{v:.3f}"
    return (f"{name:<10} recall {f3(r['recall'])}  precision {f3(r['precision'])} (FP {r['fp']})  ID sw/1000 {r['switches_per_1000']:.2f}"
            f" ({r['switches']})  merges {r['merges']}  roll MAE {r['roll_mae']:.2f}° (>=15°: {r['roll_mae15']:.2f}°, cov. {r['roll_cov']:.2f})"
            f"  bounds IoU {r['iou_median']:.3f}  yaw right {f3(r['yaw_right'])}  fps {r['fps']:.1f}")


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        k = args.index("--"); extra = args[k + 1:]; args = args[:k]
    scand = os.path.join(ROOT, ".build/release/scand"); clips = os.path.join(ROOT, "bench/out/faces")
    only = None; repeat = 1; baseline = True; detectors = ["lbp", "haar", "centerface"]; variants = {}; plain = False
    while args:
        a = args.pop(0)
        if a == "--scand": scand = args.pop(0)
        elif a == "--clips": clips = args.pop(0)
        elif a == "--only": only = set(args.pop(0).split(","))
        elif a == "--repeat": repeat = int(args.pop(0))
        elif a == "--no-baseline": baseline = False
        elif a == "--plain": plain = True
        elif a == "--detectors": detectors = [d for d in args.pop(0).split(",") if d]
        elif a == "--variant":
            k, _, v = args.pop(0).partition("="); variants[k] = shlex.split(v)
        else: sys.exit(__doc__)
    names = sorted(f[:-5] for f in os.listdir(clips) if f.endswith(".json"))
    if only: names = [n for n in names if n in only]
    if not names: sys.exit(f"no clips in {clips}: run bench/faces/make_clips.py first")
    models = os.path.join(ROOT, "Models")
    systems = {d: (lambda clip, d=d: [scand, "scan", "--types", "face", "--models", models, "--face-detector", d] + extra + [clip])
               for d in detectors}
    for k, v in variants.items():
        systems[k] = lambda clip, v=v: [scand, "scan", "--types", "face", "--models", models] + v + extra + [clip]
    if plain:
        systems["plain-cf"] = lambda clip: ["/usr/bin/python3", os.path.join(ROOT, "bench/faces/plain_centerface.py"), clip, models]
    if baseline:
        systems["baseline"] = lambda clip: ["/usr/bin/python3", os.path.join(ROOT, "bench/faces/baseline.py"), clip, models]
    results = {k: dict(stats=[], times={n: [] for n in names}) for k in systems}
    for rep in range(repeat):
        for n in names:
            truth = json.load(open(os.path.join(clips, n + ".json")))
            for k, cmd in systems.items():
                events, dt = run(cmd(os.path.join(clips, truth.get("file", n + ".y4m"))))
                results[k]["times"][n].append(dt)
                if rep == 0:
                    s = score(truth, events); s["clip"] = n; s["holdout"] = truth.get("holdout", False)
                    results[k]["stats"].append(s)
    first = next(iter(systems))
    total_frames = sum(s["frames"] for s in results[first]["stats"])
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
    print("per person recall (face-frames):")
    for k in systems:
        print(f"  {k:<10} " + "  ".join(f"{p} {'n/a' if r is None else f'{r:.3f}'} ({n})" for p, (r, n) in overall[k]["person"].items()))
    print("held-out faces (marked holdout: hopper, biden; on the hard set also the even-numbered Solvay people), wherever they appear:")
    for k in systems:
        r = overall[k]
        hr = "n/a" if r["held_recall"] is None else f"{r['held_recall']:.3f}"
        print(f"  {k:<10} recall {hr} ({r['held_n']} face-frames)  bounds IoU {r['held_iou']:.3f}")
    for label, want in (("held-out clips (only held-out people)", True), ("tuning clips (all others)", False)):
        part = [n for n in names if results[first]["stats"][names.index(n)]["holdout"] == want]
        print(f"{label}: {', '.join(part)}")
        for k in systems:
            st = [s for s in results[k]["stats"] if s["holdout"] == want]
            t = sum(statistics.median(results[k]["times"][s["clip"]]) for s in st)
            print("  " + fmt(k, summary(st, t, sum(s["frames"] for s in st))))
    if baseline:
        for d in detectors:
            print(f"  fps ratio {d}/baseline: {overall[d]['fps'] / overall['baseline']['fps']:.2f}x")


if __name__ == "__main__":
    main()
