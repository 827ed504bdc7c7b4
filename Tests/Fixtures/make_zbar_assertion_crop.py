#!/usr/bin/python3
"""Regenerates Tests/Fixtures/regressions/zbar-databar-assertion.png, a 75x2 patch of code-free paper noise on
which libzbar 0.23.92's DataBar decoder prints, on the C library's stderr,

    WARNING: decoder/databar.c:1265: _zbar_decode_databar: Assertion "seg->finder >= 0" failed.
    <TAB>i=2 f=-1(111) part=0

(zbarimg prints the same). Before LibraryStderr those two lines reached scand's stderr raw, outside its log format
and with a tab in them.

Not run by the tests (it takes about 90 s): its output is committed, and this script is how it was made.
  1. bench/reader/make_photos.py --seed 9898 --categories photo,photo-extra,photo-negative: photo-negative/029.jpg
     (a simulated photograph with no code; 2592x1944);
  2. greyscale (PIL), the patch at (1239, 1886)-(1314, 1888): each side was moved in while zbarimg still
     printed the assertion.
The test (LibraryStderrTests.swift) scans it with the built scand.

Usage: /usr/bin/python3 Tests/Fixtures/make_zbar_assertion_crop.py [out.png]
Needs: python3-numpy, python3-pil, zint, segno (as make_photos.py).
"""
import sys, tempfile

from PIL import Image

from regression_photo import generated_photo, output_path, report

OUT = output_path(sys.argv, "zbar-databar-assertion.png")
BOX = (1239, 1886, 1314, 1888)

with tempfile.TemporaryDirectory() as tmp:
    src = Image.open(generated_photo(tmp, 9898, "photo,photo-extra,photo-negative", "photo-negative/029.jpg"))
    src.convert("L").crop(BOX).save(OUT, optimize=True)
report(OUT)
