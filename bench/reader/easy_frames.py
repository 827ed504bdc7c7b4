#!/usr/bin/python3
"""Times scand against single-pass zbar on the easy clean frames, interleaved, wall and CPU time per frame.

Usage: /usr/bin/python3 bench/reader/easy_frames.py [--set bench/out/reader/main] [--rounds 31] [scand args...]

Easy frames are the clean frames single-pass zbar (scand --engine zbar --passes plain --no-inverted) reads
completely. Each round runs both readers once over all of them (one process each); reports the medians of the
rounds and their ratios. CPU time is the children's user + system time, less sensitive to other jobs than wall.
"""
import argparse, json, os, resource, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from score import matches  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def run(binary, args, files):
    out = subprocess.run([binary, "scan", *args, *files], capture_output=True, text=True).stdout
    reads = {}
    for line in out.splitlines():
        ev = json.loads(line)
        if ev.get("event") == "metadata":
            reads[ev["source"]] = [o.get("value") for o in ev.get("objects", [])]
    return reads


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default=os.path.join(ROOT, "bench", "out", "reader", "main"))
    ap.add_argument("--scand", default=os.path.join(ROOT, ".build", "release", "scand"))
    ap.add_argument("--rounds", type=int, default=31)
    args, extra = ap.parse_known_args()
    root = os.path.abspath(args.set)
    clean = [im for im in json.load(open(os.path.join(root, "truth.json")))["images"] if im["category"] == "clean"]
    files = [os.path.join(root, im["file"]) for im in clean]
    base = ["--engine", "zbar", "--passes", "plain", "--no-inverted"]
    got = run(args.scand, base, files)
    easy = [f for f, im in zip(files, clean) if all(any(matches(v, t) for v in got.get(f, [])) for t in im["codes"])]
    readers = [("single-pass zbar", base), ("scand " + " ".join(extra), extra)]
    wall = {n: [] for n, _ in readers}
    used = {n: [] for n, _ in readers}
    for _ in range(args.rounds):
        for name, a in readers:
            c0, t0 = cpu(), time.perf_counter()
            run(args.scand, a, easy)
            wall[name].append(1000 * (time.perf_counter() - t0) / len(easy))
            used[name].append(1000 * (cpu() - c0) / len(easy))
    print("%d easy frames, %d rounds, load average %.1f" % (len(easy), args.rounds, os.getloadavg()[0]))
    bw, bc = statistics.median(wall[readers[0][0]]), statistics.median(used[readers[0][0]])
    for name, _ in readers:
        w, c = statistics.median(wall[name]), statistics.median(used[name])
        print("%-24s wall %.2f ms/frame (ratio %.3f)  cpu %.2f ms/frame (ratio %.3f)" % (name, w, w / bw, c, c / bc))


if __name__ == "__main__":
    main()
