#!/usr/bin/python3
"""Loads scand's live page in headless Chromium (Debian `chromium`, driven over the DevTools protocol with
python3-websocket), waits until frames and WebSocket events arrived in the page, and takes two screenshots
of the same frame: the plain picture (overlays hidden) and the picture with the overlays.

Where the code is on the screenshot comes from the plain one, found by OpenCV's QR detector (nothing of
scand's geometry is used); the drawn outline is the set of pixels of the outline's colour in the other.

usage: http_page_check.py URL WIDTH HEIGHT OUT_PREFIX [VIEWS]
prints one JSON object:
  {"code": [[x, y] x4] | null, "outlinePixels": N, "cornerDistances": [d x4], "outlineMaxDistance": d,
   "outline95": d, "frames": n, "events": n, "eventNames": [...], "objects": n, "latencyMs": median,
   "views": [{"camera", "frames", "objects", "names", "eventCameras"}], "codes": [{"corners", "cornerDistances"}]}
Distances are in screenshot pixels (device scale factor 1). With VIEWS (a page of several cameras, issue 49),
the page is a grid of VIEWS camera pages: each must show frames, objects and its `appeared` before the
screenshots, and every code OpenCV finds on the plain screenshot is listed under "codes".
"""
import base64
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import queue
import urllib.request

import cv2
import numpy as np
import websocket

url, width, height, prefix = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
views_wanted = int(sys.argv[5]) if len(sys.argv) > 5 else 0
# The page's state objects: the grid's camera pages, or the page itself.
VIEWS = "(window.scand && window.scand.grid ? scand.views() : (window.scand ? [window.scand] : []))"

# Debian's binary itself: its /usr/bin/chromium wrapper adds flags from /etc/chromium.d (extensions, GPU
# rasterization) and, where /dev/shm is mounted twice, fails its own shared-memory check with a shell error.
CHROMIUM = "/usr/lib/chromium/chromium" if os.access("/usr/lib/chromium/chromium", os.X_OK) else "chromium"
# As few processes and threads as a headless page needs: a browser that cannot start a thread dies at once
# with SIGTRAP (a release-build CHECK, no message), which is what a CI machine's process limit does to it
# while the rest of the suite runs. No zygote, the GPU stage in the browser process, one renderer.
FLAGS = ["--headless", "--no-sandbox", "--no-zygote", "--disable-gpu", "--in-process-gpu",
         "--renderer-process-limit=1", "--num-raster-threads=1", "--disable-dev-shm-usage",
         "--disable-extensions", "--disable-background-networking", "--disable-component-update",
         "--disable-crash-reporter", "--no-first-run", "--no-default-browser-check", "--remote-debugging-port=0"]
# Attempts, and the pause before each: a browser that fails for want of threads or processes is started
# again once the machine has some free. After the first, the page runs in the browser process
# (--single-process: one process, about 48 threads instead of 5 and 82; it started here under a pids
# cgroup limit of 58, where the first form needs more than 64).
PAUSES = [0, 1, 3, 6, 10]


def resources():
    """What limits a browser's threads and processes here, for the error message."""
    import resource
    out = []
    for name in ("RLIMIT_NPROC", "RLIMIT_AS", "RLIMIT_NOFILE"):
        soft, _ = resource.getrlimit(getattr(resource, name))
        out.append("%s=%s" % (name[7:].lower(), "unlimited" if soft == resource.RLIM_INFINITY else soft))
    try:
        out.append("threads on the machine=%d" % sum(
            len(os.listdir(f"/proc/{p}/task")) for p in os.listdir("/proc") if p.isdigit()
            and os.path.isdir(f"/proc/{p}/task")))
    except OSError:
        pass
    try:  # this process's pids cgroup, v1 or v2: its limit and use
        with open("/proc/self/cgroup") as f:
            for entry in f.read().splitlines():
                _, controllers, path = entry.split(":", 2)
                base = ("/sys/fs/cgroup/pids" if controllers == "pids" else
                        "/sys/fs/cgroup" if controllers == "" else None)
                if base and os.path.exists(f"{base}{path}/pids.max"):
                    with open(f"{base}{path}/pids.max") as m, open(f"{base}{path}/pids.current") as c:
                        out.append("pids cgroup %s: %s of %s" % (path, c.read().strip(), m.read().strip()))
    except (OSError, ValueError):
        pass
    return ", ".join(out)


def start(attempt):
    """One launch; (process, its profile, a DevTools connection to its page or None, what it printed)."""
    profile = tempfile.mkdtemp(prefix="scand-chromium-")
    flags = FLAGS + (["--single-process"] if attempt >= 1 else [])
    proc = subprocess.Popen([CHROMIUM] + flags + [f"--user-data-dir={profile}", f"--window-size={width},{height}",
                                                  "about:blank"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = queue.Queue()

    def pump():  # stderr is read to its end, so a chatty browser never blocks on a full pipe
        for line in proc.stderr:
            lines.put(line)
        lines.put(None)
    threading.Thread(target=pump, daemon=True).start()
    said = []
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.time()))
        except queue.Empty:
            break
        if line is None:
            break
        said.append(line.strip())
        m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
        if m:
            # Started only once its page answers: a browser short of threads can die just after this line.
            try:
                targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{m.group(1)}/json/list", timeout=30))
                page = next(t for t in targets if t.get("type") == "page")
                return proc, profile, websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30), said
            except (OSError, StopIteration, ValueError, websocket.WebSocketException) as e:
                said.append("connecting to its DevTools endpoint: %r" % e)
                break
    return proc, profile, None, said


