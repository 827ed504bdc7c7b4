#!/usr/bin/python3
"""Y4M producers for scand's tests (standard library only; `qrencode` for --qr).

  y4m_producer.py make --size WxH --frames N [--pad P] [--frame-params] [--qr PREFIX] [--cut BYTES]
      Writes a 4:2:0 Y4M stream to stdout. Luma is seeded pseudo-random noise (any misaligned read changes
      it), or with --qr a QR code of "PREFIX<index>" on white, one per frame. --pad adds an X comment of P
      bytes to the header (to move the FRAME markers); --frame-params writes "FRAME Ip XSEQ=<index>" lines;
      --cut drops the last BYTES bytes (a truncated last frame).

  y4m_producer.py chunk --seed S FILE
      Copies FILE (a Y4M stream) to stdout in writes of random size, 1 byte to 64 KiB (seeded), and writes
      the rest of every FRAME line (from a random byte of it on; the write before carries the frame before
      and the line's first bytes) and the next few bytes one byte at a time with a short pause after each,
      so the reader sees the markers split across reads at every place.
"""
import argparse
import bisect
import os
import random
import subprocess
import sys
import time


def qr_modules(text):
    """The QR code of `text` as rows of booleans (True = dark), from `qrencode -t ASCII`."""
    out = subprocess.run(["qrencode", "-t", "ASCII", "-m", "0", "-l", "M", text],
                         check=True, capture_output=True, text=True).stdout
    rows = [line for line in out.split("\n") if line]
    return [[line[i] == "#" for i in range(0, len(line), 2)] for line in rows]


def make(args):
    width, height = (int(v) for v in args.size.lower().split("x"))
    header = b"YUV4MPEG2 W%d H%d F10:1 Ip A1:1 C420jpeg" % (width, height)
    if args.pad:
        header += b" X" + b"p" * args.pad
    out = bytearray(header + b"\n")
    chroma = bytes([128]) * (2 * ((width + 1) // 2) * ((height + 1) // 2))
    for index in range(args.frames):
        out += b"FRAME Ip XSEQ=%d\n" % index if args.frame_params else b"FRAME\n"
        if args.qr is not None:
            luma = bytearray([255]) * (width * height)
            modules = qr_modules("%s%d" % (args.qr, index))
            scale = max(1, min(width, height) // (len(modules) + 8))
            left = (width - scale * len(modules)) // 2
            top = (height - scale * len(modules)) // 2
            for r, row in enumerate(modules):
                for c, dark in enumerate(row):
                    if dark:
                        for y in range(top + r * scale, top + (r + 1) * scale):
                            luma[y * width + left + c * scale: y * width + left + (c + 1) * scale] = bytes(scale)
        else:
            luma = random.Random(index * 7919 + width).randbytes(width * height)
        out += luma + chroma
    if args.cut:
        del out[len(out) - args.cut:]
    sys.stdout.buffer.write(out)


def marker_spans(data):
    """(start, end) of every FRAME line (with its newline), found by walking the stream's frame sizes."""
    header_end = data.index(b"\n") + 1
    fields = data[:header_end - 1].split(b" ")
    width = next(int(f[1:]) for f in fields if f.startswith(b"W"))
    height = next(int(f[1:]) for f in fields if f.startswith(b"H"))
    colour = next((f[1:] for f in fields if f.startswith(b"C")), b"420jpeg")
    cw, ch = (width + 1) // 2, (height + 1) // 2
    if colour.startswith(b"mono"):
        chroma = 0
    elif colour.startswith(b"444"):
        chroma = 2 * width * height
    elif colour.startswith(b"422"):
        chroma = 2 * cw * height
    elif colour.startswith(b"420"):
        chroma = 2 * cw * ch
    else:
        raise SystemExit("y4m_producer: colour space %r not handled" % colour.decode(errors="replace"))
    frame_bytes = width * height + chroma
    spans, pos = [], header_end
    while pos < len(data):
        line_end = data.index(b"\n", pos) + 1
        spans.append((pos, line_end))
        pos = line_end + frame_bytes
    return spans


def chunk(args):
    data = open(args.file, "rb").read()
    rng = random.Random(args.seed)
    single = set()
    for start, end in marker_spans(data):
        # The write before may carry the first few bytes of the FRAME line with the frame before it.
        single.update(range(start + rng.randint(0, end - start - 1), min(len(data), end + 3)))
    single.update(range(0, min(len(data), 12)))  # the header's start, too
    ordered = sorted(single)
    out = sys.stdout.buffer.raw if hasattr(sys.stdout.buffer, "raw") else sys.stdout.buffer
    fd = out.fileno()
    pos = 0
    while pos < len(data):
        if pos in single:
            n = 1
        else:
            n = rng.choice((rng.randint(1, 16), rng.randint(1, 4096), rng.randint(1, 65536)))
            n = min(n, len(data) - pos)
            # stop before the next single-byte zone so markers are always split
            k = bisect.bisect_left(ordered, pos)
            if k < len(ordered) and ordered[k] < pos + n:
                n = ordered[k] - pos
        view = memoryview(data)[pos:pos + n]
        while view:
            written = os.write(fd, view)
            view = view[written:]
        pos += n
        if n == 1:
            time.sleep(0.0003)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("--size", required=True)
    m.add_argument("--frames", type=int, required=True)
    m.add_argument("--pad", type=int, default=0)
    m.add_argument("--frame-params", action="store_true")
    m.add_argument("--qr")
    m.add_argument("--cut", type=int, default=0)
    c = sub.add_parser("chunk")
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("file")
    args = parser.parse_args()
    try:
        make(args) if args.command == "make" else chunk(args)
    except BrokenPipeError:
        sys.stderr.write("y4m_producer.py: the reader closed the pipe\n")
        sys.exit(1)


if __name__ == "__main__":
    main()
