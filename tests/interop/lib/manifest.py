#!/usr/bin/env python3
"""tests/interop/lib/manifest.py — what a directory tree holds, for comparing an NFS tree with a local one.

    manifest.py DIR [--timed REL]... > FILE          one line per entry below DIR, sorted by path
    manifest.py --compare A B                        exit 1 and print a diff when two manifests differ

Each line: path, type, permission bits, then for a regular file its size, link count and SHA-256, for a
symbolic link its target, for a directory its sorted entry count. mtime (with nanoseconds) only for the
paths given with --timed (those whose times the workload set explicitly). Left out on purpose, because
they legitimately differ between a local tmpfs and an NFS export: owners (root squash), directory sizes
and link counts, atime/ctime, the permission bits of symbolic links.
"""
import difflib
import hashlib
import os
import stat
import sys


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            block = f.read(1 << 20)
            if not block:
                return h.hexdigest()
            h.update(block)


def entries(root, timed):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            st = os.lstat(full)
            perm = "%04o" % stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                line = "%s link -> %r" % (rel, os.readlink(full))
            elif stat.S_ISDIR(st.st_mode):
                line = "%s dir %s entries=%d" % (rel, perm, len(os.listdir(full)))
            elif stat.S_ISREG(st.st_mode):
                line = "%s file %s size=%d nlink=%d sha256=%s" % (rel, perm, st.st_size, st.st_nlink, digest(full))
            else:
                line = "%s other %s mode=%o" % (rel, perm, st.st_mode)
            if rel in timed:
                line += " mtime=%d.%09d" % (st.st_mtime_ns // 10**9, st.st_mtime_ns % 10**9)
            out.append(line)
    return sorted(out)


def main(argv):
    if len(argv) == 4 and argv[1] == "--compare":
        with open(argv[2]) as f:
            a = f.read().splitlines()
        with open(argv[3]) as f:
            b = f.read().splitlines()
        if a == b:
            print("manifests agree: %d entries" % len(a))
            return 0
        diff = list(difflib.unified_diff(a, b, argv[2], argv[3], lineterm="", n=1))
        print("\n".join(diff[:200]))
        if len(diff) > 200:
            print("[... %d more diff lines]" % (len(diff) - 200))
        return 1
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    timed = set()
    args = argv[2:]
    while args:
        if args[0] == "--timed" and len(args) > 1:
            timed.add(os.path.normpath(args[1]))
            args = args[2:]
        else:
            print("manifest.py: unexpected argument %r" % args[0], file=sys.stderr)
            return 2
    for line in entries(argv[1], timed):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
