#!/usr/bin/python3
"""CPU per frame of two scand builds, A/B: `perf stat -e task-clock` of `scand scan` on the bench clips,
the two builds alternated (base first in odd pairs, new first in even ones), on a machine that is noisy.
Prints each case's per-run CPU-seconds, the medians, every pair's ratio (new / base) and their median.
Issue 48's budget: each case within 5 % of the base.

Usage:
  bench/pipeline/ab_cpu.py BASE NEW --clips DIR [--pairs 5] [--cases 1280x720-codes,...]

  BASE, NEW  two scand executables (release builds).
  --clips    bench/pipeline/make_clips.py's folder (clip-WxH-{codes,both,faces}.y4m, 90 frames each).
  --cases    SIZE-KIND names; default 640x480-both,1280x720-codes,1280x720-both,1920x1080-codes.
             KIND codes: `--types codes` on the codes clip; both: `--types all` on the codes-and-faces clip;
             faces: `--types face` on the faces clip.
A file is read lossless (every frame scanned), so the task-clock covers the same frames in both builds.
"""
import argparse, os, shutil, statistics, subprocess, sys

TYPES = {"codes": "codes", "both": "all", "faces": "face"}


def cpu_seconds(binary, clip, types):
    done = subprocess.run(["perf", "stat", "-x", ",", "-e", "task-clock", binary, "scan", "-q", "--types", types, clip],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 4):
        sys.exit(f"ab_cpu: {binary} scan {clip} exited {done.returncode}:\n{done.stderr[-2000:]}")
    for line in done.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2] == "task-clock":
            return float(fields[0]) / 1000.0  # msec -> s
    sys.exit(f"ab_cpu: no task-clock in perf's output:\n{done.stderr[-2000:]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--clips", required=True)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--cases", default="640x480-both,1280x720-codes,1280x720-both,1920x1080-codes")
    options = parser.parse_args()
    if not shutil.which("perf"):
        sys.exit("ab_cpu: perf is missing (Debian: linux-perf)")
    print(f"base {options.base}\nnew  {options.new}")
    for case in options.cases.split(","):
        size, kind = case.rsplit("-", 1)
        clip = os.path.join(options.clips, f"clip-{size}-{kind}.y4m")
        if not os.path.exists(clip):
            sys.exit(f"ab_cpu: {clip} is missing (bench/pipeline/make_clips.py)")
        base, new = [], []
        for pair in range(options.pairs):
            order = [("base", options.base), ("new", options.new)]
            if pair % 2:
                order.reverse()
            for label, binary in order:
                (base if label == "base" else new).append(cpu_seconds(binary, clip, TYPES[kind]))
        ratios = [n / b for b, n in zip(base, new)]
        print(f"{case}: base {', '.join(f'{x:.2f}' for x in base)} CPU-s; new {', '.join(f'{x:.2f}' for x in new)};"
              f" medians {statistics.median(base):.2f} -> {statistics.median(new):.2f}"
              f" ({(statistics.median(new) / statistics.median(base) - 1) * 100:+.1f} %);"
              f" pair ratios {', '.join(f'{r:.3f}' for r in ratios)}, median {statistics.median(ratios):.3f}",
              flush=True)


if __name__ == "__main__":
    main()
