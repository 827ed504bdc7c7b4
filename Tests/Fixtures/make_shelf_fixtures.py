#!/usr/bin/python3
"""Writes the shelf-code misread fixtures into a directory (default Tests/Fixtures/generated/shelf/, gitignored).

Run from anywhere:  /usr/bin/python3 Tests/Fixtures/make_shelf_fixtures.py [OUT]
The tests run it themselves when the fixtures are missing. Needs Debian zint, python3-numpy, python3-pil and
python3-segno (imported by the benchmark generator). Deterministic.

Frames of the benchmark's shelf set (bench/reader/make_shelf.py, seed 4242), each regenerated on its own:
blurred low-resolution EAN-13 codes that scand's base (cea8533) misread as other digits with a valid check
digit, and two it read right only on its upscaled pass (which confirmation must keep). `cases.json` gives each
file, its true digits and, for the misreads, the wrong digits the base reported.
"""
import json, os, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "reader"))
from make_shelf import make_frame  # noqa: E402

OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(HERE, "generated", "shelf")
SEED = 4242
# index in the shelf set, what the base read (None: nothing wrong), the pass that read it
CASES = [
    (26, ["2841098582614"], "upscaled"),
    (111, ["0241721716324"], "upscaled"),  # the base read the right digits too
    (31, ["4782218023700"], "plain"),
    (30, None, "upscaled"),
    (39, None, "upscaled"),  # was 155 (a UPC-E), which zxing-cpp 3.1 reads on the plain pass
]


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for index, wrong, where in CASES:
            im, codes = make_frame(SEED, index, False, False, tmp)
            name = "shelf-%03d.png" % index
            im.save(os.path.join(OUT, name))
            code = codes[0]
            cases.append({"file": name, "type": code["type"], "symbology": code["symbology"], "value": code["value"],
                          "baseMisreads": wrong or [], "pass": where, "ppm": code["ppm"]})
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    main()
