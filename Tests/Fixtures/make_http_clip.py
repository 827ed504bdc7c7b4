#!/usr/bin/python3
"""Writes the clip for the HTTP page tests: a grey Y4M (Cmono) of FRAMES frames, white, with one QR code
(segno, no quiet zone of its own: the white frame is the quiet zone) at a known place.

usage: make_http_clip.py OUT.y4m WIDTH HEIGHT QR_X QR_Y MODULE_PX [FRAMES] [TEXT]
prints {"value": TEXT, "corners": [[x, y] x4 TL TR BR BL]} in frame pixels.
Needs python3-segno and python3-pil (Debian).
"""
import json
import sys

import segno
from PIL import Image

out, w, h, qx, qy, module = sys.argv[1], *(int(a) for a in sys.argv[2:7])
frames = int(sys.argv[7]) if len(sys.argv) > 7 else 30
text = sys.argv[8] if len(sys.argv) > 8 else "scand-http-17"
qr = segno.make(text, error="m", micro=False)
rows = list(qr.matrix_iter(scale=module, border=0))
size = len(rows)
picture = Image.new("L", (w, h), 255)
code = Image.new("L", (size, size), 255)
code.putdata([0 if bit else 255 for row in rows for bit in row])
picture.paste(code, (qx, qy))
with open(out, "wb") as f:
    f.write(f"YUV4MPEG2 W{w} H{h} F15:1 Ip A1:1 Cmono\n".encode())
    data = picture.tobytes()
    for _ in range(frames):
        f.write(b"FRAME\n")
        f.write(data)
print(json.dumps({"value": text, "corners": [[qx, qy], [qx + size, qy], [qx + size, qy + size], [qx, qy + size]]}))
