#!/usr/bin/python3
"""Writes the face evaluation set: 640x480 Y4M clips plus exact ground truth (JSON) into bench/out/faces/.

People: the real photographs of bench/faces/marks.json, each with a hand-marked face square and eye centres
(licence, package and sha256 recorded there):
  astronaut  Eileen Collins, skimage.data.astronaut (NASA, public domain)
  hopper     Grace Hopper, matplotlib's sample_data/grace_hopper.jpg (US Navy, public domain) -- HELD OUT of all
             tuning
  cameraman  skimage.data.camera (CC0, Lav Varshney), a profile turned to the image's right (yaw 90); mirrored
             ("cameraman-m") it is a profile turned left (yaw 270)
  obama      Barack Obama, two photographs ("obama": a portrait; "obama2": speaking, turned ~20 deg, mouth open)
  biden      Joe Biden, head tilted ~11 deg -- HELD OUT of all tuning
             (official White House photographs, public domain; fetched from the pinned PyPI face_recognition 1.3.0
             sdist by fetch_people.py with checksums, never committed; see bench/faces/README.md)
Held out (marks.json "holdout", "held_out_persons"): hopper and biden. Clips whose faces are all held-out people
(*_h, *_b, pair_h) carry "holdout": true; score.py reports them apart, with precision.
Backgrounds: other skimage.data images (coffee, chelsea, rocket, brick, gravel, grass, hubble_deep_field;
public domain / CC0 per skimage's data README).

Ground truth per face and frame: the upright face square in scand's convention (marks.json "faceSquare": the
frontal Haar box, forehead to chin; see face_squares.py), moved, scaled and turned with the pasted head, the roll (the marked eye line plus the turn, degrees, clockwise positive, y down; profiles: the
turn only) and the yaw (0, or 90/270 for the profiles). A face less than 80 % inside the frame is marked
"ignore" (neither a miss nor a false positive).

Usage: make_clips.py [OUTDIR] [--only NAME[,NAME]] [--frames-scale F]
"""
import json, math, os, sys, zlib
import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageOps
import skimage.data as data
from marks import eye_roll

W, H, FPS = 640, 480, 30
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MARKS = json.load(open(os.path.join(HERE, "marks.json")))["photos"]


