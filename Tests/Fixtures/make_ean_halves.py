#!/usr/bin/python3
"""Writes the EAN-halves fixtures into a directory (default Tests/Fixtures/generated/halves/, gitignored).

Run from anywhere:  /usr/bin/python3 Tests/Fixtures/make_ean_halves.py [OUT]
The tests run it themselves when the fixtures are missing. Needs Debian zint, python3-numpy and python3-pil.
Deterministic.

Two crisp EAN-13 images (zint, 4 px per module), each with only one half readable:
- `left.png`: the left half of 4006381333931 (digits 4006381), its right half's modules replaced by a random
  black/white pattern that decodes as nothing;
- `right.png`: the right half of 5123469543217 (digits 543217), its left half scrambled the same way.
The two codes are chosen so that 4006381 + 543217 has a valid check digit: 4006381543217, a code shown in
neither image. zbar 0.23 keeps the EAN halves it decoded across images (its decoder's `ean->left` is not reset
by `zbar_scan_image`), so a zbar scanner that reads `left.png` and then `right.png` reports 4006381543217.
`cases.json` lists each file with the code it shows and the half that is readable, and the joined code.
"""
import json, os, subprocess, sys, tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(HERE, "generated", "halves")
LEFT_CODE = "4006381333931"
RIGHT_CODE = "5123469543217"
JOINED = "4006381543217"
MODULE = 4                  # zint --scale 2
QUIET_LEFT, QUIET_RIGHT = 11, 7
HEIGHT = 180                # rows kept: the bars without zint's human-readable digits


def check_digit(d12):
    s = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(d12))
    return str((10 - s % 10) % 10)


def render(code, path):
    subprocess.run(["zint", "-b", "13", "-d", code[:12], "--scale", "2", "-o", path], check=True, capture_output=True)
    return np.array(Image.open(path).convert("L"))


def scramble(img, x0, x1, rng):
    """img with the modules in [x0, x1) set black or white at random."""
    out = img.copy()
    for m in range(x0 // MODULE, x1 // MODULE):
        out[:HEIGHT, m * MODULE:(m + 1) * MODULE] = 0 if rng.random() < 0.5 else 255
    return out


def framed(img):
    out = np.full((HEIGHT + 40, img.shape[1] + 40), 255, np.uint8)
    out[20:20 + HEIGHT, 20:20 + img.shape[1]] = img[:HEIGHT]
    return out


def main():
    for code in (LEFT_CODE, RIGHT_CODE, JOINED):
        assert check_digit(code[:12]) == code[12], code
    assert JOINED == LEFT_CODE[:7] + RIGHT_CODE[7:]
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(0)
    # The centre guard is modules 45-49 of the symbol: x 224-244 with the quiet zone.
    centre0, centre1 = (QUIET_LEFT + 45) * MODULE, (QUIET_LEFT + 50) * MODULE
    with tempfile.TemporaryDirectory() as tmp:
        left = render(LEFT_CODE, os.path.join(tmp, "left.png"))
        right = render(RIGHT_CODE, os.path.join(tmp, "right.png"))
    width = left.shape[1]
    assert width == (QUIET_LEFT + 95 + QUIET_RIGHT) * MODULE, width
    left = scramble(left, centre1, width - QUIET_RIGHT * MODULE, rng)
    left[:HEIGHT, centre1:centre1 + MODULE] = 0   # a bar closes the centre guard's last space
    right = scramble(right, QUIET_LEFT * MODULE, centre0, rng)
    right[:HEIGHT, centre0 - MODULE:centre0] = 0
    Image.fromarray(framed(left)).save(os.path.join(OUT, "left.png"))
    Image.fromarray(framed(right)).save(os.path.join(OUT, "right.png"))
    cases = [{"file": "left.png", "value": LEFT_CODE, "half": "left", "joined": JOINED},
             {"file": "right.png", "value": RIGHT_CODE, "half": "right", "joined": JOINED}]
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    main()
