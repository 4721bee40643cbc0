#!/usr/bin/env python3
"""Download the IMDB large movie review set and optionally write the split CSVs.

    tools/download_imdb.py --out data/imdb            # aclImdb_v1.tar.gz only
    tools/download_imdb.py --out data/imdb --csv      # + train.csv val.csv test.csv
    tools/download_imdb.py --archive FILE --out DIR --csv   # CSVs from an archive you have

The archive is checked against its published size (84,125,825 bytes) and the
SHA-256 recorded by Hugging Face `datasets` for the same URL (its MD5,
7c2ac02c03563afcf9b574c7e56c153a, is the one torchtext and others check).
`ftbench run data=FILE` reads the archive directly; the CSVs exist for users
who want the reference's files (columns text,label).

The split is the reference's method (shuffle all 50,000 reviews with seed 123,
then 35,000 train / 5,000 val / 10,000 test), but not pandas' permutation:
it is ftbench's own (reviews sorted by path below aclImdb/, Fisher-Yates on
mt19937_64, see core/text/split.cpp), so these CSVs hold exactly the split that
`ftbench` makes from the archive itself with seed=123.

Standard library only. Exit code 2 with a one-line reason when offline or
when a file is wrong.
"""
import argparse
import csv
import hashlib
import os
import re
import sys
import tarfile
import urllib.error
import urllib.request

URL = "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz"
SIZE_BYTES = 84125825
SHA256 = "c40f74a18d3b61f90feba1e17730e0d38e8b97c05fde7008942e91923d1658fe"
REVIEW = re.compile(r"(?:^|/)(train|test)/(pos|neg)/(\d+_\d+\.txt)$")


def fail(msg):
    print(f"download_imdb: {msg}", file=sys.stderr)
    sys.exit(2)


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify(path):
    size = os.path.getsize(path)
    if size != SIZE_BYTES:
        fail(f"{path}: {size} bytes, expected {SIZE_BYTES} (incomplete or a different file)")
    digest = sha256_of(path)
    if digest != SHA256:
        fail(f"{path}: sha256 {digest}, expected {SHA256}")


def download(dest):
    part = dest + ".part"
    print(f"downloading {URL} -> {dest}", file=sys.stderr)
    try:
        with urllib.request.urlopen(URL, timeout=30) as r, open(part, "wb") as out:
            done = 0
            while True:
                block = r.read(1 << 20)
                if not block:
                    break
                out.write(block)
                done += len(block)
                print(f"\r  {done / 1e6:6.1f} / {SIZE_BYTES / 1e6:.1f} MB", end="", file=sys.stderr)
        print(file=sys.stderr)
    except (urllib.error.URLError, OSError) as e:
        if os.path.exists(part):
            os.remove(part)
        fail(f"cannot download {URL} ({e}); this machine may be offline: download the file "
             f"elsewhere and pass --archive FILE")
    os.replace(part, dest)


class MT19937_64:
    """std::mt19937_64, bit for bit (the C++ standard specifies it)."""

    def __init__(self, seed):
        self.mt = [0] * 312
        self.mt[0] = seed & 0xFFFFFFFFFFFFFFFF
        for i in range(1, 312):
            prev = self.mt[i - 1]
            self.mt[i] = (6364136223846793005 * (prev ^ (prev >> 62)) + i) & 0xFFFFFFFFFFFFFFFF
        self.index = 312

    def __call__(self):
        if self.index >= 312:
            mt = self.mt
            for i in range(312):
                x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
                xa = x >> 1
                if x & 1:
                    xa ^= 0xB5026F5AA96619E9
                mt[i] = mt[(i + 156) % 312] ^ xa
            self.index = 0
        y = self.mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & 0xFFFFFFFFFFFFFFFF


def uniform_below(rng, n):
    """core/base/portable_random.h: uniform in [0, n) by rejection."""
    m = 0xFFFFFFFFFFFFFFFF
    limit = m - m % n
    while True:
        x = rng()
        if x < limit:
            return x % n


def read_reviews(archive):
    """(text, label) in ftbench's order: sorted by the path below aclImdb/."""
    keyed = []
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                m = REVIEW.search(member.name)
                if not member.isfile() or not m:
                    continue
                text = tar.extractfile(member).read().decode("utf-8")
                keyed.append(("/".join(m.groups()), text, 1 if m.group(2) == "pos" else 0))
    except (tarfile.TarError, EOFError, OSError) as e:
        fail(f"{archive}: cannot read the archive ({e}); truncated or corrupt?")
    if not keyed:
        fail(f"{archive}: no aclImdb/{{train,test}}/{{pos,neg}}/<id>_<rating>.txt reviews in it")
    keyed.sort(key=lambda k: k[0].encode())
    return [(text, label) for _, text, label in keyed]


def write_csv(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["text", "label"])
        w.writerows(rows)
    os.replace(tmp, path)


def write_splits(archive, out, seed):
    rows = read_reviews(archive)
    rng = MT19937_64(seed)
    for i in range(len(rows), 1, -1):  # Fisher-Yates, as core/text/split.cpp
        j = uniform_below(rng, i)
        rows[i - 1], rows[j] = rows[j], rows[i - 1]
    n = len(rows)
    n_train, n_val = n * 7 // 10, n // 10
    parts = {"train.csv": rows[:n_train], "val.csv": rows[n_train:n_train + n_val],
             "test.csv": rows[n_train + n_val:]}
    for name, part in parts.items():
        write_csv(os.path.join(out, name), part)
        print(f"wrote {os.path.join(out, name)} ({len(part)} reviews)", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="data/imdb", help="folder for the archive and CSVs")
    ap.add_argument("--archive", help="use this archive instead of downloading")
    ap.add_argument("--csv", action="store_true", help="also write train.csv val.csv test.csv")
    ap.add_argument("--seed", type=int, default=123, help="split seed (the reference's 123)")
    ap.add_argument("--no-verify", action="store_true",
                    help="skip the size/sha256 check (for an archive with the same layout)")
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    archive = args.archive
    if archive is None:
        archive = os.path.join(args.out, "aclImdb_v1.tar.gz")
        if not os.path.exists(archive):
            download(archive)
    elif not os.path.exists(archive):
        fail(f"--archive {archive}: no such file")
    if not args.no_verify:
        verify(archive)
    print(f"archive ok: {archive}", file=sys.stderr)
    if args.csv:
        write_splits(archive, args.out, args.seed)


if __name__ == "__main__":
    main()
