"""Write-heavy SQLite workload for `traces/sqlite-wal.wtr`.

Usage: python3 sqlite_wal.py DIR
A 64 KiB page cache (PRAGMA cache_size=-64) in WAL mode, 4 KiB pages: 6000 inserts
in transactions of 100, then 3000 updates and 1000 point reads of random rows, then a
checkpoint. Seeded, so the SQL issued is the same on every run.
"""
import os
import random
import sqlite3
import sys

d = sys.argv[1]
path = os.path.join(d, "bench.db")
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(path + suffix):
        os.remove(path + suffix)
rng = random.Random(7)
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA page_size=4096")
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA cache_size=-64")
db.execute("PRAGMA synchronous=NORMAL")
db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT)")
db.execute("CREATE INDEX t_k ON t(k)")
for txn in range(60):
    db.execute("BEGIN")
    for i in range(100):
        n = txn * 100 + i
        db.execute("INSERT INTO t VALUES(?,?,?)", (n, rng.randrange(1 << 30), "v" * rng.randrange(50, 400)))
    db.execute("COMMIT")
for txn in range(30):
    db.execute("BEGIN")
    for i in range(100):
        db.execute("UPDATE t SET v=?, k=? WHERE id=?",
                    ("u" * rng.randrange(50, 400), rng.randrange(1 << 30), rng.randrange(6000)))
    db.execute("COMMIT")
for i in range(1000):
    db.execute("SELECT v FROM t WHERE id=?", (rng.randrange(6000),)).fetchone()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
