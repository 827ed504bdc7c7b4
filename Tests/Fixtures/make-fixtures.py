#!/usr/bin/python3
"""Generates the test fixtures for scand's unit and end-to-end tests.

Every fixture is made here from scratch with Debian tools (zint, qrencode) and PIL/numpy, so the tests carry
no binary blobs. Output: Tests/Fixtures/generated/ (git-ignored) plus manifest.json, which names each file,
what it contains and the exact payload bytes (hex) the tests must read.

Usage: Tests/Fixtures/make-fixtures.py [OUTDIR]
"""
import json
import warnings
warnings.filterwarnings("ignore", category=UserWarning)
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "generated")
os.makedirs(OUT, exist_ok=True)
manifest = {"symbols": [], "files": {}}


def zint(barcode, data, path, scale=3, extra=()):
    subprocess.run(["zint", "-b", barcode, "-d", data, "-o", path, "--scale", str(scale), "--notext", *extra],
                   check=True, stdout=subprocess.DEVNULL)


def qrencode(data: bytes, path, scale=6, eight_bit=False):
    args = ["qrencode", "-o", path, "-s", str(scale), "-m", "4"]
    if eight_bit:
        args.append("-8")
    subprocess.run(args, input=data, check=True)


def grey(path):
    return Image.open(path).convert("L")


def pad(img, border=40):
    out = Image.new("L", (img.width + 2 * border, img.height + 2 * border), 255)
    out.paste(img, (border, border))
    return out


# --- one image per zbar symbology (AVFoundation type name -> zint symbology, data, expected text)
SYMBOLOGIES = [
    ("qr", "QRCODE", "scand QR fixture", "scand QR fixture"),
    ("ean13", "EANX", "400638133393", "4006381333931"),
    ("ean13", "UPCA", "03600029145", "0036000291452"),   # UPC-A is reported as EAN-13, as AVFoundation does
    ("ean8", "EANX", "9638507", "96385074"),
    ("upce", "UPCE", "0123456", "01234565"),
    ("code39", "CODE39", "SCAND-39", "SCAND-39"),
    ("code93", "CODE93", "SCAND93", "SCAND93"),
    ("code128", "CODE128", "scand-128/Ok", "scand-128/Ok"),
    ("interleaved2of5", "C25INTER", "12345670", "12345670"),
    ("itf14", "ITF14", "1540014128876", "15400141288763"),
    ("codabar", "CODABAR", "A40156B", "A40156B"),
    ("gs1DataBar", "DBAR_OMN", "2001234567890", "0120012345678909"),
    ("gs1DataBarExpanded", "DBAR_EXP", "[01]98898765432106[3202]012345", "019889876543210632020123 45".replace(" ", "")),
]
for i, (avtype, sym, data, text) in enumerate(SYMBOLOGIES):
    name = f"sym-{i:02d}-{avtype}.png"
    path = os.path.join(OUT, name)
    extra = ["--height", "50"] if sym not in ("QRCODE",) else []
    if sym == "DBAR_EXP":
        extra = ["--height", "34"]
    zint(sym, data, path, scale=3 if sym != "QRCODE" else 6, extra=extra)
    pad(grey(path)).save(path)
    manifest["symbols"].append({"file": name, "type": avtype, "value": text, "bytes": text.encode().hex()})

# --- QR text encodings
utf8_text = "Grüße, 東京 🙂 naïve — LOGIN:é"
qrencode(utf8_text.encode("utf-8"), os.path.join(OUT, "qr-utf8.png"), eight_bit=True)
manifest["files"]["qr-utf8.png"] = {"type": "qr", "value": utf8_text, "bytes": utf8_text.encode().hex()}

binary = bytes([0x00, 0xFF, 0x80, 0x1B, 0x5B, 0x33, 0x31, 0x6D, 0x0A, 0xC3, 0x28, 0xFE, 0x01, 0x7F, 0x9D])
binpath = os.path.join(OUT, "qr-binary.png")
with tempfile.NamedTemporaryFile(delete=False) as f:
    f.write(binary)
