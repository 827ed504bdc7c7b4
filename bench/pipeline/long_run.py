#!/usr/bin/python3
"""Memory over a long run of the daemon (issue 7: "no growth over a 100,000-frame run").

Starts `scand run --input CLIP --loop --no-pacing --stdout` (the production process, every detector on),
reads its JSON lines, and every --every frames samples the process's resident set (VmRSS) and peak (VmHWM)
from /proc. Stops it (SIGTERM) after --frames metadata events and prints start (after --warmup frames),
end and peak RSS, and the largest RSS seen in the second half against the first half.

Usage: bench/pipeline/long_run.py [--scand PATH] [--clip Y4M] [--frames N] [--every N] [--warmup N] [-- extra scand args]
"""
import argparse, json, os, signal, subprocess, sys, time

ap = argparse.ArgumentParser()
root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ap.add_argument("--scand", default=os.path.join(root, ".build/release/scand"))
ap.add_argument("--clip", default=os.path.join(root, "bench/out/clip-640x480-both.y4m"))
ap.add_argument("--frames", type=int, default=100_000)
ap.add_argument("--every", type=int, default=2_000)
ap.add_argument("--warmup", type=int, default=1_000)
ap.add_argument("--log", help="write the samples as JSON lines here")
ap.add_argument("extra", nargs="*")
args = ap.parse_args()


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "Threads", "FDSize"):
                out[k] = int(v.split()[0])
    out["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return out


cmd = [args.scand, "run", "--input", args.clip, "--loop", "--no-pacing", "--stdout", "--types", "all"] + args.extra
import tempfile
errors = tempfile.TemporaryFile()
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, bufsize=1 << 16)
samples = []
frames = 0
seq = None
t0 = time.monotonic()
log = open(args.log, "w") if args.log else None
for line in p.stdout:
    e = json.loads(line)
    if seq is not None and e["seq"] != seq + 1:
        sys.exit(f"seq jumped from {seq} to {e['seq']}")
    seq = e["seq"]
    if e.get("event") != "metadata":
        continue
    frames += 1
    if frames == args.warmup or frames % args.every == 0 or frames == args.frames:
        s = status(p.pid)
        s.update(frames=frames, seconds=round(time.monotonic() - t0, 1))
        samples.append(s)
        if log:
            log.write(json.dumps(s) + "\n"); log.flush()
    if frames >= args.frames:
        break
p.send_signal(signal.SIGTERM)
p.stdout.read()
p.wait()
if frames < args.frames:
    errors.seek(0)
    sys.exit(f"scand stopped after {frames} frames (exit status {p.returncode}):\n" + errors.read().decode(errors="replace")[-2000:])
start, end = samples[0], samples[-1]
half = [s for s in samples if s["frames"] <= args.frames // 2]
second = [s for s in samples if s["frames"] > args.frames // 2]
print(f"{frames} frames in {end['seconds']:.0f} s ({frames / end['seconds']:.1f} fps), clip {os.path.basename(args.clip)}")
print(f"RSS at frame {start['frames']}: {start['VmRSS'] / 1024:.1f} MB; at frame {end['frames']}: {end['VmRSS'] / 1024:.1f} MB; "
      f"peak (VmHWM) {end['VmHWM'] / 1024:.1f} MB")
print(f"largest RSS, first half: {max(s['VmRSS'] for s in half) / 1024:.1f} MB; second half: {max(s['VmRSS'] for s in second) / 1024:.1f} MB")
print(f"threads {start['Threads']} -> {end['Threads']}, open fds {start['fds']} -> {end['fds']}, exit status {p.returncode}")