def cut_head(img, cx, cy, side, ellipse):
    """The square of 2.1 `side` around (cx, cy) of `img` and its alpha: the ellipse (fractions of the square:
    left, top, right, bottom), feathered."""
    r = int(round(1.05 * side))
    patch = img.crop((int(cx - r), int(cy - r), int(cx + r), int(cy + r)))
    n = 2 * r
    mask = Image.new("L", patch.size, 0)
    ImageDraw.Draw(mask).ellipse(tuple(f * n for f in ellipse), fill=255)
    return patch, mask.filter(ImageFilter.GaussianBlur(max(2, n // 32)))


def head_patch(mark, mirrored=False):
    """Grey head patch centred on the marked face square with a feathered elliptical alpha; returns
    (patch, mask, face side in patch pixels, eye-line roll of the photograph in degrees)."""
    path = os.path.join(ROOT, mark["path"])   # absolute paths (Debian files) stay as they are
    if "fetch" in mark and not os.path.exists(path):
        import fetch_people
        fetch_people.fetch(MARKS)
    img = Image.open(path).convert("L")
    x, y, side = mark["square"]
    cx, cy = x + side / 2, y + side / 2
    patch, mask = cut_head(img, cx, cy, side, (0.18, 0.04, 0.82, 0.99))
    roll = eye_roll(mark, default=0.0)
    # The face square (scand's convention) relative to the marked square's centre, in marked sides.
    fx, fy, fs = mark["faceSquare"]
    rel = ((fx + fs / 2 - cx) / side, (fy + fs / 2 - cy) / side, fs / side)
    if mirrored:
        patch, mask, roll = ImageOps.mirror(patch), ImageOps.mirror(mask), -roll
        rel = (-rel[0], rel[1], rel[2])
    return patch, mask, side, roll, rel


class _Persons(dict):
    """photo id ("photo", else "person"; "-m" = mirrored profile) -> dict(patch, yaw, holdout, person); the
    photograph is read (and fetched, for "fetch" entries) on first use."""
    def __missing__(self, key):
        for m in MARKS:
            pid = m.get("photo", m["person"])
            if key == pid or (key == pid + "-m" and m["yaw"] in (90, 270)):
                mirrored = key != pid
                v = dict(patch=head_patch(m, mirrored=mirrored), yaw=(360 - m["yaw"]) if mirrored else m["yaw"],
                         holdout=m["holdout"], person=m["person"] + ("-m" if mirrored else ""))
                self[key] = v
                return v
        raise KeyError(f"no photo {key!r} in marks.json")


PERSONS = _Persons()


def background(name):
    img = Image.fromarray(getattr(data, name)())
    img = img.convert("L")
    s = max(W / img.width, H / img.height)
    img = img.resize((int(math.ceil(img.width * s)), int(math.ceil(img.height * s))), Image.BICUBIC)
    left, top = (img.width - W) // 2, (img.height - H) // 2
    return img.crop((left, top, left + W, top + H))


def paste_face(canvas, person, cx, cy, size, roll):
    """Pastes `person`'s head so its face square centre lands on (cx, cy) with side `size` and eye-line roll
    `roll` (degrees clockwise; for profiles the turn applied)."""
    p = PERSONS[person]
    patch, mask, side, base_roll, _ = p["patch"]
    f = size / side
    n = max(4, int(round(patch.width * f)))
    patch = patch.resize((n, n), Image.BICUBIC)
    mask = mask.resize((n, n), Image.BICUBIC)
    turn = roll - base_roll if p["yaw"] == 0 else roll   # clockwise degrees to add; PIL rotates counter-clockwise
    patch = patch.rotate(-turn, resample=Image.BICUBIC, expand=True)
    mask = mask.rotate(-turn, resample=Image.BICUBIC, expand=True)
    ox, oy = int(round(cx - patch.width / 2)), int(round(cy - patch.height / 2))
    canvas.paste(patch, (ox, oy), mask)


def face_square(person, cx, cy, size, roll):
    """The truth face square (centre x, centre y, side; frame pixels) of `person` pasted by paste_face with the
    same arguments: the photograph's faceSquare, scaled and turned with the head."""
    p = PERSONS[person]
    _, _, _, base_roll, (ox, oy, k) = p["patch"]
    turn = math.radians(roll - base_roll if p["yaw"] == 0 else roll)
    c, s = math.cos(turn), math.sin(turn)
    return cx + (ox * c - oy * s) * size, cy + (ox * s + oy * c) * size, k * size


def visible_fraction(cx, cy, s):
    x0, y0, x1, y1 = cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2
    ix = max(0, min(W, x1) - max(0, x0)); iy = max(0, min(H, y1) - max(0, y0))
    return ix * iy / (s * s)


def covered_fraction(square, later):
    """The share of `square` (x, y, side) covered by the squares pasted after it (`later`), summed and capped at 1:
    a face behind another is hidden by the other's head."""
    x, y, s = square
    total = 0.0
    for (u, v, t) in later:
        ix = max(0.0, min(x + s, u + t) - max(x, u)); iy = max(0.0, min(y + s, v + t) - max(y, v))
        total += ix * iy
    return min(1.0, total / (s * s))


def write_clip(outdir, name, bg_name, n, faces_at, occluder=None, seed=0, hidden_at=None, extra=None):
    """faces_at(i) -> list of (person, segment, cx, cy, size, roll), back to front. occluder(i) -> box or None.
    hidden_at: when set, a face whose square is covered more than this share by the squares of faces in front of
    it is marked "ignore" (hidden: neither a miss nor a false positive; it must keep its faceID when it comes
    out). extra: more keys for the truth file."""
    rng = np.random.default_rng(seed)
    bg = background(bg_name)
    truth = {"clip": name, "width": W, "height": H, "fps": FPS, "background": bg_name, "frames": [], **(extra or {})}
    chroma = bytes([128]) * (2 * (W // 2) * (H // 2))
    with open(os.path.join(outdir, name + ".y4m"), "wb") as out:
        out.write(f"YUV4MPEG2 W{W} H{H} F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
        for i in range(n):
            canvas = bg.copy()
            faces = []
            placed = faces_at(i)
            squares = []
            for person, segment, cx, cy, size, roll in placed:
                tx, ty, ts = face_square(person, cx, cy, size, roll)
                squares.append((tx - ts / 2, ty - ts / 2, ts))
            for k, (person, segment, cx, cy, size, roll) in enumerate(placed):
                paste_face(canvas, person, cx, cy, size, roll)
                tx, ty, ts = face_square(person, cx, cy, size, roll)
                vis = visible_fraction(tx, ty, ts)
                if vis <= 0:
                    continue
                hidden = hidden_at is not None and covered_fraction(squares[k], squares[k + 1:]) > hidden_at
                face = {"person": PERSONS[person]["person"], "photo": person, "segment": segment, "x": tx - ts / 2, "y": ty - ts / 2,
                        "w": ts, "h": ts, "roll": roll, "yaw": PERSONS[person]["yaw"],
                        "holdout": PERSONS[person]["holdout"], "ignore": vis < 0.8 or hidden}
                if not PERSONS[person].get("roll_known", True):
                    face["rollUnknown"] = True
                faces.append(face)
            if occluder:
                box = occluder(i)
                if box:
                    ImageDraw.Draw(canvas).rectangle(box, fill=90)
            arr = np.asarray(canvas, dtype=np.float32)
            arr = arr * (1 + 0.04 * math.sin(i / 9.0)) + rng.normal(0, 3.0, arr.shape)
            y = np.clip(arr, 0, 255).astype(np.uint8)
            out.write(b"FRAME\n"); out.write(y.tobytes()); out.write(chroma)
            truth["frames"].append({"frame": i, "faces": faces})
    people = {f["person"] for fr in truth["frames"] for f in fr["faces"]}
    truth["holdout"] = bool(people) and all(f["holdout"] for fr in truth["frames"] for f in fr["faces"])
    with open(os.path.join(outdir, name + ".json"), "w") as f:
        json.dump(truth, f)


def clips(scale=1.0):
    """name -> (background, frames, faces_at(i) -> [(person, segment, cx, cy, side, roll)], occluder)."""
    def N(n): return max(10, int(n * scale))
    out = {}
    for tag, who, bg in [("", "astronaut", "coffee"), ("_h", "hopper", "grass"), ("_o", "obama", "gravel"),
                         ("_o2", "obama2", "coffee"), ("_b", "biden", "brick")]:
        n = N(150)
        out["move" + tag] = (bg, n, lambda i, who=who: [(who, 1, 320 + 200 * math.sin(i / 23.0), 240 + 120 * math.sin(i / 17.0), 110,
                                                        4 * math.sin(i / 11.0))], None)
        out["scale" + tag] = ("rocket", n, lambda i, who=who, n=n: [(who, 1, 300 + 60 * math.sin(i / 30.0), 250,
                                                                     60 + 150 * (0.5 - 0.5 * math.cos(2 * math.pi * i / n)), 0)], None)
        n3 = N(180)
        out["roll" + tag] = ("brick", n3, lambda i, who=who: [(who, 1, 320 + 80 * math.sin(i / 40.0), 240, 120,
                                                              45 * math.sin(2 * math.pi * i / 90.0))], None)
        n4 = N(150)

        def occ(i, n4=n4):
            x = 140 + (360 * i) / n4
            return (int(x), 150, int(x + 0.3 * 120), 330)
        out["occlude" + tag] = ("gravel", n4, lambda i, who=who: [(who, 1, 320, 240, 120, 0)], occ)
        n6 = N(180)

        def reenter(i, who=who, n6=n6):
            if i < n6 * 0.35:
                return [(who, 1, 300 + 6.5 * i, 230, 110, 0)]
            if i < n6 * 0.5:
                return [(who, 1, 2000, 230, 110, 0)]      # out of the picture
            return [(who, 2, 60 + 3 * (i - n6 * 0.5), 300, 110, 0)]   # back, far away (new faceID expected)
        out["reenter" + tag] = ("hubble_deep_field", n6, reenter, None)
    n5 = N(150)
    out["pass"] = ("grass", n5, lambda i: [("astronaut", 1, 60 + 520 * i / (n5 - 1), 180, 100, 0),
                                           ("hopper", 1, 580 - 520 * i / (n5 - 1), 300, 100, 0)], None)
    n7 = N(150)
    out["crowd"] = ("coffee", n7, lambda i: [("astronaut", 1, 150 + 40 * math.sin(i / 20.0), 150, 90, 25 * math.sin(i / 15.0)),
                                             ("hopper", 1, 480, 130 + 150 * i / (n7 - 1), 90, -20),
                                             ("cameraman", 1, 320 + 120 * math.cos(i / 25.0), 370, 80, 0)], None)
    n8 = N(150)
    # Faces along the frame edges, 80-100 % inside (scored), and briefly further out (ignored).
    out["edge"] = ("brick", n8, lambda i: [("astronaut", 1, 40 + 20 * math.sin(i / 10.0), 240 + 150 * math.sin(i / 30.0), 110, 0),
                                           ("hopper", 1, 320 + 200 * math.sin(i / 25.0), 448 + 10 * math.sin(i / 7.0), 110, 0)], None)
    n9 = N(150)
    # Profiles (yaw 90 and 270), moving and rolling a little.
    out["profile"] = ("chelsea", n9, lambda i: [("cameraman", 1, 180 + 60 * math.sin(i / 20.0), 240, 120, 10 * math.sin(i / 13.0)),
                                                ("cameraman-m", 1, 470, 240 + 80 * math.sin(i / 25.0), 110, -8 * math.sin(i / 17.0))], None)
    n10 = N(150)
    # Three people at once, rolled, on a textured background (tuning and held-out people mixed).
    out["group"] = ("gravel", n10, lambda i: [("obama", 1, 140, 160 + 60 * math.sin(i / 19.0), 100, 30 * math.sin(i / 23.0)),
                                              ("biden", 1, 330 + 50 * math.sin(i / 21.0), 330, 110, -35 + 10 * math.sin(i / 13.0)),
                                              ("astronaut", 1, 520, 150 + 40 * math.cos(i / 17.0), 90, 40)], None)
    n11 = N(150)
    # The held-out people only: two faces rolled in opposite directions, passing near each other.
    out["pair_h"] = ("brick", n11, lambda i: [("hopper", 1, 120 + 400 * i / (n11 - 1), 160, 105, -30 + 15 * math.sin(i / 11.0)),
                                              ("biden", 1, 520 - 400 * i / (n11 - 1), 350, 115, 35 - 15 * math.sin(i / 9.0))], None)
    out["empty"] = ("chelsea", N(90), lambda i: [], None)
    return out


def main():
    args = sys.argv[1:]
    outdir = "bench/out/faces"
    only, scale = None, 1.0
    while args:
        a = args.pop(0)
        if a == "--only": only = set(args.pop(0).split(","))
        elif a == "--frames-scale": scale = float(args.pop(0))
        else: outdir = a
    os.makedirs(outdir, exist_ok=True)
    for name, (bg, n, faces_at, occluder) in clips(scale).items():
        if only and name not in only:
            continue
        write_clip(outdir, name, bg, n, faces_at, occluder, seed=zlib.crc32(name.encode()))
        print(f"{outdir}/{name}.y4m  {n} frames", file=sys.stderr)


if __name__ == "__main__":
    main()
