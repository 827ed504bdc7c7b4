#!/usr/bin/python3
"""Measures --confirm-1d (a 1-D code must be read in two frames within 3) on short clips.

Each still of the chosen categories becomes a 4-frame Y4M clip: the same picture with fresh sensor noise per
frame (sd --noise) and a sub-pixel shift, as a camera holding still would give. scand scans every clip with
and without --confirm-1d. Recall = ground-truth codes reported in at least one frame; misreads = distinct
wrong values reported in any frame.

Usage: /usr/bin/python3 bench/reader/video_confirm.py [--set bench/out/reader/main] [--categories noise,negative,glare,clean]
                                                    [--scand-args "--min-linear-quality 0"]
"""
import argparse, json, os, subprocess, sys, tempfile
import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from score import matches  # noqa: E402


def clip(path, out, frames, noise, rng):
    im = np.array(Image.open(path).convert("L"), float)
    h, w = im.shape
    with open(out, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F10:1 Ip A1:1 C420jpeg\n" % (w, h))
        for i in range(frames):
            dx, dy = rng.uniform(-0.5, 0.5, 2)
            shifted = np.array(Image.fromarray(im.astype(np.float32)).transform(
                (w, h), Image.AFFINE, (1, 0, dx, 0, 1, dy), Image.BILINEAR))
            fr = np.clip(shifted + rng.normal(0, noise, im.shape), 0, 255).astype(np.uint8)
            f.write(b"FRAME\n" + fr.tobytes() + bytes([128]) * (w * h // 2))


def make_clips(set_dir, images, tmp, frames, noise, rng):
    """One clip (see clip()) per image of the set, in tmp; their paths, in the order of images."""
    clips = []
    for i, im in enumerate(images):
        p = os.path.join(tmp, "%04d.y4m" % i)
        clip(os.path.join(set_dir, im["file"]), p, frames, noise, rng)
        clips.append(p)
    return clips


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default=os.path.join(ROOT, "bench", "out", "reader", "main"))
    ap.add_argument("--scand", default=os.path.join(ROOT, ".build", "release", "scand"))
    ap.add_argument("--categories", default="noise,negative,glare,clean")
    ap.add_argument("--frames", type=int, default=4)
    ap.add_argument("--noise", type=float, default=4.0)
    ap.add_argument("--scand-args", default="", help="extra scand options for both runs, e.g. '--min-linear-quality 0'")
    args = ap.parse_args()
    truth = json.load(open(os.path.join(args.set, "truth.json")))
    cats = args.categories.split(",")
    images = [im for im in truth["images"] if im["category"] in cats]
    rng = np.random.default_rng(42)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        clips = make_clips(args.set, images, tmp, args.frames, args.noise, rng)
        for name, extra in (("every frame", []), ("--confirm-1d", ["--confirm-1d"])):
            out = subprocess.run([args.scand, "scan", *args.scand_args.split(), *extra, *clips], capture_output=True, text=True).stdout
            vals = {}
            for line in out.splitlines():
                ev = json.loads(line)
                vals.setdefault(ev["source"], set()).update(o.get("value") or "" for o in ev["objects"])
            codes = read = mis = 0
            linear_codes = linear_read = 0
            for im, p in zip(images, clips):
                got = vals.get(p, set())
                for t in im["codes"]:
                    codes += 1
                    ok = any(matches(v, t) for v in got)
                    read += ok
                    if t["symbology"] not in ("qr",):
                        linear_codes += 1; linear_read += ok
                mis += sum(1 for v in got if not any(matches(v, t) for t in im["codes"]))
            rows[name] = (codes, read, linear_codes, linear_read, mis)
    print("| %s, %d-frame clips | recall | 1-D recall | misreads |" % (",".join(cats), args.frames))
    print("|---|---:|---:|---:|")
    for name, (codes, read, lc, lr, mis) in rows.items():
        print("| %s | %.1f%% (%d/%d) | %.1f%% (%d/%d) | %d |" % (name, 100 * read / codes, read, codes, 100 * lr / max(1, lc), lr, lc, mis))


if __name__ == "__main__":
    main()
