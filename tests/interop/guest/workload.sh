# tests/interop/guest/workload.sh — the file-system workload, sourced by guest/kernel-client.sh.
# shellcheck shell=bash
#
# Each phase runs twice with the same commands and the same source data: once in a directory on the
# guest's local tmpfs (the reference) and once on the NFS mount. Every command is run from inside the
# directory with relative paths, and its command line, output and exit status go to a transcript, so the
# two transcripts must be identical line for line (same data read back, same errors for the same
# mistakes). manifest.py then compares the trees themselves (types, modes, sizes, link counts,
# SHA-256 of every file, symlink targets, explicitly set mtimes).
#
# Needs: SRC (a local directory with the source files made by make_sources), TMO_OP (seconds per command).

TMO_OP=${TMO_OP:-180}
# Paths whose times the workload sets explicitly: their mtime is part of the manifest.
# shellcheck disable=SC2034  # read by kernel-client.sh
TIMED=(m1p1 d1/d2/one-renamed)
LONG_TARGET=$(printf 'a-long-symbolic-link-target-component/%.0s' {1..6})end   # 230 bytes

# op CMD...: run CMD in the current directory with a timeout; log it, its output and its status.
op() {
  local rc=0
  printf '$ %s\n' "$*" >> "$T"
  timeout -k 5 "$TMO_OP" "$@" >> "$T" 2>&1 || rc=$?
  echo "rc=$rc" >> "$T"
}
# sh_op 'SHELL TEXT': the same for a shell pipeline.
sh_op() { op bash -c "$1"; }

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# make_sources SRC BIG: the source data (local tmpfs): a text, 1 MiB + 1 random bytes, and, when BIG=1,
# 100 MiB random bytes.
make_sources() {
  mkdir -p "$1"
  seq 1 1000 | sed 's/^/line of the interop source text, number /' > "$1/small"
  head -c 1048577 /dev/urandom > "$1/m1p1"
  [ "$2" = 1 ] && dd if=/dev/urandom of="$1/big" bs=4M count=25 status=none
  return 0
}

