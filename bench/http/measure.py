#!/usr/bin/python3
"""The cost of the live page (issue 17), measured on a running `scand run --http`:

1. No viewer: JPEG encodings stay 0 (`scand_jpeg_encodes_total`) while frames are processed.
2. Detection fps at 1280x720 with 0 viewers vs 10 MJPEG viewers reading the stream, and vs 10 MJPEG plus
   10 WebSocket clients that connect and never read (stalled). The source is replayed with --no-pacing:
   frames are handed to detection losslessly, so processed frames per second is detection throughput.
   Runs alternate (base, viewers, stalled, base, ...) so drift on this shared machine hits all alike;
   the figure is the median of per-run ratios against the baseline run just before. Also scand's own CPU
   time per processed frame (/proc), which other load on a shared machine disturbs far less.
3. Frame -> viewer latency with one viewer at the clip's own rate (paced, 15 fps): wall clock when the
   part arrives minus the part's X-Scand-Timestamp (capture time), median and 95th percentile. The page
   adds its JPEG decode and draw (createImageBitmap, a few ms) on top; http_page_check.py reports the
   page's own median.

usage: bench/http/measure.py [--scand .build/release/scand] [--runs 5] [--seconds 6]
Needs python3-segno, python3-pil, python3-websocket (Debian).
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import websocket

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
ap = argparse.ArgumentParser()
ap.add_argument("--scand", default=os.path.join(root, ".build/release/scand"))
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--seconds", type=float, default=6)
args = ap.parse_args()

tmp = tempfile.mkdtemp(prefix="scand-bench-http-")
clip = os.path.join(tmp, "clip720.y4m")
# 1280x720, a QR code at (500, 200), 60 frames (replayed in a loop).
subprocess.run(["/usr/bin/python3", os.path.join(root, "Tests/Fixtures/make_http_clip.py"), clip, "1280", "720", "500", "200",
                "12", "60"], check=True, stdout=subprocess.DEVNULL)


def start(pacing):
    err = open(os.path.join(tmp, "err.log"), "w")
    cmd = [args.scand, "run", "--input", clip, "--loop", "--no-stdout", "--log-level", "notice", "--http", "127.0.0.1:0"]
    if not pacing:
        cmd.append("--no-pacing")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.time() + 20
    while time.time() < deadline:
        m = re.search(r"port=(\d+) \[ScanHTTP\] http listening", open(err.name).read())
        if m:
            return p, "http://127.0.0.1:" + m.group(1)
        time.sleep(0.1)
    p.kill()
    sys.exit("scand did not start: " + open(err.name).read())


def metric(base, name):
    body = urllib.request.urlopen(base + "/metrics", timeout=10).read().decode()
    for line in body.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


class Viewer(threading.Thread):
    """Reads /stream.mjpg as fast as it comes (read=True) or never reads after the request (read=False)."""
    def __init__(self, base, read=True):
        super().__init__(daemon=True)
        host, port = base[7:].split(":")
        self.sock = socket.create_connection((host, int(port)))
        if not read:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.sendall(b"GET /stream.mjpg HTTP/1.1\r\nHost: x\r\n\r\n")
        self.read, self.stop, self.parts, self.latencies = read, False, 0, []
        if read:
            self.start()

    def run(self):
        buf = b""
        while not self.stop:
            try:
                data = self.sock.recv(1 << 16)
            except OSError:
                return
            if not data:
                return
            now = time.time()
            buf += data
            while True:
                m = re.search(rb"X-Scand-Timestamp: ([0-9.]+)\r\n", buf)
                if not m:
                    break
                self.latencies.append(now - float(m.group(1)))
                self.parts += 1
                buf = buf[m.end():]
            buf = buf[-200:]

    def close(self):
        self.stop = True
        self.sock.close()


def cpu_seconds(pid):
    """scand's user + system CPU time so far (all its threads), from /proc."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fps_with(base, setup):
    """Processed frames per wall second, and scand's CPU seconds per processed frame (less sensitive to
    other load on a shared machine than the wall-clock rate)."""
    clients = setup(base)
    time.sleep(1)  # settle
    a, t0, c0 = metric(base, "scand_frames_processed_total"), time.time(), cpu_seconds(proc.pid)
    time.sleep(args.seconds)
    b, t1, c1 = metric(base, "scand_frames_processed_total"), time.time(), cpu_seconds(proc.pid)
    for c in clients:
        c.close()
    time.sleep(0.5)
    return (b - a) / (t1 - t0), (c1 - c0) / max(b - a, 1)


def viewers(n):
    return lambda base: [Viewer(base) for _ in range(n)]


def stalled(n):
    def make(base):
        out = [Viewer(base, read=False) for _ in range(n)]
        for _ in range(n):
            w = websocket.create_connection(base.replace("http", "ws") + "/events", timeout=10)
            w.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            w.stop = False
            out.append(type("W", (), {"close": lambda self, w=w: w.sock.close()})())
        return out
    return make


result = {"clip": "1280x720 grey Y4M, one QR code, replayed with --no-pacing", "runs": args.runs, "seconds": args.seconds}
proc, base = start(pacing=False)
try:
    time.sleep(2)
    e0 = metric(base, "scand_jpeg_encodes_total")
    p0 = metric(base, "scand_frames_processed_total")
    time.sleep(3)
    result["noViewer"] = {"framesProcessed": metric(base, "scand_frames_processed_total") - p0,
                          "jpegEncodes": metric(base, "scand_jpeg_encodes_total") - e0}
    runs = {"base": [], "viewers10": [], "stalled10+10": []}
    cpu = {"base": [], "viewers10": [], "stalled10+10": []}
    for _ in range(args.runs):
        for name, setup in (("base", lambda b: []), ("viewers10", viewers(10)), ("stalled10+10", stalled(10))):
            fps, per_frame = fps_with(base, setup)
            runs[name].append(fps)
            cpu[name].append(per_frame)
    result["fps"] = {k: [round(v, 1) for v in vs] for k, vs in runs.items()}
    result["fpsMedian"] = {k: round(statistics.median(vs), 1) for k, vs in runs.items()}
    result["fpsRatioMedian"] = {
        k: round(statistics.median([x / b for x, b in zip(runs[k], runs["base"])]), 3) for k in ("viewers10", "stalled10+10")}
    result["cpuMsPerFrameMedian"] = {k: round(statistics.median(vs) * 1000, 2) for k, vs in cpu.items()}
    result["cpuPerFrameRatioMedian"] = {
        k: round(statistics.median([x / b for x, b in zip(cpu[k], cpu["base"])]), 3) for k in ("viewers10", "stalled10+10")}
    result["loadAverage"] = os.getloadavg()
finally:
    proc.terminate()
    proc.wait(timeout=20)

proc, base = start(pacing=True)
try:
    time.sleep(1)
    v = Viewer(base)
    time.sleep(args.seconds)
    v.close()
    lat = sorted(v.latencies[5:])
    result["latencyMs"] = {"parts": len(lat), "median": round(statistics.median(lat) * 1000, 1),
                           "p95": round(lat[int(len(lat) * 0.95)] * 1000, 1)} if lat else None
finally:
    proc.terminate()
    proc.wait(timeout=20)
print(json.dumps(result, indent=1))
