#!/bin/bash
# interop-timeout: 240
# file-engine-vs-fio — nfsbench's file engine (`nfsbench run` without --target, io_uring) against
# Debian's fio with ioengine=io_uring on the same local file on the host (under /var/tmp: O_DIRECT needs a
# file system that takes it): bench/file-engine-vs-fio.sh --check, 4 KiB random read at iodepth 32 and
# 1 MiB sequential read, both direct=1, three interleaved repetitions. Fails when the two move different
# bytes or I/O counts in a size-bounded job, or when our IOPS falls below 0.7 × fio's.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

need_debs fio
work=$(mktemp -d /var/tmp/nfsbench-interop-file-engine.XXXXXX)
cleanup() { local rc=$?; rm -rf "$work"; exit $rc; }
trap cleanup EXIT

log "$(fio --version), file system of $work: $(findmnt -no FSTYPE -T "$work")"
step "file engine against fio io_uring, --check"
tmo 200 "$INTEROP_ROOT/bench/file-engine-vs-fio.sh" --check --file-size 512m --rr-size 128m \
  --nfsbench "$NFSBENCH" --out "$SCEN_DIR/bench" "$work" || fail "bench/file-engine-vs-fio.sh --check failed ($(grep -m1 'CHECK FAILED\|error' "$SCEN_DIR/bench/report.txt" 2>/dev/null || echo 'see the log'))"
summary "$(grep 'ratio ours/fio' "$SCEN_DIR/bench/report.txt" | sed 's/^\([a-z0-9]*\) *ratio ours\/fio: IOPS \([0-9.]*\).*CPU per I\/O \([0-9.]*\)/\1: IOPS \2x fio, CPU per I\/O \3x/' | paste -sd ';' -)"
