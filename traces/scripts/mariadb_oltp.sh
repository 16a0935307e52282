#!/bin/sh
# OLTP workload for `traces/mariadb-oltp.wtr`: sysbench's oltp_read_write on MariaDB
# (InnoDB) with an 8 MiB buffer pool, so that the engine's page reads and writes reach
# its files.
#
# Usage: sh traces/scripts/mariadb_oltp.sh [OUT.wtr]     (as root; WAFER=path/to/wafer)
# A scratch directory holds the data directory, socket and logs. The server is set up
# and loaded (2 tables of 100000 rows) outside the capture; the capture covers starting
# the server, 4000 single-threaded seeded transactions, and the clean shutdown. Only
# the data directory is traced.
set -eu
WAFER=${WAFER:-wafer}
EVENTS=${EVENTS:-4000}
SB_ARGS="--db-driver=mysql --mysql-user=root --mysql-db=sbtest --tables=2 --table-size=100000 --rand-seed=1 --threads=1"

start_server() {  # $1 = scratch dir; leaves the server running in the background
    mariadbd --no-defaults --user=root --datadir="$1/data" --socket="$1/mysqld.sock" \
        --pid-file="$1/mysqld.pid" --log-error="$1/error.log" \
        --bind-address=127.0.0.1 --port=13306 --skip-name-resolve --performance-schema=0 \
        --skip-log-bin --innodb-buffer-pool-size=8M --innodb-log-file-size=48M \
        --innodb-use-native-aio=0 --innodb-flush-method=fsync \
        --innodb-buffer-pool-load-at-startup=0 --innodb-buffer-pool-dump-at-shutdown=0 &
    i=0
    until mariadb-admin --socket="$1/mysqld.sock" -uroot ping >/dev/null 2>&1; do
        i=$((i + 1)); [ $i -lt 300 ] || { echo "mariadbd did not start" >&2; cat "$1/error.log" >&2; exit 1; }
        sleep 0.2
    done
}

stop_server() {
    mariadb-admin --socket="$1/mysqld.sock" -uroot shutdown
    wait
}

if [ "${1:-}" = _run ]; then  # the part run under `wafer trace capture`
    start_server "$2"
    sysbench oltp_read_write $SB_ARGS --mysql-socket="$2/mysqld.sock" --events="$EVENTS" --time=0 run
    stop_server "$2"
    exit 0
fi

OUT=${1:-traces/mariadb-oltp.wtr}
PKGS="mariadb-server mariadb-client sysbench strace"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-upgrade $PKGS || { apt-get update && apt-get install -y $PKGS; }
T=$(mktemp -d)
mariadb-install-db --no-defaults --user=root --datadir="$T/data" \
    --auth-root-authentication-method=normal --skip-test-db >"$T/install.log"
start_server "$T"
mariadb --socket="$T/mysqld.sock" -uroot -e "CREATE DATABASE sbtest"
sysbench oltp_read_write $SB_ARGS --mysql-socket="$T/mysqld.sock" prepare
stop_server "$T"
mariadbd --version
sysbench --version
"$WAFER" trace capture -o "$OUT" --include "$T/data/" -- sh "$0" _run "$T"
rm -rf "$T"
