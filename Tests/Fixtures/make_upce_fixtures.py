#!/usr/bin/python3
"""Writes the UPC-E-inside-EAN-13 fixtures into a directory (default Tests/Fixtures/generated/upce/, gitignored).

Run from anywhere:  /usr/bin/python3 Tests/Fixtures/make_upce_fixtures.py [OUT]
The tests run it themselves when the fixtures are missing. Needs Debian zint, python3-numpy, python3-pil and
python3-segno (imported by the benchmark generator). Deterministic.

- Frames of the benchmark's generated shelf sets (bench/reader/make_shelf.py), each regenerated on its own:
  two blurred EAN-13 codes whose left half scand (2026-11-24, cf252c2) reported as a UPC-E (`misread`), and four
  real UPC-E codes it reads right (`keep`).
- A frame whose EAN-13 left half comes and goes as a UPC-E on streams (`stream`): never-seen shelf seed 7401,
  frame 092, an EAN-13 at 2.2 px per module. As a noise clip (ffmpeg, the test makes it) scand at 3d20b5e
  reported the UPC-E 01867727 on 3 to 7 frames of 24-30, on frames where only its outer end's scan lines read,
  so the quiet-zone check saw too few bars there.
- Frames of a noise clip of a blurred real UPC-E (`noise`): never-seen held-out shelf seed 7711, frame 197
  (08505651, 2.5 px per module), as bench/reader/video_confirm.py's clip (sensor noise sd 3 and a sub-pixel
  shift per frame, numpy seed 24), frame 18. zbar reads it right on 3 scan lines and as 08705679 on 2 lines of
  the adjacent pixel column; at e260801 with `--check-small-retail` scand reported 08505651 twice on that frame.
- A panning clip (`pan`, Y4M, 24 frames): bench/reader/stream_pan.py's clip 13 of seed 16 (blur 1.2 px, 2 px a
  frame), an EAN-13 7395192626934 and a UPC-E beside it. zbar reads the EAN-13's left half as 238719 on some
  frames; at 39ff61a scand reported 2387192626934 beside the right code on frames 6 and 7.
- A panning clip's frames 30-45 (`edge`, Y4M, 16 frames): stream_pan.py's clip 4 of seed 21 (1.2 px blur, 6 px a
  frame). The EAN-13 7194056443270 is leaving the frame on the left, the frame edge across its left half, and
  zbar reads the rest as the UPC-E 00714143; at 7d06e6c scand reported it on 6 of the 16 frames. The UPC-E
  00203166 beside it is read on every frame.
- Crisp zint renders (4 px modules) for the line-profile test (`render`): a UPC-E; an EAN-13 whose left half is
  a valid UPC-E of number system 1 (digits chosen so; the EAN-13's first digit is that UPC-E's check digit);
  and that EAN-13 with its right half replaced by another EAN-13's from the middle of the centre guard, so its
  check digit fails: a damaged label, which zxing-cpp 3.1 reads as the UPC-E on a turned image.
`cases.json` lists each file with its kind, its true value, for the misreads the UPC-E that was reported, and
for the panning clip the UPC-E beside the EAN-13 (`beside`).
"""
import json, os, subprocess, sys, tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "reader"))
from make_shelf import make_frame  # noqa: E402
from video_confirm import clip  # noqa: E402
from stream_pan import pan_clip  # noqa: E402

OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(HERE, "generated", "upce")
# (seed, held-out parameters, index, kind, the UPC-E reported without the check)
SHELF = [
    (778, True, 156, "misread", "01038817"),
    (4245, False, 84, "misread", "08157867"),
    (778, True, 5, "keep", None),
    (778, True, 11, "keep", None),
    (778, True, 95, "keep", None),
    (778, True, 149, "keep", None),
]
# (seed, held-out parameters, index) of the `stream` frames.
STREAM = [(7401, False, 92)]
# (seed, held-out parameters, index, numpy seed of the clip, frame) of the `noise` frames.
NOISE = [(7711, True, 197, 24, 18)]
# (seed, clip, speed in px per frame, blur radius, frames) of the `pan` clips.
PAN = [(16, 13, 2, 1.2, 24)]
# (seed, clip, speed, blur, first frame kept, frames kept) of the `edge` clips.
EDGE = [(21, 4, 6, 1.2, 30, 16)]
# An EAN-13 whose left half (its first digit 2, then 137585) reads as the UPC-E 11375852, and another EAN-13
# whose right half (3 3 3 9 3 1: the first digit's R pattern starts with a 1-module bar) is spliced in.
INNER_EAN13 = "2137585847190"
INNER_UPCE = "11375852"
OTHER_EAN13 = "4006381333931"
UPCE = "01952162"


