#!/usr/bin/python3
"""The cost of the live page (issue 17), measured on a running `scand run --http` (real sockets, real
MJPEG and WebSocket clients):

1. No viewer: JPEG encodings stay 0 (`scand_jpeg_encodes_total` on /metrics, `preview.jpegEncodes` on
   /state) while frames are processed.
2. Detection throughput at 1280x720 with 0 viewers, with 10 MJPEG viewers reading the stream, and with
   10 MJPEG + 10 WebSocket clients that connect and never read (stalled). The source is replayed with
   --no-pacing: frames are handed to detection losslessly, so processed frames per second is detection
   throughput. Runs alternate (base, viewers, stalled, base, ...) so drift on a shared machine hits all
   alike; the figure is the median of per-run ratios against the baseline run just before. Also scand's
   own CPU time per processed frame (/proc/PID/stat, all threads), which other load disturbs less.
3. Frame -> viewer latency at the clip's own rate (paced, 15 fps), with 1 and with 10 viewers: the wall
   clock when the whole MJPEG part (headers and JPEG) has arrived at the client, minus the part's
   X-Scand-Timestamp (the frame's capture time: for a paced file, the moment the frame is due and handed
   to detection). So it spans detection, the hand-off to the server, the JPEG encoding, the write and the
   loopback transfer. The page adds its own JPEG decode and draw; Tests/Fixtures/http_page_check.py reports
   the page's median.

The clip: 1280x720 grey, a QR code at (500, 200), on a textured background (a gradient plus Gaussian noise,
sigma 12, different in each of its 30 frames), so the JPEGs are as costly as a camera's (~200 KB), not the
few KB of a flat picture.

With --flat, the flat clip instead (white around the code, as in HTTPTests): detection is faster there, so
the preview encodes more frames per second relative to detection.

usage: bench/http/measure.py [--scand .build/release/scand] [--runs 7] [--seconds 6] [--flat]
Needs python3-numpy, python3-websocket (Debian). Prints one JSON document on stdout.
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

import numpy
import websocket

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
ap = argparse.ArgumentParser()
ap.add_argument("--scand", default=os.path.join(root, ".build/release/scand"))
ap.add_argument("--runs", type=int, default=7)
ap.add_argument("--seconds", type=float, default=6)
ap.add_argument("--viewers", type=int, default=10)
ap.add_argument("--flat", action="store_true",
                help="the flat test clip (white around the code): detection is several times faster, so the preview "
                     "encodes more frames per second relative to detection (a harsher ratio, smaller JPEGs)")
args = ap.parse_args()
if not os.access(args.scand, os.X_OK):
    sys.exit(f"{args.scand}: not an executable (build it: swift build -c release --product scand)")

tmp = tempfile.mkdtemp(prefix="scand-bench-http-")
clip = os.path.join(tmp, "clip720.y4m")


def make_clip(path, w=1280, h=720, frames=30):
    """The flat test clip (make_http_clip.py: one QR code at (500, 200), 12 px modules), then (unless --flat)
    texture added around the code in every frame."""
    flat = os.path.join(tmp, "flat.y4m")
    subprocess.run(["/usr/bin/python3", os.path.join(root, "Tests/Fixtures/make_http_clip.py"), flat, str(w), str(h),
                    "500", "200", "12", "1" if not args.flat else str(frames)], check=True, stdout=subprocess.DEVNULL)
    if args.flat:
        os.replace(flat, path)
        return
    with open(flat, "rb") as f:
        header = f.readline()
        assert f.readline() == b"FRAME\n"
        picture = numpy.frombuffer(f.read(w * h), dtype=numpy.uint8).reshape(h, w).astype(numpy.float32)
    rng = numpy.random.default_rng(17)
    gradient = numpy.linspace(-40, 0, w, dtype=numpy.float32)[None, :] + numpy.linspace(-30, 0, h, dtype=numpy.float32)[:, None]
    quiet = numpy.zeros((h, w), dtype=bool)
    quiet[200 - 48:200 + 25 * 12 + 48, 500 - 48:500 + 25 * 12 + 48] = True  # the code and its quiet zone stay clean
    with open(path, "wb") as out:
        out.write(header)
        for _ in range(frames):
            noisy = picture + gradient + rng.normal(0, 12, (h, w)).astype(numpy.float32)
            frame = numpy.where(quiet, picture, noisy).clip(0, 255).astype(numpy.uint8)
            out.write(b"FRAME\n" + frame.tobytes())


make_clip(clip)
procs = []


def start(pacing):
    err_path = os.path.join(tmp, f"err-{len(procs)}.log")
    err = open(err_path, "w")
    cmd = [args.scand, "run", "--input", clip, "--loop", "--no-stdout", "--log-level", "notice", "--http", "127.0.0.1:0"]
    if not pacing:
        cmd.append("--no-pacing")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
    procs.append(p)
    deadline = time.time() + 30
    while time.time() < deadline:
        m = re.search(r"port=(\d+) \[ScanHTTP\] http listening", open(err_path).read())
        if m:
            return p, "http://127.0.0.1:" + m.group(1)
        if p.poll() is not None:
            break
        time.sleep(0.1)
    p.kill()
    sys.exit("scand did not start: " + open(err_path).read())


def stop(p):
    p.terminate()
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def get(base, path):
    return urllib.request.urlopen(base + path, timeout=20).read()


def metric(base, name):
    # Summed over its series: the frame series carry a camera label (one series for one camera).
    values = [float(line.split()[-1]) for line in get(base, "/metrics").decode().splitlines()
              if line.startswith(name + " ") or line.startswith(name + "{")]
    if not values:
        sys.exit(f"{name} missing from /metrics")
    return sum(values)


class Viewer(threading.Thread):
    """An MJPEG client of /stream.mjpg. read=True: reads every part as fast as it comes, checks that each is
    a whole JPEG, and records when each part had fully arrived. read=False: sends the request, then never
    reads (a stalled client; a small receive buffer so the server's writes block sooner)."""

    def __init__(self, base, read=True):
        super().__init__(daemon=True)
        host, port = base[len("http://"):].split(":")
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if not read:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect((host, int(port)))
        self.sock.sendall(b"GET /stream.mjpg HTTP/1.1\r\nHost: bench\r\n\r\n")
        self.stop, self.parts, self.latencies, self.bad = False, 0, [], 0
        if read:
            self.start()

    def run(self):
        buf = bytearray()
        need_head = True
        length = timestamp = None
        while not self.stop:
            try:
                data = self.sock.recv(1 << 18)
            except OSError:
                return
            if not data:
                return
            buf += data
            while True:
                if need_head:
                    start = buf.find(b"--scandframe\r\n")
                    end = buf.find(b"\r\n\r\n", start) if start >= 0 else -1
                    if end < 0:
                        break
                    head = bytes(buf[start:end])
                    length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
                    timestamp = float(re.search(rb"X-Scand-Timestamp: ([0-9.]+)", head).group(1))
                    del buf[:end + 4]
                    need_head = False
                if len(buf) < length:
                    break
                now = time.time()
                jpeg = bytes(buf[:length])
                if not (jpeg.startswith(b"\xff\xd8\xff") and jpeg.endswith(b"\xff\xd9")):
                    self.bad += 1
                self.latencies.append(now - timestamp)
                self.parts += 1
                del buf[:length]
                need_head = True

    def close(self):
        self.stop = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class StalledWebSocket:
    """A WebSocket client of /events that completes the handshake and never reads."""

    def __init__(self, base):
        self.ws = websocket.create_connection(base.replace("http://", "ws://") + "/events", timeout=20)
        self.ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)

    def close(self):
        self.ws.sock.close()


