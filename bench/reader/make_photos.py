#!/usr/bin/python3
"""Generates high-resolution simulated camera photographs of codes, with exact ground truth.

make_set.py's frames are all 640x480 PNGs. Phone and camera photos are not: they are 2-12 MP JPEGs in which a
code spans a fifth to a half of the frame at 5-40 pixels per module, softened by the lens, with sensor noise at
the pixel scale, the phone's sharpening halo and JPEG blocks. This writes that kind of image, in make_set.py's
layout (<out>/<set>/<category>/<n>.jpg and truth.json), so score.py scores scand, zbarimg and zxing-cpp on it:

  photo          one zbar-symbology code (QR and every 1-D kind)
  photo-extra    one Data Matrix, Aztec or PDF417
  photo-negative no code: printed-looking text, stripes and grids at the same resolution
  photo-small    one code of any kind spanning only 5-12 % of the short side (1-D codes at least 1.5 px per
                 module), as on a poster or a shelf across the room
  photo-inverted one QR, Data Matrix, Aztec, Code 128 or EAN-13 in light modules on a dark ground (a phone in
                 dark mode, a negative print)

Per image (drawn from the seed): long side 1600-4032 px, portrait or landscape, the code's width 18-55 % of the
short side, rotation (-25..25 degrees, or any angle for one image in four), perspective tilt 0-0.3, uneven
light, lens blur 0.1-0.45 module (Gaussian, at least 0.8 px), sensor noise (sd 2-9 grey levels, plus a
little coloured-noise blotch at 1/4 resolution), unsharp masking (as phone pipelines do) for half of them, and
greyscale JPEG at quality 55-92.

Usage:
  /usr/bin/python3 bench/reader/make_photos.py [--out bench/out/reader] [--per-category 30] [--seed 5151]
         [--name photos] [--categories photo,photo-extra,photo-negative,photo-small,photo-inverted]

The categories are drawn in that order from one generator, so the first three of a seed are the same images
whether or not the last two are made.

Needs: python3-numpy, python3-pil, zint (Debian), segno (PyPI). Reuses make_set.py's symbol renderers.
"""
import argparse, json, math, os, random, sys, tempfile

import numpy as np
from PIL import Image, ImageFilter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_set  # noqa: E402

SIDES = [1600, 2048, 2592, 3264, 4032]


