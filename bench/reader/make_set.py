#!/usr/bin/python3
"""Generates scand's reader evaluation set with exact ground truth.

Every zbar symbology (QR of versions 1-40, EAN-13, EAN-8, UPC-A, UPC-E, Code 39, Code 93, Code 128,
Interleaved 2 of 5, ITF-14, Codabar, GS1 DataBar, GS1 DataBar Expanded), plus the formats only zxing-cpp
reads (Data Matrix, Aztec, PDF417), rendered with zint and segno (QR), then distorted per category:
clean, small, rotated, perspective, blur, noise, lowcontrast, inverted, glare, multi, phone, extra
(zxing-only formats) and negative (no code at all).

Usage:
  /usr/bin/python3 bench/reader/make_set.py [--out bench/out/reader] [--per-category 40] [--heldout]

--heldout uses a different seed and different distortion parameters (the check against over-fitting).
Writes <out>/<set>/<category>/<n>.png and <out>/<set>/truth.json. Needs: python3-numpy, python3-pil,
zint (Debian), segno (PyPI).
"""
import argparse, json, math, os, random, subprocess, sys, tempfile

import numpy as np
from PIL import Image, ImageFilter
import segno

# zint symbology ids
ZINT = {"code39": 8, "code93": 25, "code128": 20, "i25": 3, "itf14": 89, "codabar": 18, "ean13": 13,
        "ean8": 13, "upca": 34, "upce": 37, "databar": 29, "databarexp": 31, "datamatrix": 71,
        "aztec": 92, "pdf417": 55}
LINEAR = ["ean13", "ean8", "upca", "upce", "code39", "code93", "code128", "i25", "itf14", "codabar",
          "databar", "databarexp"]
ZBAR_SYMS = ["qr"] + LINEAR
EXTRA = ["datamatrix", "aztec", "pdf417"]
# the type scand / AVFoundation reports for each generated symbology
REPORTED = {"qr": "qr", "ean13": "ean13", "ean8": "ean8", "upca": "ean13", "upce": "upce", "code39": "code39",
            "code93": "code93", "code128": "code128", "i25": "interleaved2of5", "itf14": "itf14",
            "codabar": "codabar", "databar": "gs1DataBar", "databarexp": "gs1DataBarExpanded",
            "datamatrix": "dataMatrix", "aztec": "aztec", "pdf417": "pdf417"}

UTF8_SAMPLES = ["Grüße aus Köln", "Ελληνικά κείμενα", "東京都渋谷区", "naïve café – 5 €", "Привет, мир", "🙂 ok"]


def gs1_check(digits):
    s = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return str((10 - s % 10) % 10)


def upce_to_upca(ns, d):
    d1, d2, d3, d4, d5, d6 = d
    if d6 in "012":
        body = d1 + d2 + d6 + "0000" + d3 + d4 + d5
    elif d6 == "3":
        body = d1 + d2 + d3 + "00000" + d4 + d5
    elif d6 == "4":
        body = d1 + d2 + d3 + d4 + "00000" + d5
    else:
        body = d1 + d2 + d3 + d4 + d5 + "0000" + d6
    return ns + body


def payload(sym, rng):
    """(zint/segno input, expected value) for one symbol."""
    digits = lambda n: "".join(rng.choice("0123456789") for _ in range(n))
    alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    if sym == "ean13":
        d = rng.choice("123456789") + digits(11); return d, d + gs1_check(d)
    if sym == "ean8":
        d = digits(7); return d, d + gs1_check(d)
    if sym == "upca":
        d = rng.choice("123456789") + digits(10); return d, "0" + d + gs1_check(d)
    if sym == "upce":
        while True:  # zint accepts only the canonical zero-suppressed forms
            d = digits(6)
            if d[5] == "3" and d[2] in "012": continue
            if d[5] == "4" and d[3] == "0": continue
            if d[5] in "56789" and d[4] == "0": continue
            break
        return "0" + d, "0" + d + gs1_check(upce_to_upca("0", d))
    if sym == "code39":
        s = "".join(rng.choice(alnum) for _ in range(rng.randint(5, 12))); return s, s
    if sym == "code93":
        s = "".join(rng.choice(alnum) for _ in range(rng.randint(5, 14))); return s, s
    if sym == "code128":
        chars = alnum + "abcdefghijklmnopqrstuvwxyz-./:+"
        s = "".join(rng.choice(chars) for _ in range(rng.randint(6, 18))); return s, s
    if sym == "i25":
        d = digits(2 * rng.randint(3, 8)); return d, d
    if sym == "itf14":
        d = rng.choice("123456789") + digits(12); return d, d + gs1_check(d)
    if sym == "codabar":
        a, b = rng.choice("ABCD"), rng.choice("ABCD")
        s = a + digits(rng.randint(6, 14)) + b; return s, s
    if sym == "databar":
        d = digits(13); return d, "01" + d + gs1_check(d)
    if sym == "databarexp":
        g = rng.choice("123456789") + digits(12); g += gs1_check(g)
        w = digits(6); date = "%d%02d%02d" % (rng.randint(24, 29), rng.randint(1, 12), rng.randint(1, 28))
        return "[01]%s[3103]%s[15]%s" % (g, w, date), "01%s3103%s15%s" % (g, w, date)
    if sym in ("datamatrix", "aztec", "pdf417"):
        s = "".join(rng.choice(alnum + "abcdefghij ") for _ in range(rng.randint(8, 40))).strip() or "X1"
        return s, s
    raise ValueError(sym)


