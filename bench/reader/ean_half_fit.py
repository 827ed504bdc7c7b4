#!/usr/bin/python3
"""An experiment, not a check scand makes: does re-rendering an EAN-13/EAN-8 read tell a half read as wrong
digits from a right read? (docs/reader.md, "Lead: re-rendering the halves of an EAN read".)

For every EAN-13/EAN-8 that scand reports on a set's frames, this takes a grey profile across the bars through
the middle of the read's bounds (the bar direction from the structure tensor, 0.25 px steps, lines averaged
along the bars), renders the reported digits as 95 (67) modules, blurs them with a Gaussian, and finds the
module width, blur and offset that best fit the profile (normalised cross-correlation). It then scores each
half (the six or four digits between the guards) on its own: misfit = 1 - NCC. A half read as other digits
fits worse than the half read right; on a right read of a blurred code both halves fit alike.

Rule under test: drop when the worse half's misfit is >= 0.09 and >= 4 x the better half's.

Usage:
  /usr/bin/python3 bench/reader/ean_half_fit.py SCAND SET [SET ...]
SET is a directory with truth.json in make_set.py's format (make_shelf.py, make_set.py). Prints one line per
read (right/wrong, misfits, what the rule would do) and the counts. Needs python3-opencv, python3-numpy.
"""
import json, math, os, subprocess, sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score import matches  # noqa: E402

L = ['0001101', '0011001', '0010011', '0111101', '0100011', '0110001', '0101111', '0111011', '0110111', '0001011']
G = [''.join('1' if c == '0' else '0' for c in code)[::-1] for code in L]
R = [''.join('1' if c == '0' else '0' for c in code) for code in L]
PARITY = ['LLLLLL', 'LLGLGG', 'LLGGLG', 'LLGGGL', 'LGLLGG', 'LGGLLG', 'LGGGLL', 'LGLGLG', 'LGLGGL', 'LGGLGL']
STEP = 0.25  # profile sample spacing, pixels


def modules(value):
    """The symbol's modules (1 = bar) and each half's module range."""
    d = [int(c) for c in value]
    if len(d) == 13:
        p = PARITY[d[0]]
        s = '101' + ''.join((L if p[i] == 'L' else G)[d[1 + i]] for i in range(6)) + '01010' + \
            ''.join(R[x] for x in d[7:]) + '101'
        return np.array([int(c) for c in s], float), [(3, 45), (50, 92)]
    s = '101' + ''.join(L[x] for x in d[:4]) + '01010' + ''.join(R[x] for x in d[4:]) + '101'
    return np.array([int(c) for c in s], float), [(3, 31), (36, 64)]


def profile(grey, box):
    """Darkness along the across-bars direction through the box's centre (frame pixels), lines averaged."""
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    pad = int(max(w, h) * 0.6) + 10
    x0, y0 = max(0, int(x - pad)), max(0, int(y - pad))
    x1, y1 = min(grey.shape[1], int(x + w + pad)), min(grey.shape[0], int(y + h + pad))
    crop = grey[y0:y1, x0:x1].astype(np.float32)
    gx, gy = cv2.Sobel(crop, cv2.CV_32F, 1, 0), cv2.Sobel(crop, cv2.CV_32F, 0, 1)
    theta = 0.5 * math.atan2(2 * (gx * gy).sum(), (gx * gx).sum() - (gy * gy).sum())
    u = np.array([math.cos(theta), math.sin(theta)])
    v = np.array([-u[1], u[0]])
    t = np.arange(-(0.5 * math.hypot(w, h) + 0.5 * w + 20), 0.5 * math.hypot(w, h) + 0.5 * w + 20, STEP)
    offsets = np.arange(-min(10, h * 0.3), min(10, h * 0.3) + 0.1, 2.0)
    acc = np.zeros_like(t)
    g = grey.astype(np.float32)
    for k in offsets:
        px = (cx + t * u[0] + k * v[0]).astype(np.float32).reshape(1, -1)
        py = (cy + t * u[1] + k * v[1]).astype(np.float32).reshape(1, -1)
        acc += cv2.remap(g, px, py, cv2.INTER_LINEAR).ravel()
    return 255 - acc / len(offsets)


