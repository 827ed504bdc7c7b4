#!/usr/bin/env python3
"""zxing-cpp's cost per format with and without tryRotate, and what Data Matrix loses without it.

Uses PyPI's zxing-cpp (the same C++ core scand builds, 3.1.1) in-process, with tryHarder on (the Python
binding's fixed default, as in scand) and try_downscale / try_invert off (as in scand).

  python3 bench/reader/zxing_rotate.py [--set bench/out/reader/heldout]   # needs: pip install zxing-cpp numpy pillow; zint

1. Cost: 8 code-free frames (<set>/negative) at 640x480 and their bilinear x2 copies, every format and each
   format alone, with and without try_rotate; median of 3 passes over the 8 frames, ms per frame.
2. Data Matrix: 12 zint symbols (seeded) pasted at 0, 17, 45, 90, 133, 180, 250 and 270 degrees on a grey
   640x480 frame with blur (sigma 0.7) and noise (sigma 6): how many read with and without try_rotate.
Results (2026-11-24) are in docs/reader.md, "Rotation is most of the 2-D cost".
"""
import argparse, glob, os, random, statistics, subprocess, tempfile, time
import numpy as np
from PIL import Image, ImageFilter
import zxingcpp

F = zxingcpp.BarcodeFormat
LINEAR = [F.EAN13, F.EAN8, F.UPCA, F.UPCE, F.Code39, F.Code93, F.Code128, F.ITF, F.Codabar, F.DataBar, F.DataBarExpanded]
SETS = {"all": None, "1-D": LINEAR, "QR": [F.QRCode, F.MicroQRCode], "DataMatrix": [F.DataMatrix],
        "PDF417": [F.PDF417], "Aztec": [F.Aztec]}


def cost(root):
    files = sorted(glob.glob(os.path.join(root, "negative", "*.png")))[:8]
    frames = []
    for f in files:
        g = Image.open(f).convert("L")
        frames.append((np.asarray(g), np.asarray(g.resize((g.width * 2, g.height * 2), Image.BILINEAR))))
    for size in (0, 1):
        for name, fmt in SETS.items():
            row = []
            for rotate in (True, False):
                ts = []
                for _ in range(3):
                    t0 = time.perf_counter()
                    for fr in frames:
                        kw = dict(try_rotate=rotate, try_downscale=False, try_invert=False)
                        if fmt is not None:
                            kw["formats"] = fmt
                        zxingcpp.read_barcodes(fr[size], **kw)
                    ts.append((time.perf_counter() - t0) / len(frames) * 1000)
                row.append(statistics.median(ts))
            print("%s %-10s with tryRotate %6.2f ms, without %6.2f ms" % ("x2 " if size else "1x ", name, row[0], row[1]))


def data_matrix():
    rng = random.Random(5)
    read = {True: 0, False: 0}
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "dm.png")
        for i in range(12):
            text = "DM%05d-%s" % (rng.randint(0, 99999), "x" * rng.randint(0, 30))
            subprocess.run(["zint", "-b", "71", "-d", text, "-o", png, "--scale=%d" % rng.choice([2, 3, 4])],
                           check=True, capture_output=True)
            sym = Image.open(png).convert("L")
            for angle in (0, 17, 45, 90, 133, 180, 250, 270):
                canvas = Image.new("L", (640, 480), 200)
                r = sym.rotate(angle, expand=True, fillcolor=255)
                canvas.paste(r, (rng.randint(0, max(0, 640 - r.width)), rng.randint(0, max(0, 480 - r.height))))
                canvas = canvas.filter(ImageFilter.GaussianBlur(0.7))
                noise = np.random.default_rng(i * 100 + angle).normal(0, 6, (480, 640))
                img = np.clip(np.asarray(canvas).astype(np.float64) + noise, 0, 255).astype(np.uint8)
                n += 1
                for rotate in (True, False):
                    out = zxingcpp.read_barcodes(img, formats=[F.DataMatrix], try_rotate=rotate, try_downscale=False, try_invert=False)
                    read[rotate] += any(o.text == text for o in out)
    print("Data Matrix, %d rotated symbols: %d read with tryRotate, %d without" % (n, read[True], read[False]))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default=os.path.join(os.path.dirname(__file__), "..", "out", "reader", "heldout"))
    args = ap.parse_args()
    cost(args.set)
    data_matrix()
