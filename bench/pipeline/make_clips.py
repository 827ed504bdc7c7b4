#!/usr/bin/python3
"""Camera-like benchmark clips with exact ground truth, for `scand bench` (issue 7).

Each clip is a Y4M stream (4:2:0, neutral chroma) of a scene a kiosk camera would see: a textured, slightly
shaking background (a photograph from skimage's data set, blurred like an out-of-focus backdrop, plus sensor
noise σ≈2.5), a face that walks across (the public-domain NASA astronaut portrait, skimage.data.astronaut),
a phone showing a QR login code that is held up three times, and a shelf label with an EAN-13 barcode.

Outputs, for each size (640x480, 1280x720, 1920x1080, 3840x2160; --sizes) and content (codes, faces, both; --contents):
  bench/out/clip-<W>x<H>-<content>.y4m  and  .truth.json (per frame: code values; face boxes in pixels;
  "occludedFaces": faces a quarter or more hidden by the phone, left out of recall)

Usage: bench/pipeline/make_clips.py [--frames N] [--fps F] [--sizes 640x480,...] [--contents codes,...] [OUTDIR]
"""
import argparse
import json
import os
import subprocess
import tempfile
import warnings

import numpy as np
from PIL import Image, ImageDraw, ImageFilter
from skimage import data

warnings.filterwarnings("ignore")
ap = argparse.ArgumentParser()
ap.add_argument("outdir", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "out"))
ap.add_argument("--frames", type=int, default=300)
ap.add_argument("--fps", type=int, default=30)
ap.add_argument("--sizes", default="640x480,1280x720,1920x1080,3840x2160",
                help="comma-separated WxH (default: every size scand bench measures)")
ap.add_argument("--contents", default="codes,faces,both")
args = ap.parse_args()
os.makedirs(args.outdir, exist_ok=True)

ASTRONAUT = Image.fromarray(data.astronaut()).convert("L")
FACE = ASTRONAUT.crop((150, 20, 320, 215))       # the face with a margin
FACE_BOX = (175 - 150, 45 - 20, 290 - 150, 180 - 20)  # the face itself inside FACE (x0,y0,x1,y1)
BACKDROP = Image.fromarray(data.coffee()).convert("L")


def render(tool_args):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(tool_args + ["-o", f"{tmp}/c.png"], check=True, stdout=subprocess.DEVNULL)
        return Image.open(f"{tmp}/c.png").convert("L")


def make(W, H, content):
    s = W / 640.0
    rng = np.random.default_rng(W + len(content))
    back = BACKDROP.resize((int(W * 1.1), int(H * 1.1))).filter(ImageFilter.GaussianBlur(3 * s))
    face = FACE.resize((int(FACE.width * 1.2 * s), int(FACE.height * 1.2 * s)))
    fscale = face.width / FACE.width
    qr_values = ["LOGIN:7f3a-alice", "LOGIN:19c2-bob", "LOGIN:e04d-carol"]
    qrs = [render(["qrencode", "-s", str(max(3, int(4 * s))), "-m", "2", v]) for v in qr_values]
    ean = render(["zint", "-b", "EANX", "-d", "590123412345", "--scale", str(max(1, round(s))), "--height", "30", "--notext"])
    ean = ean.resize((int(ean.width * s / max(1, round(s))), int(ean.height * s / max(1, round(s)))), Image.NEAREST) if s != round(s) else ean
    truth = []
    base = f"clip-{W}x{H}-{content}"
    with open(os.path.join(args.outdir, base + ".y4m"), "wb") as f:
        f.write(f"YUV4MPEG2 W{W} H{H} F{args.fps}:1 Ip A1:1 C420jpeg\n".encode())
        for k in range(args.frames):
            dx, dy = int(3 * s * np.sin(k / 7)), int(2 * s * np.cos(k / 11))  # camera shake
            frame = back.crop((int(0.05 * W) + dx, int(0.05 * H) + dy, int(0.05 * W) + dx + W, int(0.05 * H) + dy + H))
            draw = ImageDraw.Draw(frame)
            gt = {"frame": k, "codes": [], "faces": []}
            if content in ("faces", "both"):
                period = args.frames
                x = int((-0.1 + 1.0 * (k % period) / period) * W)
                y = int(0.12 * H + 10 * s * np.sin(k / 9))
                frame.paste(face, (x, y))
                fx0, fy0 = x + FACE_BOX[0] * fscale, y + FACE_BOX[1] * fscale
                fx1, fy1 = x + FACE_BOX[2] * fscale, y + FACE_BOX[3] * fscale
                cx0, cy0, cx1, cy1 = max(0, fx0), max(0, fy0), min(W, fx1), min(H, fy1)
                # A face counts when at least 80% of it is inside the picture.
                if (cx1 - cx0) * (cy1 - cy0) >= 0.8 * (fx1 - fx0) * (fy1 - fy0):
                    gt["faces"].append([round(fx0, 1), round(fy0, 1), round(fx1 - fx0, 1), round(fy1 - fy0, 1)])
            if content in ("codes", "both"):
                phase = k * 3 // args.frames
                within = (k * 3) % args.frames
                if within < 0.6 * args.frames:  # the phone is held up for 60% of each third
                    qr = qrs[phase]
                    px, py = int(0.62 * W), int(0.18 * H)
                    draw.rounded_rectangle((px - 14 * s, py - 40 * s, px + qr.width + 14 * s, py + qr.height + 60 * s), 12 * s, fill=30)
                    draw.rectangle((px - 6 * s, py - 6 * s, px + qr.width + 6 * s, py + qr.height + 6 * s), fill=235)
                    frame.paste(qr.point(lambda v: 20 + v * 215 // 255), (px, py))
                    gt["codes"].append({"type": "qr", "value": qr_values[phase]})
                    # The phone is drawn over the face: a face with a quarter or more of its box hidden is
                    # moved to "occludedFaces" (neither a hit nor a miss when scoring).
                    phone = (px - 14 * s, py - 40 * s, px + qr.width + 14 * s, py + qr.height + 60 * s)
                    for box in list(gt["faces"]):
                        bx0, by0, bx1, by1 = box[0], box[1], box[0] + box[2], box[1] + box[3]
                        ox = max(0, min(bx1, phone[2]) - max(bx0, phone[0]))
                        oy = max(0, min(by1, phone[3]) - max(by0, phone[1]))
                        if ox * oy >= 0.25 * box[2] * box[3]:
                            gt["faces"].remove(box)
                            gt.setdefault("occludedFaces", []).append(box)
                lx, ly = int(0.08 * W), int(0.78 * H)
                draw.rectangle((lx - 10 * s, ly - 8 * s, lx + ean.width + 10 * s, ly + ean.height + 8 * s), fill=245)
                frame.paste(ean.point(lambda v: 25 + v * 220 // 255), (lx, ly))
                gt["codes"].append({"type": "ean13", "value": "5901234123457"})
            a = np.asarray(frame, dtype=np.float32) + rng.normal(0, 2.5, (H, W))
            f.write(b"FRAME\n")
            f.write(np.clip(a, 0, 255).astype(np.uint8).tobytes())
            f.write(bytes([128]) * (2 * (W // 2) * (H // 2)))
            truth.append(gt)
    with open(os.path.join(args.outdir, base + ".truth.json"), "w") as f:
        json.dump({"width": W, "height": H, "fps": args.fps, "frames": truth}, f)
    print(os.path.join(args.outdir, base + ".y4m"))


for size in args.sizes.split(","):
    W, H = (int(v) for v in size.split("x"))
    for content in args.contents.split(","):
        make(W, H, content)
