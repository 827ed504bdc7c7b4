#!/usr/bin/python3
"""The naive face baseline: OpenCV's Haar default frontal cascade (scale 1.1, min neighbours 3, min 30 px)
on every full frame, plus greedy IoU matching to the previous frame's faces (IoU >= 0.3, else a new ID).
Reads a Y4M file, writes scand-style JSON lines (one metadata event per frame) on stdout.

Usage: baseline.py CLIP.y4m [MODELS_DIR]
Needs Debian's python3-opencv and python3-numpy.
"""
import json, sys
import numpy as np
import cv2


def iou(a, b):
    ax, ay, aw, ah = a; bx, by, bw, bh = b
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx)); iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    return inter / (aw * ah + bw * bh - inter) if inter else 0.0


def frames(path):
    """(width, height, grey pixels) of each frame of a Y4M clip, or of a still image (one frame)."""
    if not path.endswith(".y4m"):
        y = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        if y is None:
            sys.exit(f"{path}: not an image")
        yield y.shape[1], y.shape[0], y
        return
    with open(path, "rb") as f:
        header = f.readline().split()
        w = int(next(t[1:] for t in header if t.startswith(b"W")))
        h = int(next(t[1:] for t in header if t.startswith(b"H")))
        extra = 2 * ((w + 1) // 2) * ((h + 1) // 2)
        while True:
            marker = f.readline()
            if not marker.startswith(b"FRAME"):
                return
            y = f.read(w * h)
            f.read(extra)
            if len(y) < w * h:
                return
            yield w, h, np.frombuffer(y, np.uint8).reshape(h, w)


def main():
    path = sys.argv[1]
    models = sys.argv[2] if len(sys.argv) > 2 else "Models"
    cascade = cv2.CascadeClassifier(models + "/haarcascade_frontalface_default.xml")
    if cascade.empty():
        sys.exit("cannot load the Haar default cascade")
    prev = []  # (id, box)
    next_id = 1
    out = sys.stdout
    for i, (w, h, y) in enumerate(frames(path)):
        boxes = [tuple(int(v) for v in r) for r in cascade.detectMultiScale(y, 1.1, 3, minSize=(30, 30))]
        pairs = sorted(((iou(p[1], b), pi, bi) for pi, p in enumerate(prev) for bi, b in enumerate(boxes)), reverse=True)
        ids = [None] * len(boxes); used = set()
        for v, pi, bi in pairs:
            if v < 0.3: break
            if ids[bi] is None and pi not in used:
                ids[bi] = prev[pi][0]; used.add(pi)
        for bi in range(len(boxes)):
            if ids[bi] is None:
                ids[bi] = next_id; next_id += 1
        prev = list(zip(ids, boxes))
        objects = [{"type": "face", "faceID": fid, "bounds": {"x": b[0] / w, "y": b[1] / h, "width": b[2] / w, "height": b[3] / h}}
                   for fid, b in prev]
        out.write(json.dumps({"event": "metadata", "frame": i, "width": w, "height": h, "objects": objects}) + "\n")


if __name__ == "__main__":
    main()
