#!/usr/bin/python3
"""Writes the transformed-pass misread fixtures into a directory (default Tests/Fixtures/generated/transformed/,
gitignored).

Run from anywhere:  /usr/bin/python3 Tests/Fixtures/make_transformed_fixtures.py [OUT]
The tests run it themselves when the fixtures are missing. Needs Debian zint, python3-numpy, python3-pil and
python3-segno. Deterministic (about 15 s: the generator's frames come in sequence, so the frames before these
are made and thrown away).

Two frames of the benchmark's held-out synthetic set (bench/reader/make_set.py --heldout, seed 9001) that
scand 23b8ae1 misread, each on a transformed pass and with nothing else reading its symbol that way:
- perspective/022: an ITF-14 read as the 8-digit Interleaved 2 of 5 "78640255" (its prefix) on the upscaled
  pass, on 2 scan lines;
- blur/029: a UPC-A read as the UPC-E "04018218" on the downscaled pass, on 5 scan lines (the upscaled pass
  reads the UPC-A's right digits on 2).
And two frames of a held-out shelf set (bench/reader/make_shelf.py --heldout --seed 778) where zxing-cpp, on the
plain pass, reads one blurred UPC-E two ways on different rows, and 23b8ae1 reported both:
- shelf778-059: 07284151 (right, 7 lines) and 12284117 (3 lines);
- shelf778-077: 02867124 (right, 5 lines) and 02861784 (2 lines).
`cases.json` gives each file, its true value and type, and the wrong value 23b8ae1 reported.
"""
import json, os, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "reader"))
import make_set  # noqa: E402
import make_shelf  # noqa: E402

OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(HERE, "generated", "transformed")
SEED = 9001
# (category, index) in the held-out set, the value 23b8ae1 reported, the pass it came from
CASES = {("perspective", 22): ("78640255", "upscaled"), ("blur", 29): ("04018218", "downscaled")}
# shelf frames (seed 778, held-out parameters): index, the wrong value, the pass
SHELF_SEED = 778
SHELF = [(59, "12284117", "plain"), (77, "02861784", "plain")]


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []
    last = max(make_set.CATEGORIES.index(c) for c, _ in CASES)
    with tempfile.TemporaryDirectory() as tmp:
        gen = make_set.Generator(SEED, True, tmp)
        # make_set.main's loop, up to the last category needed: the same random sequence, so the same frames.
        for cat in make_set.CATEGORIES[:last + 1]:
            syms = make_set.EXTRA if cat == "extra" else ["qr"] if cat == "phone" else make_set.ZBAR_SYMS
            for i in range(39):
                sym = "qr" if (i % 3 == 0 and cat not in ("extra",)) else syms[i % len(syms)]
                img, codes = gen.frame(cat, sym)
                if (cat, i) not in CASES:
                    continue
                wrong, where = CASES[(cat, i)]
                name = "%s-%03d.png" % (cat, i)
                img.save(os.path.join(OUT, name))
                code = codes[0]
                cases.append({"file": name, "type": code["type"], "symbology": code["symbology"],
                              "value": code["value"], "baseMisreads": [wrong], "pass": where})
        for index, wrong, where in SHELF:
            img, codes = make_shelf.make_frame(SHELF_SEED, index, False, True, tmp)
            name = "shelf778-%03d.png" % index
            img.save(os.path.join(OUT, name))
            code = codes[0]
            cases.append({"file": name, "type": code["type"], "symbology": code["symbology"],
                          "value": code["value"], "baseMisreads": [wrong], "pass": where})
    assert len(cases) == len(CASES) + len(SHELF), cases
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    main()
