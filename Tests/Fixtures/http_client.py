#!/usr/bin/python3
"""Real clients for scand's HTTP server, for HTTPTests (Debian python3-websocket, python3-prometheus-client,
python3-numpy, python3-pil). Each subcommand prints one JSON object.

  status URL [TOKEN]                  -> {"status": code, "type": content-type, "bytes": n, "jpeg": bool}
  metrics URL TOKEN SECONDS           -> two scrapes SECONDS apart, parsed by prometheus_client
  families URL [TOKEN]                -> one scrape by family: type, HELP text and samples
  ws URL TOKEN|- [COMMAND...]         -> the lines a WebSocket client gets (commands sent after the snapshot)
  roi URL TOKEN|- X Y W H VW VH       -> POST URL/rect-of-interest (URL: the server, or a camera's
                                         /cameras/NAME), then the WebSocket's configuration event
  qr URL [TOKEN]                      -> GET a JPEG (a snapshot); {"status", "corners"}: where OpenCV finds a QR code
  stall URL TOKEN N SECONDS           -> N MJPEG and N WebSocket clients that never read, held SECONDS;
                                         processed-frame counter before/after, and a fresh viewer's frames
  outline JPG X0 Y0 X1 Y1             -> distances from the code's corners to the drawn outline (pixels)
"""
import json
import socket
import sys
import time
import urllib.error
import urllib.request

import websocket


def get(url, token=None, data=None, headers=None):
    h = dict(headers or {})
    if token and token != "-":
        h["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url, data=data, headers=h, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            ctype = r.headers.get("Content-Type", "")
            # A stream never ends: its first 64 KiB (the first parts) stand for it.
            return r.status, ctype, r.read(65536) if ctype.startswith("multipart/") else r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


def ws_connect(base, token):
    # The server's own /events, whatever path `base` has (a camera's /cameras/NAME).
    origin = "/".join(base.split("/")[:3])
    url = origin.replace("http://", "ws://") + "/events"
    kw = {"subprotocols": ["scand-token." + token]} if token and token != "-" else {}
    return websocket.create_connection(url, timeout=10, **kw)


def read_lines(ws, until, limit=200):
    out = []
    while len(out) < limit:
        line = json.loads(ws.recv())
        out.append(line)
        if until(line):
            break
    return out


cmd = sys.argv[1]
if cmd == "status":
    status, ctype, body = get(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    print(json.dumps({"status": status, "type": ctype, "bytes": len(body), "jpeg": body[:3] == b"\xff\xd8\xff"}))

elif cmd == "json":
    # GET a JSON document (e.g. /state) and print it as is.
    status, ctype, body = get(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    assert status == 200, status
    print(json.dumps(json.loads(body)))

elif cmd == "samples":
    # One /metrics scrape, parsed by prometheus_client: {"sample{labels}": value}.
    from prometheus_client.parser import text_string_to_metric_families
    status, ctype, body = get(sys.argv[2] + "/metrics", sys.argv[3])
    assert status == 200, status
    samples = {}
    for family in text_string_to_metric_families(body.decode()):
        for s in family.samples:
            key = s.name + ("{" + ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items())) + "}" if s.labels else "")
            samples[key] = s.value
    print(json.dumps(samples))

elif cmd == "families":
    # One /metrics scrape, parsed by prometheus_client, by family: {name: {"type", "help", "samples"}}.
    from prometheus_client.parser import text_string_to_metric_families
    status, ctype, body = get(sys.argv[2] + "/metrics", sys.argv[3] if len(sys.argv) > 3 else None)
    assert status == 200, status
    out = {}
    for family in text_string_to_metric_families(body.decode()):
        out[family.name] = {"type": family.type, "help": family.documentation,
                            "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples]}
    print(json.dumps(out))

elif cmd == "metrics":
    from prometheus_client.parser import text_string_to_metric_families
    base, token, seconds = sys.argv[2], sys.argv[3], float(sys.argv[4])

    def scrape():
        status, ctype, body = get(base + "/metrics", token)
        assert status == 200, status
        samples, types = {}, {}
        for family in text_string_to_metric_families(body.decode()):
            types[family.name] = family.type
            for s in family.samples:
                key = s.name + ("{" + ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items())) + "}" if s.labels else "")
                samples[key] = s.value
        return samples, types, ctype
    first, types, ctype = scrape()
    time.sleep(seconds)
    second, _, _ = scrape()
    print(json.dumps({"first": first, "second": second, "types": types, "contentType": ctype}))

