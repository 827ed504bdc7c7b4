#!/usr/bin/env python3
"""Issue 49's memory target: peak RSS of one `scand run` with 1, 2, 3 and 4 cameras on the same clip (paced,
codes + faces), measured by /usr/bin/time -f %M (a small parent: see ARCHITECTURE.md on ru_maxrss), --runs
times each; prints the medians and what each added camera costs (target: <= 60 MB).

    bench/cameras/rss.py --scand .build/release/scand --clip /tmp/bclips/clip-640x480-both.y4m
"""
import argparse, statistics, subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--scand", default=".build/release/scand")
ap.add_argument("--clip", required=True)
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--max-cameras", type=int, default=4)
ap.add_argument("--types", default="qr,ean13,code128,face")
a = ap.parse_args()

peaks = {}
for run in range(a.runs):
    for n in range(1, a.max_cameras + 1):  # alternated: 1, 2, 3, 4, 1, 2, …
        args = [a.scand, "run", "--types", a.types, "--stdout", "--no-metadata"]
        for i in range(n):
            args += ["--camera", f"c{i}={a.clip}"]
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, check=True)
        peaks.setdefault(n, []).append(int(r.stderr.strip().splitlines()[-1]) / 1024)
med = {n: statistics.median(v) for n, v in peaks.items()}
for n in sorted(med):
    step = f", +{med[n] - med[n - 1]:.1f} MB for camera {n}" if n > 1 else ""
    print(f"{n} camera(s): peak RSS {med[n]:.1f} MB (median of {a.runs}){step}")
n = max(med)
print(f"per added camera: {(med[n] - med[1]) / (n - 1):.1f} MB on average")
