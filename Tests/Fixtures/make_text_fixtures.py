#!/usr/bin/python3
"""Writes the text-encoding test fixtures into a directory (default Tests/Fixtures/generated/text/, gitignored).

Run from anywhere:  /usr/bin/python3 Tests/Fixtures/make_text_fixtures.py [OUT]
The tests run it themselves when the fixtures are missing. Needs Debian qrencode, zint, iconv (libc-bin),
python3-pil and python3-segno. Deterministic.

One image per failure class of issue 15 and `cases.json`: for each image the exact payload bytes (hex), the
text, the character set and what chose it ("eci", "kanji", "guess", "symbology"), and the generator command.
"""
import json, os, subprocess, sys, tempfile

import segno
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(HERE, "generated", "text")


def run(cmd, stdin=None):
    subprocess.run(cmd, input=stdin, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def grey(path):
    """Re-saves `path` as 8-bit grey PNG (qrencode and segno write palette images)."""
    im = Image.open(path)
    if im.mode in ("P", "LA", "RGBA") or "transparency" in im.info:
        im = im.convert("RGBA")
        white = Image.new("RGBA", im.size, (255, 255, 255, 255))
        im = Image.alpha_composite(white, im)
    im.convert("L").save(path)


def sjis(text):
    # iconv's SHIFT_JIS, as the reproduction (`iconv -t SHIFT_JIS`).
    return subprocess.run(["iconv", "-f", "UTF-8", "-t", "SHIFT_JIS"], input=text.encode(), check=True,
                          capture_output=True).stdout


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []
    tmp = tempfile.mkdtemp()

    def add(file, kind, text, payload, charset, source, command, gs1=False, **extra):
        grey(os.path.join(OUT, file))
        cases.append(dict(file=file, type=kind, text=text, hex=payload.hex(), charset=charset, source=source,
                          gs1=gs1, command=command, **extra))

    def qrencode(file, payload, flags):
        src = os.path.join(tmp, file + ".bin")
        with open(src, "wb") as f:
            f.write(payload)
        run(["qrencode", *flags, "-s", "4", "-m", "4", "-r", src, "-o", os.path.join(OUT, file)])
        return "qrencode " + " ".join(flags) + " -s 4 -m 4 -r <payload>"

    def segno_qr(file, text, encoding, eci):
        segno.make_qr(text, encoding=encoding, eci=eci).save(os.path.join(OUT, file), scale=4, border=4)
        return f"segno.make_qr({text!r}, encoding={encoding!r}, eci={eci})"

    def zint(file, symbology, data, flags=()):
        run(["zint", "-b", str(symbology), *flags, "--scale=2", "-d", data, "-o", os.path.join(OUT, file)])
        return f"zint -b {symbology} {' '.join(flags)} --scale=2 -d {data!r}"

    def zint_file(file, symbology, payload, flags=()):
        src = os.path.join(tmp, file + ".bin")
        with open(src, "wb") as f:
            f.write(payload)
        run(["zint", "-b", str(symbology), *flags, "--scale=2", "-i", src, "-o", os.path.join(OUT, file)])
        return f"zint -b {symbology} {' '.join(flags)} --scale=2 -i <payload>"

    # QR Kanji mode (the reproduction): Shift JIS double-byte characters, no ECI.
    t = "今度のバージョン"
    add("qr_kanji.png", "qr", t, sjis(t), "Shift_JIS", "kanji", qrencode("qr_kanji.png", sjis(t), ["-k"]))
    # The same Shift JIS bytes in byte mode, no ECI: guessed.
    add("qr_sjis_bytes.png", "qr", t, sjis(t), "Shift_JIS", "guess", qrencode("qr_sjis_bytes.png", sjis(t), ["-8"]))
    # Half-width katakana in byte mode (ISO-8859-1 would give "ÃÞ»Þ²ÝQR").
    t = "ﾃﾞｻﾞｲﾝQR"
    add("qr_halfwidth_kana.png", "qr", t, sjis(t), "Shift_JIS", "guess", qrencode("qr_halfwidth_kana.png", sjis(t), ["-8"]))
    # ECIs. segno writes no ECI for ISO-8859-1 (the default) and uses Kanji mode for Shift JIS, so those
    # two come from zint.
    t = "Grüße, café"
    add("qr_eci_latin1.png", "qr", t, t.encode("latin-1"), "ISO-8859-1", "eci",
        zint("qr_eci_latin1.png", 58, t, ["--eci=3"]))
    t = "Привет"
    add("qr_eci_cp1251.png", "qr", t, t.encode("cp1251"), "windows-1251", "eci", segno_qr("qr_eci_cp1251.png", t, "cp1251", True))
    add("qr_eci_iso8859_5.png", "qr", t, t.encode("iso-8859-5"), "ISO-8859-5", "eci",
        zint("qr_eci_iso8859_5.png", 58, t, ["--eci=7"]))
    t = "今度のバージョン"
    add("qr_eci_sjis.png", "qr", t, sjis(t), "Shift_JIS", "eci", zint("qr_eci_sjis.png", 58, t, ["--eci=20"]))
    t = "Grüße 今度 😀"
    add("qr_eci_utf8.png", "qr", t, t.encode(), "UTF-8", "eci", segno_qr("qr_eci_utf8.png", t, "utf-8", True))
    # No ECI: UTF-8 and ISO-8859-1 guessed; binary has no text.
    add("qr_utf8.png", "qr", t, t.encode(), "UTF-8", "guess", segno_qr("qr_utf8.png", t, "utf-8", False))
    t = "Grüße, café"
    add("qr_latin1.png", "qr", t, t.encode("latin-1"), "ISO-8859-1", "guess", segno_qr("qr_latin1.png", t, "iso-8859-1", False))
    b = bytes([0x00, 0x01, 0x02, 0xFF, 0xFE, 0x80, 0x10, 0x7F])
    add("qr_binary.png", "qr", None, b, None, None, qrencode("qr_binary.png", b, ["-8"]))
    # Code 39 Full ASCII (zint's "Extended Code 3 of 9" is symbology 9): the symbol holds the pairs.
    t = "Extended !?*#"
    add("code39_full_ascii.png", "code39", t, t.encode(), "US-ASCII", "symbology",
        zint("code39_full_ascii.png", 9, t), raw="E+X+T+E+N+D+E+D /A%J/J/C")
    # Code 32 (Italian Pharmacode, zint symbology 129): 8 digits + check digit 8, as base-32 Code 39 "3PRM8N".
    t = "A123456788"
    add("code32.png", "code39", t, t.encode(), "US-ASCII", "symbology", zint("code32.png", 129, "12345678"), raw="3PRM8N")
    # Code 128 with FNC4: ISO-8859-1 characters ≥ 0x80.
    b = "Déjà vu ½".encode("latin-1")
    add("code128_fnc4.png", "code128", "Déjà vu ½", b, "ISO-8859-1", "symbology", zint_file("code128_fnc4.png", 20, b, ["--binary"]))
    # GS1-128: FNC1 first; the variable-length (10) field ends with GS before (21).
    b = b"0109501101530003" + b"10ABC123" + b"\x1d" + b"21XYZ"
    add("gs1_128.png", "code128", b.decode(), b, "US-ASCII", "symbology",
        zint("gs1_128.png", 16, "[01]09501101530003[10]ABC123[21]XYZ"), gs1=True)

    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
