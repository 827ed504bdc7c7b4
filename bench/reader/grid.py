#!/usr/bin/python3
"""Read parity on streams (issue 47): does scand report, on each frame, every code the naive pass reads there?

The naive pass is what a user writes by hand: every full frame through zbar with its defaults (every symbology,
every line; Debian's python3-zbar, the same libzbar 0.23.92 scand links). For every cell of a grid

  resolution   640x480, 1280x720, 1920x1080, 2560x1440, 3840x2160
  symbology    qr, ean13, code128, dataMatrix (zbar reads no Data Matrix: its cells score scand against the truth)
  size         the symbol (quiet zone included) a tenth, a fifth and a third of the frame height
  motion       still; moving (carried across the frame at 0.4 % of its width a frame, smeared as by a 1/120 s shutter); blurred
               (still, Gaussian blur of sigma 0.8 px at 720 lines, scaled with the height)

it renders a clip of --frames frames (a busy photographic backdrop, out of focus and shaking like a hand-held
camera, a light label under the code, fresh sensor noise on every frame, and a second code beside it: a crisp
EAN-13 shelf label a quarter of the frame high, a Code 128 one in the EAN-13 cells, the scene of the issue,
where the code the plain pass reads at once kept scand from looking further), pipes it as Y4M into one
`scand scan -` (the stream reader a camera gets, unpaced), runs the naive pass on every frame in this process,
and reports per cell:

  naive     frames on which the naive pass read the code's true value (the companion label is checked too:
            a frame it is missed on counts as missed)
  missed    of those, frames on which scand did not report it            (the target: 0 in every cell; the
            summary line says how many of them the naive pass read on a single scan line of the frame)
  scand     frames on which scand reported the true value
  wrong     frames on which scand reported a value that is not the truth (the target: 0)
  fps       frames / wall seconds of the scand process (start-up included: ~0.1 s)
  cpu ms    user+system CPU ms per frame of the scand process

Clips are deterministic (--seed); --seed makes a set scand was never tuned on. No file is written unless --keep.

With --clip FILE.y4m (4:2:0, as ffmpeg's yuv4mpegpipe writes it) it checks one clip of anyone's instead: every
(type, value) the naive pass reads on a frame must be reported by scand on that frame (no truth: wrong reads are
values the naive pass never read in the clip).

Usage: /usr/bin/python3 bench/reader/grid.py --scand .build/release/scand [--frames 20] [--only 1920x1080]
           [--symbologies qr,ean13] [--sizes 0.1,0.33] [--motions still] [--json out.json] [--keep DIR]
       /usr/bin/python3 bench/reader/grid.py --scand .build/release/scand --clip clip.y4m [--json out.json]
Exit status: 0 when no cell has a missed or wrong frame, 1 otherwise.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image, ImageFilter
from skimage import data as skdata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_set import module_image, render_zint  # noqa: E402

import zbar  # noqa: E402  (Debian python3-zbar)

RESOLUTIONS = [(640, 480), (1280, 720), (1920, 1080), (2560, 1440), (3840, 2160)]
SYMBOLOGIES = ["qr", "ean13", "code128", "dataMatrix"]
SIZES = [0.1, 0.2, 0.33]
MOTIONS = ["still", "moving", "blurred"]
ZBAR_TYPE = {"QRCODE": "qr", "EAN13": "ean13", "CODE128": "code128"}
ZINT_NAME = {"ean13": "ean13", "code128": "code128", "dataMatrix": "datamatrix"}
BACKDROPS = [skdata.coffee, skdata.chelsea, skdata.astronaut, skdata.rocket]


def symbol_matrix(sym, value, tmp):
    """Module matrix (1 = dark) with its quiet zone."""
    if sym == "qr":
        import segno
        q = segno.make_qr(value, error="m", boost_error=False)
        m = np.array([[1 if px else 0 for px in row] for row in q.matrix], dtype=np.uint8)
        return np.pad(m, 4)
    return render_zint(ZINT_NAME[sym], value, tmp)


def cell_value(sym, key, rng):
    if sym == "qr":
        return "GRID:%s:%04d" % (key, rng.integers(10000))
    if sym == "ean13":
        digits = [int(d) for d in "%012d" % rng.integers(10**11, 10**12)]
        s = sum(d * (3 if i % 2 else 1) for i, d in enumerate(digits))
        return "".join(map(str, digits)) + str((10 - s % 10) % 10)
    if sym == "code128":
        return "SC-%06d" % rng.integers(10**6)
    return "DM %s %05d" % (key, rng.integers(10**5))


def companion(W, H, sym, tmp):
    """(image, (type, value)) of the second code: a crisp 1-D label a quarter of the frame high."""
    kind = "code128" if sym == "ean13" else "ean13"
    value = "COMPANION-42" if kind == "code128" else "4006381333931"
    mat = render_zint(ZINT_NAME[kind], value, tmp)
    mh, mw = mat.shape
    ppm = max(1, round(1.4 * 0.25 * H / mw))
    img = module_image(mat, ppm, fg=25, bg=240).resize((mw * ppm, round(0.25 * H)), Image.NEAREST)
    return np.asarray(img, dtype=np.float32), (kind, value)


def render_cell(W, H, sym, size, motion, frames, seed, tmp):
    """(list of luma frames as uint8 arrays, true value, cell name, companion's (type, value))."""
    key = "%dx%d-%s-%s-%s" % (W, H, sym, size, motion)
    rng = np.random.default_rng([seed, W, H, SYMBOLOGIES.index(sym), int(size * 100), MOTIONS.index(motion)])
    value = cell_value(sym, "%d%s" % (H, motion[0]), rng)
    mat = symbol_matrix(sym, value, tmp)
    mh, mw = mat.shape
    target_h = size * H
    if sym in ("ean13", "code128"):
        # A label: the symbol's height (quiet zone included) is `size` of the frame's; its modules as wide as
        # make the whole symbol about 1.6 times as wide as tall (a shelf or parcel label), at least 1 px.
        ppm_x = max(1.0, 1.6 * target_h / mw)
        code = module_image(mat, ppm_x, fg=25, bg=240).resize((round(mw * ppm_x), round(target_h)), Image.BOX)
    else:
        code = module_image(mat, target_h / mh, fg=25, bg=240)
    code = np.asarray(code, dtype=np.float32)
    ch, cw = code.shape
    backdrop = BACKDROPS[int(rng.integers(len(BACKDROPS)))]()
    back = Image.fromarray(backdrop).convert("L").resize((int(W * 1.1), int(H * 1.1)), Image.BILINEAR)
    back = np.asarray(back.filter(ImageFilter.GaussianBlur(1.5 * H / 480)), dtype=np.float32)
    label, second = companion(W, H, sym, tmp)
    lh, lw = label.shape
    # The code in the frame's right part, the label at its bottom left.
    left = lw / W + 0.05
    x0 = rng.uniform(left, max(left, 0.95 - cw / W)) * W if cw < (0.95 - left) * W else left * W
    y0 = rng.uniform(0.05, 0.95 - ch / H) * H
    speed = 0.004 * W  # px per frame: a code carried slowly past the camera (7.7 px a frame at 1080p)
    if motion == "moving":
        x0 = left * W
    out = []
    for k in range(frames):
        dx, dy = int(3 * H / 480 * np.sin(k / 5)), int(2 * H / 480 * np.cos(k / 7))
        frame = back[int(0.05 * H) + dy:int(0.05 * H) + dy + H, int(0.05 * W) + dx:int(0.05 * W) + dx + W].copy()
        x = x0 + (speed * k if motion == "moving" else 0) + 0.5 * np.sin(k / 3)
        y = y0 + 0.5 * np.cos(k / 4)
        xi, yi = int(x), int(y)
        if xi + cw > W:  # wrap around, so every frame shows the whole code
            xi = int(left * W + (xi + cw - W) % max(1, int((0.95 - left) * W - cw)))
        frame[yi:yi + ch, xi:xi + cw] = code
        frame[int(0.72 * H):int(0.72 * H) + lh, int(0.02 * W):int(0.02 * W) + lw] = label
        img = Image.fromarray(np.clip(frame, 0, 255).astype(np.uint8))
        if motion == "moving":
            # A 1/120 s shutter at 30 fps: the code smears over a quarter of its travel per frame.
            n = max(1, int(round(speed / 4)))
            a = np.asarray(img, dtype=np.float32)
            a = sum(np.roll(a, s, axis=1) for s in range(n)) / n
            img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        elif motion == "blurred":
            img = img.filter(ImageFilter.GaussianBlur(0.8 * H / 720))
        a = np.asarray(img, dtype=np.float32) + rng.normal(0, 2.5, (H, W))
        out.append(np.clip(a, 0, 255).astype(np.uint8))
    return out, value, key, second


def naive_reads(frames):
    """Per frame: the (type, value) pairs the naive zbar pass reads, each with the scan lines it was read on
    (zbar's quality; 1 for QR)."""
    scanner = zbar.ImageScanner()
    scanner.parse_config("enable")
    out = []
    for f in frames:
        H, W = f.shape
        image = zbar.Image(W, H, "Y800", f.tobytes())
        scanner.scan(image)
        out.append({(ZBAR_TYPE.get(str(s.type), str(s.type)), s.data): s.quality for s in image.symbols})
    return out


def one_line_misses(naive, got, values):
    """Of the frames on which the naive pass read one of `values` and scand did not, those where the naive pass read
    it on a single scan line of the frame (a 1-D code; scand reports none read on fewer than --min-linear-quality
    lines, 2, and its own lines are farther apart than one)."""
    return [i for i, r in enumerate(naive)
            if any(t in r and t not in got[i] for t in values)
            and all(r[t] == 1 and t[0] != "qr" for t in values if t in r and t not in got[i])]


def scand_reads(binary, frames, extra):
    """(per frame set of (type, value), wall seconds, CPU seconds)."""
    H, W = frames[0].shape
    chroma = bytes([128]) * (2 * (W // 2) * (H // 2))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen([binary, "scan", *extra, "-"], stdin=subprocess.PIPE, stdout=out,
                             stderr=subprocess.DEVNULL)
        p.stdin.write(b"YUV4MPEG2 W%d H%d F30:1 Ip A1:1 C420jpeg\n" % (W, H))
        for f in frames:
            p.stdin.write(b"FRAME\n")
            p.stdin.write(f.tobytes())
            p.stdin.write(chroma)
        p.stdin.close()
        rc = p.wait()
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.seek(0)
        lines = out.read().decode().splitlines()
    if rc not in (0, 1, 4):  # 4: no frame held a code (as zbarimg)
        raise SystemExit("%s scan exited %d" % (binary, rc))
    reads = [set() for _ in frames]
    for line in lines:
        ev = json.loads(line)
        if ev.get("event", "metadata") == "metadata" and "frame" in ev:
            reads[ev["frame"]] = {(o["type"], o.get("value", "")) for o in ev.get("objects", [])}
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return reads, wall, cpu


def read_y4m(path):
    """Luma planes of a 4:2:0 Y4M file."""
    with open(path, "rb") as f:
        header = f.readline().split()
        W = int(next(t[1:] for t in header if t.startswith(b"W")))
        H = int(next(t[1:] for t in header if t.startswith(b"H")))
        frames = []
        while f.readline().startswith(b"FRAME"):
            luma = f.read(W * H)
            f.read(2 * ((W + 1) // 2) * ((H + 1) // 2))
            if len(luma) < W * H:
                break
            frames.append(np.frombuffer(luma, np.uint8).reshape(H, W))
    return frames


def check_clip(args):
    frames = read_y4m(args.clip)
    naive = naive_reads(frames)
    got, wall, cpu = scand_reads(args.scand, frames, args.scand_args.split())
    values = sorted({o for r in naive for o in r})
    cells = []
    for v in values:
        missed = [i for i, r in enumerate(naive) if v in r and v not in got[i]]
        cells.append({"cell": "%s:%s" % v, "naive": sum(v in r for r in naive), "missed": len(missed),
                      "missedFrames": missed, "missedOneLine": len(one_line_misses(naive, got, (v,))),
                      "scand": sum(v in r for r in got)})
    wrong = sorted({o for r in got for o in r if o not in values and o[0] in ZBAR_TYPE.values()})
    report = {"clip": args.clip, "frames": len(frames), "values": cells, "otherReads": wrong,
              "fps": len(frames) / wall, "cpuMsPerFrame": 1000 * cpu / len(frames)}
    print(json.dumps(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    sys.exit(1 if any(c["missed"] for c in cells) else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scand", required=True)
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--only", help="resolutions, e.g. 1920x1080,640x480")
    ap.add_argument("--symbologies", default=",".join(SYMBOLOGIES))
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--motions", default=",".join(MOTIONS))
    ap.add_argument("--scand-args", default="", help="extra arguments for scand scan (one string)")
    ap.add_argument("--json", help="write every cell's figures here")
    ap.add_argument("--keep", help="also write each clip as DIR/<cell>.y4m")
    ap.add_argument("--clip", help="check this Y4M clip against the naive pass instead of the grid")
    args = ap.parse_args()
    if args.clip:
        return check_clip(args)
    resolutions = [r for r in RESOLUTIONS if not args.only or "%dx%d" % r in args.only.split(",")]
    cells = []
    print("%-34s %5s %6s %6s %5s %6s %7s" % ("cell", "naive", "missed", "scand", "wrong", "fps", "cpu ms"))
    with tempfile.TemporaryDirectory() as tmp:
        for (W, H) in resolutions:
            for sym in args.symbologies.split(","):
                for size in [float(s) for s in args.sizes.split(",")]:
                    for motion in args.motions.split(","):
                        frames, value, key, second = render_cell(W, H, sym, size, motion, args.frames, args.seed, tmp)
                        if args.keep:
                            os.makedirs(args.keep, exist_ok=True)
                            with open(os.path.join(args.keep, key + ".y4m"), "wb") as f:
                                f.write(b"YUV4MPEG2 W%d H%d F30:1 Ip A1:1 C420jpeg\n" % (W, H))
                                for fr in frames:
                                    f.write(b"FRAME\n" + fr.tobytes() + bytes([128]) * (2 * (W // 2) * (H // 2)))
                        naive = naive_reads(frames)
                        got, wall, cpu = scand_reads(args.scand, frames, args.scand_args.split())
                        truth = (sym, value)
                        n_naive = sum(truth in r for r in naive)
                        missed = [i for i, r in enumerate(naive) if any(t in r and t not in got[i] for t in (truth, second))]
                        one_line = one_line_misses(naive, got, (truth, second))
                        n_scand = sum(truth in r for r in got)
                        wrong = [i for i, r in enumerate(got) if any(o not in (truth, second) for o in r)]
                        cell = {"cell": key, "value": value, "frames": len(frames), "naive": n_naive,
                                "companionNaive": sum(second in r for r in naive), "companionScand": sum(second in r for r in got),
                                "missed": len(missed), "missedFrames": missed, "missedOneLine": len(one_line), "scand": n_scand,
                                "wrong": len(wrong), "wrongReads": sorted({o for i in wrong for o in got[i] if o != truth}),
                                "fps": len(frames) / wall, "cpuMsPerFrame": 1000 * cpu / len(frames)}
                        cells.append(cell)
                        print("%-34s %5d %6d %6d %5d %6.1f %7.1f%s" % (
                            key, n_naive, len(missed), n_scand, len(wrong), cell["fps"], cell["cpuMsPerFrame"],
                            "  wrong: %s" % cell["wrongReads"] if wrong else ""), flush=True)
    total_missed = sum(c["missed"] for c in cells)
    total_wrong = sum(c["wrong"] for c in cells)
    print("cells %d, naive frames %d, missed %d (of them read by the naive pass on one scan line: %d), "
          "scand frames %d, wrong %d" % (
              len(cells), sum(c["naive"] for c in cells), total_missed, sum(c["missedOneLine"] for c in cells),
              sum(c["scand"] for c in cells), total_wrong))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "frames": args.frames, "cells": cells}, f, indent=1)
    sys.exit(1 if total_missed or total_wrong else 0)


if __name__ == "__main__":
    main()
