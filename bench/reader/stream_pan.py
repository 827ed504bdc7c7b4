#!/usr/bin/python3
"""Panning clips of two retail codes side by side: what the conflict rules across stream frames cost and catch.

Each clip is a shelf strip wider than the frame with an EAN-13 and, 30-90 px to its right, a UPC-E (one kind
for the conflict rules: a UPC-E can be an EAN-13's left half). The camera pans right at a steady speed, so the
UPC-E moves over the places where the EAN-13 was; every frame has a sub-pixel jitter and fresh sensor noise
(sd 3) after a Gaussian blur of the whole strip. All clips go through one `scand scan` per binary (each clip a
fresh stream). For each binary and pan speed it prints, over the frames where each code is wholly in view:
  EAN-13, UPC-E   frames where it is reported / frames where it is in view
  wrong           values reported that are neither code
and the wrong values with their clip and frame on stderr.

Every clip has its own seeds (random.Random and numpy's default_rng of seed * 1000 + clip), so one clip can be
made alone (`pan_clip`, used by Tests/Fixtures/make_upce_fixtures.py).

Usage: /usr/bin/python3 bench/reader/stream_pan.py --scand name=path [--scand name=path ...] [--seed 16]
           [--blur 1.2] [--clips 5] [--speeds 1,2,3,4,6,8] [--frames 60]
"""
import argparse, json, os, random, subprocess, sys, tempfile
import numpy as np
from PIL import Image, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_set import payload, render_zint, module_image, background  # noqa: E402
from score import matches  # noqa: E402

W, H, STRIP = 640, 480, 1400


def pan_clip(path, seed, clip, speed, blur, frames=60, tmp=None):
    """Writes clip `clip` of `seed` (gray-in-4:2:0 Y4M, 640x480, 30 fps) panning `speed` px per frame.
    Returns the codes ({type, value, x, w} in strip pixels) and, per frame, whether each is wholly in view."""
    rng = random.Random(seed * 1000 + clip)
    nrng = np.random.default_rng(seed * 1000 + clip)
    own = tmp is None
    tmp = tmp or tempfile.mkdtemp()
    ppm = rng.uniform(2.2, 3.2)
    level = rng.randint(170, 230)
    strip = background(STRIP, H, rng, level=level).astype(float)
    codes, x = [], 200
    for sym in ("ean13", "upce"):
        data, value = payload(sym, rng)
        img = np.array(module_image(render_zint(sym, data, tmp), ppm).convert("L"), float)
        h, w = img.shape
        y = H // 2 - h // 2 + rng.randint(-20, 20)
        strip[y:y + h, x:x + w] = img
        codes.append({"type": sym, "value": value, "x": x, "w": w})
        x += w + rng.randint(30, 90)
    base = Image.fromarray(np.clip(strip, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(blur))
    visible = []
    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F30:1 Ip A1:1 C420jpeg\n" % (W, H))
        for k in range(frames):
            off = 80 + k * speed
            dx, dy = nrng.uniform(-0.5, 0.5, 2)
            crop = np.array(base.transform((W, H), Image.AFFINE, (1, 0, off + dx, 0, 1, dy), Image.BILINEAR), float)
            fr = np.clip(crop + nrng.normal(0, 3.0, (H, W)), 0, 255).astype(np.uint8)
            f.write(b"FRAME\n" + fr.tobytes() + bytes([128]) * (W * H // 2))
            visible.append([c["x"] - off >= 8 and c["x"] + c["w"] - off <= W - 8 for c in codes])
    if own:
        subprocess.run(["rm", "-rf", tmp])
    return codes, visible


def truth(c):
    return {"type": c["type"], "symbology": c["type"], "value": c["value"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scand", action="append", required=True, help="name=path of a scand binary (repeatable)")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--blur", type=float, default=1.2, help="Gaussian blur radius (pixels) of the strip")
    ap.add_argument("--clips", type=int, default=5, help="clips per speed")
    ap.add_argument("--speeds", default="1,2,3,4,6,8", help="pan speeds, pixels per frame")
    ap.add_argument("--frames", type=int, default=60)
    args = ap.parse_args()
    speeds = [int(s) for s in args.speeds.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        clips = []
        for i in range(args.clips * len(speeds)):
            speed = speeds[i % len(speeds)]
            p = os.path.join(tmp, "pan-%03d-s%d.y4m" % (i, speed))
            codes, visible = pan_clip(p, args.seed, i, speed, args.blur, args.frames, tmp)
            clips.append((p, speed, codes, visible))
        print("%d clips of %d frames, seed %d, blur %g px" % (len(clips), args.frames, args.seed, args.blur))
        print("| binary | speed (px/frame) | EAN-13 frames | UPC-E frames | wrong |")
        print("|---|---|---|---|---|")
        totals = {}
        for name, path in (s.split("=", 1) for s in args.scand):
            out = subprocess.run([path, "scan", *[c[0] for c in clips]], capture_output=True, text=True).stdout
            got = {}
            for line in out.splitlines():
                ev = json.loads(line)
                if ev.get("event") == "metadata":
                    got.setdefault(ev["source"], {})[ev.get("frame", 0)] = [o.get("value") or "" for o in ev.get("objects", [])]
            by = {}
            for p, speed, codes, visible in clips:
                s = by.setdefault(speed, [0] * 5)
                for k, vis in enumerate(visible):
                    values = got.get(p, {}).get(k, [])
                    for j, c in enumerate(codes):
                        if vis[j]:
                            s[2 * j + 1] += 1
                            s[2 * j] += any(matches(v, truth(c)) for v in values)
                    bad = [v for v in values if not any(matches(v, truth(c)) for c in codes)]
                    s[4] += len(bad)
                    for v in bad:
                        print("wrong: %s %s frame %d: %s (codes %s)" % (name, os.path.basename(p), k, v,
                              [c["value"] for c in codes]), file=sys.stderr)
            t = totals.setdefault(name, [0] * 5)
            for speed in speeds:
                s = by[speed]
                t[:] = [a + b for a, b in zip(t, s)]
                print("| %s | %d | %d/%d | %d/%d | %d |" % (name, speed, s[0], s[1], s[2], s[3], s[4]))
        for name, t in totals.items():
            print("| %s | all | %d/%d | %d/%d | %d |" % (name, t[0], t[1], t[2], t[3], t[4]))


if __name__ == "__main__":
    main()