elif cmd == "ws":
    base, token, commands = sys.argv[2], sys.argv[3], sys.argv[4:]
    try:
        ws = ws_connect(base, token)
    except websocket.WebSocketBadStatusException as e:
        print(json.dumps({"refused": e.status_code}))
        sys.exit(0)
    lines = read_lines(ws, lambda l: l.get("event") not in ("hello",) and not l.get("snapshot"), limit=3)
    replies = []
    for c in commands:
        ws.send(c)
        replies += read_lines(ws, lambda l: l.get("event") in ("subscribed", "polled", "devices", "error"))
    ws.close()
    print(json.dumps({"connect": lines, "replies": replies}))

elif cmd == "roi":
    base, token = sys.argv[2], sys.argv[3]
    x, y, w, h, vw, vh = (float(a) for a in sys.argv[4:10])
    ws = ws_connect(base, token)
    ws.send(json.dumps({"subscribe": {"events": ["configuration"]}}))
    read_lines(ws, lambda l: l.get("event") == "subscribed")
    body = json.dumps({"rect": {"x": x, "y": y, "width": w, "height": h}, "viewSize": {"width": vw, "height": vh},
                       "videoGravity": "resizeAspect"}).encode()
    # The page draws on a frame: until the pipeline processed its first one the server answers 503 "no frame
    # yet" (a loaded machine takes a while); the page would wait for a frame, so the client does too.
    deadline = time.monotonic() + 60
    while True:
        status, _, reply = get(base + "/rect-of-interest", token, body, {"Content-Type": "application/json"})
        if status != 503 or b"no frame yet" not in reply or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    event = None
    if status == 200:
        ws.settimeout(5)
        event = read_lines(ws, lambda l: l.get("event") == "configuration")[-1]
    ws.close()
    print(json.dumps({"status": status, "reply": reply.decode(errors="replace"), "event": event}))

elif cmd == "qr":
    import cv2
    import numpy as np
    status, ctype, body = get(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    corners = None
    if status == 200:
        # Debian's OpenCV finds QR codes but cannot decode them (no quirc): where the code is tells which.
        image = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_GRAYSCALE)
        found, points = cv2.QRCodeDetector().detect(image)
        corners = points.reshape(-1, 2).tolist() if found and points is not None else None
    print(json.dumps({"status": status, "type": ctype, "corners": corners}))

elif cmd == "stall":
    base, token, n, seconds = sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
    host, port = base.replace("http://", "").split("/")[0].split(":")

    def processed():
        _, _, body = get(base + "/metrics", token)
        for line in body.decode().splitlines():
            if line.startswith("scand_frames_processed_total"):
                return float(line.split()[-1])
        return 0.0
    stalled = []
    for _ in range(n):      # MJPEG viewers that send the request and never read
        s = socket.create_connection((host, int(port)))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(f"GET /stream.mjpg HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        stalled.append(s)
    sockets = [ws_connect(base, token) for _ in range(n)]   # WebSocket clients that never read
    for w in sockets:
        w.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    before = processed()
    time.sleep(seconds)
    after = processed()
    # A fresh viewer still gets frames while the others stall.
    s = socket.create_connection((host, int(port)), timeout=10)
    s.sendall(f"GET /stream.mjpg HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    data, deadline = b"", time.time() + 10
    while data.count(b"--scandframe") < 3 and time.time() < deadline:
        data += s.recv(65536)
    s.close()
    for x in stalled:
        x.close()
    for w in sockets:
        w.sock.close()
    time.sleep(0.5)
    _, _, state = get(base + "/state", token)
    print(json.dumps({"before": before, "after": after, "freshParts": data.count(b"--scandframe"),
                      "clientsAfter": json.loads(state)["clients"]}))

elif cmd == "outline":
    import numpy as np
    from PIL import Image
    img = np.asarray(Image.open(sys.argv[2]).convert("RGB")).astype(int)
    x0, y0, x1, y1 = (float(a) for a in sys.argv[3:7])
    r, g, b = img[:, :, 0], img[:, :, 1], img[:, :, 2]
    ys, xs = np.nonzero((g > 150) & (r < 90) & (g - r > 100))
    pts = np.stack([xs, ys], axis=1).astype(float)
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    out = {"pixels": int(len(pts))}
    if len(pts):
        out["cornerDistances"] = [float(np.min(np.hypot(pts[:, 0] - cx, pts[:, 1] - cy))) for cx, cy in corners]
        # distance of each outline pixel to the code's square outline
        dx = np.maximum(np.maximum(x0 - pts[:, 0], pts[:, 0] - x1), 0)
        dy = np.maximum(np.maximum(y0 - pts[:, 1], pts[:, 1] - y1), 0)
        outside = np.hypot(dx, dy)
        inside = np.minimum.reduce([np.abs(pts[:, 0] - x0), np.abs(pts[:, 0] - x1), np.abs(pts[:, 1] - y0), np.abs(pts[:, 1] - y1)])
        out["maxDistance"] = float(np.max(np.where(outside > 0, outside, inside)))
    print(json.dumps(out))
