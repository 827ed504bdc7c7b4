#!/usr/bin/python3
"""Writes the face evaluation set: 640x480 Y4M clips plus exact ground truth (JSON) into bench/out/faces/.

Source photograph: skimage.data.astronaut() (Eileen Collins, NASA photograph, public domain), shipped in
Debian's python3-skimage. Backgrounds: other skimage.data images (coffee, chelsea, rocket, brick, gravel,
grass, hubble_deep_field; public domain / CC0 per skimage's data README).
The second "person" is the same photograph mirrored with a different tone curve: the tracker uses no
appearance, only geometry, so for ID logic it is a distinct face.

Ground truth per face and frame: the upright face square (centre, side in pixels; the Haar box convention
measured once on the photograph: x=177, y=66, side 95) and the roll (eye-line angle, degrees, clockwise
positive, y down; 3.3 deg on the photograph, from hand-marked eye centres (202.7,100.7) and (247.3,103.3)).
A face less than 80 % inside the frame is marked "ignore" (neither a miss nor a false positive).

Usage: make_clips.py [OUTDIR] [--only NAME[,NAME]] [--frames-scale F]
"""
import json, math, os, sys, zlib
import numpy as np
from PIL import Image, ImageDraw, ImageFilter
import skimage.data as data

W, H, FPS = 640, 480, 30
FACE_X, FACE_Y, FACE_S = 177, 66, 95          # face square on astronaut.png
FACE_CX, FACE_CY = FACE_X + FACE_S / 2, FACE_Y + FACE_S / 2
BASE_ROLL = math.degrees(math.atan2(103.3 - 100.7, 247.3 - 202.7))  # ~3.3 deg
PATCH_R = 100                                  # head patch radius on the photograph


def luma(rgb):
    a = np.asarray(rgb, dtype=np.float32)
    return 0.299 * a[..., 0] + 0.587 * a[..., 1] + 0.114 * a[..., 2]


def head_patch(mirrored=False, tone=1.0):
    """Grey head patch centred on the face centre with a feathered elliptical alpha."""
    img = Image.fromarray(data.astronaut()).convert("L")
    box = (int(FACE_CX - PATCH_R), int(FACE_CY - PATCH_R), int(FACE_CX + PATCH_R), int(FACE_CY + PATCH_R))
    patch = img.crop(box)
    if tone != 1.0:
        arr = np.asarray(patch, dtype=np.float32) / 255.0
        patch = Image.fromarray(np.clip(255 * arr ** tone, 0, 255).astype(np.uint8))
    mask = Image.new("L", patch.size, 0)
    ImageDraw.Draw(mask).ellipse((18, 8, 2 * PATCH_R - 18, 2 * PATCH_R - 2), fill=255)
    mask = mask.filter(ImageFilter.GaussianBlur(6))
    if mirrored:
        patch = patch.transpose(Image.FLIP_LEFT_RIGHT)
        mask = mask.transpose(Image.FLIP_LEFT_RIGHT)
    return patch, mask


PERSONS = {1: dict(patch=head_patch(), base_roll=BASE_ROLL),
           2: dict(patch=head_patch(mirrored=True, tone=0.8), base_roll=-BASE_ROLL)}


def background(name):
    img = Image.fromarray(getattr(data, name)())
    img = img.convert("L")
    s = max(W / img.width, H / img.height)
    img = img.resize((int(math.ceil(img.width * s)), int(math.ceil(img.height * s))), Image.BICUBIC)
    left, top = (img.width - W) // 2, (img.height - H) // 2
    return img.crop((left, top, left + W, top + H))


def paste_face(canvas, person, cx, cy, size, roll):
    """Pastes `person`'s head so its face centre lands on (cx, cy) with face side `size` and eye-line roll
    `roll` (degrees clockwise). Returns the ground-truth roll actually rendered."""
    p = PERSONS[person]
    patch, mask = p["patch"]
    f = size / FACE_S
    n = max(4, int(round(2 * PATCH_R * f)))
    patch = patch.resize((n, n), Image.BICUBIC)
    mask = mask.resize((n, n), Image.BICUBIC)
    turn = roll - p["base_roll"]               # clockwise degrees to add; PIL rotates counter-clockwise
    patch = patch.rotate(-turn, resample=Image.BICUBIC, expand=True)
    mask = mask.rotate(-turn, resample=Image.BICUBIC, expand=True)
    ox, oy = int(round(cx - patch.width / 2)), int(round(cy - patch.height / 2))
    canvas.paste(patch, (ox, oy), mask)


