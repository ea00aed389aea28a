#!/bin/bash
# tools/golden/guest-capture-v4.sh OUTDIR — runs INSIDE the lab VM (tools/golden/capture-v4.sh starts it).
#
# Starts Soft-RoCE (two rxe devices on a veth pair) and the kernel NFS server, then makes two captures
# of the Linux kernel NFSv4 client against knfsd:
#   OUTDIR/nfs4-tcp.pcap   loopback (tcpdump -i lo, TCP port 2049): vers=4.1 and vers=4.2 mounts going
#                          through the operations the client uses, the backchannel (CB_RECALL,
#                          CB_NOTIFY_LOCK, ...) and the errors we can provoke
#   OUTDIR/nfs4-rdma.pcap  RoCEv2 (tcpdump -i nfsb0, UDP 4791): the same client over RPC-over-RDMA v1,
#                          with inline messages, read chunks, write lists, reply chunks and the
#                          backchannel on the client's connection (RFC 8167)
# Every step is logged with a timestamp to OUTDIR/capture.log so a record can be traced back to the
# command behind it (tools/golden/extract_v4.py reads it).
set -euo pipefail
trap 'echo "guest-capture-v4: line $LINENO: $BASH_COMMAND failed" >&2' ERR
OUT=$(realpath "$1")
cd "$(dirname "$0")/../.."          # the repository root: logged commands use relative paths
here=tools/golden
lab=lab/vm
PCAP=$OUT/nfs4-tcp.pcap
RPCAP=$OUT/nfs4-rdma.pcap
LOG=$OUT/capture.log
: > "$LOG"