def render(m, w, sigma):
    """Modules m at w pixels each, 7 modules of quiet zone each side, blurred; sampled every STEP."""
    tt = np.arange(int(math.ceil((len(m) + 14) * w / STEP))) * STEP - 7 * w
    idx = np.floor(tt / w).astype(int)
    r = np.where((idx >= 0) & (idx < len(m)), m[np.clip(idx, 0, len(m) - 1)], 0.0)
    k = int(3 * sigma / STEP) + 1
    kernel = np.exp(-0.5 * ((np.arange(-k, k + 1) * STEP) / sigma) ** 2)
    return np.convolve(r, kernel / kernel.sum(), 'same').astype(np.float32)


def ncc(a, b):
    a, b = a - a.mean(), b - b.mean()
    d = math.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / d) if d > 0 else 0.0


def half_misfits(p, value):
    """(overall NCC, module width px, blur px, [misfit of each half]) or None when nothing fits."""
    m, halves = modules(value)
    best = None
    for w in np.arange(0.8, 5.0, 0.02):
        for sigma in (0.4, 0.8, 1.2, 1.8, 2.6):
            tpl = render(m, w, sigma)
            if len(tpl) >= len(p):
                continue
            r = cv2.matchTemplate(p.astype(np.float32).reshape(1, -1), tpl.reshape(1, -1), cv2.TM_CCOEFF_NORMED).ravel()
            i = int(r.argmax())
            if best is None or r[i] > best[0]:
                best = (float(r[i]), w, sigma, i)
    if best is None:
        return None
    score, w, sigma, i = best
    tpl = render(m, w, sigma)
    seg, off = p[i:i + len(tpl)], 7 * w
    return score, w, sigma, [1 - ncc(seg[int((off + a * w) / STEP):int((off + b * w) / STEP)],
                                     tpl[int((off + a * w) / STEP):int((off + b * w) / STEP)]) for a, b in halves]


def main():
    scand, sets = sys.argv[1], sys.argv[2:]
    counts = {}
    for root in sets:
        truth = json.load(open(os.path.join(root, 'truth.json')))
        files = [os.path.join(root, im['file']) for im in truth['images']]
        out = subprocess.run([scand, 'scan', '--types', 'codes', *files], capture_output=True, text=True).stdout
        by = {}
        for line in out.splitlines():
            o = json.loads(line)
            by[o['source']] = (o.get('objects', []), o['width'], o['height'])
        for im in truth['images']:
            path = os.path.join(root, im['file'])
            objects, W, H = by.get(path, ([], 0, 0))
            for o in objects:
                if o['type'] not in ('ean13', 'ean8'):
                    continue
                right = any(matches(o.get('value', ''), c) for c in im['codes'])
                b = o['bounds']
                fit = half_misfits(profile(cv2.imread(path, cv2.IMREAD_GRAYSCALE),
                                           (b['x'] * W, b['y'] * H, b['width'] * W, b['height'] * H)), o['value'])
                drop = fit is not None and max(fit[3]) >= 0.09 and max(fit[3]) >= 4 * max(0.003, min(fit[3]))
                key = ('right' if right else 'wrong', 'dropped' if drop else 'kept')
                counts[key] = counts.get(key, 0) + 1
                print('%-5s %-7s %-14s %s %s' % (key[0], key[1], o['value'], path,
                      'no fit' if fit is None else 'misfits %.3f %.3f (w %.2f px, blur %.1f px)'
                      % (fit[3][0], fit[3][1], fit[1], fit[2])), flush=True)
    for k in sorted(counts):
        print('%s reads %s: %d' % (k[0], k[1], counts[k]))


if __name__ == '__main__':
    main()