def zint(symbology, data, path):
    subprocess.run(["zint", "-b", str(symbology), "-d", data, "--scale=2", "-o", path], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return np.array(Image.open(path).convert("L"))


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed, heldout, index, kind, wrong in SHELF:
            im, codes = make_frame(seed, index, False, heldout, tmp)
            name = "shelf-%d-%03d.png" % (seed, index)
            im.save(os.path.join(OUT, name))
            code = codes[0]
            cases.append({"file": name, "kind": kind, "type": code["type"], "value": code["value"],
                          "misread": wrong})
        for seed, heldout, index in STREAM:
            im, codes = make_frame(seed, index, False, heldout, tmp)
            name = "stream-%d-%03d.png" % (seed, index)
            im.save(os.path.join(OUT, name))
            cases.append({"file": name, "kind": "stream", "type": codes[0]["type"], "value": codes[0]["value"],
                          "misread": None})
        for seed, heldout, index, rng_seed, frame in NOISE:
            im, codes = make_frame(seed, index, False, heldout, tmp)
            still, y4m = os.path.join(tmp, "noise.png"), os.path.join(tmp, "noise.y4m")
            im.save(still)
            clip(still, y4m, frame + 1, 3.0, np.random.default_rng(rng_seed))
            w, h = im.size
            with open(y4m, "rb") as f:
                data = f.read()
            frames = data.split(b"FRAME\n")[1:]
            name = "noise-%d-%03d-%d-%d.png" % (seed, index, rng_seed, frame)
            Image.frombytes("L", (w, h), frames[frame][:w * h]).save(os.path.join(OUT, name))
            cases.append({"file": name, "kind": "noise", "type": codes[0]["type"], "value": codes[0]["value"],
                          "misread": None})
        for seed, index, speed, blur, frames in PAN:
            name = "pan-%d-%03d.y4m" % (seed, index)
            codes, _ = pan_clip(os.path.join(OUT, name), seed, index, speed, blur, frames, tmp)
            cases.append({"file": name, "kind": "pan", "type": codes[0]["type"], "value": codes[0]["value"],
                          "misread": None, "beside": codes[1]["value"]})
        for seed, index, speed, blur, first, count in EDGE:
            whole = os.path.join(tmp, "edge.y4m")
            codes, _ = pan_clip(whole, seed, index, speed, blur, first + count, tmp)
            with open(whole, "rb") as f:
                header, rest = f.read().split(b"\n", 1)
            frames = rest.split(b"FRAME\n")[1:]
            name = "edge-%d-%03d-%d.y4m" % (seed, index, first)
            with open(os.path.join(OUT, name), "wb") as f:
                f.write(header + b"\n" + b"".join(b"FRAME\n" + fr for fr in frames[first:first + count]))
            cases.append({"file": name, "kind": "edge", "type": codes[1]["type"], "value": codes[1]["value"],
                          "misread": None, "beside": codes[0]["value"]})
        upce = zint(37, UPCE, os.path.join(tmp, "upce.png"))
        inner = zint(13, INNER_EAN13[:12], os.path.join(tmp, "ean.png"))
        other = zint(13, OTHER_EAN13[:12], os.path.join(tmp, "other.png"))
        assert inner.shape == other.shape
        # zint's EAN-13 at 4 px per module: 11 modules of quiet zone, so the centre guard (modules 45-49 of
        # the symbol) spans x 224-244; cut in its middle.
        cut = (11 + 45) * 4 + 10
        spliced = inner.copy()
        spliced[:, cut:] = other[:, cut:]
        for name, pixels, value in (("render-upce.png", upce, UPCE), ("render-ean13.png", inner, INNER_EAN13),
                                    ("render-spliced.png", spliced, None)):
            Image.fromarray(pixels).save(os.path.join(OUT, name))
            cases.append({"file": name, "kind": "render", "type": "upce" if name == "render-upce.png" else "ean13",
                          "value": value, "misread": INNER_UPCE if name == "render-spliced.png" else None})
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    main()