step() { echo "$(date +%s.%N) == $*" >> "$LOG"; }
# run CMD...: log it and its output; a failing command is expected for the error steps, so only log.
run() {
  step "$*"
  local rc=0
  "$@" >> "$LOG" 2>&1 || rc=$?
  [ $rc = 0 ] || echo "   (exit status $rc)" >> "$LOG"
}
# run_count CMD...: like run, but log only how many lines CMD printed (for long listings).
run_count() {
  step "$*"
  local n
  n=$("$@" 2>> "$LOG" | wc -l) || true
  echo "   ($n lines of output)" >> "$LOG"
}
# as_user CMD...: run as uid/gid 1000 (AUTH_SYS credentials other than root's).
as_user() { setpriv --reuid=1000 --regid=1000 --clear-groups -- "$@"; }
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
ops() { python3 "$here/v4_ops.py" "$@"; }
# start_tcpdump FILE ARGS...: capture in the background until stop_tcpdump; full snap length.
start_tcpdump() {
  local file=$1; shift
  rm -f "$file"
  tcpdump -s 0 -B 32768 -U -Z root -w "$file" "$@" 2> "$OUT/tcpdump.err" &
  TCPDUMP=$!
  for _ in $(seq 100); do grep -q 'listening on' "$OUT/tcpdump.err" && break; sleep 0.1; done
  sleep 0.5
}
# Under TCG tcpdump lags behind: wait until the file stops growing before stopping it.
stop_tcpdump() {
  local prev=-1
  for _ in $(seq 30); do
    [ "$(stat -c %s "$1")" = "$prev" ] && break
    prev=$(stat -c %s "$1"); sleep 1
  done
  kill -INT $TCPDUMP
  wait $TCPDUMP || true
  cat "$OUT/tcpdump.err" >> "$LOG"
  grep -q '^0 packets dropped by kernel' "$OUT/tcpdump.err" || { echo "tcpdump dropped packets" >&2; exit 1; }
  rm -f "$OUT/tcpdump.err"
}
# nfsd_client_ctl NAME-PATTERN WORD: write WORD to the ctl file of the knfsd client whose name matches.
nfsd_client_ctl() {
  local d
  for d in /proc/fs/nfsd/clients/*/; do
    grep -q "name: \"$1" "$d/info" 2>/dev/null && { echo "$2" > "$d/ctl"; echo "client $(basename "$d"): $2"; return 0; }
  done
  echo "no knfsd client named $1*"; return 1
}

# ---- server side ----------------------------------------------------------------------------------
# Soft-RoCE as a pair of devices on a veth pair, so that RoCEv2 between client and server crosses a
# device tcpdump can watch; knfsd then also listens for RPC-over-RDMA on port 20049. The export is
# the tmpfs at /srv/nfs with fsid=0: it is also the NFSv4 pseudo-root, so clients mount "/".
RXE_PAIR=1 . "$lab/guest/rxe.sh"
# lockd (started with knfsd for NFSv3) has a grace period of its own, and knfsd refuses NFSv4 LOCKs
# with NFS4ERR_GRACE while any lock manager is in grace: keep it short (the minimum, 10 s).
modprobe lockd
echo 10 > /proc/sys/fs/nfs/nlm_grace_period
. "$lab/guest/knfsd.sh"
E=$NFSD_EXPORT
modprobe nfsv4

# Server-side fixtures, one tree per minor version: things the client finds rather than creates.
for v in 4.1 4.2; do
  mkdir -p "$E/v$v/rootonly" "$E/v$v/listing" "$E/v$v/nonempty/sub" "$E/v$v/deep/a/b"
  echo "owned by root" > "$E/v$v/rootfile"
  echo "read me, then be recalled" > "$E/v$v/delegated"
  for i in $(seq -w 1 300); do : > "$E/v$v/listing/directory-entry-with-a-longish-name-$i"; done
  chmod 0755 "$E/v$v/rootonly"; chmod 0644 "$E/v$v/rootfile"
done

# Client-side payloads.
python3 -c "import sys; sys.stdout.write(('nfsbench golden wire vector payload\\n' * 30000)[:1 << 20])" > /tmp/one-mib
head -c 8192 /tmp/one-mib > /tmp/eight-kib

# What produced the capture (extract_v4.py puts it into meta.json and the README).
pkgver() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null; }
cat > "$OUT/capture-info.json" <<EOF
{"kernel": "$(uname -r)", "kernel_version": "$(uname -v)",
 "nfs-kernel-server": "$(pkgver nfs-kernel-server)", "nfs-common": "$(pkgver nfs-common)",
 "tcpdump": "$(pkgver tcpdump)", "nfsd_versions": "$(cat /proc/fs/nfsd/versions)",
 "nfsd_max_block_size": $(cat /proc/fs/nfsd/max_block_size),
 "nfsd_lease_time": $(cat /proc/fs/nfsd/nfsv4leasetime)}
EOF

# ---- the workload of one minor version, on mount $A, with a second client at $B ---------------------
# workload V A B: A is a vers=V mount (small I/O sizes, no attribute caching: one RPC per operation),
# B a mount of the other minor version: a different client to knfsd (the client owner string names
# the minor version), for lock conflicts and delegation recalls.
workload() {
  local v=$1 A=$2/v$1 B=$3/v$1
  run stat -f "$A"                                # GETATTR of the file-system attributes
  run mkdir "$A/d"                                # CREATE NF4DIR
  run sh -c "echo hello > $A/d/small"             # OPEN (create UNCHECKED4), WRITE, CLOSE
  run cp /tmp/eight-kib "$A/d/two"                # 2x WRITE UNSTABLE4 + COMMIT (more than one wsize)
  run dd if=/tmp/eight-kib of="$A/d/synced" bs=512 count=1 oflag=sync status=none   # WRITE FILE_SYNC4
  run ops excl "$A/d/excl"                        # OPEN createmode EXCLUSIVE4_1
  run ln -s small "$A/d/sym"                      # CREATE NF4LNK
  run ln -s "a/much/longer/symbolic/link/target/path" "$A/d/sym2"
  run ln "$A/d/small" "$A/d/hard"                 # LINK (SAVEFH, PUTFH, LINK, RESTOREFH)
  run mkfifo "$A/d/fifo"                          # CREATE NF4FIFO
  run mknod "$A/d/chr" c 1 3                      # CREATE NF4CHR
  run mknod "$A/d/blk" b 7 0                      # CREATE NF4BLK
  run python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('$A/d/sock')"   # CREATE NF4SOCK
  run chmod 0600 "$A/d/small"                     # SETATTR mode
  run chown 1000:1000 "$A/d/two"                  # SETATTR owner, owner_group
  run truncate -s 3 "$A/d/synced"                 # SETATTR size (with an open stateid)
  run touch -d "2001-02-03 04:05:06.789" "$A/d/hard"   # SETATTR times set to client time
  run touch "$A/d/excl"                           # SETATTR times set to server time
  run mv "$A/d/two" "$A/d/renamed"                # RENAME
  # OPEN rw, OPEN ro, OPEN_DOWNGRADE, CLOSE. knfsd would grant a read delegation even to the rw OPEN
  # (and the client would then open read-only locally): the second client holds the file open for
  # writing meanwhile, which rules a read delegation out.
  run sh -c "sleep 4 >> $B/d/renamed & sleep 1; python3 $here/v4_ops.py downgrade $A/d/renamed; wait"
  drop_caches
  run readlink "$A/d/sym"                         # READLINK
  run readlink "$A/d/sym2"
  run cat "$A/d/small"                            # OPEN of an existing file, READ (eof), CLOSE
  run dd if="$A/d/renamed" of=/dev/null bs=4096 count=1 status=none   # READ 4096 of 8192, no eof
  run stat "$A/d/missing"                         # LOOKUP -> NFS4ERR_NOENT
  run ls -l "$A/d"                                # READDIR
  drop_caches
  run_count ls -f "$A/listing"                    # READDIR over several calls (cookies)
  run ops lookupp "$2" "$A/deep/a/b"              # LOOKUPP (reconnecting a dentry found by handle)
  run rm "$A/d/hard"                              # REMOVE
  run mkdir "$A/d/empty"
  run rmdir "$A/d/empty"                          # REMOVE of a directory
  run rmdir "$A/nonempty"                         # REMOVE -> NFS4ERR_NOTEMPTY
  run as_user mkdir "$A/rootonly/x"               # CREATE as uid 1000 -> NFS4ERR_ACCESS
  run as_user chmod 0777 "$A/rootfile"            # SETATTR as uid 1000 -> NFS4ERR_PERM
  run as_user ls "$A/d"                           # ACCESS / READDIR as uid 1000
  # Names the server has but this client has never looked up: exclusive creates fail on the server.
  drop_caches
  run mkdir "$A/rootonly"                         # CREATE -> NFS4ERR_EXIST
  run ops excl "$A/d/small"                       # OPEN EXCLUSIVE4_1 -> NFS4ERR_EXIST
  run ln -s x "$A/d/sym"                          # CREATE NF4LNK -> NFS4ERR_EXIST
  # A name the client has cached but the server no longer has: REMOVE -> NFS4ERR_NOENT.
  run stat "$A/d/renamed"
  rm -f "$E/v$v/d/renamed"
  run rm "$A/d/renamed"
  # Byte-range locks: LOCK, LOCKT, LOCKU, LOCK -> NFS4ERR_DENIED from the second client, a blocking
  # lock woken by CB_NOTIFY_LOCK, flock() and lockf(); FREE_STATEID of the lock stateids afterwards.
  run ops locks "$A/d/locked" "$B/d/locked"
  # A read delegation (a read-only OPEN) recalled when the second client opens the file for writing:
  # CB_SEQUENCE + CB_RECALL on the backchannel, DELEGRETURN; the writer's OPEN meets NFS4ERR_DELAY.
  drop_caches
  run ops hold "$A/delegated" 0
  run grep -c . /proc/fs/nfsd/clients/*/states
  run sh -c "echo recall >> $B/delegated"
  run cat "$A/delegated"
  if [ "$v" = 4.2 ]; then
    run ops seek "$A/d/sparse"                    # SEEK (data, hole, NFS4ERR_NXIO)
    run fallocate -o 0 -l 65536 "$A/d/sparse"     # ALLOCATE
    run fallocate -p -o 1048576 -l 4096 "$A/d/sparse"   # DEALLOCATE
    run ops copy "$A/d/synced" "$A/d/copied"      # COPY
    run stat -c '%n %s %b' "$A/d/sparse" "$A/d/copied"
  fi
}

