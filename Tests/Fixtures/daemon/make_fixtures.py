#!/usr/bin/python3
"""Generates the daemon test replays (Y4M, mono, 640x360, 10 fps) into OUTDIR.

kiosk.y4m   10 s: an EAN-13 (5901234123457) visible the whole time on the right; a QR code
            "TICKET-42" on the left at 0.5-2.0 s, 4.0-5.5 s and 7.5-9.0 s (three showings).
empty.y4m   2 s of blank frames.

Needs: qrencode (Debian package qrencode), python3-pil, python3-numpy. Usage: make_fixtures.py OUTDIR
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

W, H, FPS = 640, 360, 10

L = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
R = ["".join("1" if b == "0" else "0" for b in code) for code in L]
G = [code[::-1] for code in R]
PARITY = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]


def ean13_modules(digits12):
    d = [int(c) for c in digits12]
    check = (10 - (sum(d[i] * (3 if i % 2 else 1) for i in range(12)) % 10)) % 10
    d.append(check)
    bits = "101"
    for i, p in enumerate(PARITY[d[0]]):
        bits += (L if p == "L" else G)[d[1 + i]]
    bits += "01010"
    for i in range(7, 13):
        bits += R[d[i]]
    bits += "101"
    return bits, "".join(map(str, d))


def ean13_image(digits12, module=2, height=110):
    bits, full = ean13_modules(digits12)
    quiet = 11
    width = (len(bits) + 2 * quiet) * module
    img = np.full((height, width), 255, np.uint8)
    for i, b in enumerate(bits):
        if b == "1":
            x = (quiet + i) * module
            img[:, x:x + module] = 0
    return img, full


def qr_image(text, scale=4):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "qr.png")
        subprocess.run(["qrencode", "-o", path, "-s", str(scale), "-m", "4", "-l", "M", text], check=True)
        return np.array(Image.open(path).convert("RGBA").convert("L"))


def write_y4m(path, frames):
    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 Cmono\n" % (W, H, FPS))
        for frame in frames:
            f.write(b"FRAME\n")
            f.write(frame.tobytes())


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    qr = qr_image("TICKET-42")
    ean, ean_text = ean13_image("590123412345")
    background = np.full((H, W), 200, np.uint8)
    y0 = (H - ean.shape[0]) // 2
    background[y0:y0 + ean.shape[0], W - ean.shape[1] - 20:W - 20] = ean
    shows = [(0.5, 2.0), (4.0, 5.5), (7.5, 9.0)]
    frames = []
    for i in range(10 * FPS):
        t = i / FPS
        frame = background.copy()
        if any(a <= t + 1e-9 < b for a, b in shows):
            qy = (H - qr.shape[0]) // 2
            frame[qy:qy + qr.shape[0], 30:30 + qr.shape[1]] = qr
        frames.append(frame)
    write_y4m(os.path.join(out, "kiosk.y4m"), frames)
    write_y4m(os.path.join(out, "empty.y4m"), [np.full((H, W), 128, np.uint8)] * (2 * FPS))
    print(ean_text)


if __name__ == "__main__":
    main()
