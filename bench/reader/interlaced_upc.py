#!/usr/bin/python3
"""Blurred, interlaced UPC-A labels on a dark surround (issue 50's blurred EAN/UPC class), and how scand reads
them: right reads and wrong ones, for each binary given.

Each image (1280x720 grey PNG): a UPC-A label (zint, scale 0.8-2.2, turned up to 8 degrees) on a dark surround
(grey 15-60, label at 60-100 % brightness), interlaced (even rows shifted 0-2 px one way, odd rows the other, as
a camera's two fields of a moving label), then a Gaussian blur (radius 0.5-2.6) and sensor noise.

Usage:
  /usr/bin/python3 bench/reader/interlaced_upc.py OUT --seed N --count K SCAND [SCAND ...]
Writes OUT/upc-*.png and OUT/cases.json, then prints per binary: right reads, wrong reads (and which), and the
images only some binaries read. Needs zint, python3-numpy, python3-pil. docs/reader.md, "One half read alone",
used --seed 3 --count 300.
"""
import argparse, json, os, subprocess, tempfile

import numpy as np
from PIL import Image, ImageFilter


def make(out, seed, count):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(seed)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            digits = "".join(str(d) for d in rng.integers(0, 10, 11))
            scale = rng.uniform(0.8, 2.2)
            p = os.path.join(tmp, "u.png")
            subprocess.run(["zint", "-b", "34", "-d", digits, "--scale", f"{scale:.2f}", "-o", p], check=True,
                           stdout=subprocess.DEVNULL)
            im = Image.open(p).convert("RGBA")
            label = Image.alpha_composite(Image.new("RGBA", im.size, (255,) * 4), im).convert("L")
            label = label.rotate(rng.uniform(-8, 8), expand=True, fillcolor=int(rng.uniform(15, 60)),
                                 resample=Image.BICUBIC)
            w, h = 1280, 720
            arr = np.full((h, w), rng.uniform(15, 60), np.float32) + rng.normal(0, 6, (h, w))
            x = int(rng.uniform(0, w - label.width))
            y = int(rng.uniform(0, h - label.height))
            arr[y:y + label.height, x:x + label.width] = np.asarray(label, np.float32) * rng.uniform(0.6, 1.0)
            dx = int(rng.integers(0, 3))
            a = arr.copy()
            a[0::2] = np.roll(arr[0::2], dx, axis=1)
            a[1::2] = np.roll(arr[1::2], -dx, axis=1)
            im = Image.fromarray(a.clip(0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(rng.uniform(0.5, 2.6)))
            a = np.asarray(im, np.float32) + rng.normal(0, 3, (h, w))
            name = f"upc-{i:03d}.png"
            Image.fromarray(a.clip(0, 255).astype(np.uint8)).save(os.path.join(out, name))
            cases.append({"file": name, "digits": digits})
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(cases, f)
    return cases


def score(out, cases, scand):
    files = [os.path.join(out, c["file"]) for c in cases]
    lines = subprocess.run([scand, "scan", *files], capture_output=True, text=True).stdout.splitlines()
    objects = {}
    for line in lines:
        j = json.loads(line)
        if j.get("event") == "metadata":
            objects.setdefault(os.path.basename(j["source"]), []).extend(j.get("objects", []))
    right, wrong = set(), []
    for c in cases:
        for o in objects.get(c["file"], []):
            v = o.get("value", "")
            # UPC-A is reported as EAN-13 with a leading 0; the last digit is the check digit zint added.
            if len(v) == 13 and v[0] == "0" and v[1:12] == c["digits"]:
                right.add(c["file"])
            else:
                wrong.append((c["file"], c["digits"], o.get("type"), v))
    return right, wrong


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("scand", nargs="+")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--count", type=int, default=300)
    args = ap.parse_args()
    cases = make(args.out, args.seed, args.count)
    results = {b: score(args.out, cases, b) for b in args.scand}
    for b, (right, wrong) in results.items():
        print(f"{b}: right {len(right)} of {len(cases)}, wrong {len(wrong)}")
        for w in wrong:
            print("   wrong:", w)
    every = set.intersection(*(r for r, _ in results.values()))
    for b, (right, _) in results.items():
        if right - every:
            print(f"only some read, {b} among them: {sorted(right - every)}")


if __name__ == "__main__":
    main()