# ---- capture 1: TCP on loopback ---------------------------------------------------------------------
start_tcpdump "$PCAP" -i lo tcp port 2049
mkdir -p /mnt/a41 /mnt/a42 /mnt/b41 /mnt/b42 /mnt/big
SMALL=proto=tcp,rsize=4096,wsize=4096,actimeo=0
# Mount: EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE, SECINFO_NO_NAME, PUTROOTFH, GETATTR, ...
run mount -t nfs -o vers=4.1,$SMALL 127.0.0.1:/ /mnt/a41
run mount -t nfs -o vers=4.2,$SMALL 127.0.0.1:/ /mnt/b42
workload 4.1 /mnt/a41 /mnt/b42
run mount -t nfs -o vers=4.2,$SMALL 127.0.0.1:/ /mnt/a42
run mount -t nfs -o vers=4.1,$SMALL 127.0.0.1:/ /mnt/b41
workload 4.2 /mnt/a42 /mnt/b41

# What the Linux client never sends (GUARDED4, share deny, TEST_STATEID, COMPOUNDs a server must
# refuse): hand-made calls (XIDs 0x686dNNNN), knfsd's replies.
run python3 "$here/rpc4_handmade.py" 127.0.0.1 2049 v4.1/d

# One 1 MiB WRITE and one 1 MiB READ (O_DIRECT), on a separate mount with large I/O sizes.
run mount -t nfs -o vers=4.1,proto=tcp,rsize=1048576,wsize=1048576 127.0.0.1:/ /mnt/big
run dd if=/tmp/one-mib of=/mnt/big/one-mib bs=1M count=1 oflag=direct status=none
run dd if=/mnt/big/one-mib of=/dev/null bs=1M count=1 iflag=direct status=none
run umount /mnt/big

