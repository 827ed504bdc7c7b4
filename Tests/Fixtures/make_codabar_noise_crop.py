#!/usr/bin/python3
"""Regenerates Tests/Fixtures/regressions/codabar-noise-crop.png, the code-free patch on which zxing-cpp read a
Codabar ("D4212C") along one pixel column of the thresholded image.

Not run by the tests (it takes about 90 s): its output is committed, and this script is how it was made.
  1. bench/reader/make_photos.py --seed 9393 --categories photo,photo-extra,photo-negative: photo-negative/022.jpg
     (a simulated photograph of printed text, no code; 1200x1600);
  2. scaled to 1536x2048 (PIL, box filter, greyscale), as bench/reader/stream_steps.py --long-side 2048 does;
  3. through ffmpeg as a stream is (`ffmpeg -loop 1 -i x.png -frames:v 1 -pix_fmt yuv420p -f yuv4mpegpipe`):
     limited-range luma (16-235);
  4. the luma's 200x250 patch at (665, 1150).
The test (TransformedMisreadTests.swift, CodabarConfirmationTests) pastes the patch back at (665, 1150) on a flat
1536x2048 frame of grey 201 (the patch's mean), which zxing-cpp 3.1.1 misreads the same way.

Usage: /usr/bin/python3 Tests/Fixtures/make_codabar_noise_crop.py [out.png]
Needs: python3-numpy, python3-pil, zint, segno (as make_photos.py), ffmpeg.
"""
import os, subprocess, sys, tempfile

from PIL import Image

from regression_photo import generated_photo, output_path, report

OUT = output_path(sys.argv, "codabar-noise-crop.png")
BOX = (665, 1150, 865, 1400)

with tempfile.TemporaryDirectory() as tmp:
    src = Image.open(generated_photo(tmp, 9393, "photo,photo-extra,photo-negative", "photo-negative/022.jpg"))
    k = 2048 / max(src.size)
    size = (2 * round(src.width * k / 2), 2 * round(src.height * k / 2))
    png = os.path.join(tmp, "frame.png")
    src.convert("L").resize(size, Image.BOX).save(png)
    y4m = subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-loop", "1", "-i", png, "-frames:v", "1",
                          "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"], check=True, stdout=subprocess.PIPE).stdout
    header_end = y4m.index(b"\n") + 1
    frame_start = y4m.index(b"\n", header_end) + 1  # after "FRAME\n"
    w, h = size
    luma = Image.frombytes("L", (w, h), y4m[frame_start:frame_start + w * h])
    luma.crop(BOX).save(OUT, optimize=True)
report(OUT)