def qr_payload(rng, version):
    kind = rng.random()
    if kind < 0.25:
        base = rng.choice(UTF8_SAMPLES)
    elif kind < 0.5:
        base = "https://example.org/t/" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))
    else:
        base = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ") for _ in range(12)).strip()
    # pad towards the requested version's capacity so all sizes occur
    target = max(len(base.encode()), int(version * version * 1.6 + rng.randint(0, 20)))
    fill = "".join(rng.choice("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") for _ in range(target))
    text = base if version <= 2 else (base + " " + fill)[: max(len(base), target)]
    return text


def render_qr(text, version, rng):
    """Module matrix (1 = dark) with a 4-module quiet zone."""
    err = rng.choice(["L", "M", "Q", "H"])
    ascii_only = all(ord(c) < 128 for c in text)
    # Phones and web generators encode non-ASCII text as UTF-8 (segno would pick Shift_JIS for Cyrillic);
    # one in four of those carries an explicit UTF-8 ECI.
    enc = None if ascii_only else "utf-8"
    eci = (not ascii_only) and rng.random() < 0.25
    for v in range(version, 41):
        try:
            q = segno.make_qr(text, version=v, error=err, boost_error=False, encoding=enc, eci=eci)
            break
        except Exception:
            continue
    else:
        q = segno.make_qr(text[:200], error="L")
    m = np.array([[1 if c else 0 for c in row] for row in q.matrix], dtype=np.uint8)
    return np.pad(m, 4), q.version


