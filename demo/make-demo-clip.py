#!/usr/bin/python3
"""Makes scand's bundled demo: a 3-second 640×480 Y4M clip (15 fps) with a moving face, a QR code that comes
and goes, and an EAN-13 barcode on a shelf label.

The face is the astronaut photograph (Eileen Collins, NASA, public domain) shipped with Debian's
python3-skimage as skimage.data.astronaut(). Usage: demo/make-demo-clip.py [OUT.y4m]
"""
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
from PIL import Image, ImageDraw
from skimage import data

warnings.filterwarnings("ignore")
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo.y4m")
W, H, FPS, N = 640, 480, 15, 45

face = Image.fromarray(data.astronaut()).convert("L").crop((130, 10, 330, 240)).resize((150, 172))
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(["qrencode", "-o", f"{tmp}/qr.png", "-s", "4", "-m", "2", "https://example.com/login?t=demo-7f3a"], check=True)
    subprocess.run(["zint", "-b", "EANX", "-d", "400638133393", "-o", f"{tmp}/ean.png", "--scale", "1", "--height", "30", "--notext"],
                   check=True, stdout=subprocess.DEVNULL)
    qr = Image.open(f"{tmp}/qr.png").convert("L")
    ean = Image.open(f"{tmp}/ean.png").convert("L")

yy, xx = np.mgrid[0:H, 0:W]
background = (90 + 60 * xx / W + 20 * np.sin(yy / 37.0)).astype(np.uint8)
with open(out, "wb") as f:
    f.write(f"YUV4MPEG2 W{W} H{H} F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
    for k in range(N):
        frame = Image.fromarray(background.copy())
        frame.paste(face, (40 + 4 * k, 60))
        if 8 <= k < 38:  # the phone with the QR code is held up for two seconds
            ImageDraw.Draw(frame).rectangle((400, 80, 400 + qr.width + 20, 80 + qr.height + 20), fill=255)
            frame.paste(qr, (410, 90))
        ImageDraw.Draw(frame).rectangle((60, 380, 60 + ean.width + 24, 380 + ean.height + 16), fill=255)
        frame.paste(ean, (72, 388))
        f.write(b"FRAME\n")
        f.write(np.asarray(frame, dtype=np.uint8).tobytes())
        f.write(bytes([128]) * (2 * (W // 2) * (H // 2)))
print(out)
