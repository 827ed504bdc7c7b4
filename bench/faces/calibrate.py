#!/usr/bin/python3
"""Calibrates each face detector's box against the face squares of marks.json ("faceSquare", scand's convention:
see face_squares.py; issue 14).

Runs the built scand (`scand scan PHOTO --types face --face-detector D`) on every photograph, takes the face
nearest the mark, and prints per photo the IoU of `bounds` with the marked square, the roll error against the
marked eye line and the yaw; then, from the frontal photos NOT held out (astronaut, obama, obama2; hopper and biden
are held out and only reported), the calibration that would make the median side and centre match. Photographs
with a "fetch" entry are fetched first (fetch_people.py). Current values are read from
Sources/ScanDetection/FaceDetector.swift. Paste the suggested
values there and re-run until they agree.

Usage: bench/faces/calibrate.py [--scand .build/release/scand]
"""
import json, os, subprocess, sys, statistics

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
scand = sys.argv[sys.argv.index("--scand") + 1] if "--scand" in sys.argv else os.path.join(ROOT, ".build/debug/scand")
marks = json.load(open(os.path.join(ROOT, "bench/faces/marks.json")))["photos"]
sys.path.insert(0, os.path.join(ROOT, "bench", "faces"))
import fetch_people
fetch_people.fetch(marks)
import calibration
from marks import eye_roll
current = calibration.shipped()


def iou(a, b):
    ax, ay, aw, ah = a; bx, by, bw, bh = b
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx)); iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    i = ix * iy
    return i / (aw * ah + bw * bh - i)


for det in ["centerface", "haar", "lbp"]:
    scale, shift = current[det]
    ratios, shifts = [], []
    print(f"{det}: current scale {scale} shiftDown {shift}")
    for m in marks:
        out = subprocess.run([scand, "scan", os.path.join(ROOT, m["path"]), "--types", "face", "--face-detector", det],
                             capture_output=True, text=True, check=True).stdout
        ev = json.loads(out.splitlines()[0])
        W, H = ev["width"], ev["height"]
        mx, my, ms = m["faceSquare"]
        best = None
        for o in ev["objects"]:
            b = o["bounds"]
            box = (b["x"] * W, b["y"] * H, b["width"] * W, b["height"] * H)
            v = iou(box, (mx, my, ms, ms))
            if best is None or v > best[0]:
                best = (v, box, o)
        if best is None or best[0] == 0:
            print(f"  {m.get('photo', m['person']):10s} not found"); continue
        v, (x, y, w, h), o = best
        truth_roll = eye_roll(m)
        roll = o.get("rollAngle")
        rerr = f"{roll - truth_roll:+.1f}" if roll is not None and truth_roll is not None else "-"
        print(f"  {m.get('photo', m['person']):10s} IoU {v:.3f} side {w:.0f} (marked {ms}) roll err {rerr} yaw {o.get('yawAngle')} (marked {m['yaw']})"
              + ("  [held out]" if m["holdout"] else ""))
        if m["yaw"] == 0 and not m["holdout"]:
            raw = w / scale
            ratios.append(ms / w)
            shifts.append(((my + ms / 2) - (y + h / 2)) / raw)
    if ratios:
        print(f"  suggested: scale {scale * statistics.median(ratios):.3f} shiftDown {shift + statistics.median(shifts):.3f}"
              f" (median over {len(ratios)} frontal photos)")
