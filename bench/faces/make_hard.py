#!/usr/bin/python3
"""Writes the hard face evaluation set (issue 51) into bench/out/faces-hard/: 640x480 Y4M clips of several small
faces on busy textured backgrounds, faces that cross and hide one another, plus a real group photograph, each
with exact ground truth (the layout of make_clips.py, read by score.py --clips bench/out/faces-hard).

People: the five marked photographs of marks.json (make_clips.py) and the 29 people of the Solvay conference
photograph of 1927 (Debian `visp-images-data` 3.5.0-1, ViSP-images/faces/1280px-Solvay_conference_1927.png,
sha256 4380268f...a9ef; the photograph, by Benjamin Couprie, 1927, is in the public domain; the package is
GPL-2; its ground_truth_detection.txt (sha256 fab3d0a5...75ad) gives one square per face in the convention of
OpenCV's frontal Haar cascade, which is scand's face square; its detection_0 is a patch of wall, not a face,
and is dropped). Their faces are 41-56 px in the photograph, so a pasted head is at most about 1.6x its
original size: softer than the marked photographs, like a face far from a camera.

Held out of all tuning: the Solvay people with an even number (solvay-02 ... solvay-28), hopper and biden
(marks.json). Clips starting "h_" show only held-out people; "t_" clips are for tuning. The group photograph is
scored as a whole (it shows both).

No eye marks exist for the Solvay people: their roll truth is the turn applied (the photograph's own head tilt,
a few degrees, is unknown), so their faces carry "rollUnknown" and score.py leaves them out of the roll error.

Not in this set (no licensed photographs found): faces really looking down or laughing (the "down" variants
shorten a frontal head to 0.8 of its height, a crude stand-in; "dim" ones halve its contrast and soften it); a
head turned 45 deg or more other than the cameraman's profile.

Usage: make_hard.py [OUTDIR]
"""
import hashlib, json, math, os, shutil, sys, zlib
from PIL import Image, ImageFilter
import make_clips as mc

SOLVAY_DIR = "/usr/share/visp-images-data/ViSP-images/faces"
SOLVAY = os.path.join(SOLVAY_DIR, "1280px-Solvay_conference_1927.png")
SOLVAY_SHA = "4380268f5593c999d0396110344be831445e807e6d044bde9ea49ec58c11a9ef"
TRUTH_SHA = "fab3d0a5b0f8077afdaf143a7771c33459ba6e468661ec4f9ff79a20f79775ad"


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def solvay_squares():
    """index -> (x, y, side) of each face square in the photograph's pixels (detection_1 ... detection_29)."""
    for path, want in ((SOLVAY, SOLVAY_SHA), (os.path.join(SOLVAY_DIR, "ground_truth_detection.txt"), TRUTH_SHA)):
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: install the Debian package visp-images-data (scripts/install-deps)")
        if sha256(path) != want:
            sys.exit(f"{path}: sha256 {sha256(path)}, expected {want}")
    lines = open(os.path.join(SOLVAY_DIR, "ground_truth_detection.txt")).read().split()
    out, i = {}, 0
    while i < len(lines):
        n = int(lines[i].split("_")[1])
        pts = [(int(lines[i + 1 + 2 * k]), int(lines[i + 2 + 2 * k])) for k in range(4)]   # (row, column)
        rows, cols = [p[0] for p in pts], [p[1] for p in pts]
        if n != 0:   # detection_0 is the wall at the left edge
            out[n] = (min(cols), min(rows), max(max(cols) - min(cols), max(rows) - min(rows)))
        i += 9
    return out


def add_solvay_people():
    img = Image.open(SOLVAY).convert("L")
    for n, (x, y, side) in solvay_squares().items():
        patch, mask = mc.cut_head(img, x + side / 2, y + side / 2, side, (0.16, 0.02, 0.84, 0.99))
        key = f"solvay-{n:02d}"
        mc.PERSONS[key] = dict(patch=(patch, mask, side, 0.0, (0.0, 0.0, 1.0)), yaw=0, holdout=n % 2 == 0,
                               person=key, roll_known=False)


def add_variant(base, kind):
    """A derived person "BASE~KIND" (the same person and hold-out): "dim" halves the head's contrast and
    softens it (a face in shade, out of focus), "down" shortens it to 0.8 of its height about the face centre
    (a crude stand-in for a face looking down: no licensed photograph of one was found)."""
    from PIL import ImageEnhance
    p = mc.PERSONS[base]
    patch, mask, side, roll, rel = p["patch"]
    if kind == "dim":
        patch = ImageEnhance.Contrast(patch).enhance(0.5).filter(ImageFilter.GaussianBlur(1.2))
    elif kind == "down":
        h = int(round(patch.height * 0.8))
        top = (patch.height - h) // 2
        squash = lambda im, fill: (lambda c: (c.paste(im.resize((im.width, h), Image.BICUBIC), (0, top)), c)[1])(
            Image.new("L", im.size, fill))
        patch, mask = squash(patch, 128), squash(mask, 0)
    key = f"{base}~{kind}"
    mc.PERSONS[key] = dict(p, patch=(patch, mask, side, roll, rel), person=p["person"])
    return key