def stop(proc, profile):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    shutil.rmtree(profile, ignore_errors=True)


def session(ws):
    """The page in one browser: navigate, wait for frames and events, freeze, two screenshots."""
    counter = [0]

    def call(method, **params):
        counter[0] += 1
        ws.send(json.dumps({"id": counter[0], "method": method, "params": params}))
        while True:
            reply = json.loads(ws.recv())
            if reply.get("id") == counter[0]:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def evaluate(expression):
        r = call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return r.get("result", {}).get("value")

    call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
    call("Page.enable")
    call("Page.navigate", url=url)
    views = []
    deadline = time.time() + 45
    while time.time() < deadline:
        views = json.loads(evaluate("JSON.stringify(" + VIEWS + """.map(v => ({frames: v.framesShown,
            events: v.eventCount, names: v.events.map(e => e.event), objects: v.objects.length,
            eventCameras: [...new Set(v.events.map(e => e.camera).filter(c => c !== undefined))],
            camera: v.state ? v.state.camera : null, latencies: v.latencies, error: v.error,
            stream: v.state ? v.state.clients.stream : 0})))""") or "[]")
        # ... and the status line has seen each page's own stream (two /state polls: fps too).
        if len(views) >= max(1, views_wanted) and all(
                v["frames"] >= 3 and v["objects"] >= 1 and "appeared" in v["names"] and v["stream"] >= 1
                for v in views):
            break
        time.sleep(0.2)
    s = views[0] if views else {"frames": 0, "events": 0, "names": [], "objects": 0, "latencies": [], "error": "no page"}
    s["views"] = [{k: v[k] for k in ("camera", "frames", "objects", "names", "eventCameras")} for v in views]

    def screenshot(path):
        data = base64.b64decode(call("Page.captureScreenshot", format="png")["data"])
        with open(path, "wb") as f:
            f.write(data)
        return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)

    # Freeze the picture (stop drawing new frames) so both shots show the same frame.
    evaluate(VIEWS + ".forEach(v => { v.freeze = true; })")
    evaluate(VIEWS + ".forEach(v => v.setOverlays(false))")
    time.sleep(0.1)
    plain = screenshot(prefix + "-plain.png")
    evaluate(VIEWS + ".forEach(v => v.setOverlays(true))")
    time.sleep(0.1)
    annotated = screenshot(prefix + "-page.png")
    ws.close()
    return s, plain, annotated


# A browser that dies (SIGTRAP for want of threads) or stops answering, before or during the session, is
# started again; what the page shows is judged only after, on the screenshots of a whole session.
failures = []
for attempt, pause in enumerate(PAUSES):
    time.sleep(pause)
    browser, profile, ws, said = start(attempt)
    try:
        if ws is not None:
            s, plain, annotated = session(ws)
            break
        why = said[-1] if said else "nothing printed"
    except (OSError, RuntimeError, ValueError, websocket.WebSocketException) as e:
        why = "during the session: %r" % e
    finally:
        stop(browser, profile)
    failures.append("attempt %d: exit status %s, %s" % (attempt + 1, browser.returncode, why))
    print("http_page_check: chromium failed (%s); %s" % (failures[-1], resources()), file=sys.stderr)
else:
    sys.exit("chromium (%s) did not serve the page in %d attempts (%s); %s; the last said: %s"
             % (CHROMIUM, len(PAUSES), "; ".join(failures), resources(),
                " | ".join(l for l in said if "dbus" not in l)[-3000:]))

grey = cv2.cvtColor(plain, cv2.COLOR_BGR2GRAY)
found, points = cv2.QRCodeDetector().detect(grey)
code = points.reshape(-1, 2).tolist() if found and points is not None else None
found_all, points_all = cv2.QRCodeDetector().detectMulti(grey)
codes = [p.reshape(-1, 2).tolist() for p in points_all] if found_all and points_all is not None else []
# The outline colour is #00e640 (B, G, R = 64, 230, 0); anti-aliased edges blend it with the picture.
b, g, r = (annotated[:, :, i].astype(int) for i in range(3))
mask = (g > 150) & (r < 90) & (b < 130) & (g - r > 100)
ys, xs = np.nonzero(mask)
outline = np.stack([xs, ys], axis=1).astype(float) if len(xs) else np.zeros((0, 2))


def segment_distance(p, a, c):
    a, c = np.asarray(a, float), np.asarray(c, float)
    d = c - a
    t = np.clip(((p - a) @ d) / max(d @ d, 1e-9), 0, 1)
    return np.linalg.norm(p - (a + t[:, None] * d), axis=1)


result = {"code": code, "outlinePixels": int(len(outline)), "frames": s["frames"], "events": s["events"],
          "eventNames": sorted(set(s["names"])), "objects": s["objects"], "error": s.get("error"),
          "latencyMs": (sorted(s["latencies"])[len(s["latencies"]) // 2] * 1000) if s["latencies"] else None,
          "views": s.get("views", []),
          "codes": [{"corners": c, "cornerDistances": [float(np.min(np.linalg.norm(outline - np.asarray(p), axis=1)))
                                                        for p in c] if len(outline) else []} for c in codes]}
if code and len(outline):
    result["cornerDistances"] = [float(np.min(np.linalg.norm(outline - np.asarray(c), axis=1))) for c in code]
    edges = np.min(np.stack([segment_distance(outline, code[i], code[(i + 1) % 4]) for i in range(4)]), axis=0)
    result["outlineMaxDistance"] = float(edges.max())
    result["outline95"] = float(np.percentile(edges, 95))
print(json.dumps(result))
