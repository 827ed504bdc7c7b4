#!/usr/bin/python3
"""Loads scand's live page in headless Chromium (Debian `chromium`, driven over the DevTools protocol with
python3-websocket), waits until frames and WebSocket events arrived in the page, and takes two screenshots
of the same frame: the plain picture (overlays hidden) and the picture with the overlays.

Where the code is on the screenshot comes from the plain one, found by OpenCV's QR detector (nothing of
scand's geometry is used); the drawn outline is the set of pixels of the outline's colour in the other.

usage: http_page_check.py URL WIDTH HEIGHT OUT_PREFIX
prints one JSON object:
  {"code": [[x, y] x4] | null, "outlinePixels": N, "cornerDistances": [d x4], "outlineMaxDistance": d,
   "outline95": d, "frames": n, "events": n, "eventNames": [...], "objects": n, "latencyMs": median}
Distances are in screenshot pixels (device scale factor 1).
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
import time
import urllib.request

import cv2
import numpy as np
import websocket

url, width, height, prefix = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
profile = tempfile.mkdtemp(prefix="scand-chromium-")
browser = subprocess.Popen(
    ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
     "--remote-debugging-port=0", f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"],
    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
try:
    port = None
    deadline = time.time() + 30
    said = []  # chromium's own lines, for the error message
    while time.time() < deadline and port is None:
        line = browser.stderr.readline()
        if not line:
            break
        said.append(line.strip())
        m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
        if m:
            port = int(m.group(1))
    if port is None:
        sys.exit("chromium did not start its DevTools endpoint (exit status %s); it said: %s"
                 % (browser.poll(), " | ".join(said[-6:])))
    targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
    page = next(t for t in targets if t.get("type") == "page")
    ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30)
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
    state = None
    deadline = time.time() + 30
    while time.time() < deadline:
        state = evaluate("""window.scand ? JSON.stringify({frames: scand.framesShown, events: scand.eventCount,
            names: scand.events.map(e => e.event), objects: scand.objects.length,
            latencies: scand.latencies, error: scand.error,
            stream: scand.state ? scand.state.clients.stream : 0}) : null""")
        if state:
            s = json.loads(state)
            # ... and the status line has seen this page's own stream (two /state polls: fps too).
            if s["frames"] >= 3 and s["objects"] >= 1 and "appeared" in s["names"] and s["stream"] >= 1:
                break
        time.sleep(0.2)
    s = json.loads(state) if state else {"frames": 0, "events": 0, "names": [], "objects": 0, "latencies": [], "error": "no page"}

    def screenshot(path):
        data = base64.b64decode(call("Page.captureScreenshot", format="png")["data"])
        with open(path, "wb") as f:
            f.write(data)
        return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)

    # Freeze the picture (stop drawing new frames) so both shots show the same frame.
    evaluate("scand.freeze = true")
    evaluate("scand.setOverlays(false)")
    plain = screenshot(prefix + "-plain.png")
    evaluate("scand.setOverlays(true)")
    annotated = screenshot(prefix + "-page.png")
    ws.close()
finally:
    browser.terminate()
    try:
        browser.wait(timeout=10)
    except subprocess.TimeoutExpired:
        browser.kill()
    shutil.rmtree(profile, ignore_errors=True)

found, points = cv2.QRCodeDetector().detect(cv2.cvtColor(plain, cv2.COLOR_BGR2GRAY))
code = points.reshape(-1, 2).tolist() if found and points is not None else None
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
          "latencyMs": (sorted(s["latencies"])[len(s["latencies"]) // 2] * 1000) if s["latencies"] else None}
if code and len(outline):
    result["cornerDistances"] = [float(np.min(np.linalg.norm(outline - np.asarray(c), axis=1))) for c in code]
    edges = np.min(np.stack([segment_distance(outline, code[i], code[(i + 1) % 4]) for i in range(4)]), axis=0)
    result["outlineMaxDistance"] = float(edges.max())
    result["outline95"] = float(np.percentile(edges, 95))
print(json.dumps(result))
