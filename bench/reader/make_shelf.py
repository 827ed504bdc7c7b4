#!/usr/bin/python3
"""Blurred, low-resolution retail codes (EAN-13, UPC-A, EAN-8, UPC-E) as on shelf photos: the failure class
where scand's extra passes read wrong digits with a valid check digit (issue 15).

Each frame is a 640x480 grey shelf label: a price in big digits, text strokes, and one code rendered by zint
at 1.3-2.6 pixels per module, then a Gaussian blur, a little motion blur, sensor noise and JPEG compression at
a low quality, as a phone camera far from the shelf gives. About a third of the frames are hard enough that
no reader gets them; those are where wrong digits come from. Some frames hold no code at all (price labels
with bar-like clutter) to count false positives.

Usage:
  /usr/bin/python3 bench/reader/make_shelf.py [--out bench/out/reader] [--count 160] [--heldout]

Writes <out>/shelf (seed 4242) or <out>/shelf-heldout (seed 777, other blur and resolution ranges), each with
<category>/<n>.png and truth.json in make_set.py's format (categories `shelf` and `shelf-negative`), so
`score.py --set <out>/shelf` scores it. Needs zint (Debian), python3-numpy, python3-pil.
"""
import argparse, io, json, math, os, random, sys, tempfile

import numpy as np
from PIL import Image, ImageFilter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_set import payload, render_zint, module_image, background, paste  # noqa: E402

SYMS = ["ean13", "upca", "ean13", "upca", "ean8", "upce"]
REPORTED = {"ean13": "ean13", "upca": "ean13", "ean8": "ean8", "upce": "upce"}


def label(canvas, rng, nrng):
    """Shelf-label clutter around the code: a price in thick strokes, lines of text, a border."""
    H, W = canvas.shape
    x0, y0 = rng.randint(20, 120), rng.randint(20, 80)
    canvas[y0:y0 + 3, x0:W - x0] = 60
    for _ in range(rng.randint(4, 9)):  # text lines
        y = rng.randint(y0 + 10, H - 40)
        x = rng.randint(x0, W // 2)
        for _ in range(rng.randint(6, 20)):
            w = rng.randint(3, 9)
            canvas[y:y + rng.randint(5, 9), x:x + w] = rng.randint(20, 80)
            x += w + rng.randint(2, 6)
            if x > W - 20: break
    # big price digits: vertical and horizontal thick strokes
    px, py = rng.randint(W // 2, W - 160), rng.randint(H // 2, H - 90)
    for i in range(rng.randint(2, 4)):
        cx = px + i * 36
        canvas[py:py + 60, cx:cx + 8] = 25
        if rng.random() < 0.6: canvas[py:py + 8, cx:cx + 28] = 25
        if rng.random() < 0.6: canvas[py + 52:py + 60, cx:cx + 28] = 25


def degrade(canvas, rng, nrng, heldout):
    """Camera: Gaussian blur, a little motion blur, noise, JPEG."""
    sigma = rng.uniform(0.6, 1.4) if not heldout else rng.uniform(0.7, 1.5)
    im = Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(sigma))
    a = np.array(im, float)
    k = rng.randint(1, 3)
    if k > 1:  # horizontal motion blur of k pixels (across the bars: the worst direction)
        a = sum(np.roll(a, s, axis=1) for s in range(k)) / k
    a += nrng.normal(0, rng.uniform(2, 7), a.shape)
    buf = io.BytesIO()
    Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save(buf, "JPEG", quality=rng.randint(35, 80))
    buf.seek(0)
    return Image.open(buf).convert("L")


def make_frame(seed, index, negative, heldout, tmp):
    """One frame (PIL image, codes): frame `index` of the set with `seed`, reproducible on its own."""
    rng = random.Random(seed * 100003 + index * 2 + (1 if negative else 0))
    nrng = np.random.default_rng(rng.randint(0, 2**31))
    W, H = 640, 480
    canvas = background(W, H, rng, level=rng.randint(170, 235))
    label(canvas, rng, nrng)
    codes = []
    if not negative:
        sym = SYMS[index % len(SYMS)]
        data, value = payload(sym, rng)
        mat = render_zint(sym, data, tmp)
        ppm = rng.uniform(1.3, 2.6) if not heldout else rng.uniform(1.25, 2.7)
        img = module_image(mat, ppm, rng.randint(10, 70), rng.randint(190, 250))
        paste(canvas, img, rng, angle=rng.uniform(-4, 4), persp=rng.uniform(0, 0.1))
        codes.append({"symbology": sym, "type": REPORTED[sym], "value": value, "ppm": round(ppm, 2)})
    elif rng.random() < 0.7:
        # bar-like clutter: a striped pattern (not a code)
        x0, y0 = rng.randint(100, 400), rng.randint(150, 350)
        w = rng.randint(90, 200)
        bars = np.repeat(nrng.integers(0, 2, w // 2 + 1), rng.randint(1, 3))[:w]
        canvas[y0:y0 + 40, x0:x0 + len(bars)] = np.where(bars[None, :] > 0, 30, 220)
    return degrade(canvas, rng, nrng, heldout), codes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "out", "reader"))
    ap.add_argument("--count", type=int, default=160, help="frames with a code")
    ap.add_argument("--negatives", type=int, default=40, help="frames without a code")
    ap.add_argument("--heldout", action="store_true")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else (777 if args.heldout else 4242)
    root = os.path.abspath(os.path.join(args.out, "shelf-heldout" if args.heldout else "shelf"))
    images = []
    with tempfile.TemporaryDirectory() as tmp:
        for cat, n in (("shelf", args.count), ("shelf-negative", args.negatives)):
            os.makedirs(os.path.join(root, cat), exist_ok=True)
            for i in range(n):
                im, codes = make_frame(seed, i, cat == "shelf-negative", args.heldout, tmp)
                rel = os.path.join(cat, "%03d.png" % i)
                im.save(os.path.join(root, rel))
                images.append({"file": rel, "category": cat, "codes": codes})
    with open(os.path.join(root, "truth.json"), "w") as f:
        json.dump({"seed": seed, "heldout": args.heldout, "images": images}, f, indent=1)
    print("%d images in %s" % (len(images), root), file=sys.stderr)


if __name__ == "__main__":
    main()
