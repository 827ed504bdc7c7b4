#!/usr/bin/python3
"""Derives each photograph's face square in the convention scand's `bounds` follow (issue 14), and writes it into
marks.json as "faceSquare" (with --write) or checks the stored values (default; exit 1 on a mismatch).

The convention: the square OpenCV's frontal Haar cascade (haarcascade_frontalface_alt2, Debian `opencv-data`)
draws around an upright face, forehead to chin and cheek to cheek. That is the box the issue calls "Haar's box,
AVFoundation's face bounds and any hand-marked face square", and the issue's own figures say the reviewers'
marked squares follow it: the raw Haar box scored a median IoU of 0.90 against them, and the LBP box, ~0.68x
of the Haar box on our photographs, is "about 0.69x the face" there. The squares marked by hand in marks.json
("square") are tighter on four of our five frontal people (eyebrows to chin: 0.73-0.86x of the Haar box, its
centre 0.08-0.20 of a side lower); they stay, as the cut of the head patch the clips paste.

How: the photograph is turned by its marked eye-line roll so the face is upright, the cascade runs on it
(detectMultiScale, scale 1.05, 3 neighbours, at least 0.5x the marked side), the box nearest the marked square's
centre is taken, and its centre is turned back into the photograph's pixels. A profile (cameraman: the frontal
cascade does not fire) gets its marked square mapped by the median size ratio and offset of the frontal tuning
photographs.

Usage: bench/faces/face_squares.py [--write]
"""
import json, math, os, statistics, sys
import cv2
import numpy as np
from marks import eye_roll

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CASCADE = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml"
MARKS_PATH = os.path.join(HERE, "marks.json")


def haar_square(mark, cascade):
    """(x, y, side) of the Haar-convention square in the photograph's pixels, or None."""
    img = cv2.imread(os.path.join(ROOT, mark["path"]), cv2.IMREAD_GRAYSCALE)
    x, y, side = mark["square"]
    cx, cy = x + side / 2, y + side / 2
    roll = eye_roll(mark, default=0.0)
    # Turn the picture about the marked centre so the eye line is level (OpenCV: positive = counter-clockwise).
    m = cv2.getRotationMatrix2D((cx, cy), roll, 1.0)
    upright = cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
    boxes = cascade.detectMultiScale(upright, scaleFactor=1.05, minNeighbors=3, minSize=(int(side * 0.5),) * 2)
    if len(boxes) == 0:
        return None
    bx, by, bw, bh = min(boxes, key=lambda b: math.hypot(b[0] + b[2] / 2 - cx, b[1] + b[3] / 2 - cy))
    ux, uy = bx + bw / 2, by + bh / 2
    if math.hypot(ux - cx, uy - cy) > 0.5 * side:
        return None
    inv = cv2.invertAffineTransform(m)
    px, py = inv @ np.array([ux, uy, 1.0])
    s = float(bw)
    return [round(px - s / 2, 1), round(py - s / 2, 1), round(s, 1)]


def main():
    doc = json.load(open(MARKS_PATH))
    photos = doc["photos"]
    sys.path.insert(0, HERE)
    import fetch_people
    fetch_people.fetch(photos)
    cascade = cv2.CascadeClassifier(CASCADE)
    found, ratios, offs = {}, [], []
    for p in photos:
        pid = p.get("photo", p["person"])
        sq = haar_square(p, cascade) if p["yaw"] == 0 else None
        found[pid] = sq
        if sq and not p["holdout"]:
            x, y, side = p["square"]
            ratios.append(sq[2] / side)
            offs.append(((sq[0] + sq[2] / 2 - x - side / 2) / side, (sq[1] + sq[2] / 2 - y - side / 2) / side))
    k = statistics.median(ratios)
    dx = statistics.median(o[0] for o in offs)
    dy = statistics.median(o[1] for o in offs)
    bad = 0
    for p in photos:
        pid = p.get("photo", p["person"])
        x, y, side = p["square"]
        sq = found[pid]
        how = "haar"
        if sq is None:
            s = side * k
            sq = [round(x + side / 2 + dx * side - s / 2, 1), round(y + side / 2 + dy * side - s / 2, 1), round(s, 1)]
            how = f"marked square x{k:.3f}, offset ({dx:+.3f}, {dy:+.3f}) sides (median of the frontal tuning photos)"
        print(f"{pid:10s} marked {p['square']} -> faceSquare {sq}  ({how}; side ratio {sq[2] / side:.3f})")
        if "--write" in sys.argv:
            p["faceSquare"] = sq
            p["faceSquareFrom"] = how
        elif p.get("faceSquare") is None or max(abs(a - b) for a, b in zip(p["faceSquare"], sq)) > 1.0:
            print(f"  stored value differs: {p.get('faceSquare')}", file=sys.stderr)
            bad += 1
    if "--write" in sys.argv:
        with open(MARKS_PATH, "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