def visible_fraction(cx, cy, s):
    x0, y0, x1, y1 = cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2
    ix = max(0, min(W, x1) - max(0, x0)); iy = max(0, min(H, y1) - max(0, y0))
    return ix * iy / (s * s)


def write_clip(outdir, name, bg_name, n, faces_at, occluder=None, seed=0):
    """faces_at(i) -> list of (person, segment, cx, cy, size, roll). occluder(i) -> box or None."""
    rng = np.random.default_rng(seed)
    bg = background(bg_name)
    truth = {"clip": name, "width": W, "height": H, "fps": FPS, "background": bg_name, "frames": []}
    chroma = bytes([128]) * (2 * (W // 2) * (H // 2))
    with open(os.path.join(outdir, name + ".y4m"), "wb") as out:
        out.write(f"YUV4MPEG2 W{W} H{H} F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
        for i in range(n):
            canvas = bg.copy()
            faces = []
            for person, segment, cx, cy, size, roll in faces_at(i):
                paste_face(canvas, person, cx, cy, size, roll)
                vis = visible_fraction(cx, cy, size)
                if vis <= 0:
                    continue
                faces.append({"person": person, "segment": segment, "x": cx - size / 2, "y": cy - size / 2,
                              "w": size, "h": size, "roll": roll, "ignore": vis < 0.8})
            if occluder:
                box = occluder(i)
                if box:
                    ImageDraw.Draw(canvas).rectangle(box, fill=90)
            arr = np.asarray(canvas, dtype=np.float32)
            arr = arr * (1 + 0.04 * math.sin(i / 9.0)) + rng.normal(0, 3.0, arr.shape)
            y = np.clip(arr, 0, 255).astype(np.uint8)
            out.write(b"FRAME\n"); out.write(y.tobytes()); out.write(chroma)
            truth["frames"].append({"frame": i, "faces": faces})
    with open(os.path.join(outdir, name + ".json"), "w") as f:
        json.dump(truth, f)


def clips(scale=1.0):
    def N(n): return max(10, int(n * scale))
    out = {}
    n = N(150)
    out["move"] = ("coffee", n, lambda i: [(1, 1, 320 + 200 * math.sin(i / 23.0), 240 + 120 * math.sin(i / 17.0), 110,
                                            4 * math.sin(i / 11.0))], None)
    n2 = N(150)
    out["scale"] = ("rocket", n2, lambda i: [(1, 1, 300 + 60 * math.sin(i / 30.0), 250, 60 + 150 * (0.5 - 0.5 * math.cos(2 * math.pi * i / n2)), 0)], None)
    n3 = N(180)
    out["roll"] = ("brick", n3, lambda i: [(1, 1, 320 + 80 * math.sin(i / 40.0), 240, 120, 45 * math.sin(2 * math.pi * i / 90.0))], None)
    n4 = N(150)

    def occ(i):
        x = 140 + (360 * i) / n4
        return (int(x), 150, int(x + 0.3 * 120), 330)
    out["occlude"] = ("gravel", n4, lambda i: [(1, 1, 320, 240, 120, 0)], occ)
    n5 = N(150)
    out["pass"] = ("grass", n5, lambda i: [(1, 1, 60 + 520 * i / (n5 - 1), 180, 100, 0),
                                           (2, 2, 580 - 520 * i / (n5 - 1), 290, 100, 0)], None)
    n6 = N(180)

    def reenter(i):
        if i < n6 * 0.35:
            return [(1, 1, 300 + 6.5 * i, 230, 110, 0)]
        if i < n6 * 0.5:
            return [(1, 1, 2000, 230, 110, 0)]      # out of the picture
        return [(1, 2, 760 - 6.5 * (i - n6 * 0.5), 260, 110, 0)]
    out["reenter"] = ("hubble_deep_field", n6, reenter, None)
    n7 = N(150)
    out["crowd"] = ("coffee", n7, lambda i: [(1, 1, 150 + 40 * math.sin(i / 20.0), 170, 90, 25 * math.sin(i / 15.0)),
                                             (2, 2, 470, 150 + 150 * i / (n7 - 1), 80, -20),
                                             (1, 3, 320 + 150 * math.cos(i / 25.0), 360, 70, 35)], None)
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
