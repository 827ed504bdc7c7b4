#!/usr/bin/python3
"""Independent reference for scand's view geometry (used by PreviewEndToEndTests).

Composes a device image with a QR code at a known place, then draws the preview canvas the way a screen
shows it -- PIL's own rotate / mirror / resize / paste -- and reports where the code's corners land on
that canvas, in view pixels. Nothing here uses scand's PreviewGeometry.

usage: preview_canvas.py QR_PNG DEVICE_OUT FRAME_W FRAME_H QR_X QR_Y VIEW_W VIEW_H ORIENTATION GRAVITY MIRRORED(0|1)
prints one JSON object: {"bounds": [x0, y0, x1, y1], "corners": [[x, y] x4 in the symbol's TL, TR, BR, BL order]}
Needs python3-pil (Debian).
"""
import json
import sys

from PIL import Image

qr_png, device_out = sys.argv[1], sys.argv[2]
fw, fh, qx, qy, vw, vh = (int(a) for a in sys.argv[3:9])
orientation, gravity, mirrored = sys.argv[9], sys.argv[10], sys.argv[11] == "1"

qr = Image.open(qr_png).convert("RGBA").convert("L")
qs = qr.size[0]

# The device image: white, the code at (qx, qy).
device = Image.new("L", (fw, fh), 255)
device.paste(qr, (qx, qy))
device.save(device_out)

# One marker image per symbol corner: black, white only in a 4x4 patch inside that corner.
patches = [(qx, qy), (qx + qs - 4, qy), (qx + qs - 4, qy + qs - 4), (qx, qy + qs - 4)]
markers = []
for (px, py) in patches:
    m = Image.new("L", (fw, fh), 0)
    m.paste(255, (px, py, px + 4, py + 4))
    markers.append(m)

# PIL's ROTATE_270 turns the picture 90 degrees clockwise as displayed.
turn = {"landscapeRight": None, "portrait": Image.Transpose.ROTATE_270,
        "landscapeLeft": Image.Transpose.ROTATE_180, "portraitUpsideDown": Image.Transpose.ROTATE_90}[orientation]


def show(img, background):
    if turn is not None:
        img = img.transpose(turn)
    if mirrored:
        img = img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    cw, ch = img.size
    if gravity == "resize":
        dw, dh = vw, vh
    else:
        pick = min if gravity == "resizeAspect" else max
        s = pick(vw / cw, vh / ch)
        dw, dh = round(cw * s), round(ch * s)
    img = img.resize((dw, dh), Image.Resampling.NEAREST)
    canvas = Image.new("L", (vw, vh), background)
    canvas.paste(img, (round((vw - dw) / 2), round((vh - dh) / 2)))
    return canvas


def box(img, test):
    """Bounding box [x0, x1) x [y0, y1) of the pixels passing `test`, and its centre."""
    found = img.point(lambda v: 255 if test(v) else 0).getbbox()
    if found is None:
        sys.exit("nothing found on the canvas")
    x0, y0, x1, y1 = found
    return x0, y0, x1, y1, (x0 + x1) / 2, (y0 + y1) / 2


x0, y0, x1, y1, _, _ = box(show(device, 230), lambda v: v < 128)
bbox_corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
corners = []
for m in markers:
    _, _, _, _, cx, cy = box(show(m, 0), lambda v: v > 128)
    corners.append(min(bbox_corners, key=lambda c: (c[0] - cx) ** 2 + (c[1] - cy) ** 2))
print(json.dumps({"bounds": [x0, y0, x1, y1], "corners": corners}))