def cpu_seconds(pid):
    """scand's user + system CPU time so far (all its threads), from /proc."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fps_with(proc, base, setup):
    """Processed frames per wall second, and scand's CPU seconds per processed frame."""
    clients = setup(base)
    time.sleep(1)  # settle
    a, t0, c0 = metric(base, "scand_frames_processed_total"), time.time(), cpu_seconds(proc.pid)
    time.sleep(args.seconds)
    b, t1, c1 = metric(base, "scand_frames_processed_total"), time.time(), cpu_seconds(proc.pid)
    parts = sum(getattr(c, "parts", 0) for c in clients)
    bad = sum(getattr(c, "bad", 0) for c in clients)
    for c in clients:
        c.close()
    time.sleep(0.5)
    if proc.poll() is not None:
        sys.exit("scand exited during the run")
    return (b - a) / (t1 - t0), (c1 - c0) / max(b - a, 1), parts / (t1 - t0 + 1), bad


def viewers(n):
    return lambda base: [Viewer(base) for _ in range(n)]


def stalled(n):
    return lambda base: [Viewer(base, read=False) for _ in range(n)] + [StalledWebSocket(base) for _ in range(n)]


n = args.viewers
configs = (("base", lambda b: []), (f"viewers{n}", viewers(n)), (f"stalled{n}+{n}", stalled(n)))
result = {"clip": "1280x720 grey Y4M, one QR code, " + ("flat white background" if args.flat else "noisy textured background")
                 + ", 30 frames looped",
          "scand": args.scand, "runs": args.runs, "seconds": args.seconds, "cpus": os.cpu_count(),
          "loadAverageBefore": [round(x, 2) for x in os.getloadavg()]}
