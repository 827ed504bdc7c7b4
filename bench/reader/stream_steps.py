#!/usr/bin/python3
"""Reading on streams: recall, frames to the first read, misreads and CPU per frame of scand's stream steps.

On a stream (video, Y4M, camera) scand runs the plain zbar pass on every frame and, when it finds nothing, one
further step (one pass image, one engine) in rotation (`--stream-steps`, docs/reader.md). This scores that mode,
not the still-image mode score.py measures: each still of the chosen categories becomes a clip of --frames
frames (fresh sensor noise and a sub-pixel shift per frame, as video_confirm.py), all clips go through one
`scand scan` per binary, and for every binary:
  recall           ground-truth codes reported in at least one frame of their clip
  first read       the mean frame index of the first right read (over the codes every binary read)
  misreads         distinct wrong values reported in any frame
  wrong frames     (clip, frame) pairs that report a wrong value
  CPU ms/frame     user+system time of the scan process over all frames (median of --repeat runs)

Usage: /usr/bin/python3 bench/reader/stream_steps.py --set bench/out/reader/heldout \\
           --scand name=path [--scand name=path ...] [--categories extra,phone,small,noise,negative] [--frames 24]
           [--scale 2 | --long-side 2592]
"""
import argparse, json, os, resource, statistics, subprocess, sys, tempfile
import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from score import matches  # noqa: E402
from video_confirm import make_clips  # noqa: E402


