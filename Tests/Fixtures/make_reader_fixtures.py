#!/usr/bin/python3
"""Writes the reader test fixtures into Tests/Fixtures/generated/reader/ (gitignored).

Run from the repository root:  /usr/bin/python3 Tests/Fixtures/make_reader_fixtures.py
Needs python3-numpy, python3-pil (Debian), zint (Debian) and segno (PyPI). Deterministic.
"""
import json, os, random, subprocess, sys, tempfile

import numpy as np
from PIL import Image
import segno

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "reader"))
import make_set  # noqa: E402  (the benchmark's renderer: same phone-screen simulation)

OUT = os.path.join(HERE, "generated", "reader")


def qr_matrix(data, **kw):
    q = segno.make_qr(data, **kw)
    return np.array([[1 if c else 0 for c in row] for row in q.matrix], dtype=np.uint8)


def render(mat, ppm, fg=0, bg=255):
    return np.where(np.kron(mat, np.ones((ppm, ppm), np.uint8)) > 0, fg, bg).astype(np.uint8)


def save(name, arr):
    Image.fromarray(arr).save(os.path.join(OUT, name))


def zint(symbology, data, scale, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "z.png")
        subprocess.run(["zint", "-b", str(symbology), "--scale=%s" % scale, "--notext", "--quietzones", *extra,
                        "-o", out, "-d", data], check=True, capture_output=True)
        im = np.array(Image.open(out).convert("L"))
    return np.pad(im, 16, constant_values=255)