subprocess.run(["zint", "-b", "QRCODE", "--binary", "-i", f.name, "-o", binpath, "--scale", "6"], check=True,
               stdout=subprocess.DEVNULL)
os.unlink(f.name)
pad(grey(binpath)).save(binpath)
manifest["files"]["qr-binary.png"] = {"type": "qr", "bytes": binary.hex()}

latin1 = "Café crème".encode("latin-1")
l1path = os.path.join(OUT, "qr-latin1.png")
with tempfile.NamedTemporaryFile(delete=False) as f:
    f.write(latin1)
subprocess.run(["zint", "-b", "QRCODE", "--binary", "-i", f.name, "-o", l1path, "--scale", "6"], check=True,
               stdout=subprocess.DEVNULL)
os.unlink(f.name)
pad(grey(l1path)).save(l1path)
manifest["files"]["qr-latin1.png"] = {"type": "qr", "value": "Café crème", "bytes": latin1.hex()}

# A QR whose text is a shell/terminal attack: it must come out as data, byte for byte.
evil = "$(rm -rf /); `id`\n\x1b[2J\"quoted\" \\ {\"event\":\"fake\"}"
qrencode(evil.encode(), os.path.join(OUT, "qr-evil.png"), eight_bit=True)
manifest["files"]["qr-evil.png"] = {"type": "qr", "value": evil, "bytes": evil.encode().hex()}

# --- inverted (light-on-dark, dark mode)
inv_text = "DARK-MODE-LOGIN:7f3a"
qrencode(inv_text.encode(), os.path.join(OUT, "tmp.png"))
Image.eval(grey(os.path.join(OUT, "tmp.png")), lambda v: 255 - v).save(os.path.join(OUT, "qr-inverted.png"))
manifest["files"]["qr-inverted.png"] = {"type": "qr", "value": inv_text}
zint("EANX", "400638133393", os.path.join(OUT, "tmp.png"), extra=["--height", "50"])
Image.eval(pad(grey(os.path.join(OUT, "tmp.png"))), lambda v: 255 - v).save(os.path.join(OUT, "ean13-inverted.png"))
manifest["files"]["ean13-inverted.png"] = {"type": "ean13", "value": "4006381333931"}

# --- several codes in one frame, at known places (pixel boxes recorded for the ROI test)
canvas = Image.new("L", (960, 540), 255)
placed = []
for text, (x, y) in [("MULTI-A", (40, 40)), ("MULTI-B", (680, 40)), ("MULTI-C", (360, 300))]:
    qrencode(text.encode(), os.path.join(OUT, "tmp.png"), scale=5)
    q = grey(os.path.join(OUT, "tmp.png"))
    canvas.paste(q, (x, y))
    placed.append({"value": text, "x": x, "y": y, "size": q.width})
zint("CODE128", "MULTI-128", os.path.join(OUT, "tmp.png"), extra=["--height", "20"])
bar = grey(os.path.join(OUT, "tmp.png"))
canvas.paste(bar, (40, 460))
placed.append({"value": "MULTI-128", "x": 40, "y": 460, "size": bar.width, "height": bar.height})
canvas.save(os.path.join(OUT, "multi.png"))
manifest["files"]["multi.png"] = {"width": 960, "height": 540, "codes": placed}

# --- same picture in other containers
canvas.save(os.path.join(OUT, "multi.jpg"), quality=92)
# HEIC and AVIF (libheif in the codecs plugin), lossless, so the pixels are exactly multi.png's
for ext, extra in (("heic", []), ("avif", ["-A"])):
    subprocess.run(["heif-enc", *extra, "-L", os.path.join(OUT, "multi.png"), "-o", os.path.join(OUT, "multi." + ext)],
                   check=True, stdout=subprocess.DEVNULL)
# EXIF orientation: the picture stored turned or mirrored, with the orientation tag (1-8) that shows it as
# multi.png; PIL's exif_transpose (what viewers do) is checked to give multi.png back. orient-6-mm.jpg has a
# big-endian ("MM") Exif block, written by hand (PIL writes "II").
from PIL import ImageOps
undo = {1: None, 2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
        5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
        8: Image.Transpose.ROTATE_270}