# Lease trouble: the server forgets the vers=4.1 client while it holds a file open
# (/proc/fs/nfsd/clients/N/ctl "expire"). The client's next SEQUENCE fails (BADSESSION), it
# establishes a new client ID and session and recovers its open state (TEST_STATEID, FREE_STATEID,
# OPEN by file handle).
step "expire the vers=4.1 client while a file is open"
python3 -c "
import os, time, sys
fd = os.open('/mnt/a41/v4.1/d/excl', os.O_RDWR)
os.write(fd, b'before\n'); os.fsync(fd)
open('/tmp/held', 'w').close()
while not os.path.exists('/tmp/expired'): time.sleep(0.2)
os.pwrite(fd, b'after\n', 7); os.fsync(fd)
print('wrote through the recovered open state'); os.close(fd)" >> "$LOG" 2>&1 &
holder=$!
for _ in $(seq 100); do [ -e /tmp/held ] && break; sleep 0.2; done
run nfsd_client_ctl "Linux NFSv4.1" expire
touch /tmp/expired
wait $holder || echo "   (holder exit status $?)" >> "$LOG"
run cat /mnt/a41/v4.1/d/excl

# A connection cut under the session: the client reconnects and binds the new connection to its
# session (BIND_CONN_TO_SESSION) once the server reports the backchannel down.
run ss -K dst 127.0.0.1 dport = 2049
run ls /mnt/a41/v4.1/d
sleep 2
run stat /mnt/a41/v4.1/d/small

# A server restart under a client that holds a file open with a lock: the client finds its session
# and client ID gone (BADSESSION, STALE_CLIENTID), establishes new ones and reclaims within the grace
# period (OPEN CLAIM_PREVIOUS, LOCK reclaim, RECLAIM_COMPLETE); the second client's new OPEN meets
# NFS4ERR_GRACE until the grace period (10 s here) ends.
knfsd_restart() {
  rpc.nfsd 0
  echo 10 > /proc/fs/nfsd/nfsv4gracetime       # settable while no nfsd runs
  rpc.nfsd "$NFSD_THREADS"
  echo 'rdma 20049' > /proc/fs/nfsd/portlist   # the RDMA listener goes with the threads
}
step "restart knfsd while the vers=4.1 client holds a file open with a lock"
rm -f /tmp/held /tmp/restarted
python3 -c "
import os, time, fcntl, struct
fd = os.open('/mnt/a41/v4.1/d/reclaimed', os.O_RDWR | os.O_CREAT, 0o644)
os.write(fd, b'before the restart\n'); os.fsync(fd)
fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 10, 0))
open('/tmp/held', 'w').close()
while not os.path.exists('/tmp/restarted'): time.sleep(0.2)
os.write(fd, b'after the restart\n'); os.fsync(fd)
print('wrote through the reclaimed open state'); os.close(fd)" >> "$LOG" 2>&1 &
holder=$!
for _ in $(seq 100); do [ -e /tmp/held ] && break; sleep 0.2; done
run knfsd_restart
touch /tmp/restarted
run sh -c "echo during grace > /mnt/b42/v4.1/d/new-in-grace"
wait $holder || echo "   (holder exit status $?)" >> "$LOG"
run cat /mnt/a41/v4.1/d/reclaimed
dmesg | grep -E 'NFSD|grace' >> "$LOG"

