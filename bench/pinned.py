"""Pinned downloads for the bench sets (bench/faces/fetch_people.py, bench/reader/real_photos.py): an archive
checked by its sha256, and files taken out of it, each checked by its own sha256. Any failure exits with a
message naming the archive or the file."""
import hashlib, os, subprocess, sys, tarfile, urllib.request


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def archive(cache, name, digest, url=None, pip=None, who="pinned"):
    """The path of archive `name` in `cache`, downloaded when it is missing or does not match `digest`: from
    `url`, or else with `pip download --no-binary :all: --no-deps <pip>` through the configured index."""
    path = os.path.join(cache, name)
    if os.path.exists(path) and sha256_file(path) == digest:
        return path
    os.makedirs(cache, exist_ok=True)
    if url:
        print(f"{who}: fetching {url}", file=sys.stderr)
        try:
            urllib.request.urlretrieve(url, path + ".part")
        except OSError as e:
            sys.exit(f"{who}: {url}: {e}")
        os.replace(path + ".part", path)
    else:
        python = sys.executable if os.path.basename(sys.executable).startswith("python") else "python3"
        p = subprocess.run([python, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps",
                            "--no-build-isolation", "-d", cache, pip], capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(path):
            sys.exit(f"{who}: pip download {pip} failed: {p.stderr.strip()[-400:]}")
    if sha256_file(path) != digest:
        sys.exit(f"{who}: {path}: sha256 {sha256_file(path)} is not the pinned {digest}")
    return path


def members(path, wanted, who="pinned"):
    """{name: bytes} for each member of the tar archive at `path` named in `wanted` ({name: sha256})."""
    out = {}
    with tarfile.open(path) as tar:
        for m in tar:
            if m.name in wanted:
                out[m.name] = tar.extractfile(m).read()
    for name, digest in wanted.items():
        if name not in out:
            sys.exit(f"{who}: {name} is not in {path}")
        if hashlib.sha256(out[name]).hexdigest() != digest:
            sys.exit(f"{who}: {os.path.basename(path)}:{name}: sha256 {hashlib.sha256(out[name]).hexdigest()} is not the pinned {digest}")
    return out
