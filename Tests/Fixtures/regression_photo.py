"""What the scripts that regenerate Tests/Fixtures/regressions/ files from a generated photo share: the default
output path, one bench/reader/make_photos.py run into a temporary folder, and the closing line naming the file
and its sha256 (the folder's README lists them). Imported by make_codabar_noise_crop.py,
make_databar_pdf417_photo.py and make_zbar_assertion_crop.py (a script's own folder is on Python's path)."""
import hashlib, os, subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def output_path(argv, name):
    """argv[1] if given, else Tests/Fixtures/regressions/<name>."""
    return argv[1] if len(argv) > 1 else os.path.join(ROOT, "Tests", "Fixtures", "regressions", name)


def generated_photo(tmp, seed, categories, image):
    """Runs make_photos.py --seed <seed> --categories <categories> into <tmp>; returns the path of <image>
    (e.g. "photo-negative/029.jpg") in that set."""
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "reader", "make_photos.py"), "--out", tmp,
                    "--seed", str(seed), "--name", "p", "--categories", categories], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(tmp, "p", image)


def report(path):
    """Prints the file and its sha256."""
    print(path, hashlib.sha256(open(path, "rb").read()).hexdigest())
