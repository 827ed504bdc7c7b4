#!/usr/bin/env python3
"""Issue 49's stall target, as a user runs it: three cameras in one `scand run`, two paced clips and a FIFO
whose writer stops sending halfway (the pipe stays open). Prints each running camera's processed rate (its
metadata events per second) before and after the stall, and the ratio (target: >= 0.90).

    bench/cameras/stall.py --scand .build/release/scand --clip /tmp/bclips/clip-640x480-both.y4m
"""
import argparse, json, os, subprocess, sys, tempfile, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("--scand", default=".build/release/scand")
ap.add_argument("--clip", required=True, help="a Y4M clip (bench/pipeline/make_clips.py)")
ap.add_argument("--seconds", type=float, default=20, help="run length; the FIFO stalls at half of it")
ap.add_argument("--types", default="qr,ean13,code128,face")
a = ap.parse_args()

data = open(a.clip, "rb").read()
header, *frames = data.split(b"FRAME")
fps = 30.0
for tok in header.split():
    if tok.startswith(b"F") and b":" in tok:
        n, d = tok[1:].split(b":")
        fps = int(n) / int(d)
with tempfile.TemporaryDirectory() as tmp:
    fifo = os.path.join(tmp, "pipe.y4m")
    os.mkfifo(fifo)
    # --loop cannot repeat a FIFO: the clips loop through their own entries of a config file.
    config = os.path.join(tmp, "scand.json")
    json.dump({"types": a.types.split(","), "stdout": True, "stallTimeout": 1,
               "cameras": {"a": {"input": a.clip, "loop": True}, "b": {"input": a.clip, "loop": True},
                           "stall": {"input": fifo}}}, open(config, "w"))
    p = subprocess.Popen([a.scand, "run", "--config", config], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def writer():
        f = os.open(fifo, os.O_WRONLY)
        os.write(f, header)
        start, i = time.monotonic(), 0
        while time.monotonic() - start < a.seconds / 2:
            os.write(f, b"FRAME" + frames[i % len(frames)])
            i += 1
            time.sleep(max(0, start + i / fps - time.monotonic()))
        time.sleep(a.seconds)  # stalled: open, silent
        os.close(f)

    threading.Thread(target=writer, daemon=True).start()
    events = []
    start = time.time()
    for line in p.stdout:
        e = json.loads(line)
        events.append(e)
        if time.time() - start > a.seconds:
            break
    p.terminate()
    p.wait()

stalled = next((e["timestamp"] for e in events if e.get("kind") == "wasInterrupted"), None)
if stalled is None:
    sys.exit("the FIFO camera was never reported stalled")
first = min(e["timestamp"] for e in events if "timestamp" in e)
last = max(e["timestamp"] for e in events if "timestamp" in e)
for cam in ["a", "b"]:
    ts = [e["timestamp"] for e in events if e.get("camera") == cam and e.get("event") == "metadata"]
    # Skip the first second (start-up) and the second around the stall (the timeout itself).
    before = [t for t in ts if first + 1 <= t < stalled - 1]
    after = [t for t in ts if stalled < t <= last]
    rb = len(before) / max(1e-9, (stalled - 1) - (first + 1))
    ra = len(after) / max(1e-9, last - stalled)
    print(f"camera {cam}: {rb:.1f} fps before the stall, {ra:.1f} fps after; ratio {ra / rb:.2f}")
print(f"stall reported {stalled - first:.1f} s after the start")
