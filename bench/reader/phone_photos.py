#!/usr/bin/python3
"""Writes phone-sized stills (12 MP JPEG, as a phone saves them) made from scand's real photographs of codes,
in make_set.py's layout (truth.json + images), for the stills cost bench (issue 53).

Every still is one of real_photos.py's camera photographs (run that first), enlarged to a phone camera's
12 MP: the whole photo fills the frame ("near": the code as large as in the photo), or the photo, at 35-60 % of
the frame's width, lies on an enlarged code-free photo ("far": a smaller code on a busy real background). A
little sensor noise and JPEG at quality 88-94 follow, as a phone's pipeline adds them. The code-free stills
are the code-free photos, enlarged whole, and a collage of them. Nothing is rendered by a code generator:
every code's modules are the photographed ones, so their blur, glare and perspective are real.

Usage:
  /usr/bin/python3 bench/reader/real_photos.py
  /usr/bin/python3 bench/reader/phone_photos.py [--real bench/out/reader/real] [--out bench/out/reader/phone]
         [--seed 53] [--layout near|far|both]
  scand bench --stills bench/out/reader/phone            (CPU per photo, reads, misreads: scand and zxing-cpp)

Categories: phone-near (each code photo once), phone-far (each code photo once, on a background), negative.
The truth is real_photos.py's, per source photo. Seed 53, layout near is what issue 53's work was tuned on;
layout far (and any other seed) is held out.

Needs: python3-numpy, python3-pil.
"""
import argparse, json, os, random, sys

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
LONG, SHORT = 4032, 3024


def frame_size(im):
    return (LONG, SHORT) if im.width >= im.height else (SHORT, LONG)


def cover(im, size):
    """`im` scaled (Lanczos) to cover `size`, centre-cropped to it."""
    W, H = size
    s = max(W / im.width, H / im.height)
    big = im.resize((max(W, round(im.width * s)), max(H, round(im.height * s))), Image.LANCZOS)
    x, y = (big.width - W) // 2, (big.height - H) // 2
    return big.crop((x, y, x + W, y + H))


def finish(im, rng, path):
    """Sensor noise (σ 1.5-3 grey levels) and JPEG at quality 88-94, written to `path`."""
    a = np.asarray(im.convert("RGB"), dtype=np.float32)
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    a += nrng.normal(0, rng.uniform(1.5, 3.0), a.shape).astype(np.float32)
    Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save(path, quality=rng.randint(88, 94))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real", default=os.path.join(ROOT, "bench", "out", "reader", "real"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "reader", "phone"))
    ap.add_argument("--seed", type=int, default=53)
    ap.add_argument("--layout", choices=["near", "far", "both"], default="both")
    a = ap.parse_args()
    truth_path = os.path.join(a.real, "truth.json")
    if not os.path.exists(truth_path):
        sys.exit(f"phone_photos: {truth_path} is missing: run bench/reader/real_photos.py first")
    real = json.load(open(truth_path))["images"]
    rng = random.Random(a.seed)
    coded = [r for r in real if r["codes"]]
    blank = [r for r in real if not r["codes"]]
    images = []

    def write(category, name, im, codes, source):
        os.makedirs(os.path.join(a.out, category), exist_ok=True)
        rel = f"{category}/{name}.jpg"
        finish(im, rng, os.path.join(a.out, rel))
        images.append({"file": rel, "category": category, "codes": codes, "source": source})

    layouts = ["near", "far"] if a.layout == "both" else [a.layout]
    for layout in layouts:
        for i, r in enumerate(coded):
            src = Image.open(os.path.join(a.real, r["file"])).convert("RGB")
            size = frame_size(src)
            if layout == "near":
                im = cover(src, size)
            else:
                ground = Image.open(os.path.join(a.real, rng.choice(blank)["file"])).convert("RGB")
                im = cover(ground, size)
                w = round(size[0] * rng.uniform(0.35, 0.6))
                h = round(src.height * w / src.width)
                if h > size[1] * 0.9:
                    h = round(size[1] * 0.9)
                    w = round(src.width * h / src.height)
                piece = src.resize((w, h), Image.LANCZOS)
                im.paste(piece, (rng.randrange(size[0] - w + 1), rng.randrange(size[1] - h + 1)))
            write(f"phone-{layout}", f"{i:02d}", im, r["codes"], r["file"])
    # Code-free: each code-free photo enlarged whole, and one collage of all of them (quarters).
    for i, r in enumerate(blank):
        src = Image.open(os.path.join(a.real, r["file"])).convert("RGB")
        write("negative", f"{i:02d}", cover(src, frame_size(src)), [], r["file"])
    collage = Image.new("RGB", (LONG, SHORT))
    for q in range(4):
        src = Image.open(os.path.join(a.real, blank[q % len(blank)]["file"])).convert("RGB")
        if q >= len(blank):
            src = src.transpose(Image.FLIP_LEFT_RIGHT)
        collage.paste(cover(src, (LONG // 2, SHORT // 2)), ((q % 2) * LONG // 2, (q // 2) * SHORT // 2))
    write("negative", f"{len(blank):02d}", collage, [], "+".join(r["file"] for r in blank))
    with open(os.path.join(a.out, "truth.json"), "w") as f:
        json.dump({"set": f"phone seed {a.seed} layout {a.layout}", "images": images}, f, indent=1)
    n = sum(len(i["codes"]) for i in images)
    print(f"{len(images)} stills, {n} codes in {a.out}")


if __name__ == "__main__":
    main()