def run(binary, clips, extra):
    """(per-clip list of per-frame value sets, CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([binary, "scan", *extra, *clips], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode not in (0, 1):
        print("warning: %s exited %d: %s" % (binary, out.returncode, out.stderr[:300]), file=sys.stderr)
    frames = {}
    for line in out.stdout.splitlines():
        ev = json.loads(line)
        if ev.get("event") != "metadata":
            continue
        frames.setdefault(ev["source"], {})[ev.get("frame", 0)] = {o.get("value") or "" for o in ev.get("objects", [])}
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return frames, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default=os.path.join(ROOT, "bench", "out", "reader", "heldout"))
    ap.add_argument("--scand", action="append", required=True, help="name=path of a scand binary (repeatable)")
    ap.add_argument("--categories", default="extra,phone,small,noise,negative")
    ap.add_argument("--frames", type=int, default=24)
    ap.add_argument("--noise", type=float, default=3.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scand-args", default="")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="scale every still by this factor first (bilinear); 2 makes the 640x480 sets 1280x960, "
                         "a large frame for the stream steps (above streamMaximumUpscaleSide)")
    ap.add_argument("--producer", choices=["numpy", "ffmpeg", "ffmpeg-untagged"], default="numpy",
                    help="numpy (default): full-range luma with fresh noise and a sub-pixel shift per frame; ffmpeg: "
                         "`ffmpeg -loop 1 -i still -pix_fmt yuv420p -f yuv4mpegpipe`, the same picture on every frame in "
                         "limited range (XCOLORRANGE=LIMITED), as a user pipes a picture in; ffmpeg-untagged: the same "
                         "with the range tag taken out of the header, as a producer that does not say its range (the "
                         "frames reach the readers with limited range's lower contrast)")
    ap.add_argument("--long-side", type=int, default=0,
                    help="scale every still so that its long side is this many pixels (pixel-averaged, even sizes), "
                         "as a camera of that resolution would show the scene: 2592 (5 MP), 1920 (1080p). "
                         "make_photos.py's 2-12 MP photos as stream frames")
    args = ap.parse_args()
    binaries = [s.split("=", 1) for s in args.scand]
    truth = json.load(open(os.path.join(args.set, "truth.json")))
    cats = args.categories.split(",")
    images = [im for im in truth["images"] if im["category"] in cats]
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        set_dir = args.set
        if args.scale != 1 or args.long_side:
            set_dir = os.path.join(tmp, "scaled")
            for im in images:
                src = Image.open(os.path.join(args.set, im["file"]))
                dst = os.path.join(set_dir, os.path.splitext(im["file"])[0] + ".png")
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                if args.long_side:
                    k = args.long_side / max(src.size)
                    size = (2 * round(src.width * k / 2), 2 * round(src.height * k / 2))
                    src.convert("L").resize(size, Image.BOX).save(dst)
                else:
                    src.resize((round(src.width * args.scale), round(src.height * args.scale)), Image.BILINEAR).save(dst)
            images = [dict(im, file=os.path.splitext(im["file"])[0] + ".png") for im in images]
        if args.producer.startswith("ffmpeg"):
            clips = []
            for i, im in enumerate(images):
                clips.append(os.path.join(tmp, "%04d.y4m" % i))
                subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-loop", "1", "-i",
                                os.path.join(set_dir, im["file"]), "-frames:v", str(args.frames), "-pix_fmt", "yuv420p",
                                "-f", "yuv4mpegpipe", clips[-1]], check=True)
                if args.producer == "ffmpeg-untagged":
                    with open(clips[-1], "rb") as f:
                        data = f.read()
                    end = data.index(b"\n")
                    with open(clips[-1], "wb") as f:
                        f.write(data[:end].replace(b" XCOLORRANGE=LIMITED", b"") + data[end:])
        else:
            clips = make_clips(set_dir, images, tmp, args.frames, args.noise, rng)
        results = {}
        cpus = {name: [] for name, _ in binaries}
        # Interleaved: one run of each binary per round, so load drifts hit all alike.
        for r in range(args.repeat):
            for name, path in binaries:
                frames, cpu = run(path, clips, args.scand_args.split())
                cpus[name].append(cpu)
                if r == 0:
                    results[name] = frames
        total_frames = len(clips) * args.frames
        firsts = {}
        rows = []
        for name, _ in binaries:
            per_cat = {c: [0, 0] for c in cats}
            mis = 0
            wrong_frames = 0
            first = {}
            for k, (im, p) in enumerate(zip(images, clips)):
                got = results[name].get(p, {})
                for j, t in enumerate(im["codes"]):
                    per_cat[im["category"]][0] += 1
                    hits = sorted(f for f, vals in got.items() if any(matches(v, t) for v in vals))
                    if hits:
                        per_cat[im["category"]][1] += 1
                        first[(k, j)] = hits[0]
                wrong = set()
                for vals in got.values():
                    wrong |= {v for v in vals if not any(matches(v, t) for t in im["codes"])}
                mis += len(wrong)
                wrong_frames += sum(1 for vals in got.values() if any(v in wrong for v in vals))
                for v in sorted(wrong):  # which clip, which frames, for the next look
                    print("misread: %s %s %r on frames %s (truth %s)" % (
                        name, im["file"], v, sorted(f for f, vals in got.items() if v in vals),
                        [t["value"] for t in im["codes"]]), file=sys.stderr)
            firsts[name] = first
            rows.append((name, per_cat, mis, wrong_frames))
        common = set.intersection(*(set(f) for f in firsts.values())) if firsts else set()
        print("%d clips of %d frames (%s), set %s, %s" % (len(clips), args.frames, ",".join(cats), os.path.relpath(args.set, ROOT),
                                                   "long side %d px" % args.long_side if args.long_side else "scale %g" % args.scale)
              + ({"ffmpeg": ", ffmpeg's Y4M", "ffmpeg-untagged": ", ffmpeg's Y4M without its range tag"}.get(args.producer, "")))
        print("| binary | " + " | ".join(c for c in cats if c != "negative") + " | all | first read (frame, mean over %d codes all read) | misreads | wrong frames | CPU ms/frame (median of %d) |" % (len(common), args.repeat))
        print("|---" * (len(cats) + 5 - (1 if "negative" in cats else 0)) + "|")
        for name, per_cat, mis, wrong_frames in rows:
            cells = ["%d/%d" % tuple(per_cat[c][::-1]) for c in cats if c != "negative"]
            n = sum(v[0] for v in per_cat.values()); k = sum(v[1] for v in per_cat.values())
            fr = statistics.mean(firsts[name][key] for key in common) if common else float("nan")
            print("| %s | %s | %d/%d (%.1f%%) | %.2f | %d | %d | %.2f |" % (name, " | ".join(cells), k, n, 100 * k / max(1, n), fr, mis,
                                                                  wrong_frames, 1000 * statistics.median(cpus[name]) / total_frames))


if __name__ == "__main__":
    main()
