#!/usr/bin/python3
"""Fan-out benchmark for `scand run`: does serving many socket clients (fast or stuck) slow the pipeline?

Runs `scand run --input kiosk.y4m --loop --no-pacing` for SECONDS per trial and reads the frame count from
its "stopped" log line, under four loads: no socket client (baseline), 10 clients reading everything,
10 reading + 50 that never read (stuck), 50 reading. Reports median frames/s per load and the ratio to baseline,
plus whether every reading client received every event published while it was connected.

usage: scripts/daemon-bench.py [--binary .build/release/scand] [--seconds 5] [--trials 3]
"""
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def arg(name, default, conv=str):
    return conv(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


BINARY = arg("--binary", os.path.join(ROOT, ".build/release/scand"))
SECONDS = arg("--seconds", 5.0, float)
TRIALS = arg("--trials", 3, int)


SEQ = re.compile(rb'"seq":(\d+)')


def reader(path, results, i, stop):
    """Reads to EOF; results[i] = (events, gapless) where gapless means consecutive seq values."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    n, last, gapless, buf = 0, None, True, b""
    while True:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        buf += chunk
        lines = buf.split(b"\n")
        buf = lines.pop()
        for line in lines:
            m = SEQ.search(line)
            if not m:
                continue
            seq = int(m.group(1))
            if last is not None and seq != last + 1:
                gapless = False
            last = seq
            n += 1
    results[i] = (n, gapless)


def trial(tmp, readers, stuck):
    sock = os.path.join(tmp, "b.sock")
    err = open(os.path.join(tmp, "err"), "w+")
    p = subprocess.Popen([BINARY, "run", "--input", os.path.join(tmp, "kiosk.y4m"), "--loop", "--no-pacing",
                          "--socket", sock, "--log-level", "notice"], stderr=err, stdout=subprocess.DEVNULL)
    while not os.path.exists(sock):
        time.sleep(0.01)
    time.sleep(0.2)
    stop = threading.Event()
    counts = [(0, True)] * readers
    threads = [threading.Thread(target=reader, args=(sock, counts, i, stop)) for i in range(readers)]
    for t in threads:
        t.start()
    stuck_socks = []
    for _ in range(stuck):
        s = socket.socket(socket.AF_UNIX)
        s.connect(sock)
        stuck_socks.append(s)
    time.sleep(SECONDS)
    p.send_signal(signal.SIGTERM)
    p.wait()
    stop.set()
    for t in threads:
        t.join()
    for s in stuck_socks:
        s.close()
    err.seek(0)
    log = err.read()
    m = re.search(r"events=(\d+) frames=(\d+)", log)
    events, frames = int(m.group(1)), int(m.group(2))
    return frames / SECONDS, events, counts


def main():
    tmp = tempfile.mkdtemp(prefix="scand-bench-")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "Tests/Fixtures/daemon/make_fixtures.py"), tmp],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Stuck clients cost the client side nothing, so "10 reading" vs "10 reading + 50 stuck" isolates what
    # they cost the server. Reading clients are Python threads that compete for the same cores as scand.
    loads = [("no clients", 0, 0), ("10 reading", 10, 0), ("10 reading + 50 stuck", 10, 50), ("50 reading", 50, 0)]
    results = {name: [] for name, _, _ in loads}
    complete = {name: True for name, _, _ in loads}
    for _ in range(TRIALS):
        for name, readers, stuck in loads:  # interleaved, so drift in machine load hits every load alike
            fps, events, counts = trial(tmp, readers, stuck)
            results[name].append(fps)
            if not all(gapless and n > 0 for n, gapless in counts):
                complete[name] = False
    base = statistics.median(results["no clients"])
    print(f"binary {BINARY}, {SECONDS:.0f} s x {TRIALS} trials, 640x360 replay, --no-pacing --loop")
    for name, _, _ in loads:
        med = statistics.median(results[name])
        print(f"{name:24s} median {med:7.1f} frames/s  ratio {med / base:5.2f}  "
              f"runs {', '.join(f'{v:.1f}' for v in results[name])}  every reader gapless: {complete[name]}")


if __name__ == "__main__":
    main()
