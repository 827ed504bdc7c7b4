#!/usr/bin/python3
"""Writes the code-track fixtures (issue 50) into a directory (default Tests/Fixtures/generated/tracks/,
gitignored).

Run from anywhere:  /usr/bin/python3 Tests/Fixtures/make_code_tracks.py [OUT] [--seed N]
The tests run it themselves when the fixtures are missing. Needs Debian zint, qrencode, python3-numpy and
python3-pil. Deterministic for a seed (the tests use the default, 5050).

- conveyor.y4m: the issue's conveyor, 640x480 grey (Y4M C mono), 30 fps: five white cards, each with the same
  EAN-13 label (zint), ride left to right over a busy backdrop (blurred noise, dark stripes, scattered blobs) at
  8 px a frame, 260 px apart, so one or two are whole in view at a time; each frame has a little motion blur
  and sensor noise. conveyor.json gives, per frame, each card's left and right edge (pixels) and its index.
- blurred-ean.y4m and blurred-ean.png: the conveyor drawn with a larger label (zint scale 1.6) and 3 px of
  motion blur, frames 140-152 only, and the last of them as a still: on the stream's 8th frame zbar's upscaled
  image gives "1713031134352" for 9506000134352 on 14 scan lines, a blurred left half misread once and joined
  to the right half read on every line; the still gives the same on 4 lines (the blurred EAN/UPC misread class
  of issue 50).
- return.y4m: 320x240, 30 fps, 150 frames: one QR code (qrencode) in view on frames 0-29, gone on 30-89, back
  on 90-149 (for the duplicate filter: two appearances of one value, 2 s apart).
- sequence-*.png and sequence.y4m: a QR structured-append sequence of three symbols (qrencode -S -v 1) of
  SEQUENCE: all three side by side on a busy backdrop (sequence-whole.png), the first and the last only
  (sequence-parts.png: parts that never complete), and a 320x240 stream showing them one after another, 15
  frames each (sequence.y4m).
- cases.json and the stills: two identical codes in one image, placed side by side, one above the other,
  diagonally, and with their quiet zones touching (EAN-13, Code 128, QR), and one EAN-13 with a white band
  across its middle (one symbol, which must stay one).
"""
import argparse, json, os, subprocess, sys, tempfile

import numpy as np
from PIL import Image, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
EAN = "9506000134352"
CODE128 = "PARCEL-0042"
QR = "TICKET 7 COPY"
SEQUENCE = "TICKET 2026-11-29 SEAT 14C GATE B7 FLIGHT SK1429"


def zint(symbology, data, scale, tmp, extra=()):
    path = os.path.join(tmp, "z.png")
    subprocess.run(["zint", "-b", str(symbology), "-d", data, "--scale", str(scale), "-o", path, *extra],
                   check=True, stdout=subprocess.DEVNULL)
    im = Image.open(path).convert("RGBA")
    white = Image.new("RGBA", im.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, im).convert("L")


def qr(data, scale, tmp):
    path = os.path.join(tmp, "q.png")
    subprocess.run(["qrencode", "-s", str(scale), "-m", "4", "-o", path, data], check=True)
    return Image.open(path).convert("L")


