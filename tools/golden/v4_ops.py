#!/usr/bin/env python3
"""Small file-system actions that make the Linux NFSv4 client send particular operations.

Used by tools/golden/guest-capture-v4.sh inside the lab VM (runs as root). Each subcommand prints what
it observed, so capture.log says what happened:

    v4_ops.py excl PATH                 open(O_CREAT|O_EXCL): OPEN createmode EXCLUSIVE4_1
    v4_ops.py downgrade PATH            open rw, open ro, close the rw one: OPEN_DOWNGRADE, then CLOSE
    v4_ops.py lookupp MOUNT DIR         name_to_handle_at(DIR), drop caches, open_by_handle_at: the
                                        client reconnects the disconnected dentry with LOOKUPP
    v4_ops.py seek PATH                 a sparse file; SEEK_DATA / SEEK_HOLE (NFSv4.2 SEEK), and
                                        SEEK_DATA past the last data (NFS4ERR_NXIO)
    v4_ops.py copy SRC DST              copy_file_range (NFSv4.2 COPY)
    v4_ops.py locks PATH_A PATH_B       byte-range locks: PATH_A on the first client (two processes),
                                        PATH_B the same file through a second client (another mount)
    v4_ops.py hold PATH SECONDS         keep PATH open read-only for SECONDS (a read delegation)
"""
import ctypes
import errno
import fcntl
import os
import struct
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def excl(path):
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o640))
        print(f"created {path}")
    except OSError as e:
        print(f"{path}: {errno.errorcode[e.errno]}")


def downgrade(path):
    rw = os.open(path, os.O_RDWR)
    ro = os.open(path, os.O_RDONLY)
    os.close(rw)  # the open state drops to read-only: OPEN_DOWNGRADE (sent asynchronously)
    time.sleep(1)  # ... before the last close, which would otherwise make it a CLOSE
    print(f"read {len(os.read(ro, 100))} bytes after the downgrade")
    os.close(ro)  # CLOSE


class FileHandle(ctypes.Structure):
    _fields_ = [("handle_bytes", ctypes.c_uint), ("handle_type", ctypes.c_int),
                ("f_handle", ctypes.c_ubyte * 128)]


def lookupp(mount, path):
    fh, mount_id = FileHandle(), ctypes.c_int()
    fh.handle_bytes = 128
    if libc.name_to_handle_at(AT_FDCWD, path.encode(), ctypes.byref(fh), ctypes.byref(mount_id), 0) != 0:
        sys.exit(f"name_to_handle_at {path}: {os.strerror(ctypes.get_errno())}")
    mfd = os.open(mount, os.O_RDONLY | os.O_DIRECTORY)
    drop_caches()  # nothing holds the directory's dentry any more: it must be found again
    fd = libc.open_by_handle_at(mfd, ctypes.byref(fh), os.O_RDONLY | os.O_DIRECTORY)
    if fd < 0:
        sys.exit(f"open_by_handle_at: {os.strerror(ctypes.get_errno())}")
    print(f"opened by handle ({fh.handle_bytes} bytes): {len(os.listdir(fd))} entries")
    os.close(fd)
    os.close(mfd)


def seek(path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.pwrite(fd, b"data in the middle of a sparse file\n" * 100, 1 << 20)
    os.ftruncate(fd, 3 << 20)
    os.fsync(fd)
    os.close(fd)
    drop_caches()
    fd = os.open(path, os.O_RDONLY)
    print("SEEK_DATA from 0:", os.lseek(fd, 0, os.SEEK_DATA))
    print("SEEK_HOLE from 1 MiB:", os.lseek(fd, 1 << 20, os.SEEK_HOLE))
    try:
        os.lseek(fd, 2 << 20, os.SEEK_DATA)
        print("SEEK_DATA from 2 MiB: found data (unexpected)")
    except OSError as e:
        print("SEEK_DATA from 2 MiB:", errno.errorcode[e.errno])
    os.close(fd)


def copy(src, dst):
    fi = os.open(src, os.O_RDONLY)
    fo = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    n = os.copy_file_range(fi, fo, os.fstat(fi).st_size)
    print(f"copy_file_range: {n} bytes")
    os.close(fi)
    os.close(fo)


def lk(fd, kind, start, length, wait=False):
    """fcntl(F_SETLK/F_SETLKW) on [start, start+length); returns 'ok' or the errno name."""
    data = struct.pack("hhqqi", kind, os.SEEK_SET, start, length, 0)
    try:
        fcntl.fcntl(fd, fcntl.F_SETLKW if wait else fcntl.F_SETLK, data)
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]