for t, op in undo.items():
    stored = canvas if op is None else canvas.transpose(op)
    exif = Image.Exif()
    exif[0x0112] = t
    path = os.path.join(OUT, "orient-%d.jpg" % t)
    stored.save(path, quality=92, exif=exif.tobytes())
    shown = np.asarray(ImageOps.exif_transpose(Image.open(path)), dtype=np.int16)
    assert shown.shape == (540, 960) and np.abs(shown - np.asarray(canvas, dtype=np.int16)).mean() < 4, t
mm = b"Exif\0\0MM\0*" + (8).to_bytes(4, "big") + (1).to_bytes(2, "big") \
    + (0x0112).to_bytes(2, "big") + (3).to_bytes(2, "big") + (1).to_bytes(4, "big") + (6).to_bytes(2, "big") + bytes(2) \
    + bytes(4)
canvas.transpose(Image.Transpose.ROTATE_90).save(os.path.join(OUT, "orient-6-mm.jpg"), quality=92, exif=mm)
assert ImageOps.exif_transpose(Image.open(os.path.join(OUT, "orient-6-mm.jpg"))).size == (960, 540)
# progressive: libjpeg keeps every coefficient of the full-size image while it decodes (the reduced-size
# decode of a JPEG over the pixel budget caps that memory)
canvas.save(os.path.join(OUT, "multi-progressive.jpg"), quality=92, progressive=True)
canvas.save(os.path.join(OUT, "multi.bmp"))
canvas.save(os.path.join(OUT, "multi.pgm"))
canvas.convert("RGB").save(os.path.join(OUT, "multi.ppm"))
canvas.save(os.path.join(OUT, "multi.tiff"))  # goes through OpenCV's imgcodecs plugin
# GIF (giflib; OpenCV has no GIF decoder): a grey palette whose index is the grey level, so the pixels are
# exactly multi.png's; plain, interlaced (PIL's default) and as the first frame of an animation.
gif = Image.frombytes("P", canvas.size, canvas.tobytes())
gif.putpalette([v for i in range(256) for v in (i, i, i)])
gif.save(os.path.join(OUT, "multi.gif"), interlace=False, optimize=False)
gif.save(os.path.join(OUT, "multi-interlaced.gif"), interlace=True, optimize=False)
blank = Image.frombytes("P", canvas.size, bytes([255]) * (canvas.width * canvas.height))
blank.putpalette([v for i in range(256) for v in (i, i, i)])
gif.save(os.path.join(OUT, "multi-anim.gif"), save_all=True, append_images=[blank], duration=100, loop=0,
         interlace=False, optimize=False)
# The first image placed at (20, 10) on a logical screen 20 and 10 pixels larger, with index 0 (black)
# transparent: the decoder's picture is the screen, white where the image is not and where it is transparent.
gif.save(os.path.join(OUT, "tmp.gif"), interlace=False, optimize=False, transparency=0)
with open(os.path.join(OUT, "tmp.gif"), "rb") as f:
    data = bytearray(f.read())
os.remove(os.path.join(OUT, "tmp.gif"))
w, h = canvas.size
data[6:10] = (w + 20).to_bytes(2, "little") + (h + 10).to_bytes(2, "little")
k = 13 + (3 * 2 ** ((data[10] & 7) + 1) if data[10] & 0x80 else 0)
while data[k] == 0x21:  # extensions: introducer, label, then sub-blocks up to a zero length
    k += 2
    while data[k]:
        k += data[k] + 1
    k += 1
assert data[k] == 0x2C, "no image descriptor where expected"
data[k + 1:k + 5] = (20).to_bytes(2, "little") + (10).to_bytes(2, "little")
with open(os.path.join(OUT, "offset-transparent.gif"), "wb") as f:
    f.write(bytes(data))
qr_colour = Image.new("RGB", (300, 300), (30, 90, 200))  # a colour image: becomes luma
qrencode(b"COLOUR", os.path.join(OUT, "tmp.png"), scale=5)
qr_colour.paste(Image.open(os.path.join(OUT, "tmp.png")).convert("RGB"), (60, 60))
qr_colour.save(os.path.join(OUT, "qr-colour.png"))
manifest["files"]["qr-colour.png"] = {"type": "qr", "value": "COLOUR"}

