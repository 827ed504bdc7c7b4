#!/usr/bin/python3
"""The cost of the conflict rule across stream frames: how late a code is reported when it takes another's place.

scand holds back a 1-D read on a stream where another payload of the same kind was read recently
(docs/reader.md "The conflict rule across stream frames"). That removes misreads that recur beside a right
read, and delays a real change: a product put where another one was. This measures that delay. Each clip shows
code A (`--before` frames), then `--gap` frames with no code, then code B of the same symbology (or the pair
given by --pairs) at the same place, with fresh sensor noise and a sub-pixel shift on every frame, as
video_confirm.py's clips. All clips go through one `scand scan` per binary (each input a fresh stream), and for
each binary it prints:
  B read          clips where B is reported on any of its frames
  delay           frames from B's first frame to its first report (median, mean, max over clips all read)
  stale A         clips where A is reported on one of B's frames
  wrong           values reported that are neither A nor B

Usage: /usr/bin/python3 bench/reader/stream_swap.py --scand name=path [--scand name=path ...] [--clips 40]
           [--seed 1] [--gap 0] [--pairs ean13:ean13,upce:ean13,code128:code128]
"""
import argparse, json, os, random, statistics, subprocess, sys, tempfile
import numpy as np
from PIL import Image, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_set import payload, render_zint, module_image, background, paste  # noqa: E402
from score import matches  # noqa: E402

REPORTED = {"upca": "ean13"}


def render(sym, rng, tmp, ppm, W, H, pos, level):
    data, value = payload(sym, rng)
    img = module_image(render_zint(sym, data, tmp), ppm)
    canvas = background(W, H, rng, level=level)
    paste(canvas, img, rng, pos=pos)
    return canvas, {"symbology": REPORTED.get(sym, sym), "type": REPORTED.get(sym, sym), "value": value}


def write_clip(path, segments, noise, nrng, blur):
    """segments: [(image or None, frames)]; None is the background alone."""
    h, w = segments[0][0].shape
    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F30:1 Ip A1:1 C420jpeg\n" % (w, h))
        for im, n in segments:
            base = Image.fromarray(np.clip(im, 0, 255).astype(np.uint8))
            if blur:
                base = base.filter(ImageFilter.GaussianBlur(blur))
            for _ in range(n):
                dx, dy = nrng.uniform(-0.5, 0.5, 2)
                shifted = np.array(base.transform((w, h), Image.AFFINE, (1, 0, dx, 0, 1, dy), Image.BILINEAR), float)
                fr = np.clip(shifted + nrng.normal(0, noise, (h, w)), 0, 255).astype(np.uint8)
                f.write(b"FRAME\n" + fr.tobytes() + bytes([128]) * (w * h // 2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scand", action="append", required=True, help="name=path of a scand binary (repeatable)")
    ap.add_argument("--clips", type=int, default=40, help="clips per pair")
    ap.add_argument("--pairs", default="ean13:ean13,upca:ean13,ean13:upce,upce:ean13,code128:code128,itf14:itf14")
    ap.add_argument("--before", type=int, default=20)
    ap.add_argument("--gap", type=int, default=0)
    ap.add_argument("--after", type=int, default=20)
    ap.add_argument("--noise", type=float, default=3.0)
    ap.add_argument("--blur", type=float, default=0.6, help="Gaussian blur radius (pixels) of every frame")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    nrng = np.random.default_rng(args.seed)
    binaries = [s.split("=", 1) for s in args.scand]
    W, H = 640, 480
    with tempfile.TemporaryDirectory() as tmp:
        clips = []
        for pair in args.pairs.split(","):
            a_sym, b_sym = pair.split(":")
            for i in range(args.clips):
                ppm = rng.uniform(1.8, 3.2)
                pos = (W / 2 + rng.uniform(-0.1, 0.1) * W, H / 2 + rng.uniform(-0.1, 0.1) * H)
                level = rng.randint(170, 230)
                a_img, a = render(a_sym, rng, tmp, ppm, W, H, pos, level)
                b_img, b = render(b_sym, rng, tmp, ppm, W, H, pos, level)
                if a["value"] == b["value"]:
                    continue
                empty = background(W, H, rng, level=level)
                p = os.path.join(tmp, "%s-%s-%03d.y4m" % (a_sym, b_sym, i))
                segs = [(a_img, args.before)] + ([(empty, args.gap)] if args.gap else []) + [(b_img, args.after)]
                write_clip(p, segs, args.noise, nrng, args.blur)
                clips.append((pair, p, a, b))
        print("%d clips: %d frames of A, %d empty, %d of B (%s), seed %d" % (
            len(clips), args.before, args.gap, args.after, args.pairs, args.seed))
        start_b = args.before + args.gap
        results = {}
        for name, path in binaries:
            out = subprocess.run([path, "scan", *[c[1] for c in clips]], capture_output=True, text=True)
            frames = {}
            for line in out.stdout.splitlines():
                ev = json.loads(line)
                if ev.get("event") == "metadata":
                    frames.setdefault(ev["source"], {})[ev.get("frame", 0)] = {o.get("value") or "" for o in ev.get("objects", [])}
            results[name] = frames
        pairs = list(dict.fromkeys(c[0] for c in clips))
        print("| binary | pair | B read | delay median / mean / max (frames, over clips all read) | stale A | wrong |")
        print("|---|---|---|---|---|---|")
        for pair in pairs:
            sub = [c for c in clips if c[0] == pair]
            delays = {}
            for name, _ in binaries:
                d = {}
                for _, p, a, b in sub:
                    got = results[name].get(p, {})
                    hits = sorted(f for f, v in got.items() if f >= start_b and any(matches(x, b) for x in v))
                    if hits:
                        d[p] = hits[0] - start_b
                delays[name] = d
            common = set.intersection(*(set(d) for d in delays.values()))
            for name, _ in binaries:
                read = len(delays[name])
                stale = wrong = 0
                for _, p, a, b in sub:
                    got = results[name].get(p, {})
                    if any(any(matches(x, a) for x in v) for f, v in got.items() if f >= start_b):
                        stale += 1
                    for v in got.values():
                        wrong += sum(1 for x in v if not matches(x, a) and not matches(x, b))
                ds = [delays[name][p] for p in common]
                cell = "%g / %.2f / %d" % (statistics.median(ds), statistics.mean(ds), max(ds)) if ds else "-"
                print("| %s | %s | %d/%d | %s | %d | %d |" % (name, pair, read, len(sub), cell, stale, wrong))


if __name__ == "__main__":
    main()
