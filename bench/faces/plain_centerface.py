#!/usr/bin/python3
"""The issue's reference pipeline: CenterFace (Models/centerface.onnx) in OpenCV's dnn on every frame at 320x256,
score >= 0.5, NMS at IoU 0.3, no tracking (every face gets a fresh faceID, so ID metrics mean nothing for it).
The box is made the same square scand reports (FaceDetector's CenterFace calibration, read from
Sources/ScanDetection/FaceDetector.swift: side = scale x sqrt(w*h), centre moved down by shiftDown raw sides), so
bounds are comparable. Reads a Y4M file, writes scand-style JSON lines on stdout.

Usage: plain_centerface.py CLIP.y4m [MODELS_DIR]
"""
import json, math, os, sys
import numpy as np
import cv2
from baseline import frames, iou
import calibration

SCALE, SHIFT = calibration.shipped()["centerface"]


def main():
    path = sys.argv[1]
    models = sys.argv[2] if len(sys.argv) > 2 else "Models"
    cv2.setNumThreads(1)
    net = cv2.dnn.readNetFromONNX(os.path.join(models, "centerface.onnx"))
    IW, IH = 320, 256
    next_id = 1
    for i, (w, h, y) in enumerate(frames(path)):
        rgb = cv2.cvtColor(cv2.resize(y, (IW, IH), interpolation=cv2.INTER_AREA), cv2.COLOR_GRAY2RGB)
        net.setInput(cv2.dnn.blobFromImage(rgb, 1.0, (IW, IH), (0, 0, 0), False, False))
        heat, scale, offset, _ = net.forward(["537", "538", "539", "540"])
        rows, cols = np.where(heat[0, 0] >= 0.5)
        hits = []
        for r, c in zip(rows, cols):
            sh, sw = math.exp(scale[0, 0, r, c]) * 4, math.exp(scale[0, 1, r, c]) * 4
            x0 = (c + offset[0, 1, r, c] + 0.5) * 4 - sw / 2; y0 = (r + offset[0, 0, r, c] + 0.5) * 4 - sh / 2
            hits.append((float(heat[0, 0, r, c]), (x0 * w / IW, y0 * h / IH, sw * w / IW, sh * h / IH)))
        hits.sort(key=lambda t: -t[0])
        kept = []
        for s, b in hits:
            if all(iou(b, k) < 0.3 for k in kept):
                kept.append(b)
        objs = []
        for (x, yy, bw, bh) in kept:
            raw = math.sqrt(bw * bh)
            side = SCALE * raw; cx, cy = x + bw / 2, yy + bh / 2 + SHIFT * raw
            objs.append({"type": "face", "faceID": next_id, "bounds": {"x": (cx - side / 2) / w, "y": (cy - side / 2) / h,
                                                                       "width": side / w, "height": side / h}})
            next_id += 1
        print(json.dumps({"event": "metadata", "frame": i, "width": w, "height": h, "objects": objs}))


if __name__ == "__main__":
    main()
