#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/corpus/<target>/ (committed; rerun after changing this file).

Small real inputs: tiny Y4M streams (FRAME with parameters, several frames, every colour space), PBM/PGM/PPM
in ASCII and binary, GIFs and JPEGs (PIL), valid and invalid subscribe commands, config files like docs/daemon.md's and the
tests', and encoder inputs with UTF-8, control characters and invalid UTF-8.
"""
import os
import shutil
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target, name, data):
    os.makedirs(os.path.join(ROOT, target), exist_ok=True)
    with open(os.path.join(ROOT, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def y4m(w, h, colour="420jpeg", frames=1, frame_params=b"", extra=b"", truncate=0):
    header = b"YUV4MPEG2 W%d H%d F30:1 Ip A1:1" % (w, h)
    if colour:
        header += b" C" + colour.encode()
    header += extra + b"\n"
    cw, ch = (w + 1) // 2, (h + 1) // 2
    trailing = {"420jpeg": 2 * cw * ch, "420paldv": 2 * cw * ch, "420mpeg2": 2 * cw * ch, "420": 2 * cw * ch,
                None: 2 * cw * ch, "422": 2 * cw * h, "444": 2 * w * h, "444alpha": 3 * w * h, "mono": 0}[colour]
    out = header
    for i in range(frames):
        out += b"FRAME" + frame_params + b"\n" + bytes((x * 7 + i) & 0xFF for x in range(w * h)) + bytes([128]) * trailing
    return out[:len(out) - truncate] if truncate else out


def y4m_seed(split_seed, stream):
    # The y4m target reads 8 bytes of split-pattern seed, then the stream.
    return struct.pack("<Q", split_seed) + stream


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    # y4m
    write("y4m", "one-frame-420", y4m_seed(1, y4m(4, 2)))
    write("y4m", "three-frames-odd-size", y4m_seed(2, y4m(3, 3, frames=3)))
    write("y4m", "frame-params", y4m_seed(3, y4m(2, 2, frames=2, frame_params=b" Ip XCOLORRANGE=FULL")))
    write("y4m", "mono", y4m_seed(4, y4m(5, 1, colour="mono", frames=2)))
    write("y4m", "422", y4m_seed(5, y4m(2, 2, colour="422")))
    write("y4m", "444alpha", y4m_seed(6, y4m(2, 1, colour="444alpha", frames=2)))
    write("y4m", "no-colour-tag", y4m_seed(7, y4m(2, 2, colour=None)))
    write("y4m", "x-params", y4m_seed(8, y4m(2, 2, extra=b" XYSCSS=420JPEG XCOLORRANGE=LIMITED", frames=2)))
    write("y4m", "truncated-last-frame", y4m_seed(9, y4m(4, 4, frames=2, truncate=5)))
    write("y4m", "header-only", y4m_seed(10, b"YUV4MPEG2 W8 H8 F25:1 C420\n"))
    write("y4m", "bad-marker", y4m_seed(11, y4m(2, 2) + b"FRAMX\n" + bytes(6)))
    write("y4m", "unsupported-colour", y4m_seed(12, b"YUV4MPEG2 W2 H2 C420p10\nFRAME\n" + bytes(12)))
    # pnm
    write("pnm", "p1-ascii", b"P1\n# a comment\n3 2\n1 0 1\n0 1 0\n")
    write("pnm", "p2-ascii", b"P2\n3 2\n255\n0 128 255\n12 34 56\n")
    write("pnm", "p3-ascii", b"P3\n2 1\n15\n15 0 0  0 15 0\n")
    write("pnm", "p4-binary", b"P4\n9 2\n" + bytes([0b10101010, 0b10000000, 0b01010101, 0]))
    write("pnm", "p5-binary", b"P5 4 2 255\n" + bytes(range(0, 256, 32)))
    write("pnm", "p5-16bit", b"P5\n2 2\n65535\n" + bytes([0, 1, 255, 255, 128, 0, 0, 0]))
    write("pnm", "p6-binary", b"P6\n#c\n2 2\n255\n" + bytes(range(12)))
    write("pnm", "p5-header-only", b"P5 64 64 255\n")
    write("pnm", "p2-crlf", b"P2\r\n2 1\r\n9\r\n0 9\r\n")
    # issue 13: a 19-byte header that declares 32768x32768; must be refused by the pixel budget before
    # anything is allocated (the target runs with -malloc_limit_mb=512)
    write("pnm", "p5-huge-header-only", b"P5 32768 32768 255\n")
    # gif (giflib through ImageSource): tiny GIFs made by PIL, plain, interlaced, transparent, animated, with a
    # local colour table, one cut short, and a screen of 65535x65535 (refused by the pixel budget)
    import io
    from PIL import Image
    def gif(img, **kw):
        out = io.BytesIO()
        img.save(out, format="GIF", **kw)
        return out.getvalue()
    grey = Image.frombytes("L", (9, 7), bytes((i * 37) % 256 for i in range(63)))
    write("gif", "grey-plain", gif(grey, interlace=False))
    write("gif", "grey-interlaced", gif(Image.frombytes("L", (16, 17), bytes(range(256)) + bytes(16)), interlace=True))
    colour = Image.frombytes("RGB", (5, 4), bytes((i * 53) % 256 for i in range(60))).convert("P")
    write("gif", "palette-transparent", gif(colour, transparency=3))
    write("gif", "animated", gif(grey, save_all=True, append_images=[grey.rotate(90, expand=True)], duration=50))
    whole = gif(grey, interlace=False)
    write("gif", "truncated", whole[: len(whole) // 2])
    write("gif", "huge-screen", b"GIF89a\xff\xff\xff\xff\x80\x00\x00" + bytes([0, 0, 0, 255, 255, 255])
          + b"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b")
    # jpeg (libjpeg-turbo through ImageSource, budget 2^16 pixels so 400x300 is read at 5/8): baseline,
    # progressive, grey, 4:4:4, CMYK (Adobe), EXIF orientations (II and MM), one cut short
    import numpy as np
    yy, xx = np.mgrid[0:300, 0:400]
    rgb = Image.fromarray(np.dstack([(xx * 7) % 256, (yy * 5) % 256, ((xx + yy) * 3) % 256]).astype(np.uint8))
    def jpeg(img, **kw):
        out = io.BytesIO()
        img.save(out, format="JPEG", quality=80, **kw)
        return out.getvalue()
    write("jpeg", "baseline", jpeg(rgb))
    write("jpeg", "progressive", jpeg(rgb, progressive=True))
    write("jpeg", "grey-small", jpeg(rgb.convert("L").resize((40, 30))))
    write("jpeg", "444", jpeg(rgb, subsampling=0))
    write("jpeg", "cmyk", jpeg(rgb.convert("CMYK")))
    whole = jpeg(rgb)
    write("jpeg", "truncated", whole[: len(whole) // 2])
    exif = Image.Exif()
    exif[0x0112] = 6
    write("jpeg", "exif-6-ii", jpeg(rgb.resize((64, 48)), exif=exif.tobytes()))
    mm = (b"Exif\0\0MM\0*" + (8).to_bytes(4, "big") + (2).to_bytes(2, "big")
          + (0x010F).to_bytes(2, "big") + (2).to_bytes(2, "big") + (4).to_bytes(4, "big") + b"Cam\0"
          + (0x0112).to_bytes(2, "big") + (3).to_bytes(2, "big") + (1).to_bytes(4, "big") + (3).to_bytes(2, "big") + bytes(2)
          + bytes(4))
    write("jpeg", "exif-3-mm", jpeg(rgb.resize((64, 48)), exif=mm))
    # subscribe
    for i, line in enumerate([
        '{"subscribe":{"types":["qr"],"events":["appeared","lost"]}}',
        '{"subscribe":{}}',
        '{"subscribe":{"types":["qr","ean13","face","dataMatrix"]}}',
        '{"subscribe":{"events":["metadata","device"]}}',
        '{"subscribe":{"types":["qrr"]}}',
        '{"subscribe":{"events":["everything"]}}',
        '{"subscribe":{"types":"qr"}}',
        '{"unsubscribe":{}}',
        '{"subscribe":{"types":["qr"]},"subscribe":{"events":[]}}',
        '[1,2,3]',
        '{"subscribe":{"types":["q\\u0000r\\n"]}}',
    ]):
        write("subscribe", "cmd-%02d" % i, line)
    write("subscribe", "not-utf8", b'{"subscribe":{"types":["\xff\xfe"]}}')
    # config
    for i, text in enumerate([
        '{"input": "demo.y4m", "types": ["qr", "ean13"], "metadata": false,\n'
        ' "socket": {"path": "/run/scand/scand.sock", "group": "scand"},\n'
        ' "presence": {"lostAfter": 1.0, "cooldown": 0.5}}\n',
        '{"input": "a.y4m", "types": ["qr", "ean13"], "rectOfInterest": [0.1, 0.2, 0.5, 0.6], "tryInverted": false,\n'
        ' "scanDensity": 2, "models": "/m", "metadata": false, "pacing": false, "loop": true, "exitAtEnd": true,\n'
        ' "stdout": true, "logLevel": "info",\n'
        ' "socket": {"path": "/run/scand/scand.sock", "group": "video", "clientQueue": 10, "stallTimeout": 3, "sendBuffer": 8192},\n'
        ' "presence": {"enabled": true, "appearAfterFrames": 2, "lostAfter": 1.5, "cooldown": 3, "faceLostAfter": 0.25}}\n',
        '{"types": "qr,face"}',
        '{}',
        '{"sokcet": {}}',
        '{"presence": {"grace": 1}}',
        '{"loop": "yes"}',
        '{',
        '{"rectOfInterest": [1, 2]}',
        '{"socket": {"clientQueue": 1e12}}',
        '{"loop": true, "loop": false}',
        '{"device": "/dev/video0", "socket": {"stallTimeout": -1}}',
        # issue 20: the reader, camera, preview, face and script keys
        '{"engine": "zxing", "passes": ["plain", "inverted"], "extraPasses": false, "codabarMinLength": 8,\n'
        ' "preset": "vga640x480", "fps": 15, "viewSize": "1080x1920", "orientation": "portrait",\n'
        ' "faceCascade": "haar", "minFaceSize": 30, "faceScaleFactor": 1.2, "raw": true, "keepRunning": true}\n',
        '{"engine": "zbr"}',
        '{"enigne": "zbar"}',
        '{"minFaceSize": 4}',
        '{"preset": "high", "size": "640x480"}',
        '{"size": "0x0", "viewSize": "-1x2"}',
        '{"passes": "plain,sharpened"}',
        '{"types": "qrcode,i25,databar"}',
    ]):
        write("config", "config-%02d" % i, text)
    # json: kind byte, then length-prefixed string a, string b, payload, then flags, frame (2 bytes), type index.
    def enc(kind, a, b, payload, flags=0, frame=7, type_index=0):
        return (bytes([kind, len(a)]) + a + bytes([len(b)]) + b + bytes([len(payload)]) + payload
                + bytes([flags, frame >> 8, frame & 0xFF, type_index]))
    write("json", "metadata-utf8", enc(0, "TICKET-42 – ünïcödé ✓ 😀".encode(), b"/tmp/kiosk.y4m", b"TICKET-42", flags=4))
    write("json", "presence-control", enc(1, b"a\x00b\x1b[31mred\n\r\t\"\\/", b"src\nforged log", bytes(range(32))))
    write("json", "presence-invalid-utf8", enc(1, b"\xff\xfe\xc3(\xe2\x82", b"\xed\xa0\x80", b"\x80\x81\xff"))
    write("json", "device-reason", enc(2, b"ENODEV \x7f\xc2\x85 \xe2\x80\xa8", b"/dev/v4l/by-id/usb-\x01", b""))
    write("json", "metadata-three", enc(0, b"x", b"y", b"\x00" * 20, flags=12, frame=65535, type_index=5))
    # gs1: a GS1 symbol's payload (GS, 0x1D, ends variable-length fields).
    write("gs1", "valid", b"01095060001343521726123110ABC123\x1d21SN-42")
    write("gs1", "decimal-and-gln", b"001061414112345678973103000189410061414100000599anything")
    write("gs1", "wrong-check", b"0109506000134353\x1d17261332")
    write("gs1", "unknown-ai", b"\x1d0109506000134352\x1d23XYZ\x1d\x1d")
    write("gs1", "not-digits", b"\xff\xfe10\x00\x01")
    # url: a network camera's SOURCE (first line) and credentials put into it (the rest), issue 49.
    write("url", "rtsp", b"rtsp://10.0.0.5:554/stream1\nadmin:p@ss:w/rd%")
    write("url", "with-userinfo", b"rtsp://admin:secret@10.0.0.5/live\n")
    write("url", "http-query", b"http://cam.local/video.mjpg?user=a@b#x\nu:p")
    write("url", "not-a-url", b"/dev/video0\nx:y")
    write("url", "control", b"https://\x1b[2Jcam@\xff/x\n\x00:\x7f")


if __name__ == "__main__":
    main()