# phase_small: everything except the 100 MiB file. Run it with the working directory set to the tree.
phase_small() {
  # create / write / read: 0 B, 1 B, 1 MiB + 1
  op mkdir -p d1/d2/d3
  op touch empty
  sh_op 'printf x > one'
  op cp "$SRC/m1p1" m1p1
  op stat -c '%n %s %F' empty one m1p1
  op cat one empty
  op cmp "$SRC/m1p1" m1p1
  # append, truncate (shrink; grow over a hole), a write into the hole
  op cp "$SRC/small" f
  sh_op "cat '$SRC/small' >> f"
  sh_op 'echo appended-line >> f'
  op tail -c 60 f
  op truncate -s 100 f
  op cat f
  op truncate -s 200000 f
  op dd if="$SRC/small" of=f bs=1000 count=1 seek=150 conv=notrunc status=none
  op stat -c '%n %s' f
  sh_op 'od -An -c -j 149990 -N 30 f'
  # rename: across directories, within one, onto an existing file, a directory
  op mv f d1/f-moved
  op mv one d1/d2/one-renamed
  op cp "$SRC/small" victim
  op mv d1/f-moved victim
  op mkdir d-old
  op touch d-old/inside
  op mv d-old d1/d-new
  op ls -A d1 d1/d-new
  # hard links
  op ln victim hard
  op stat -c '%n %h %s' victim hard
  sh_op 'echo via-the-link >> hard'
  op tail -n 1 victim
  op ln d1 dir-hard-link              # EPERM on both
  # symbolic links and readlink
  op ln -s d1/d2/one-renamed sym
  op readlink sym
  op cat sym
  op ln -s "$LONG_TARGET" longsym
  op readlink longsym
  op ln -s missing-target dangling
  op readlink dangling
  op cat dangling                     # ENOENT on both
  op ln -s elsewhere sym              # EEXIST on both
  # mkdir / rmdir, and the errors
  op mkdir d1/d2/d3/d4 d1/gone
  op rmdir d1/gone
  op rmdir d1                         # ENOTEMPTY
  op mkdir d1                         # EEXIST
  op rmdir victim                     # ENOTDIR
  op cat no-such-file                 # ENOENT
  op rm hard
  op stat -c '%n %h' victim
  # exclusive create (CREATE EXCLUSIVE + the mode set afterwards), again (EEXIST); a FIFO (MKNOD);
  # a 255-byte name; a directory renamed onto an empty one; a file read after its name was removed
  # while open (the client's silly rename)
  op python3 -c "import os; os.close(os.open('excl', os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o640))"
  op python3 -c "import os; os.open('excl', os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o640)"
  op stat -c '%n %s %a %F' excl
  op mkfifo -m 0620 fifo
  op stat -c '%n %a %F' fifo
  op touch "$(printf 'n%.0s' {1..255})"
  op touch "$(printf 'n%.0s' {1..256})"    # ENAMETOOLONG
  op mkdir r1 r2
  op touch r1/inside
  op mv -T r1 r2
  op ls -A r2
  op cp "$SRC/small" opened
  sh_op 'exec 3< opened; rm opened; wc -c <&3; exec 3<&-'
  op ls opened
  # chmod and utimes (explicit times: ns precision, and one past 2038 that still fits NFSv3's u32)
  op chmod 0640 m1p1
  op chmod 0751 d1
  op chmod 0600 d1/d2/one-renamed
  op stat -c '%n %a' m1p1 d1 d1/d2/one-renamed
  op touch -m -d '2001-02-03 04:05:06.123456789' m1p1
  op touch -a -d '1999-12-31 23:59:59.5' m1p1
  op touch -d '2099-01-02 03:04:05.000000001' d1/d2/one-renamed
  op stat -c '%n %X %Y %x %y' m1p1 d1/d2/one-renamed
  # a directory of 1,000 entries: list, list with attributes, remove half, list again
  op mkdir many
  local i
  for i in $(seq -w 0 999); do : > "many/entry-with-a-longer-name-to-need-several-readdir-calls-$i"; done
  sh_op 'ls -A many | wc -l'
  op ls -A many
  drop_caches
  sh_op 'find many -mindepth 1 -printf "%P %s %m %y\n" | sort'
  sh_op 'rm many/*[13579]'
  drop_caches
  sh_op 'ls -A many | wc -l'
  sh_op 'ls -A many | md5sum'
}

# phase_bulk: the 100 MiB file, written with large blocks and synced, then read back uncached.
# Prints its timings on stdout (the caller logs them for the NFS run).
phase_bulk() {
  local t0
  t0=$(date +%s%N)
  op dd if="$SRC/big" of=big bs=4M conv=fsync status=none
  echo "write $(mib_per_s 104857600 "$t0") MiB/s ($(elapsed_since "$t0") s)"
  drop_caches
  t0=$(date +%s%N)
  sh_op 'dd if=big bs=4M status=none | sha256sum'
  echo "read $(mib_per_s 104857600 "$t0") MiB/s ($(elapsed_since "$t0") s)"
  op stat -c '%n %s' big
  # overwrite 1 MiB in the middle and append 1 byte: the file is now 100 MiB + 1
  op dd if="$SRC/m1p1" of=big bs=1M count=1 seek=50 conv=notrunc,fsync status=none
  sh_op "head -c 1 '$SRC/small' >> big"
  op stat -c '%n %s' big
  # a sparse file with data past 4 GiB (64-bit offsets); only its data region is read back
  op truncate -s 5G sparse
  op dd if="$SRC/m1p1" of=sparse bs=1M count=1 seek=4600 conv=notrunc,fsync status=none
  op stat -c '%n %s' sparse
  drop_caches
  sh_op 'dd if=sparse bs=1M skip=4599 count=3 status=none | sha256sum'
  sh_op 'dd if=sparse bs=1M skip=5119 status=none | sha256sum'
  op rm sparse
}
