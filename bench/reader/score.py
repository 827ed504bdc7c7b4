#!/usr/bin/python3
"""Scores scand against zbarimg and zxing-cpp on the set written by make_set.py, in the same run.

Usage:
  /usr/bin/python3 bench/reader/score.py [--set bench/out/reader/main] [--scand .build/release/scand]
         [--repeat 3] [--ablations] [--json results.json]

For each reader and category: recall (ground-truth codes read with the right value), misreads (a value
that is not in the frame: wrong value, or a value where there is none), and time per image (each reader
gets one process per category over all of its images; the median of --repeat runs, divided by the image
count). Readers:
  scand            the release build, defaults (--engine both, every pass)
  scand-zbar-1pass scand --engine zbar --passes plain --no-inverted (single-pass zbar, the timing baseline)
  zbarimg          zbar's command-line tool, defaults (zbar-tools)
  zxing-cpp        PyPI zxing-cpp's read_barcodes with its defaults, in-process (the accuracy anchor)
--ablations adds scand variants (engines, passes, misread settings) for the tables in docs/reader.md.
--per-code A,B compares two of the readers code by code: how many codes both read, only A, only B and
neither, and which codes only one of them read (file, symbology, value), with each one's misreads.
"""
import argparse, base64, json, os, re, statistics, subprocess, sys, time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def norm(s):
    return s.replace("(", "").replace(")", "").replace("\x1d", "").strip()


def matches(pred, truth):
    p, t = norm(pred), norm(truth["value"])
    if p == t:
        return True
    sym = truth["symbology"]
    if sym == "codabar":
        strip = lambda s: s.upper().strip("ABCDTN*E")
        return strip(p) == strip(t)
    if sym == "upca" and p == t[1:]:
        return True
    if sym == "upce" and len(t) == 8 and p in upce_expanded(t):
        return True
    return False


def upce_expanded(t):
    """The 12-digit UPC-A and 13-digit EAN-13 forms of the 8-digit UPC-E `t` (zxing-cpp 3.x reports UPC-E as
    EAN-13; the issue counts either form as right)."""
    from make_set import upce_to_upca  # the generator's expansion (imported here: it pulls in numpy and PIL)
    upca = upce_to_upca(t[0], t[1:7]) + t[7]
    return (upca, "0" + upca)


def scand_reader(binary, extra):
    def run(files):
        out = subprocess.run([binary, "scan", *extra, *files], capture_output=True, text=True)
        if out.returncode != 0:
            print("warning: scand %s exited %d: %s" % (" ".join(extra), out.returncode, out.stderr[:300]), file=sys.stderr)
        reads = {}
        for line in out.stdout.splitlines():
            ev = json.loads(line)
            if ev.get("event") != "metadata":
                continue
            vals = []
            for o in ev.get("objects", []):
                v = o.get("value")
                if v is None and "bytes" in o:
                    v = base64.b64decode(o["bytes"]).decode("utf-8", "replace")
                vals.append(v or "")
            reads[ev["source"]] = vals
        return reads
    return run


def zbarimg_reader(files):
    # bytes, not text=True: universal newlines would turn the CR LF of a payload into LF
    out = subprocess.run(["zbarimg", "--xml", "-q", *files], capture_output=True)
    reads = {f: [] for f in files}
    try:
        # An XML parser turns CR LF into LF (XML 1.0, 2.11): keep zbar's CRs through the parse.
        root = ET.fromstring(out.stdout.decode("utf-8", "replace").replace("\r", "\ue00d"))
    except ET.ParseError:
        return reads
    ns = "{http://zbar.sourceforge.net/2008/barcode}"
    for src in root.iter(ns + "source"):
        vals = []
        for sym in src.iter(ns + "symbol"):
            d = sym.find(ns + "data")
            text = d.text or ""
            if d.get("format") == "base64":
                text = base64.b64decode(text).decode("utf-8", "replace")
            vals.append(text.replace("\ue00d", "\r"))
        reads[src.get("href")] = vals
    return reads


def zxingcpp_reader(files):
    import zxingcpp
    from PIL import Image
    reads = {}
    for f in files:
        res = zxingcpp.read_barcodes(Image.open(f))
        reads[f] = [r.text for r in res]
    return reads