def wander(cx, cy, ax, ay, px, py, phase=0.0):
    return lambda i: (cx + ax * math.sin(i / px + phase), cy + ay * math.sin(i / py + 2 * phase))


def group_clip(people, n=150):
    """people: [(person, path(i) -> (cx, cy), size, roll(i))]: several faces at once, back to front."""
    return lambda i: [(p, 1, *path(i), size, roll(i)) for p, path, size, roll in people]


def cross_clip(a, b, n, size, gap, roll=0.0, vertical=False):
    """Two faces on straight paths that cross in the middle of the clip, `gap` face sides apart at the closest
    (0 = one passes right behind the other); `a` is behind `b`."""
    def at(i):
        t = i / (n - 1)
        if vertical:
            return [(a, 1, 320 - gap * size / 2, 60 + 360 * t, size, roll), (b, 1, 320 + gap * size / 2, 420 - 360 * t, size, -roll)]
        return [(a, 1, 80 + 480 * t, 240 - gap * size / 2, size, roll), (b, 1, 560 - 480 * t, 240 + gap * size / 2, size, -roll)]
    return at


def clips():
    """name -> (background, frames, faces_at, truth extras)."""
    s = lambda k: f"solvay-{k:02d}"
    c = lambda r: (lambda i: r)                           # a constant roll
    sway = lambda amp, p: (lambda i: amp * math.sin(i / p))
    out = {}
    # Tuning people (odd Solvay numbers, astronaut, obama).
    out["t_four_gravel"] = ("gravel", 150, group_clip([
        (s(1), wander(130, 130, 30, 20, 23, 31), 52, sway(10, 17)), (s(3), wander(500, 120, 25, 25, 19, 29), 56, c(-8)),
        ("astronaut", wander(200, 340, 40, 20, 27, 21), 78, sway(20, 25)), (s(5), wander(470, 350, 30, 30, 33, 17), 74, c(12))]))
    out["t_five_grass"] = ("grass", 150, group_clip([
        (s(7), wander(100, 110, 20, 20, 21, 27), 44, c(0)), (s(9), wander(320, 100, 40, 15, 25, 19), 60, sway(15, 20)),
        (s(11), wander(540, 120, 20, 30, 29, 23), 50, c(-15)), ("obama", wander(180, 350, 30, 25, 31, 19), 80, sway(12, 23)),
        (s(13), wander(470, 360, 35, 20, 17, 27), 66, c(20))]))
    out["t_cross"] = ("brick", 120, cross_clip(s(15), s(17), 120, 70, 0.35))
    out["t_hide"] = ("coffee", 150, cross_clip(s(19), "obama2", 150, 76, 0.0))
    out["t_three_coffee"] = ("coffee", 150, group_clip([
        (s(21), wander(150, 240, 50, 40, 23, 29), 48, sway(25, 19)), (s(23), wander(330, 200, 40, 40, 31, 21), 62, c(-20)),
        (s(25), wander(510, 260, 40, 50, 19, 25), 72, sway(18, 27))]))
    # Held out (even Solvay numbers, hopper, biden): used in no tuning.
    out["h_four_gravel"] = ("gravel", 150, group_clip([
        (s(2), wander(140, 120, 25, 20, 21, 33), 50, sway(8, 19)), (s(4), wander(490, 130, 30, 20, 27, 23), 54, c(10)),
        ("hopper", wander(210, 340, 35, 25, 25, 19), 80, sway(15, 21)), (s(6), wander(480, 340, 30, 35, 29, 17), 70, c(-14))]))
    out["h_four_brick"] = ("brick", 150, group_clip([
        (s(8), wander(120, 130, 30, 30, 19, 23), 46, c(0)), (s(10), wander(330, 120, 35, 20, 23, 29), 58, sway(20, 17)),
        (s(12), wander(530, 150, 25, 35, 27, 21), 64, c(25)), ("biden", wander(320, 350, 60, 25, 31, 25), 78, sway(10, 29))]))
    out["h_five_grass"] = ("grass", 150, group_clip([
        (s(14), wander(90, 100, 25, 20, 23, 19), 42, c(-10)), (s(16), wander(300, 110, 30, 25, 29, 21), 52, sway(12, 23)),
        (s(18), wander(530, 110, 25, 25, 17, 27), 60, c(15)), (s(20), wander(170, 340, 35, 30, 21, 31), 68, sway(20, 19)),
        (s(22), wander(470, 350, 30, 30, 25, 23), 76, c(-25))]))
    out["h_three_coffee"] = ("coffee", 150, group_clip([
        (s(24), wander(140, 230, 45, 45, 27, 21), 46, sway(30, 23)), (s(26), wander(330, 250, 40, 45, 21, 29), 56, c(18)),
        ("biden", wander(520, 230, 40, 50, 23, 19), 74, sway(15, 31))]))
    # Small faces rolling up to +-40 deg, and faces dimmed, softened or shortened (looking down), on busy ground.
    out["t_small_roll"] = ("gravel", 150, group_clip([
        (s(27), wander(130, 140, 30, 25, 19, 27), 44, sway(40, 13)), (s(29), wander(480, 130, 35, 20, 23, 17), 52, sway(-35, 15)),
        ("astronaut", wander(200, 350, 30, 25, 29, 23), 60, sway(30, 19)), (s(1), wander(500, 340, 25, 30, 17, 21), 48, sway(-40, 11))]))
    out["t_dim_down"] = ("grass", 150, lambda i: group_clip([
        (add_variant(s(3), "dim"), wander(120, 130, 30, 20, 23, 29), 54, sway(15, 21)),
        (add_variant(s(5), "down"), wander(320, 120, 35, 25, 19, 23), 62, c(0)),
        (add_variant("obama", "dim"), wander(520, 150, 25, 35, 27, 19), 70, sway(-20, 25)),
        (add_variant(s(7), "down"), wander(220, 350, 40, 25, 21, 31), 50, sway(10, 17)),
        (s(9), wander(470, 350, 30, 30, 29, 21), 58, c(-30))])(i))
    out["h_small_roll"] = ("gravel", 150, group_clip([
        (s(8), wander(140, 130, 30, 25, 21, 25), 42, sway(40, 14)), (s(10), wander(470, 140, 35, 20, 25, 19), 50, sway(-35, 16)),
        ("hopper", wander(210, 350, 30, 25, 27, 21), 62, sway(30, 18)), (s(12), wander(490, 350, 25, 30, 19, 23), 46, sway(-40, 12))]))
    out["h_dim_down"] = ("brick", 150, lambda i: group_clip([
        (add_variant(s(14), "dim"), wander(120, 130, 30, 20, 21, 27), 52, sway(15, 19)),
        (add_variant(s(16), "down"), wander(330, 120, 35, 25, 23, 21), 60, c(0)),
        (add_variant("biden", "dim"), wander(520, 150, 25, 35, 25, 23), 72, sway(-20, 27)),
        (add_variant(s(18), "down"), wander(220, 350, 40, 25, 19, 29), 48, sway(10, 15)),
        (add_variant("hopper", "down"), wander(470, 350, 30, 30, 31, 19), 64, c(-25))])(i))
    out["h_cross"] = ("gravel", 120, cross_clip(s(28), "hopper", 120, 72, 0.4))
    out["h_cross_roll"] = ("grass", 120, cross_clip(s(2), s(4), 120, 64, 0.3, roll=20, vertical=True))
    out["h_hide"] = ("brick", 150, cross_clip(s(6), "biden", 150, 78, 0.0))
    return out


