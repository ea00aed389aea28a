#!/bin/bash
# tools/golden/guest-capture.sh OUTDIR — runs INSIDE the lab VM (tools/golden/capture.sh starts it).
#
# Starts Soft-RoCE and the kernel NFS server, then makes two captures:
#   OUTDIR/nfs3-tcp.pcap   loopback (tcpdump -i lo, TCP): real peers through every NFSv3 and MOUNT
#                          procedure, the error replies we can provoke and some rpcbind traffic
#   OUTDIR/nfs3-rdma.pcap  RoCEv2 (tcpdump -i nfsb0, UDP 4791): the kernel client over RPC-over-RDMA
#                          v1 with inline messages, read chunks, write lists and reply chunks
# Every step is logged with a timestamp to OUTDIR/capture.log so a record can be traced back to the
# command behind it.
set -euo pipefail
trap 'echo "guest-capture: line $LINENO: $BASH_COMMAND failed" >&2' ERR
OUT=$(realpath "$1")
cd "$(dirname "$0")/../.."          # the repository root: logged commands use relative paths
here=tools/golden
lab=lab/vm
PCAP=$OUT/nfs3-tcp.pcap
RPCAP=$OUT/nfs3-rdma.pcap
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
# start_tcpdump FILE ARGS...: capture in the background until stop_tcpdump; full snap length.
start_tcpdump() {
  local file=$1; shift
  rm -f "$file"
  tcpdump -s 0 -B 32768 -U -Z root -w "$file" "$@" 2> "$OUT/tcpdump.err" &
  TCPDUMP=$!
  for _ in $(seq 100); do grep -q 'listening on' "$OUT/tcpdump.err" && break; sleep 0.1; done
  sleep 0.5
}
stop_tcpdump() {
  sleep 1
  kill -INT $TCPDUMP
  wait $TCPDUMP || true
  cat "$OUT/tcpdump.err" >> "$LOG"
  grep -q '^0 packets dropped by kernel' "$OUT/tcpdump.err" || { echo "tcpdump dropped packets" >&2; exit 1; }
  rm -f "$OUT/tcpdump.err"
}

# ---- server side ----------------------------------------------------------------------------------
# Soft-RoCE as a pair of devices on a veth pair, so that RoCEv2 between client and server crosses a
# device tcpdump can watch; knfsd then also listens for RPC-over-RDMA on port 20049.
RXE_PAIR=1 . "$lab/guest/rxe.sh"
. "$lab/guest/knfsd.sh"
E=$NFSD_EXPORT

# A few hundred exports with long paths: rpc.mountd's EXPORT reply (showmount -e) then outgrows
# libtirpc's 64 KiB record-stream buffer and is sent as several record-marking fragments. They are
# withdrawn right after that step (libnfs asks for the export list at every mount).
LONG=this-export-exists-to-make-the-mount-export-list-longer-than-one-record-marking-fragment
mkdir -p "$E/exports"
for i in $(seq -w 1 400); do
  d=$E/exports/$LONG-$i/$LONG
  mkdir -p "$d"
  echo "$d *(ro,no_subtree_check,insecure,fsid=$((1000 + 10#$i)))"
done > /etc/exports.d/many.exports
# A read-only export (NFS3ERR_ROFS) and a tiny one that fills up (NFS3ERR_NOSPC).
mkdir -p /srv/ro /srv/tiny
mount -t tmpfs -o size=1M tmpfs /srv/ro
echo "read-only" > /srv/ro/file
mount -t tmpfs -o size=64k tmpfs /srv/tiny
cat > /etc/exports.d/lab.exports <<EOF
/srv/ro *(ro,sync,no_subtree_check,no_root_squash,insecure,fsid=2)
/srv/tiny *(rw,sync,no_subtree_check,no_root_squash,insecure,fsid=3)
EOF
step "exportfs -ra (with $(cat /etc/exports.d/*.exports | wc -l) extra exports)"
exportfs -ra
step "exports ready"

# Server-side fixtures: things the client finds rather than creates.
mkdir -p "$E/rootonly" "$E/listing" "$E/nonempty/sub"
echo "owned by root" > "$E/rootfile"
for i in $(seq -w 1 40); do : > "$E/listing/directory-entry-with-a-longish-name-$i"; done
chmod 0755 "$E/rootonly"; chmod 0644 "$E/rootfile"

# Client-side payloads.
python3 -c "import sys; sys.stdout.write(('nfsbench golden wire vector payload\\n' * 30000)[:1 << 20])" > /tmp/one-mib
head -c 8192 /tmp/one-mib > /tmp/eight-kib
head -c 100000 /tmp/one-mib > /tmp/hundred-kb