# umount: DELEGRETURN of what is still delegated, DESTROY_SESSION, DESTROY_CLIENTID.
run umount /mnt/b42
run umount /mnt/b41
run umount /mnt/a42
run umount /mnt/a41
stop_tcpdump "$PCAP"

# ---- capture 2: RPC-over-RDMA (RoCEv2 on the veth pair) ---------------------------------------------
start_tcpdump "$RPCAP" -i "$RXE_NETDEV" udp port 4791
R=/mnt/rdma
mkdir -p $R /mnt/rdma42 /mnt/tcp42
# Connection setup (RDMA-CM private data, RFC 8797); EXCHANGE_ID with a reply chunk; the session's
# backchannel on the same connection.
run mount -t nfs -o vers=4.1,proto=rdma,port=20049,rsize=1048576,wsize=1048576 $RXE_IP:/ $R
run sh -c "echo hello over rdma > $R/v4.1/rdma-small"
# WRITE: the payload goes in a read chunk at its XDR position (the server pulls it with RDMA Read);
# the client registers at most 128 KiB per segment with rxe, so 256 KiB is a chunk of two segments.
run dd if=/tmp/one-mib of=$R/v4.1/rdma-256k bs=256k count=1 oflag=direct status=none
# READ: the payload comes back through a write list (the server pushes it with RDMA Write).
run dd if=$R/v4.1/rdma-256k of=/dev/null bs=256k count=1 iflag=direct status=none
# READDIR: the reply comes back through a reply chunk.
drop_caches
run_count ls -l $R/v4.1/listing
# CREATE NF4LNK with a long target (4000 bytes: more than fits inline), READLINK of it.
python3 -c "print('long-symlink-target/' * 200, end='')" > /tmp/long-target
run sh -c "ln -s \"\$(cat /tmp/long-target)\" $R/v4.1/rdma-longlink"
drop_caches
run readlink $R/v4.1/rdma-longlink
# The second client for locks and the recall: vers=4.2 over TCP (not captured). It is unmounted
# before the vers=4.2 RDMA mount below: the Linux client would otherwise find the same client ID
# (the owner string names the minor version, not the transport) and use the TCP connection.
run mount -t nfs -o vers=4.2,proto=tcp 127.0.0.1:/ /mnt/tcp42
run ops locks $R/v4.1/d/rdma-locked /mnt/tcp42/v4.1/d/rdma-locked
# A read delegation recalled over the RDMA backchannel (CB_RECALL as an RDMA_MSG from the server).
drop_caches
run ops hold $R/v4.1/delegated 0
run sh -c "echo recall over rdma >> /mnt/tcp42/v4.1/delegated"
run cat $R/v4.1/delegated
run umount /mnt/tcp42
# vers=4.2 over RDMA: SEEK, ALLOCATE, DEALLOCATE.
run mount -t nfs -o vers=4.2,proto=rdma,port=20049 $RXE_IP:/ /mnt/rdma42
run grep -A1 -m1 'xprt:' /proc/self/mountstats
run ops seek /mnt/rdma42/v4.2/rdma-sparse
run fallocate -o 0 -l 65536 /mnt/rdma42/v4.2/rdma-sparse
run fallocate -p -o 1048576 -l 4096 /mnt/rdma42/v4.2/rdma-sparse
run umount /mnt/rdma42
run umount $R
stop_tcpdump "$RPCAP"
dmesg > "$OUT/dmesg.txt"
echo "guest-capture-v4: $(stat -c %s "$PCAP") bytes in $PCAP, $(stat -c %s "$RPCAP") in $RPCAP"
