#!/usr/bin/python3
"""Regenerates Tests/Fixtures/regressions/i25-prefix-perspective.png: a 12-digit Interleaved 2 of 5
("600760055769") turned in perspective, which zbar's upscaled image reads as its first 8 digits ("60076005", 3
scan lines) while the deskewed image reads all 12.

Not run by the tests: its output is committed, and this script is how it was made. It is perspective/008.png of
bench/reader/make_set.py --heldout --seed 9011 (the whole set must be made: the generator's random stream runs
through every category), copied as is.

Usage: /usr/bin/python3 Tests/Fixtures/make_i25_prefix_photo.py [out.png]
Needs: python3-numpy, python3-pil, zint, segno (as make_set.py).
"""
import os, shutil, subprocess, sys, tempfile

from regression_photo import ROOT, output_path, report

OUT = output_path(sys.argv, "i25-prefix-perspective.png")

with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "reader", "make_set.py"), "--out", tmp,
                    "--heldout", "--seed", "9011"], check=True, stdout=subprocess.DEVNULL)
    shutil.copyfile(os.path.join(tmp, "heldout", "perspective", "008.png"), OUT)
report(OUT)