# What produced the capture (extract.py puts it into meta.json and the README).
pkgver() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null; }
cat > "$OUT/capture-info.json" <<EOF
{"kernel": "$(uname -r)", "kernel_version": "$(uname -v)",
 "nfs-kernel-server": "$(pkgver nfs-kernel-server)", "nfs-common": "$(pkgver nfs-common)",
 "rpcbind": "$(pkgver rpcbind)", "libnfs-utils": "$(pkgver libnfs-utils)",
 "tcpdump": "$(pkgver tcpdump)", "nfsd_max_block_size": $(cat /proc/fs/nfsd/max_block_size)}
EOF

# ---- capture 1: TCP on loopback ---------------------------------------------------------------------
start_tcpdump "$PCAP" -i lo tcp

# rpcbind: the port mapper (v2 DUMP), rpcbind v3/v4 (DUMP, GETSTAT, GETADDRLIST).
run rpcinfo -p 127.0.0.1
run rpcinfo -s 127.0.0.1
run rpcinfo -m 127.0.0.1
run rpcinfo -l -T tcp 127.0.0.1 100003 3
# NULL of NFS v3 and MOUNT v3; an unsupported NFS version (accepted, PROG_MISMATCH); an unknown program
# sent straight to port 2049 (accepted, PROG_UNAVAIL).
run rpcinfo -t 127.0.0.1 nfs 3
run rpcinfo -t 127.0.0.1 mountd 3
run rpcinfo -t 127.0.0.1 nfs 5
run rpcinfo -a 127.0.0.1.8.1 -T tcp 100099 1
# MOUNT EXPORT (multi-fragment reply) and DUMP before anything is mounted.
run_count showmount --no-headers -e 127.0.0.1
rm /etc/exports.d/many.exports
run exportfs -ra
run showmount --no-headers -a 127.0.0.1

# ---- mount A: small I/O sizes, no attribute caching: one RPC per operation ---------------------------
A=/mnt/a
mkdir -p $A /mnt/b /mnt/big /mnt/ro /mnt/tiny
OPTS_A=vers=3,proto=tcp,mountproto=tcp,nolock,rsize=4096,wsize=4096,actimeo=0
run mount -t nfs -o $OPTS_A 127.0.0.1:$E $A
run showmount --no-headers -a 127.0.0.1          # DUMP with an entry
run stat -f $A                                  # FSSTAT
run df $A
run mkdir $A/d                                  # MKDIR
run sh -c "echo hello > $A/d/small"             # CREATE (UNCHECKED), WRITE FILE_SYNC (one RPC)
run cp /tmp/eight-kib $A/d/two                  # 2x WRITE UNSTABLE + COMMIT (more than one wsize)
run dd if=/tmp/eight-kib of=$A/d/synced bs=512 count=1 oflag=sync status=none   # O_SYNC: FILE_SYNC
run python3 -c "import os; os.close(os.open('$A/d/excl', os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o640))"
run ln -s small $A/d/sym                        # SYMLINK
run ln -s "a/much/longer/symbolic/link/target/path" $A/d/sym2
run ln $A/d/small $A/d/hard                     # LINK
run mkfifo $A/d/fifo                            # MKNOD NF3FIFO
run mknod $A/d/chr c 1 3                        # MKNOD NF3CHR
run mknod $A/d/blk b 7 0                        # MKNOD NF3BLK
run python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('$A/d/sock')"   # MKNOD NF3SOCK
run chmod 0600 $A/d/small                       # SETATTR mode
run chown 1000:1000 $A/d/two                    # SETATTR uid, gid
run truncate -s 3 $A/d/synced                   # SETATTR size
run touch -d "2001-02-03 04:05:06.789" $A/d/hard   # SETATTR times set to client time
run touch $A/d/excl                             # SETATTR times set to server time
run mv $A/d/two $A/d/renamed                    # RENAME
drop_caches
run readlink $A/d/sym                           # READLINK
run readlink $A/d/sym2
run cat $A/d/small                              # READ (short, eof)
run dd if=$A/d/renamed of=/dev/null bs=4096 count=1 status=none    # READ 4096 of 8192, no eof
run stat $A/d/missing                           # LOOKUP -> NFS3ERR_NOENT
run ls -l $A/d                                  # READDIRPLUS
drop_caches
run_count ls -l $A/listing                      # READDIRPLUS over several calls (cookies)
run rm $A/d/hard                                # REMOVE
run mkdir $A/d/empty
run rmdir $A/d/empty                            # RMDIR
run rmdir $A/nonempty                           # RMDIR -> NFS3ERR_NOTEMPTY
run as_user mkdir $A/rootonly/x                 # MKDIR as uid 1000 -> NFS3ERR_ACCES
run as_user chmod 0777 $A/rootfile              # SETATTR as uid 1000 -> NFS3ERR_PERM
run as_user ls $A/d                             # ACCESS / READDIRPLUS as uid 1000
run python3 $here/set_acl.py $A/d/small 1       # NFS_ACL SETACL
run python3 $here/set_acl.py $A/d/synced 400    # NFS_ACL SETACL, 400 entries (cf. the RDMA capture)