# --- an image with nothing in it
rng = np.random.default_rng(7)
Image.fromarray((rng.random((240, 320)) * 60 + 100).astype(np.uint8)).save(os.path.join(OUT, "empty-scene.png"))

# --- the exact-JSON fixture: a small, fixed QR
qrencode(b"LOGIN:ab12", os.path.join(OUT, "exact.png"), scale=4)
manifest["files"]["exact.png"] = {"type": "qr", "value": "LOGIN:ab12"}

# --- broken inputs: the first half of each file
def first_half(source, name):
    with open(os.path.join(OUT, source), "rb") as f:
        data = f.read()
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data[: len(data) // 2])
    return data


png = first_half("multi.png", "truncated.png")
for source, name in [("multi.jpg", "truncated.jpg"), ("multi.heic", "truncated.heic"), ("multi.gif", "truncated.gif")]:
    first_half(source, name)
corrupt = bytearray(png)
for k in range(100, len(corrupt), 97):
    corrupt[k] ^= 0x5A
with open(os.path.join(OUT, "corrupt.png"), "wb") as f:
    f.write(bytes(corrupt))
open(os.path.join(OUT, "empty.png"), "wb").close()
with open(os.path.join(OUT, "not-an-image.png"), "w") as f:
    f.write("this is a text file, not a picture\n")


# --- Y4M streams: frames with a QR that changes every 5 frames, in each chroma layout
def y4m(path, frames, colour, fps=(15, 1)):
    h, w = frames[0].shape
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F{fps[0]}:{fps[1]} Ip A1:1 C{colour}\n".encode())
        cw, ch = (w + 1) // 2, (h + 1) // 2
        extra = {"420jpeg": 2 * cw * ch, "422": 2 * cw * h, "444": 2 * w * h, "mono": 0}[colour]
        for fr in frames:
            f.write(b"FRAME\n")
            f.write(fr.tobytes())
            f.write(bytes([128]) * extra)


clip_frames, clip_values = [], []
for k in range(12):
    text = f"FRAME-GROUP-{k // 4}"
    qrencode(text.encode(), os.path.join(OUT, "tmp.png"), scale=4)
    q = np.array(grey(os.path.join(OUT, "tmp.png")))
    fr = np.full((240, 321), 200, np.uint8)  # odd width exercises chroma rounding
    fr[20:20 + q.shape[0], 30 + 5 * k:30 + 5 * k + q.shape[1]] = q
    clip_frames.append(fr)
    clip_values.append(text)
for colour in ("420jpeg", "422", "444", "mono"):
    y4m(os.path.join(OUT, f"clip-{colour}.y4m"), clip_frames, colour)
manifest["files"]["clip.y4m"] = {"frames": len(clip_frames), "values": clip_values, "fps": 15}
with open(os.path.join(OUT, "clip-420jpeg.y4m"), "rb") as f:
    whole = f.read()
with open(os.path.join(OUT, "clip-truncated.y4m"), "wb") as f:
    f.write(whole[: len(whole) - 1000])

# --- an MP4 of the same clip (decoded through OpenCV's videoio plugin), when ffmpeg is present
try:
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", os.path.join(OUT, "clip-420jpeg.y4m"), "-vf", "scale=320:240",
                    "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", os.path.join(OUT, "clip.mp4")], check=True)
except (FileNotFoundError, subprocess.CalledProcessError) as e:
    print(f"warning: clip.mp4 not made: {e}", file=sys.stderr)

# --- Interleaved 2 of 5: a long code whose partial scans must not be reported
zint("C25INTER", "123456789012345678", os.path.join(OUT, "tmp.png"), extra=["--height", "30"])
pad(grey(os.path.join(OUT, "tmp.png"))).save(os.path.join(OUT, "i25-long.png"))
manifest["files"]["i25-long.png"] = {"type": "interleaved2of5", "value": "123456789012345678"}

os.unlink(os.path.join(OUT, "tmp.png"))
with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1, ensure_ascii=False)
print(f"fixtures written to {OUT}", file=sys.stderr)