def score(reads, images, root):
    per = {}
    for im in images:
        c = per.setdefault(im["category"], {"codes": 0, "read": 0, "misreads": 0, "images": 0})
        c["images"] += 1
        vals = reads.get(os.path.join(root, im["file"]), [])
        c["codes"] += len(im["codes"])
        for t in im["codes"]:
            if any(matches(v, t) for v in vals):
                c["read"] += 1
        seen = set()
        for v in vals:
            if v in seen:
                continue
            seen.add(v)
            if not any(matches(v, t) for t in im["codes"]):
                c["misreads"] += 1
    return per


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default=os.path.join(ROOT, "bench", "out", "reader", "main"))
    ap.add_argument("--scand", default=os.path.join(ROOT, ".build", "release", "scand"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ablations", action="store_true")
    ap.add_argument("--only", default=None, help="comma-separated reader names to run")
    ap.add_argument("--categories", default=None, help="comma-separated categories to score")
    ap.add_argument("--json", default=None)
    ap.add_argument("--per-code", default=None, metavar="A,B",
                    help="compare two readers code by code (e.g. scand,zxing-cpp); both must be among the readers run")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=BINARY [FLAGS]",
                    help="another scand binary scored in the same run with defaults (e.g. base=/tmp/scand-main)")
    args = ap.parse_args()
    root = os.path.abspath(args.set)
    truth = json.load(open(os.path.join(root, "truth.json")))
    images = truth["images"]
    if args.categories:
        keep = set(args.categories.split(","))
        images = [im for im in images if im["category"] in keep]
    cats = []
    for im in images:
        if im["category"] not in cats:
            cats.append(im["category"])
    readers = [
        ("scand", scand_reader(args.scand, [])),
        ("scand-zbar-1pass", scand_reader(args.scand, ["--engine", "zbar", "--passes", "plain", "--no-inverted"])),
        ("zbarimg", zbarimg_reader),
        ("zxing-cpp", zxingcpp_reader),
    ]
    for spec in args.also:
        # NAME=BINARY, optionally followed by flags: "confirm=.build/release/scand --confirm-transformed".
        name, _, command = spec.partition("=")
        binary, *flags = command.split()
        readers.insert(1, (name, scand_reader(binary, flags)))
    if args.ablations:
        S = lambda *a: scand_reader(args.scand, list(a))
        readers += [
            ("zbar", S("--engine", "zbar")),
            ("zxing", S("--engine", "zxing")),
            ("plain+inverted", S("--no-extra-passes")),
            ("no-downscaled", S("--passes", "plain,inverted,upscaled,thresholded,deskewed,upscaled-thresholded")),
            ("no-upscaled", S("--passes", "plain,inverted,downscaled,thresholded,deskewed,upscaled-thresholded")),
            ("no-thresholded", S("--passes", "plain,inverted,downscaled,upscaled,deskewed,upscaled-thresholded")),
            ("no-deskewed", S("--passes", "plain,inverted,downscaled,upscaled,thresholded,upscaled-thresholded")),
            ("no-upscaled-thresholded", S("--passes", "plain,inverted,downscaled,upscaled,thresholded,deskewed")),
            ("codabar4+i25-4", S("--codabar-min-length", "4", "--i25-min-length", "4")),
            ("i25-checksum", S("--i25-checksum")),
            ("min-quality-0", S("--min-linear-quality", "0")),
            ("min-quality-3", S("--min-linear-quality", "3")),
            ("uncertainty-0", S("--zbar-uncertainty", "0")),
            ("uncertainty-3", S("--zbar-uncertainty", "3")),
        ]
    if args.only:
        keep = set(args.only.split(","))
        readers = [r for r in readers if r[0] in keep]
    if args.per_code:
        pair = args.per_code.split(",")
        if len(pair) != 2 or not all(n in [r[0] for r in readers] for n in pair):
            ap.error("--per-code wants two of the readers run: %s" % ", ".join(r[0] for r in readers))
    results = {}
    all_reads = {}
    for name, fn in readers:
        reads = {}
        times = {}
        for cat in cats:
            files = [os.path.join(root, im["file"]) for im in images if im["category"] == cat]
            ts = []
            for _ in range(max(1, args.repeat)):
                t0 = time.perf_counter()
                r = fn(files)
                ts.append((time.perf_counter() - t0) / len(files))
            reads.update(r)
            times[cat] = statistics.median(ts)
        per = score(reads, images, root)
        results[name] = {"categories": per, "time": times}
        all_reads[name] = reads
        print("done %s" % name, file=sys.stderr)
    # table
    names = [n for n, _ in readers]
    if not names:
        return
    print("| category | codes | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for cat in cats:
        row = [cat, str(results[names[0]]["categories"][cat]["codes"])]
        for n in names:
            c = results[n]["categories"][cat]
            row.append("%.0f%%" % (100.0 * c["read"] / c["codes"]) if c["codes"] else "–")
        print("| " + " | ".join(row) + " |")
    def overall(n, cats_):
        codes = sum(results[n]["categories"][c]["codes"] for c in cats_)
        read = sum(results[n]["categories"][c]["read"] for c in cats_)
        return 100.0 * read / codes if codes else 0
    zbar_cats = [c for c in cats if c not in ("extra", "negative", "shelf-negative")]
    print("| **overall (zbar symbologies)** | %d | " % sum(results[names[0]]["categories"][c]["codes"] for c in zbar_cats)
          + " | ".join("**%.1f%%**" % overall(n, zbar_cats) for n in names) + " |")
    print("| misreads (all images) | | " + " | ".join(str(sum(results[n]["categories"][c]["misreads"] for c in cats)) for n in names) + " |")
    for cat in ("clean", "phone", "negative"):
        if cat in cats:
            print("| ms/image, %s | | " % cat + " | ".join("%.1f" % (1000 * results[n]["time"][cat]) for n in names) + " |")
    print("| ms/image, all (mean of categories) | | " + " | ".join("%.1f" % (1000 * statistics.mean(results[n]["time"].values())) for n in names) + " |")
    # Easy frames: the clean frames single-pass zbar reads completely. Here scand's extra passes never run,
    # so its time per frame should match single-pass zbar's. Interleaved runs, median of --repeat (at least 5).
    if "scand" in results and "scand-zbar-1pass" in results and "clean" in cats:
        base = scand_reader(args.scand, ["--engine", "zbar", "--passes", "plain", "--no-inverted"])
        clean = [im for im in images if im["category"] == "clean"]
        files = [os.path.join(root, im["file"]) for im in clean]
        got = base(files)
        easy = [os.path.join(root, im["file"]) for im in clean
                if all(any(matches(v, t) for v in got.get(os.path.join(root, im["file"]), [])) for t in im["codes"])]
        full = scand_reader(args.scand, [])
        tb, tf = [], []
        for _ in range(max(5, args.repeat)):
            for fn, acc in ((base, tb), (full, tf)):
                t0 = time.perf_counter(); fn(easy); acc.append((time.perf_counter() - t0) / len(easy))
        mb, mf = statistics.median(tb), statistics.median(tf)
        print("\neasy clean frames (%d, read by single-pass zbar): scand %.1f ms/frame, single-pass zbar %.1f ms/frame, ratio %.3f"
              % (len(easy), 1000 * mf, 1000 * mb, mf / mb))
        results["easy-clean"] = {"frames": len(easy), "scand_ms": 1000 * mf, "zbar_1pass_ms": 1000 * mb, "ratio": mf / mb}
    if args.per_code:
        results["per-code"] = per_code(all_reads, *args.per_code.split(","), images=images, root=root)
    if args.json:
        json.dump(results, open(args.json, "w"), indent=1)


def per_code(all_reads, a, b, images, root):
    """Prints and returns the code-by-code comparison of readers a and b (see --per-code)."""
    counts = {"both": 0, a + " only": 0, b + " only": 0, "neither": 0}
    lines = []
    for im in images:
        path = os.path.join(root, im["file"])
        va, vb = all_reads[a].get(path, []), all_reads[b].get(path, [])
        for t in im["codes"]:
            ra, rb = any(matches(v, t) for v in va), any(matches(v, t) for v in vb)
            key = "both" if ra and rb else (a + " only") if ra else (b + " only") if rb else "neither"
            counts[key] += 1
            if ra != rb:
                lines.append("%s only: %s %s %r" % (a if ra else b, im["file"], t["symbology"], t["value"][:40]))
        for name, vals in ((a, va), (b, vb)):
            for v in sorted(set(vals)):
                if not any(matches(v, t) for t in im["codes"]):
                    lines.append("%s misread: %s %r" % (name, im["file"], v[:40]))
    print("\nper code, %s against %s: " % (a, b) + ", ".join("%s %d" % kv for kv in counts.items()))
    for line in lines:
        print("  " + line)
    return counts


if __name__ == "__main__":
    main()