def render_zint(sym, data, tmp):
    out = os.path.join(tmp, "z.png")
    args = ["zint", "-b", str(ZINT[sym]), "--scale=0.5", "--notext", "-o", out, "-d", data]
    if sym == "databarexp":
        args.insert(1, "--gs1")
    if sym in LINEAR:
        args += ["--height=%d" % (30 if sym not in ("databar",) else 33)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0 and "Warning" not in r.stdout + r.stderr:
        raise RuntimeError("zint %s %r: %s" % (sym, data, r.stdout + r.stderr))
    im = np.array(Image.open(out).convert("L"))
    m = (im < 128).astype(np.uint8)
    q = 10 if sym in LINEAR else 3
    return np.pad(m, ((q // 2 if sym in LINEAR else q, q // 2 if sym in LINEAR else q), (q, q)))


def module_image(mat, ppm, fg=20, bg=235):
    """Renders a module matrix at `ppm` pixels per module (float), anti-aliased by area."""
    h, w = mat.shape
    big = np.where(np.kron(mat, np.ones((8, 8), np.uint8)) > 0, fg, bg).astype(np.uint8)
    im = Image.fromarray(big)
    return im.resize((max(1, round(w * ppm)), max(1, round(h * ppm))), Image.BOX)


def background(w, h, rng, level=None):
    level = rng.randint(150, 230) if level is None else level
    nrng = np.random.default_rng(rng.randint(0, 2**31))
    base = np.full((h, w), float(level))
    # soft texture
    tex = nrng.normal(0, 8, (h // 16 + 2, w // 16 + 2))
    tex = np.array(Image.fromarray(tex.astype(np.float32)).resize((w, h), Image.BICUBIC))
    return np.clip(base + tex, 0, 255)


def paste(canvas, sym_img, rng, angle=0.0, persp=0.0, scale_jitter=True, pos=None):
    """Pastes sym_img onto canvas (float array) with rotation/perspective; returns the canvas."""
    H, W = canvas.shape
    sw, sh = sym_img.size
    cx, cy = pos if pos else (W / 2 + rng.uniform(-0.15, 0.15) * W, H / 2 + rng.uniform(-0.15, 0.15) * H)
    a = math.radians(angle)
    corners = np.array([[-sw / 2, -sh / 2], [sw / 2, -sh / 2], [sw / 2, sh / 2], [-sw / 2, sh / 2]])
    if persp:
        # tilt: shrink one side
        side = rng.randint(0, 3)
        k = persp
        c = corners.copy()
        if side == 0: c[0, 0] *= 1 - k; c[1, 0] *= 1 - k
        if side == 1: c[1, 1] *= 1 - k; c[2, 1] *= 1 - k
        if side == 2: c[2, 0] *= 1 - k; c[3, 0] *= 1 - k
        if side == 3: c[0, 1] *= 1 - k; c[3, 1] *= 1 - k
        corners = c
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    dst = corners @ rot.T + [cx, cy]
    # a symbol larger than the frame is shrunk to fit (never cut off: the truth must stay readable)
    span = dst.max(0) - dst.min(0)
    fit = min(1.0, (W - 8) / span[0], (H - 8) / span[1])
    if fit < 1.0:
        dst = (dst - [cx, cy]) * fit + [cx, cy]
    # fit into canvas
    minx, miny = dst.min(0); maxx, maxy = dst.max(0)
    shiftx = -minx + 2 if minx < 2 else (W - 2 - maxx if maxx > W - 2 else 0)
    shifty = -miny + 2 if miny < 2 else (H - 2 - maxy if maxy > H - 2 else 0)
    dst = dst + [shiftx, shifty]
    src = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], float)
    coeffs = perspective_coeffs(dst, src)
    mask = Image.new("L", (sw, sh), 255)
    warped = sym_img.transform((W, H), Image.PERSPECTIVE, coeffs, Image.BICUBIC, fillcolor=0)
    wmask = mask.transform((W, H), Image.PERSPECTIVE, coeffs, Image.BILINEAR, fillcolor=0)
    m = np.array(wmask, float) / 255
    canvas[:] = canvas * (1 - m) + np.array(warped, float) * m
    return dst


def perspective_coeffs(dst, src):
    """Coefficients mapping output (dst) points to input (src) points, for PIL."""
    A, b = [], []
    for (x, y), (u, v) in zip(dst, src):
        A.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); b.append(u)
        A.append([0, 0, 0, x, y, 1, -v * x, -v * y]); b.append(v)
    return np.linalg.solve(np.array(A, float), np.array(b, float)).tolist()


class Generator:
    def __init__(self, seed, heldout, tmp):
        self.rng = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.heldout = heldout
        self.tmp = tmp
        self.qr_versions = list(range(1, 41))
        self.rng.shuffle(self.qr_versions)
        self.qr_i = 0

    def next_version(self, limit=40):
        for _ in range(80):
            v = self.qr_versions[self.qr_i % 40]; self.qr_i += 1
            if v <= limit: return v
        return self.rng.randint(1, limit)

    def symbol_matrix(self, sym, limit=40):
        """(module matrix with its quiet zone, truth) for one symbol: a QR of version at most `limit`, or zint's."""
        rng = self.rng
        if sym == "qr":
            v = self.next_version(limit)
            text = qr_payload(rng, v)
            mat, v = render_qr(text, v, rng)
            value = text
        else:
            data, value = payload(sym, rng)
            mat = render_zint(sym, data, self.tmp)
            v = None
        truth = {"symbology": sym, "type": REPORTED[sym], "value": value}
        if v: truth["version"] = v
        return mat, truth

    def symbol(self, sym, ppm, limit=40, invert=False, fg=None, bg=None):
        """(PIL image, truth) for one symbol at `ppm` pixels per module."""
        rng = self.rng
        mat, truth = self.symbol_matrix(sym, limit)
        fg = rng.randint(0, 50) if fg is None else fg
        bg = rng.randint(200, 255) if bg is None else bg
        if invert: fg, bg = bg, fg
        return module_image(mat, ppm, fg, bg), truth

    def frame(self, category, sym):
        rng = self.rng
        ho = self.heldout
        W, H = 640, 480
        truths = []
        canvas = background(W, H, rng)
        qr_limit = 40
        if category == "clean":
            ppm = rng.uniform(3.0, 4.5) if not ho else rng.uniform(2.8, 5.0)
            if sym == "qr": qr_limit = 16
            img, t = self.symbol(sym, ppm, qr_limit); truths.append(t)
            paste(canvas, img, rng, angle=rng.uniform(-3, 3))
        elif category == "small":
            ppm = rng.uniform(1.8, 2.3) if not ho else rng.uniform(1.7, 2.4)
            img, t = self.symbol(sym, ppm, 25); truths.append(t)
            paste(canvas, img, rng, angle=rng.uniform(-5, 5))
        elif category == "rotated":
            ppm = rng.uniform(2.8, 4.0)
            if sym == "qr": qr_limit = 12
            img, t = self.symbol(sym, ppm, qr_limit); truths.append(t)
            paste(canvas, img, rng, angle=rng.uniform(0, 360))
        elif category == "perspective":
            ppm = rng.uniform(3.0, 4.0)
            if sym == "qr": qr_limit = 12
            img, t = self.symbol(sym, ppm, qr_limit); truths.append(t)
            paste(canvas, img, rng, angle=rng.uniform(-20, 20), persp=rng.uniform(0.15, 0.35) if not ho else rng.uniform(0.2, 0.4))
        elif category == "blur":
            ppm = rng.uniform(3.0, 4.5)
            if sym == "qr": qr_limit = 12
            img, t = self.symbol(sym, ppm, qr_limit); truths.append(t)
            paste(canvas, img, rng, angle=rng.uniform(-5, 5))
            sigma = rng.uniform(1.0, 1.8) if not ho else rng.uniform(1.2, 2.0)
            canvas[:] = np.array(Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(sigma)), float)
        elif category == "noise":
            ppm = rng.uniform(3.0, 4.5)
            if sym == "qr": qr_limit = 12
            img, t = self.symbol(sym, ppm, qr_limit); truths.append(t)
            paste(canvas, img, rng, angle=rng.uniform(-5, 5))
            sd = rng.uniform(18, 35) if not ho else rng.uniform(25, 40)
            canvas += self.np.normal(0, sd, canvas.shape)
            sp = self.np.random(canvas.shape)
            canvas[sp < 0.01] = 0; canvas[sp > 0.99] = 255
        elif category == "lowcontrast":
            ppm = rng.uniform(3.0, 4.5)
            if sym == "qr": qr_limit = 12
            mid = rng.randint(90, 170); d = rng.randint(12, 30) if not ho else rng.randint(10, 25)
            img, t = self.symbol(sym, ppm, qr_limit, fg=mid - d, bg=mid + d); truths.append(t)
            canvas = np.full((H, W), float(mid + d)) + self.np.normal(0, 2, (H, W))
            paste(canvas, img, rng, angle=rng.uniform(-5, 5))
        elif category == "inverted":
            ppm = rng.uniform(3.0, 4.5)
            if sym == "qr": qr_limit = 14
            img, t = self.symbol(sym, ppm, qr_limit, invert=True); truths.append(t)
            canvas = background(W, H, rng, level=rng.randint(10, 60))
            paste(canvas, img, rng, angle=rng.uniform(-8, 8))
        elif category == "glare":
            ppm = rng.uniform(3.0, 4.5)
            if sym == "qr": qr_limit = 12
            img, t = self.symbol(sym, ppm, qr_limit); truths.append(t)
            dst = paste(canvas, img, rng, angle=rng.uniform(-8, 8))
            canvas[:] = self.illuminate(canvas, dst)
        elif category == "multi":
            n = rng.randint(2, 4)
            syms = [sym] + [rng.choice(ZBAR_SYMS) for _ in range(n - 1)]
            cells = [(W * 0.27, H * 0.28), (W * 0.73, H * 0.28), (W * 0.27, H * 0.74), (W * 0.73, H * 0.74)]
            rng.shuffle(cells)
            for s, cell in zip(syms, cells):
                img, t = self.symbol(s, rng.uniform(2.6, 3.2), 5)
                if img.size[0] > W * 0.46 or img.size[1] > H * 0.46:
                    img = img.resize((min(img.size[0], int(W * 0.46)), min(img.size[1], int(H * 0.46))), Image.BOX)
                truths.append(t)
                paste(canvas, img, rng, angle=rng.uniform(-10, 10), pos=cell)
        elif category == "phone":
            canvas, t = self.phone(W, H)
            truths.append(t)
        elif category == "extra":
            ppm = rng.uniform(3.0, 4.5)
            img, t = self.symbol(sym, ppm); truths.append(t)
            paste(canvas, img, rng, angle=rng.uniform(-10, 10), persp=rng.uniform(0, 0.15))
        elif category == "negative":
            canvas = self.clutter(W, H)
        else:
            raise ValueError(category)
        # every frame: a little sensor noise
        canvas += self.np.normal(0, 2.0, canvas.shape)
        return Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8)), truths

    def illuminate(self, canvas, dst):
        rng, H, W = self.rng, canvas.shape[0], canvas.shape[1]
        yy, xx = np.mgrid[0:H, 0:W].astype(float)
        # uneven light: linear gradient darkening one side
        g = rng.uniform(0.35, 0.6) if not self.heldout else rng.uniform(0.4, 0.65)
        ang = rng.uniform(0, 2 * math.pi)
        ramp = ((xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang)) / (W / 2)
        out = canvas * (1 - g * (ramp.clip(-1, 1) + 1) / 2)
        # specular highlight on the code: a bright blob, partly saturating
        cx, cy = dst.mean(0) + [rng.uniform(-0.3, 0.3) * (dst[:, 0].ptp()), rng.uniform(-0.3, 0.3) * (dst[:, 1].ptp())]
        r = rng.uniform(0.12, 0.25) * max(dst[:, 0].ptp(), dst[:, 1].ptp())
        blob = np.exp(-(((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)))
        return out + blob * rng.uniform(120, 200)

    def phone(self, W, H):
        """A QR code on a phone screen: dark or light mode, the screen's pixel grid resampled by the camera
        (moiré), a specular highlight, the phone tilted, the code small in the frame."""
        rng = self.rng
        dark = rng.random() < (0.75 if not self.heldout else 0.6)
        v = self.next_version(10)
        text = qr_payload(rng, v)
        mat, v = render_qr(text, v, rng)
        mat = mat[2:-2, 2:-2]  # apps show a 2-module margin
        screen_ppm = rng.randint(5, 9)  # screen pixels per module
        fg, bg = (rng.randint(200, 240), rng.randint(15, 40)) if dark else (rng.randint(0, 30), rng.randint(220, 250))
        code = np.where(np.kron(mat, np.ones((screen_ppm, screen_ppm), np.uint8)) > 0, fg, bg).astype(float)
        # screen area around the code (app background)
        pad = screen_ppm * 4
        screen = np.pad(code, ((pad * 3, pad * 4), (pad, pad)), constant_values=bg)
        # pixel grid: each screen pixel -> 3x3 camera-side cell: R,G,B stripes and a dark gap row
        sub = np.array([[0.55, 1.0, 0.45], [0.55, 1.0, 0.45], [0.25, 0.35, 0.2]])
        if self.heldout: sub = np.array([[0.5, 1.0, 0.5], [0.5, 1.0, 0.5], [0.3, 0.4, 0.3]])
        grid = np.kron(screen, np.ones((3, 3))) * np.tile(sub, screen.shape) * 1.3 + 6
        ph, pw = grid.shape
        # bezel
        bez = 18
        phone = np.pad(grid, bez, constant_values=rng.randint(5, 25))
        # camera: the code ends up at ~2.5-4 px per module; sampling with little prefiltering -> moiré
        target_ppm = rng.uniform(2.6, 4.0) if not self.heldout else rng.uniform(2.4, 3.6)
        scale = target_ppm / (screen_ppm * 3)
        pw2, ph2 = max(8, int(phone.shape[1] * scale)), max(8, int(phone.shape[0] * scale))
        small = Image.fromarray(np.clip(phone, 0, 255).astype(np.uint8)).resize((pw2 * 2, ph2 * 2), Image.NEAREST)
        small = small.resize((pw2, ph2), Image.BILINEAR)
        canvas = background(W, H, rng, level=rng.randint(60, 200))
        angle = rng.uniform(-30, 30)
        dst = paste(canvas, small, rng, angle=angle, persp=rng.uniform(0.05, 0.25))
        # specular highlight across the screen (a diagonal band)
        yy, xx = np.mgrid[0:H, 0:W].astype(float)
        c = dst.mean(0)
        a = rng.uniform(0, math.pi)
        d = ((xx - c[0]) * math.cos(a) + (yy - c[1]) * math.sin(a)) + rng.uniform(-40, 40)
        width = rng.uniform(12, 30)
        canvas += np.exp(-(d * d) / (2 * width * width)) * rng.uniform(50, 110)
        canvas = np.array(Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.6)), float)
        # the symbol's corners (inside its 2-module margin) in frame pixels: screen -> grid -> phone -> small -> frame
        n = mat.shape[0] - 4
        sx, sy = pw2 / phone.shape[1], ph2 / phone.shape[0]
        x0 = (bez + 3 * (pad + 2 * screen_ppm)) * sx; y0 = (bez + 3 * (pad * 3 + 2 * screen_ppm)) * sy
        x1 = x0 + 3 * n * screen_ppm * sx; y1 = y0 + 3 * n * screen_ppm * sy
        hm = perspective_coeffs(np.array([[0, 0], [pw2, 0], [pw2, ph2], [0, ph2]], float), dst) + [1.0]
        hm = np.array(hm).reshape(3, 3)
        corners = []
        for (x, y) in [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]:
            u, v_, w = hm @ [x, y, 1.0]
            corners.append([round(u / w, 2), round(v_ / w, 2)])
        return canvas, {"symbology": "qr", "type": "qr", "value": text, "version": v, "dark": dark, "corners": corners}

    def clutter(self, W, H):
        """A frame with no code: texture, stripes and blobs that resemble bars."""
        rng = self.rng
        canvas = background(W, H, rng)
        yy, xx = np.mgrid[0:H, 0:W].astype(float)
        for _ in range(rng.randint(2, 5)):
            kind = rng.random()
            x0, y0 = rng.randint(0, W - 100), rng.randint(0, H - 80)
            w, h = rng.randint(60, 260), rng.randint(30, 160)
            region = canvas[y0:y0 + h, x0:x0 + w]
            h, w = region.shape
            if kind < 0.4:  # random bars (not a code)
                bars = np.repeat(self.np.integers(0, 2, w // 2 + 1), 2)[:w]
                region[:] = np.where(bars[None, :] > 0, 30, 220)
            elif kind < 0.7:  # random checkerboard blocks (QR-like texture without finders)
                m = self.np.integers(0, 2, (h // 4 + 1, w // 4 + 1))
                region[:] = np.where(np.kron(m, np.ones((4, 4)))[:h, :w] > 0, 30, 220)
            else:  # text-like strokes
                for _ in range(10):
                    yy0 = rng.randint(0, max(1, h - 6)); xx0 = rng.randint(0, max(1, w - 20))
                    region[yy0:yy0 + 3, xx0:xx0 + rng.randint(5, 20)] = 40
        canvas += self.np.normal(0, rng.uniform(2, 20), canvas.shape)
        return canvas


CATEGORIES = ["clean", "small", "rotated", "perspective", "blur", "noise", "lowcontrast", "inverted", "glare",
              "multi", "phone", "extra", "negative"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "out", "reader"))
    ap.add_argument("--per-category", type=int, default=39)
    ap.add_argument("--heldout", action="store_true", help="different seed and distortion parameters")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--categories", default=",".join(CATEGORIES))
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else (9001 if args.heldout else 1234)
    name = "heldout" if args.heldout else "main"
    root = os.path.abspath(os.path.join(args.out, name))
    truth = []
    with tempfile.TemporaryDirectory() as tmp:
        gen = Generator(seed, args.heldout, tmp)
        for cat in args.categories.split(","):
            os.makedirs(os.path.join(root, cat), exist_ok=True)
            syms = EXTRA if cat == "extra" else ["qr"] if cat == "phone" else ZBAR_SYMS
            for i in range(args.per_category):
                # QR gets a larger share (all versions occur); the rest cycle through every symbology
                sym = "qr" if (i % 3 == 0 and cat not in ("extra",)) else syms[i % len(syms)]
                img, codes = gen.frame(cat, sym)
                rel = os.path.join(cat, "%03d.png" % i)
                img.save(os.path.join(root, rel))
                truth.append({"file": rel, "category": cat, "codes": codes})
    with open(os.path.join(root, "truth.json"), "w") as f:
        json.dump({"seed": seed, "heldout": args.heldout, "images": truth}, f, ensure_ascii=False, indent=1)
    print("%d images in %s" % (len(truth), root), file=sys.stderr)


if __name__ == "__main__":
    main()