try:
    proc, base = start(pacing=False)
    time.sleep(2)
    e0, p0 = metric(base, "scand_jpeg_encodes_total"), metric(base, "scand_frames_processed_total")
    time.sleep(3)
    state = json.loads(get(base, "/state"))
    result["noViewer"] = {"framesProcessed": metric(base, "scand_frames_processed_total") - p0,
                          "jpegEncodes": metric(base, "scand_jpeg_encodes_total") - e0,
                          "stateJpegEncodes": state["preview"]["jpegEncodes"]}
    jpeg = get(base, "/snapshot.jpg")
    result["jpegBytes"] = len(jpeg)
    runs = {name: [] for name, _ in configs}
    cpu = {name: [] for name, _ in configs}
    rate = {name: [] for name, _ in configs}
    bad = 0
    for _ in range(args.runs):
        for name, setup in configs:
            fps, per_frame, parts, b = fps_with(proc, base, setup)
            runs[name].append(fps)
            cpu[name].append(per_frame)
            rate[name].append(parts)
            bad += b
    others = [name for name, _ in configs[1:]]
    result["fps"] = {k: [round(v, 1) for v in vs] for k, vs in runs.items()}
    result["fpsMedian"] = {k: round(statistics.median(vs), 1) for k, vs in runs.items()}
    result["fpsRatioMedian"] = {
        k: round(statistics.median([x / b for x, b in zip(runs[k], runs["base"])]), 3) for k in others}
    result["fpsRatios"] = {k: [round(x / b, 3) for x, b in zip(runs[k], runs["base"])] for k in others}
    result["cpuMsPerFrameMedian"] = {k: round(statistics.median(vs) * 1000, 2) for k, vs in cpu.items()}
    result["cpuPerFrameRatioMedian"] = {
        k: round(statistics.median([x / b for x, b in zip(cpu[k], cpu["base"])]), 3) for k in others}
    result["partsPerSecondAllViewersMedian"] = round(statistics.median(rate[f"viewers{n}"]), 1)
    result["badParts"] = bad
    result["jpegEncodesTotal"] = metric(base, "scand_jpeg_encodes_total")
    stop(proc)

    proc, base = start(pacing=True)
    time.sleep(1.5)
    result["latencyMs"] = {}
    for count in (1, n):
        vs = [Viewer(base) for _ in range(count)]
        time.sleep(1)
        # The detection part of it: scand_frame_latency_seconds (capture -> events published), mean over
        # the same interval.
        s0, n0 = metric(base, "scand_frame_latency_seconds_sum"), metric(base, "scand_frame_latency_seconds_count")
        time.sleep(args.seconds)
        s1, n1 = metric(base, "scand_frame_latency_seconds_sum"), metric(base, "scand_frame_latency_seconds_count")
        for v in vs:
            v.close()
        lat = sorted(x for v in vs for x in v.latencies[3:])  # the first parts include the connection
        result["latencyMs"][f"viewers{count}"] = {
            "parts": len(lat), "median": round(statistics.median(lat) * 1000, 1),
            "p95": round(lat[int(len(lat) * 0.95)] * 1000, 1),
            "detectionMeanMs": round((s1 - s0) / max(n1 - n0, 1) * 1000, 1)} if lat else None
        time.sleep(0.5)
    stop(proc)
    result["loadAverageAfter"] = [round(x, 2) for x in os.getloadavg()]
finally:
    for p in procs:
        if p.poll() is None:
            stop(p)
print(json.dumps(result, indent=1))