def write_group_photo(outdir):
    """The Solvay photograph itself, with its 29 face squares, scored as a still (score.py runs scand on "file")."""
    img = Image.open(SOLVAY)
    dest = os.path.join(outdir, "group_solvay.png")
    shutil.copyfile(SOLVAY, dest)
    faces = [{"person": f"solvay-{n:02d}", "photo": "solvay", "segment": n, "x": x, "y": y, "w": side, "h": side,
              "roll": 0.0, "rollUnknown": True, "yaw": 0, "holdout": n % 2 == 0, "ignore": False}
             for n, (x, y, side) in sorted(solvay_squares().items())]
    truth = {"clip": "group_solvay", "file": "group_solvay.png", "width": img.width, "height": img.height, "fps": 0,
             "background": "photograph", "frames": [{"frame": 0, "faces": faces}], "holdout": False}
    json.dump(truth, open(os.path.join(outdir, "group_solvay.json"), "w"))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "bench/out/faces-hard"
    os.makedirs(outdir, exist_ok=True)
    add_solvay_people()
    for name, (bg, n, faces_at) in clips().items():
        mc.write_clip(outdir, name, bg, n, faces_at, seed=zlib.crc32(name.encode()), hidden_at=0.5)
        print(f"{outdir}/{name}.y4m  {n} frames", file=sys.stderr)
    write_group_photo(outdir)
    print(f"{outdir}/group_solvay.png  the real group photograph (29 faces)", file=sys.stderr)


if __name__ == "__main__":
    main()