def getlk(fd, kind, start, length):
    data = struct.pack("hhqqi", kind, os.SEEK_SET, start, length, 0)
    t, _, s, n, pid = struct.unpack("hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, data))
    return "unlocked" if t == fcntl.F_UNLCK else f"conflict [{s}, +{n}) type {t}"


def locks(path_a, path_b):
    """A (first client) holds a write lock on [0, 100); B (same client, another process) conflicts
    locally and locks elsewhere; C (a second client) sees the conflict from the server (LOCKT, LOCK
    DENIED), then blocks (F_SETLKW) until A unlocks; then flock() and lockf() on the whole file."""
    a = os.open(path_a, os.O_RDWR | os.O_CREAT, 0o644)
    os.pwrite(a, b"lock me\n" * 64, 0)
    print("A F_SETLK write [0,100):", lk(a, fcntl.F_WRLCK, 0, 100))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # B: same client, another process (lock owner)
        b = os.open(path_a, os.O_RDWR)
        out = ["B F_SETLK write [50,150): " + lk(b, fcntl.F_WRLCK, 50, 100),
               "B F_GETLK [200,300): " + getlk(b, fcntl.F_WRLCK, 200, 100),
               "B F_SETLK read [200,300): " + lk(b, fcntl.F_RDLCK, 200, 100),
               "B F_SETLK unlock [200,300): " + lk(b, fcntl.F_UNLCK, 200, 100)]
        os.close(b)
        os.write(w, ("\n".join(out) + "\n").encode())
        os._exit(0)
    os.waitpid(pid, 0)
    print(os.read(r, 4096).decode(), end="")
    c = os.open(path_b, os.O_RDWR)  # C: the second client
    print("C F_GETLK [0,10):", getlk(c, fcntl.F_WRLCK, 0, 10))
    print("C F_SETLK write [0,10):", lk(c, fcntl.F_WRLCK, 0, 10))
    pid = os.fork()
    if pid == 0:  # C blocks until A lets go
        t0 = time.time()
        res = lk(c, fcntl.F_WRLCK, 0, 10, wait=True)
        os.write(w, f"C F_SETLKW write [0,10): {res} after {time.time() - t0:.1f} s\n".encode())
        lk(c, fcntl.F_UNLCK, 0, 10)
        os._exit(0)
    time.sleep(2)
    print("A F_SETLK unlock [0,100):", lk(a, fcntl.F_UNLCK, 0, 100))
    os.waitpid(pid, 0)
    print(os.read(r, 4096).decode(), end="")
    os.close(c)
    fcntl.flock(a, fcntl.LOCK_EX)  # the Linux client sends a whole-file LOCK for flock()
    print("A flock LOCK_EX: ok")
    fcntl.flock(a, fcntl.LOCK_UN)
    fcntl.lockf(a, fcntl.LOCK_SH | fcntl.LOCK_NB, 10, 20)
    print("A lockf LOCK_SH [20,30): ok")
    fcntl.lockf(a, fcntl.LOCK_UN, 10, 20)
    os.close(a)


def hold(path, secs):
    fd = os.open(path, os.O_RDONLY)
    os.read(fd, 100)
    time.sleep(float(secs))
    os.close(fd)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {"excl": excl, "downgrade": downgrade, "lookupp": lookupp, "seek": seek, "copy": copy,
     "locks": locks, "hold": hold}[cmd](*args)


if __name__ == "__main__":
    main()