# ---- mount B: READDIR instead of READDIRPLUS, default attribute caching ---------------------------
B=/mnt/b
run mount -t nfs -o vers=3,proto=tcp,mountproto=tcp,nolock,rsize=4096,wsize=4096,nordirplus 127.0.0.1:$E $B
run ls $B/d                                     # READDIR
run_count ls $B/listing                         # READDIR over several calls
# A name the client has cached but the server no longer has: REMOVE -> NFS3ERR_NOENT.
run stat $B/d/renamed $B/d/sym
rm -f "$E/d/renamed"
run rm $B/d/renamed
# A file removed on the server while the client holds it open: SETATTR -> NFS3ERR_STALE.
run python3 -c "
import os
fd = os.open('$B/d/excl', os.O_RDONLY)
os.unlink('$E/d/excl')
os.fchmod(fd, 0o644)"
# Names the server has but this client has never looked up: exclusive creates fail on the server.
echo 3 > /proc/sys/vm/drop_caches
run mkdir $B/rootonly                           # MKDIR -> NFS3ERR_EXIST
run python3 -c "import os; os.open('$B/d/small', os.O_CREAT | os.O_EXCL | os.O_WRONLY)"  # CREATE EXCLUSIVE -> EXIST
run ln -s x $B/d/sym                            # SYMLINK -> EXIST
run umount $B

# ---- read-only and tiny exports --------------------------------------------------------------------
run mount -t nfs -o vers=3,proto=tcp,mountproto=tcp,nolock 127.0.0.1:/srv/ro /mnt/ro
run touch /mnt/ro/new                           # CREATE -> NFS3ERR_ROFS
run umount /mnt/ro
run mount -t nfs -o vers=3,proto=tcp,mountproto=tcp,nolock,wsize=65536 127.0.0.1:/srv/tiny /mnt/tiny
run dd if=/tmp/hundred-kb of=/mnt/tiny/fill bs=100000 count=1 oflag=direct status=none   # WRITE -> NOSPC
run umount /mnt/tiny

# ---- large records: one 1 MiB WRITE and one 1 MiB READ ----------------------------------------------
run mount -t nfs -o vers=3,proto=tcp,mountproto=tcp,nolock,rsize=1048576,wsize=1048576 127.0.0.1:$E /mnt/big
run dd if=/tmp/one-mib of=/mnt/big/one-mib bs=1M count=1 oflag=direct status=none
run dd if=/mnt/big/one-mib of=/dev/null bs=1M count=1 iflag=direct status=none
run umount /mnt/big

run umount $A                                   # UMNT
run showmount --no-headers -a 127.0.0.1

# ---- a second real client implementation: libnfs (userspace; portmap GETPORT, MNT, NFSv3) ---------
run nfs-ls nfs://127.0.0.1$E/d
run nfs-cp /tmp/eight-kib nfs://127.0.0.1$E/d/libnfs-copy
run nfs-cat nfs://127.0.0.1$E/d/small
# Calls no standard tool makes (marked hand-made in the index); the replies are the real servers'.
run python3 "$here/rpc_handmade.py" 127.0.0.1 2049 "$MOUNTD_PORT" "$E"

stop_tcpdump

# ---- capture 2: RPC-over-RDMA (RoCEv2 on the veth pair) ---------------------------------------------
start_tcpdump "$RPCAP" -i "$RXE_NETDEV" udp port 4791
R=/mnt/rdma
mkdir -p $R
# Connection setup (RDMA-CM private data, RFC 8797), then inline calls and replies (RDMA_MSG).
run mount -t nfs -o vers=3,proto=rdma,port=20049,nolock,mountproto=tcp,rsize=1048576,wsize=1048576 $RXE_IP:$E $R
run sh -c "echo hello over rdma > $R/rdma-small"
# WRITE: the payload goes in a read chunk at its XDR position (the server pulls it with RDMA Read).
run dd if=/tmp/one-mib of=$R/rdma-128k bs=128k count=1 oflag=direct status=none
# READ: the payload comes back through a write list (the server pushes it with RDMA Write).
run dd if=$R/rdma-128k of=/dev/null bs=128k count=1 iflag=direct status=none
# READDIRPLUS: the reply comes back through a reply chunk (RDMA_NOMSG reply).
drop_caches
run_count ls -l $R/listing
# SYMLINK with a long target (4000 bytes: more than fits inline), READLINK of it.
python3 -c "print('long-symlink-target/' * 200, end='')" > /tmp/long-target
run sh -c "ln -s \"\$(cat /tmp/long-target)\" $R/rdma-longlink"
drop_caches
run readlink $R/rdma-longlink
# SETACL with a few hundred entries: the call outgrows the inline size (RDMA_NOMSG, position-zero
# read chunk).
run python3 $here/set_acl.py $R/rdma-small 400
run umount $R
stop_tcpdump
echo "guest-capture: $(stat -c %s "$PCAP") bytes in $PCAP, $(stat -c %s "$RPCAP") in $RPCAP"
