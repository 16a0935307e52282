"""File-server style workload for `traces/fileserver.wtr`.

Usage: python3 fileserver.py DIR
In a tree of 8 directories, 2000 seeded operations over up to 300 files of mixed
sizes (1 KiB to 256 KiB, log-uniform): create (write whole file), append, read whole
file, rewrite a random range in place, delete. Data moves in 64 KiB calls, as a file
server's I/O loop would.
"""
import math
import os
import random
import shutil
import sys

root = os.path.join(sys.argv[1], "fs")
shutil.rmtree(root, ignore_errors=True)
rng = random.Random(11)
for i in range(8):
    os.makedirs(os.path.join(root, "d%d" % i))
CHUNK = 65536
files = {}  # path -> size
serial = 0


def size():
    return int(math.exp(rng.uniform(math.log(1024), math.log(256 * 1024))))


def write_range(fd, off, n):
    while n > 0:
        k = min(n, CHUNK)
        os.pwrite(fd, b"w" * k, off)
        off += k
        n -= k


for step in range(2000):
    r = rng.random()
    if not files or (r < 0.25 and len(files) < 300):
        serial += 1
        p = os.path.join(root, "d%d" % rng.randrange(8), "f%05d" % serial)
        n = size()
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        left = n
        while left > 0:
            left -= os.write(fd, b"c" * min(left, CHUNK))
        os.close(fd)
        files[p] = n
        continue
    p = rng.choice(sorted(files))
    if r < 0.40:
        n = size() // 4 + 1
        fd = os.open(p, os.O_WRONLY | os.O_APPEND)
        left = n
        while left > 0:
            left -= os.write(fd, b"a" * min(left, CHUNK))
        os.close(fd)
        files[p] += n
    elif r < 0.80:
        fd = os.open(p, os.O_RDONLY)
        while os.read(fd, CHUNK):
            pass
        os.close(fd)
    elif r < 0.92:
        fd = os.open(p, os.O_RDWR)
        off = rng.randrange(files[p])
        write_range(fd, off, min(files[p] - off, rng.randrange(512, 32768)))
        os.close(fd)
    else:
        os.remove(p)
        del files[p]
shutil.rmtree(root)
