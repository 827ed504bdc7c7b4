#!/usr/bin/python3
"""Writes hostile decoder inputs (and well-formed videos that must NOT be flagged) into a directory.

Usage:  /usr/bin/python3 Tests/Fixtures/make_hostile_inputs.py [OUTDIR [NAME...]]
        (default Tests/Fixtures/generated/hostile; with NAMEs, only those files and what they are cut from)
Needs python3-pil, ffmpeg (with libx264/libvpx when available) and qrencode. Deterministic except for ffmpeg's
encoder versions. Every file is small on disk; the bombs only *declare* huge sizes.

  bomb-16k.png        PNG, IHDR 16384x16384 8-bit grey, IDAT = zlib stream of zeros (~260 KB)
  bomb-32k.png        PNG, IHDR 32768x32768 (~1 MB)
  header-only.pgm     the 19-byte header "P5 32768 32768 255\n" and no pixel data
  bomb.bmp            BMP declaring 30000x30000 24-bit, 54-byte header and a few bytes of data
  bomb.tiff           TIFF declaring 30000x30000 8-bit grey, uncompressed, one tiny strip
  cmyk.jpg            a CMYK JPEG (Adobe, as PIL writes it) of a QR code reading "CMYK-QR-1"
  ok-*.{mp4,mkv,avi,webm,ts}   complete videos (120 or 37 frames) of several codecs/containers
  truncated.mp4       ok-h264.mp4 (faststart) cut to half its size with head -c
  truncated.mkv       ok-mpeg4.mkv cut to half
  truncated.avi       ok-mjpeg.avi cut to half
The NAME "ok-videos" makes every ok-* video.
"""
import os, shutil, struct, subprocess, sys, tempfile, zlib

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "generated", "hostile")
ONLY = set(sys.argv[2:])


def wanted(name):
    return not ONLY or name in ONLY
os.makedirs(OUT, exist_ok=True)


def path(name):
    return os.path.join(OUT, name)


def png_bomb(name, side):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    z = zlib.compressobj(9)
    row = bytes(side + 1)  # filter byte 0 + zero pixels
    parts = []
    block = row * 64
    for _ in range(side // 64):
        parts.append(z.compress(block))
    parts.append(z.flush())
    data = b"".join(parts)
    with open(path(name), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b""))


def bmp_bomb(name, w, h):
    row = (w * 3 + 3) & ~3
    size = row * h
    header = b"BM" + struct.pack("<IHHI", 54 + size, 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, size, 2835, 2835, 0, 0)
    with open(path(name), "wb") as f:
        f.write(header + info + bytes(64))


def tiff_bomb(name, w, h):
    # Little-endian TIFF, one IFD: width, height, 8 bits, no compression, min-is-black, one strip.
    entries = [(256, 4, 1, w), (257, 4, 1, h), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 1, 8 + 2 + 12 * 9 + 4), (277, 3, 1, 1), (278, 4, 1, h), (279, 4, 1, w * h)]
    ifd = struct.pack("<H", len(entries))
    for tag, typ, count, value in entries:
        ifd += struct.pack("<HHI", tag, typ, count) + (struct.pack("<HH", value, 0) if typ == 3 else struct.pack("<I", value))
    ifd += struct.pack("<I", 0)
    with open(path(name), "wb") as f:
        f.write(b"II*\x00" + struct.pack("<I", 8) + ifd + bytes(64))


def cmyk_jpeg(name, text):
    with tempfile.TemporaryDirectory() as tmp:
        qr = os.path.join(tmp, "qr.png")
        subprocess.run(["qrencode", "-s", "6", "-m", "4", "-o", qr, text], check=True)
        Image.open(qr).convert("RGB").convert("CMYK").save(path(name), quality=95)


def has_encoder(name):
    out = subprocess.run(["ffmpeg", "-hide_banner", "-encoders"], capture_output=True, text=True).stdout
    return any(line.split()[1:2] == [name] for line in out.splitlines() if len(line.split()) > 1)


def video(name, frames, args):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc=size=320x240:rate=25",
                    "-frames:v", str(frames), *args, path(name)], check=True)


def truncate(src, dst):
    data = open(path(src), "rb").read()
    open(path(dst), "wb").write(data[: len(data) // 2])


if wanted("bomb-16k.png"):
    png_bomb("bomb-16k.png", 16384)
if wanted("bomb-32k.png"):
    png_bomb("bomb-32k.png", 32768)
if wanted("header-only.pgm"):
    open(path("header-only.pgm"), "wb").write(b"P5 32768 32768 255\n")
if wanted("bomb.bmp"):
    bmp_bomb("bomb.bmp", 30000, 30000)
if wanted("bomb.tiff"):
    tiff_bomb("bomb.tiff", 30000, 30000)
if wanted("cmyk.jpg"):
    cmyk_jpeg("cmyk.jpg", "CMYK-QR-1")

mp4_source = "ok-h264.mp4" if has_encoder("libx264") else "ok-mpeg4.mp4"
cuts = {"truncated.mp4": mp4_source, "truncated.mkv": "ok-mpeg4.mkv", "truncated.avi": "ok-mjpeg.avi"}
needed = ONLY | {cuts[n] for n in ONLY if n in cuts}
videos = [("ok-mpeg4.mp4", 120, ["-c:v", "mpeg4", "-bf", "2", "-movflags", "+faststart"]),
          ("ok-mpeg4-odd.mp4", 37, ["-c:v", "mpeg4", "-movflags", "+faststart"]),
          ("ok-mpeg4.mkv", 120, ["-c:v", "mpeg4", "-bf", "2"]),
          ("ok-mpeg4.avi", 37, ["-c:v", "mpeg4"]),
          ("ok-mjpeg.avi", 120, ["-c:v", "mjpeg", "-q:v", "5"]),
          ("ok-mpeg4.ts", 37, ["-c:v", "mpeg4"])]  # no exact length in the header: never flagged
if has_encoder("libx264"):
    videos += [("ok-h264.mp4", 120, ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart"]),
               ("ok-h264-nob.mp4", 37, ["-c:v", "libx264", "-bf", "0", "-pix_fmt", "yuv420p"]),
               ("ok-h264.mkv", 37, ["-c:v", "libx264", "-pix_fmt", "yuv420p"])]
if has_encoder("libvpx"):
    videos += [("ok-vp8.webm", 37, ["-c:v", "libvpx", "-b:v", "500k"])]
if has_encoder("libvpx-vp9"):
    videos += [("ok-vp9.webm", 37, ["-c:v", "libvpx-vp9", "-b:v", "500k", "-deadline", "realtime", "-cpu-used", "8"])]
for name, frames, args in videos:
    if not ONLY or name in needed or "ok-videos" in ONLY:
        video(name, frames, args)
for cut, source in cuts.items():
    if wanted(cut):
        truncate(source, cut)
print(OUT)
