#!/usr/bin/python3
"""Regenerates Tests/Fixtures/regressions/pdf417-photo-databar-fp.jpg, the simulated 4032x3024 photograph of a
tilted PDF417 symbol on which zxing-cpp 3.1.1 read a GS1 DataBar Expanded ("58207336952141<GS>79<GS>7", on 2
lines) on scand's thresholded pass. The symbol holds no DataBar; no reader reads its PDF417.

Not run by the tests (generating the 33 photos before it takes about a minute): its output is committed, and
this script is how it was made: bench/reader/make_photos.py --seed 9595 (the never-seen seed of 2026-11-27),
categories photo then photo-extra, photo-extra/002.jpg, copied as it is (JPEG quality 55).
A pasted patch of it on a flat frame does not reproduce the read (the thresholded pass's mean is taken over
blocks of 1/20 of the frame's long side), so the whole photo is kept.

Usage: /usr/bin/python3 Tests/Fixtures/make_databar_pdf417_photo.py [out.jpg]
Needs: python3-numpy, python3-pil, zint, segno (as make_photos.py).
"""
import shutil, sys, tempfile

from regression_photo import generated_photo, output_path, report

OUT = output_path(sys.argv, "pdf417-photo-databar-fp.jpg")

with tempfile.TemporaryDirectory() as tmp:
    shutil.copyfile(generated_photo(tmp, 9595, "photo,photo-extra", "photo-extra/002.jpg"), OUT)
report(OUT)
