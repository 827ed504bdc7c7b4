#!/usr/bin/python3
"""Writes the deskewed-pass fixtures into a directory (default Tests/Fixtures/generated/deskew/, gitignored).

Run from anywhere:  /usr/bin/python3 Tests/Fixtures/make_deskew_fixtures.py [OUT]
The tests run it themselves when the fixtures are missing. Needs Debian zint, python3-numpy, python3-pil and
python3-segno. Deterministic (a few seconds).

- `tilted-*.png`: one 1-D code each (the benchmark's renderer, bench/reader/make_set.py: zint bars 30 modules
  high plus a 5-module margin, 3 pixels per module) pasted at a tilt between 20 and 70 degrees, where no
  horizontal or vertical line crosses the whole symbol, on the benchmark's textured background. `cases.json`
  (a list; `kind` "tilted") gives each file's type, value, tilt and the symbol's four corners (frame pixels,
  top-left first, as pasted).
- `fragment.png`: frame rotated/008 of the benchmark's held-out synthetic set (make_set.py --heldout, seed 9002):
  an Interleaved 2 of 5 "56903922" at about 20 degrees that zbar's plain pass reads as "903922" on 2 scan
  lines (scand bd00836 reported that); `kind` "fragment", with `baseMisread`.
"""
import json, os, random, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "reader"))
import make_set  # noqa: E402

OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(HERE, "generated", "deskew")
# (symbology, tilt in degrees)
TILTED = [("i25", 24), ("code39", 37), ("code128", 52), ("codabar", 63), ("ean13", 141), ("itf14", 118),
          ("code93", 208), ("i25", 316)]
FRAGMENT_SEED, FRAGMENT = 9002, ("rotated", 8)


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        gen = make_set.Generator(4711, False, tmp)
        for n, (sym, tilt) in enumerate(TILTED):
            img, truth = gen.symbol(sym, 3.0, fg=20, bg=240)
            canvas = make_set.background(640, 480, random.Random(100 + n), level=170)
            corners = make_set.paste(canvas, img, gen.rng, angle=tilt, scale_jitter=False, pos=(320, 240))
            name = "tilted-%d-%s-%d.png" % (n, sym, tilt)
            make_set.Image.fromarray(make_set.np.clip(canvas, 0, 255).astype(make_set.np.uint8)).save(os.path.join(OUT, name))
            cases.append({"kind": "tilted", "file": name, "type": truth["type"], "value": truth["value"], "tilt": tilt,
                          "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners]})
        # make_set.main's loop up to the fragment's frame: the same random sequence, so the same frame.
        gen = make_set.Generator(FRAGMENT_SEED, True, tmp)
        fragment = None
        for cat in make_set.CATEGORIES[:make_set.CATEGORIES.index(FRAGMENT[0]) + 1]:
            syms = make_set.ZBAR_SYMS
            for i in range(39):
                sym = "qr" if i % 3 == 0 else syms[i % len(syms)]
                img, codes = gen.frame(cat, sym)
                if (cat, i) == FRAGMENT:
                    img.save(os.path.join(OUT, "fragment.png"))
                    fragment = {"kind": "fragment", "file": "fragment.png", "type": codes[0]["type"], "value": codes[0]["value"],
                                "baseMisread": "903922"}
                    break
            if fragment:
                break
    assert fragment and fragment["value"] == "56903922", fragment
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases + [fragment], f, indent=1)


if __name__ == "__main__":
    main()