def main():
    os.makedirs(OUT, exist_ok=True)
    meta = {}
    # An upright QR at 4 px/module on a mid-grey 640x480 frame.
    canvas = np.full((480, 640), 200, np.uint8)
    code = render(np.pad(qr_matrix("SCAND-CLEAN-1", error="M"), 4), 4)
    canvas[40:40 + code.shape[0], 60:60 + code.shape[1]] = code
    save("clean_qr.png", canvas)

    # Light-on-dark QR (dark mode): the code's own quiet zone is dark. Known placement for corner checks.
    mat = qr_matrix("INVERTED-42", error="M", version=2)
    n = mat.shape[0]  # 25 modules
    ppm, x0, y0 = 4, 300, 180
    canvas = np.full((480, 640), 25, np.uint8)
    canvas[y0:y0 + n * ppm, x0:x0 + n * ppm] = render(mat, ppm, fg=230, bg=25)
    save("inverted_qr.png", canvas)
    meta["inverted_qr"] = {"value": "INVERTED-42", "x": x0, "y": y0, "size": n * ppm, "width": 640, "height": 480}

    # Phone screens: the benchmark's simulation (dark mode, pixel-grid moiré, specular band, tilt).
    phones = []
    gen = make_set.Generator(77, False, None)
    i = 0
    while len(phones) < 3:
        gen.rng.random()
        canvas, truth = gen.phone(640, 480)
        if not truth.get("dark"):
            continue
        name = "phone_%d.png" % len(phones)
        save(name, np.clip(canvas, 0, 255).astype(np.uint8))
        phones.append({"file": name, "value": truth["value"]})
        i += 1
    meta["phone"] = phones

    # Phone screens under a specular band that only the upscaled-thresholded pass reads (seeds picked so;
    # ReaderTests checks that the other passes do not), one dark and one light; with the symbol's true corners.
    banded = []
    for seed in (313, 300):
        canvas, truth = make_set.Generator(seed, False, None).phone(640, 480)
        name = "phone_band_%d.png" % len(banded)
        save(name, np.clip(canvas, 0, 255).astype(np.uint8))
        c = np.array(truth["corners"])
        n = 17 + 4 * truth["version"]
        edge = np.mean([np.linalg.norm(c[i] - c[(i + 1) % 4]) for i in range(4)])
        banded.append({"file": name, "value": truth["value"], "dark": truth["dark"], "corners": truth["corners"],
                       "module": round(edge / n, 3)})
    meta["phone_band"] = banded

    # UTF-8 text without ECI, UTF-8 with an ECI designator, and binary bytes.
    utf8 = "Grüße – 東京 🙂"
    save("utf8_qr.png", np.pad(render(np.pad(qr_matrix(utf8, encoding="utf-8", error="M"), 4), 4), 20, constant_values=255))
    save("eci_qr.png", np.pad(render(np.pad(qr_matrix(utf8, encoding="utf-8", eci=True, error="M"), 4), 4), 20, constant_values=255))
    rnd = random.Random(5)
    binary = bytes([0x00, 0xFF, 0x80, 0x1B, 0xC3]) + bytes(rnd.randrange(256) for _ in range(27))
    save("binary_qr.png", np.pad(render(np.pad(qr_matrix(binary, error="M"), 4), 4), 20, constant_values=255))
    meta["utf8"] = utf8
    meta["binary_hex"] = binary.hex()

    # Formats only zxing-cpp reads.
    save("datamatrix.png", zint(71, "DM-SCAND-7", 3))
    save("aztec.png", zint(92, "AZTEC-SCAND-8", 4))
    save("pdf417.png", zint(55, "PDF417-SCAND-9", 2))
    meta["datamatrix"] = "DM-SCAND-7"; meta["aztec"] = "AZTEC-SCAND-8"; meta["pdf417"] = "PDF417-SCAND-9"
    # A QR (zbar reads it on the plain pass) and a Data Matrix (only zxing) in one frame.
    canvas = np.full((480, 640), 220, np.uint8)
    qr = render(np.pad(qr_matrix("MIXED-QR-1", error="M"), 4), 4)
    dm = zint(71, "MIXED-DM-2", 4)
    canvas[40:40 + qr.shape[0], 40:40 + qr.shape[1]] = qr
    canvas[200:200 + dm.shape[0], 300:300 + dm.shape[1]] = dm
    save("qr_and_datamatrix.png", canvas)
    meta["mixed"] = ["MIXED-QR-1", "MIXED-DM-2"]

    # GS1 DataBar: both engines report the element string with its AI, 01 + GTIN-14.
    save("databar.png", zint(29, "0061414199999", 3))
    meta["databar"] = "0100614141999996"

    # Misread filters: a short Codabar, I2/5 with and without a valid mod-10 check digit.
    save("codabar_short.png", zint(18, "A1234B", 2))
    save("i25_good_check.png", zint(3, "12345670", 2))   # 1234567 + check 0
    save("i25_bad_check.png", zint(3, "12345678", 2))
    meta["codabar_short"] = "A1234B"; meta["i25_good"] = "12345670"; meta["i25_bad"] = "12345678"

    # A Data Matrix and an Aztec code in 2048x1536 simulated phone photos (bench/reader/make_photos.py, seed 5
    # each): lens blur of several pixels, sensor noise, sharpening, JPEG. Neither is read at full or half size;
    # both are read at a quarter (the downscaled pass's pyramid on still images). One seed draws the same payload
    # for both; the test tells them apart by type.
    import make_photos
    photos = []
    for sym in ["datamatrix", "aztec"]:
        with tempfile.TemporaryDirectory() as tmp:
            img, truths, quality = make_photos.PhotoGenerator(5, False, tmp).photo(sym)
        name = "photo_%s.jpg" % sym
        img.save(os.path.join(OUT, name), quality=quality)
        photos.append({"file": name, "type": truths[0]["type"], "value": truths[0]["value"],
                       "corners": truths[0]["corners"], "width": img.size[0], "height": img.size[1]})
    meta["photos"] = photos
    # A Data Matrix in a 2592x1944 simulated photo (make_photos.py, seed 66) that the downscaled pass reads at a
    # third of the size and at no halving (½, ¼, ⅛); PyPI zxing-cpp 3.1.1 with its defaults reads nothing there.
    with tempfile.TemporaryDirectory() as tmp:
        img, truths, quality = make_photos.PhotoGenerator(66, False, tmp).photo("datamatrix")
    img.save(os.path.join(OUT, "photo_third_datamatrix.jpg"), quality=quality)
    meta["photo_third"] = {"file": "photo_third_datamatrix.jpg", "type": truths[0]["type"], "value": truths[0]["value"],
                           "corners": truths[0]["corners"], "width": img.size[0], "height": img.size[1]}

    # An Aztec code in a 1600x1200 simulated photo (make_photos.py, seed 143) that no level of the pyramid reads
    # (full, ½, ⅓, ¼, nor any other pass), and the ladder for 2-D codes reads at 2^(-5/4) of the size (673 px);
    # PyPI zxing-cpp 3.1.1 with its defaults reads nothing there either.
    with tempfile.TemporaryDirectory() as tmp:
        img, truths, quality = make_photos.PhotoGenerator(143, False, tmp).photo("aztec")
    img.save(os.path.join(OUT, "photo_ladder_aztec.jpg"), quality=quality)
    meta["photo_ladder"] = {"file": "photo_ladder_aztec.jpg", "type": truths[0]["type"], "value": truths[0]["value"],
                            "corners": truths[0]["corners"], "width": img.size[0], "height": img.size[1]}

    # A PDF417 in a 1944x2592 simulated photo (make_photos.py, seed 308) that zxing-cpp misreads on one level of
    # the ladder (2^(-9/4) of the size: "KQ3 chSLQWGWNQCGBJMOSAHK" for "VRX 3 chSLQb PEeE") and at no size near it.
    with tempfile.TemporaryDirectory() as tmp:
        img, truths, quality = make_photos.PhotoGenerator(308, False, tmp).photo("pdf417")
    img.save(os.path.join(OUT, "photo_ladder_pdf417.jpg"), quality=quality)
    meta["photo_ladder_pdf417"] = {"file": "photo_ladder_pdf417.jpg", "value": truths[0]["value"]}
    # A PDF417 in a 1944x2592 simulated photo (seed 311) that only the ladder reads, and at sizes near it too.
    with tempfile.TemporaryDirectory() as tmp:
        img, truths, quality = make_photos.PhotoGenerator(311, False, tmp).photo("pdf417")
    img.save(os.path.join(OUT, "photo_ladder_pdf417_right.jpg"), quality=quality)
    meta["photo_ladder_pdf417_right"] = {"file": "photo_ladder_pdf417_right.jpg", "value": truths[0]["value"]}

    # 1-D codes in simulated photos (make_photos.py, seeds 7001, 7002, 7008) whose scan lines' box covers under
    # an eighth of the symbol: the reported corners are followed to the bars' ends (LinearExtentTests).
    meta["photo_linear"] = single_code_photos("photo_linear", [(7001, "ean13"), (7002, "code128"), (7008, "ean13")])
    # Codes in simulated photos that neither engine reads at full size and zxing-cpp reads on the plain pass's
    # copy at a third of the size (StillReader.plainLayerReads): an EAN-13 (seed 9001) that zbar confirms on that
    # copy, and a PDF417 (seed 9200) read again at a size near it (PlainLayerTests).
    meta["photo_layer"] = single_code_photos("photo_layer", [(9001, "ean13"), (9200, "pdf417")])

    with open(os.path.join(OUT, "fixtures.json"), "w") as f:
        json.dump(meta, f, ensure_ascii=False, indent=1)
    print("reader fixtures in %s" % OUT, file=sys.stderr)


def single_code_photos(prefix, seeds):
    """make_photos.py photos of one code each, for (seed, symbology) pairs, saved as PREFIX_SEED_SYMBOLOGY.jpg;
    returns their entries for fixtures.json (file, type, value, the symbol's corners, width, height)."""
    import make_photos
    out = []
    for seed, sym in seeds:
        with tempfile.TemporaryDirectory() as tmp:
            img, truths, quality = make_photos.PhotoGenerator(seed, False, tmp).photo(sym)
        name = "%s_%d_%s.jpg" % (prefix, seed, sym)
        img.save(os.path.join(OUT, name), quality=quality)
        out.append({"file": name, "type": truths[0]["type"], "value": truths[0]["value"],
                    "corners": truths[0]["corners"], "width": img.size[0], "height": img.size[1]})
    return out


if __name__ == "__main__":
    main()