class PhotoGenerator(make_set.Generator):
    def photo(self, sym, small=False, inverted=False):
        """(PIL image, truths) for one photograph of `sym` (None: no code). `small`: the code spans 5-12 % of the
        short side (a code across the room, on a poster or a shelf); `inverted`: light modules on a dark ground
        (a phone in dark mode, a code printed negative)."""
        rng = self.rng
        long_side = rng.choice(SIDES)
        W, H = (long_side, long_side * 3 // 4) if rng.random() < 0.6 else (long_side * 3 // 4, long_side)
        canvas = self.paper(W, H)
        truths = []
        if sym is not None:
            # the module matrix first: its width in modules sets the pixels per module for the span drawn
            mat, truth = self.symbol_matrix(sym, limit=25)
            span = (rng.uniform(0.05, 0.12) if small else rng.uniform(0.18, 0.55)) * min(W, H)
            ppm = span / mat.shape[1]
            if sym in make_set.LINEAR:
                ppm = max(ppm, 1.5)
            dark, light = rng.randint(0, 60), rng.randint(180, 250)
            img = make_set.module_image(mat, ppm, *((light, dark) if inverted else (dark, light)))
            angle = rng.uniform(-25, 25) if rng.random() < 0.75 else rng.uniform(0, 360)
            dst = make_set.paste(canvas, img, rng, angle=angle, persp=rng.uniform(0, 0.3))
            canvas[:] = self.illuminate(canvas, dst) if rng.random() < 0.3 else self.shade(canvas)
            truth["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in dst]  # the symbol's quiet-zone box, frame px
            truths.append(truth)
            blur = max(0.8, ppm * rng.uniform(0.1, 0.45))
        else:
            canvas[:] = self.shade(canvas)
            blur = max(0.8, rng.uniform(1.0, 12.0))
        img = Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(blur))
        canvas = np.array(img, float)
        # sensor noise: per pixel, and a low-frequency blotch (demosaicing / noise reduction leftovers)
        canvas += self.np.normal(0, rng.uniform(2, 9), canvas.shape)
        blotch = self.np.normal(0, rng.uniform(1, 4), (H // 4 + 1, W // 4 + 1)).astype(np.float32)
        canvas += np.array(Image.fromarray(blotch).resize((W, H), Image.BILINEAR))
        img = Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8))
        if rng.random() < 0.5:
            img = img.filter(ImageFilter.UnsharpMask(radius=rng.uniform(1.0, 3.0), percent=rng.randint(60, 160), threshold=2))
        return img, truths, rng.randint(55, 92)

    def paper(self, W, H):
        """A background: a table or wall texture with a lighter label or paper area and some print on it."""
        rng = self.rng
        canvas = make_set.background(W, H, rng, level=rng.randint(90, 200))
        # a label / sheet around the middle
        x0, y0 = int(W * rng.uniform(0.02, 0.15)), int(H * rng.uniform(0.02, 0.15))
        x1, y1 = int(W * rng.uniform(0.85, 0.98)), int(H * rng.uniform(0.85, 0.98))
        canvas[y0:y1, x0:x1] = rng.randint(200, 245)
        # print: text-like strokes, rules and a grid of dots, so the frame is not empty where the code is not
        for _ in range(rng.randint(20, 60)):
            h = rng.randint(max(4, H // 200), max(6, H // 60))
            w = rng.randint(h * 2, h * 30)
            xx, yy = rng.randint(0, max(1, W - w)), rng.randint(0, max(1, H - h))
            canvas[yy:yy + h, xx:xx + w] = np.where(self.np.random((h, w)) < 0.45, rng.randint(10, 70), canvas[yy:yy + h, xx:xx + w])
        for _ in range(rng.randint(0, 4)):
            yy = rng.randint(0, H - 4)
            canvas[yy:yy + max(2, H // 400), :] = rng.randint(20, 90)
        return canvas

    def shade(self, canvas):
        """Soft uneven light (a vignette and a gradient), as most photographs have."""
        rng = self.rng
        H, W = canvas.shape
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        r2 = ((xx - W / 2) / (W / 2)) ** 2 + ((yy - H / 2) / (H / 2)) ** 2
        vignette = 1 - rng.uniform(0.05, 0.3) * r2 / 2
        a = rng.uniform(0, 2 * math.pi)
        ramp = ((xx - W / 2) * math.cos(a) + (yy - H / 2) * math.sin(a)) / max(W, H)
        return canvas * vignette * (1 + rng.uniform(0, 0.3) * ramp)


# photo-small and photo-inverted come last, so a seed's first three categories are the images they always were
CATEGORIES = ["photo", "photo-extra", "photo-negative", "photo-small", "photo-inverted"]
INVERTED = ["qr", "datamatrix", "aztec", "qr", "code128", "ean13"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "out", "reader"))
    ap.add_argument("--per-category", type=int, default=30)
    ap.add_argument("--seed", type=int, default=5151)
    ap.add_argument("--name", default=None, help="set folder name (default: photos-<seed>)")
    ap.add_argument("--categories", default=",".join(CATEGORIES))
    args = ap.parse_args()
    root = os.path.abspath(os.path.join(args.out, args.name or "photos-%d" % args.seed))
    truth = []
    with tempfile.TemporaryDirectory() as tmp:
        gen = PhotoGenerator(args.seed, False, tmp)
        for cat in args.categories.split(","):
            os.makedirs(os.path.join(root, cat), exist_ok=True)
            syms = {"photo": make_set.ZBAR_SYMS, "photo-extra": make_set.EXTRA, "photo-negative": [None],
                    "photo-small": make_set.ZBAR_SYMS + make_set.EXTRA, "photo-inverted": INVERTED}[cat]
            for i in range(args.per_category):
                sym = "qr" if (cat == "photo" and i % 3 == 0) else syms[i % len(syms)]
                img, codes, quality = gen.photo(sym, small=cat == "photo-small", inverted=cat == "photo-inverted")
                rel = os.path.join(cat, "%03d.jpg" % i)
                img.save(os.path.join(root, rel), quality=quality)
                truth.append({"file": rel, "category": cat, "codes": codes, "size": list(img.size), "jpeg": quality})
                print("\r%s %d/%d" % (cat, i + 1, args.per_category), end="", file=sys.stderr)
            print(file=sys.stderr)
    with open(os.path.join(root, "truth.json"), "w") as f:
        json.dump({"seed": args.seed, "heldout": False, "kind": "photos", "images": truth}, f, ensure_ascii=False, indent=1)
    print("%d images in %s" % (len(truth), root), file=sys.stderr)


if __name__ == "__main__":
    main()