def backdrop(rng, w, h):
    """A busy grey backdrop: blurred noise, a few dark stripes (none bar-like: wide and slanted), blobs."""
    a = rng.normal(128, 40, (h // 4, w // 4)).clip(0, 255).astype(np.uint8)
    im = Image.fromarray(a).resize((w, h), Image.BICUBIC).filter(ImageFilter.GaussianBlur(3))
    arr = np.asarray(im).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w]
    for _ in range(4):
        angle = rng.uniform(0.3, 1.2)
        offset = rng.uniform(-w, w)
        width = rng.uniform(25, 60)
        band = np.abs(np.cos(angle) * xx + np.sin(angle) * yy - offset) < width / 2
        arr[band] *= 0.55
    for _ in range(12):
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(10, 40)
        arr[(xx - cx) ** 2 + (yy - cy) ** 2 < r * r] = rng.uniform(30, 220)
    return arr


def write_y4m(path, frames, fps=30):
    h, w = frames[0].shape
    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 Cmono\n" % (w, h, fps))
        for fr in frames:
            f.write(b"FRAME\n")
            f.write(fr.tobytes())


def conveyor(rng, tmp, out, scale=1.0, taps=2, keep=None, name="conveyor"):
    """The conveyor clip; `scale` (zint's), `taps` (the motion blur's pixels) and `keep` (a range of frames to
    write) make its blurred variant."""
    w, h = 640, 480
    label = zint(13, EAN, scale, tmp)
    card = Image.new("L", (label.width + 20, label.height + 24), 245)
    card.paste(label, (10, 12))
    cw, ch = card.size
    back = backdrop(rng, w, h)
    speed, spacing, cards = 8, 260, 5
    top = (h - ch) // 2
    start = -cw  # card 0's left edge on frame 0
    frames, truth = [], []
    n = (w + cw + spacing * (cards - 1) - start - cw) // speed + 1
    for i in range(n):
        arr = back.copy()
        edges = []
        for k in range(cards):
            left = start + i * speed - k * spacing
            if left + cw <= 0 or left >= w:
                continue
            x0, x1 = max(0, left), min(w, left + cw)
            arr[top:top + ch, x0:x1] = np.asarray(card, dtype=np.float32)[:, x0 - left:x1 - left]
            edges.append({"card": k, "left": left, "right": left + cw})
        im = Image.fromarray(arr.clip(0, 255).astype(np.uint8))
        # Motion blur along the belt (`taps` px), then sensor noise.
        a = np.asarray(im).astype(np.float32)
        a = sum(np.roll(a, taps // 2 - k, axis=1) for k in range(taps)) / taps
        a += rng.normal(0, 4, a.shape)
        frames.append(a.clip(0, 255).astype(np.uint8))
        truth.append({"frame": i, "cards": edges})
    if keep is not None:
        write_y4m(os.path.join(out, name + ".y4m"), frames[keep])
        Image.fromarray(frames[keep][-1]).save(os.path.join(out, name + ".png"))
        return
    write_y4m(os.path.join(out, name + ".y4m"), frames)
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump({"value": EAN, "type": "ean13", "width": w, "height": h, "cardWidth": cw, "frames": truth}, f)


def returning(rng, tmp, out):
    w, h = 320, 240
    code = qr(QR, 4, tmp)
    back = backdrop(rng, w, h)
    frames = []
    for i in range(150):
        arr = back.copy()
        if i < 30 or i >= 90:
            x = 100 + (i % 30)
            arr[40:40 + code.height, x:x + code.width] = np.asarray(code, dtype=np.float32)
        arr = arr + rng.normal(0, 3, arr.shape)
        frames.append(arr.clip(0, 255).astype(np.uint8))
    write_y4m(os.path.join(out, "return.y4m"), frames)


def stills(rng, tmp, out):
    cases = []
    symbols = {
        "ean13": (zint(13, EAN, 1.5, tmp), EAN),
        "code128": (zint(20, CODE128, 1.5, tmp, ["--whitesp=10"]), CODE128),  # its quiet zones
        "qr": (qr(QR, 5, tmp), QR),
    }
    for kind, (sym, value) in symbols.items():
        sw, sh = sym.size
        layouts = {
            "side": (2 * sw + 120, sh + 80, [(40, 40), (sw + 80, 40)]),
            "stacked": (sw + 80, 2 * sh + 160, [(40, 40), (40, sh + 120)]),
            "diagonal": (2 * sw + 120, 2 * sh + 160, [(40, 40), (sw + 80, sh + 120)]),
            "touching": (2 * sw + 40, sh + 80, [(20, 40), (20 + sw, 40)]),
        }
        for layout, (w, hgt, places) in layouts.items():
            arr = backdrop(rng, w, hgt) * 0.4 + 150
            for (x, y) in places:
                arr[y:y + sh, x:x + sw] = np.asarray(sym, dtype=np.float32)
            name = "twin-%s-%s.png" % (kind, layout)
            Image.fromarray(arr.clip(0, 255).astype(np.uint8)).save(os.path.join(out, name))
            boxes = [[x, y, x + sw, y + sh] for (x, y) in places]
            cases.append({"file": name, "type": kind, "value": value, "count": 2, "boxes": boxes,
                          "width": w, "height": hgt})
    # One EAN-13 with a white band across its middle (glare, a sticker): one symbol.
    sym, value = symbols["ean13"]
    sw, sh = sym.size
    arr = np.full((sh + 80, sw + 80), 200, dtype=np.float32)
    arr[40:40 + sh, 40:40 + sw] = np.asarray(sym, dtype=np.float32)
    band = int(sh * 0.2)
    arr[40 + sh // 3:40 + sh // 3 + band, 40:40 + sw] = 250
    Image.fromarray(arr.astype(np.uint8)).save(os.path.join(out, "banded-ean13.png"))
    cases.append({"file": "banded-ean13.png", "type": "ean13", "value": value, "count": 1,
                  "boxes": [[40, 40, 40 + sw, 40 + sh]], "width": sw + 80, "height": sh + 80})
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


def sequence(rng, tmp, out):
    prefix = os.path.join(tmp, "sa")
    subprocess.run(["qrencode", "-S", "-v", "1", "-s", "4", "-o", prefix + ".png", SEQUENCE], check=True)
    parts = [Image.open("%s-%02d.png" % (prefix, i)).convert("L") for i in range(1, 4)]
    if os.path.exists(prefix + "-04.png"):
        sys.exit("qrencode split the sequence into more than three symbols")
    pw, ph = parts[0].size

    def sheet(chosen):
        w, h = 3 * pw + 160, ph + 80
        arr = backdrop(rng, w, h) * 0.4 + 150
        for i, part in chosen:
            x = 40 + i * (pw + 40)
            arr[40:40 + ph, x:x + pw] = np.asarray(part, dtype=np.float32)
        return arr.clip(0, 255).astype(np.uint8)

    Image.fromarray(sheet(list(enumerate(parts)))).save(os.path.join(out, "sequence-whole.png"))
    Image.fromarray(sheet([(0, parts[0]), (2, parts[2])])).save(os.path.join(out, "sequence-parts.png"))
    w, h = 320, 240
    back = backdrop(rng, w, h) * 0.4 + 150
    frames = []
    for f in range(45):
        arr = back.copy()
        part = parts[f // 15]
        arr[(h - ph) // 2:(h - ph) // 2 + ph, 60 + f % 15:60 + f % 15 + pw] = np.asarray(part, dtype=np.float32)
        frames.append((arr + rng.normal(0, 3, arr.shape)).clip(0, 255).astype(np.uint8))
    write_y4m(os.path.join(out, "sequence.y4m"), frames)
    with open(os.path.join(out, "sequence.json"), "w") as f:
        json.dump({"value": SEQUENCE, "size": 3, "framesPerPart": 15}, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=os.path.join(HERE, "generated", "tracks"))
    ap.add_argument("--seed", type=int, default=5050)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        conveyor(rng, tmp, args.out)
        returning(rng, tmp, args.out)
        stills(rng, tmp, args.out)
        sequence(rng, tmp, args.out)
        # The blurred EAN class: the conveyor with a larger label and 3 px of motion blur, frames 140-152 (its own
        # generator, from the same seed).
        conveyor(np.random.default_rng(args.seed), tmp, args.out, scale=1.6, taps=3, keep=slice(140, 153),
                 name="blurred-ean")


if __name__ == "__main__":
    main()
