#!/bin/sh
# OLTP workload for `traces/pgbench.wtr`: pgbench's built-in TPC-B-like script on
# PostgreSQL with 8 MiB of shared buffers, so that the engine's page reads and writes
# reach its files.
#
# Usage: sh traces/scripts/pgbench.sh [OUT.wtr]     (as root; WAFER=path/to/wafer)
# A scratch directory (owned by the postgres user) holds the cluster and the socket.
# The cluster is created and loaded (scale 10: 1000000 accounts, about 150 MiB) outside the capture;
# the capture covers starting the server, 12000 transactions of one client with a
# fixed random seed, and the fast shutdown (with its checkpoint). Only the data
# directory is traced, WAL included.
set -eu
WAFER=${WAFER:-wafer}
TXNS=${TXNS:-12000}
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
as_pg() { runuser -u postgres -- "$@"; }

start_server() {  # $1 = scratch dir
    as_pg "$BIN/pg_ctl" -D "$1/data" -l "$1/server.log" -w -o \
        "-c shared_buffers=8MB -c listen_addresses=127.0.0.1 -p 15432 -k $1 -c fsync=on" start
}
stop_server() { as_pg "$BIN/pg_ctl" -D "$1/data" -m fast -w stop; }

if [ "${1:-}" = _run ]; then  # the part run under `wafer trace capture`
    start_server "$2"
    as_pg "$BIN/pgbench" -h "$2" -p 15432 -n -c 1 -t "$TXNS" --random-seed=1 bench
    stop_server "$2"
    exit 0
fi

OUT=${1:-traces/pgbench.wtr}
PKGS="postgresql postgresql-contrib strace"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-upgrade $PKGS || { apt-get update && apt-get install -y $PKGS; }
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
T=$(mktemp -d)
chown postgres "$T"
as_pg "$BIN/initdb" -D "$T/data" -A trust -U postgres >/dev/null
start_server "$T"
as_pg "$BIN/createdb" -h "$T" -p 15432 bench
as_pg "$BIN/pgbench" -h "$T" -p 15432 -i -s 10 bench
stop_server "$T"
"$BIN/postgres" --version
"$BIN/pgbench" --version
"$WAFER" trace capture -o "$OUT" --include "$T/data/" -- sh "$0" _run "$T"
rm -rf "$T"
