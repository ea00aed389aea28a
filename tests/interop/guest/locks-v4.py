#!/usr/bin/env python3
"""tests/interop/guest/locks-v4.py — byte-range locks and a held open file, for kernel-client-v4.sh.

    locks-v4.py locks FILE_A FILE_C
        FILE_A is a file on the first mount, FILE_C the same file through a second client (a mount of
        the other minor version: another client ID to the server). Process A takes a write lock, B (a
        second process on the same client) and C (a process on the second client) try conflicting and
        non-conflicting locks; B's blocking F_SETLKW waits until A unlocks, C's until B unlocks (the
        server's LOCK denial, then CB_NOTIFY_LOCK or the client's polling); then flock(2), which the
        Linux client turns into a whole-file lock on the server, and shared lockf() ranges. Exit 1 on
        the first outcome that differs from POSIX semantics.

    locks-v4.py hold FILE DIR
        Opens FILE read-write, writes a line, fsyncs, takes a write lock on [0, 10), creates DIR/held;
        waits for DIR/go, then writes and reads through the same descriptor (which needs the open and
        lock state the client reclaimed after the server restart), fsyncs, creates DIR/wrote and waits
        for DIR/release before unlocking. Exit 1 when I/O on the descriptor fails.

    locks-v4.py probe FILE EXPECT
        From another client: F_GETLK and F_SETLK of [0, 10) must report a conflict (EXPECT=held) or
        succeed (EXPECT=free).

Every outcome is printed, one line each, so the scenario log shows the sequence.
"""
import errno
import fcntl
import os
import struct
import sys
import time

FLOCK = "hhqqi"  # struct flock on Linux x86_64: l_type, l_whence, l_start, l_len, l_pid


def setlk(fd, kind, start, length, wait=False):
    """F_SETLK / F_SETLKW on [start, start + length): 'ok' or the errno name."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETLKW if wait else fcntl.F_SETLK,
                    struct.pack(FLOCK, kind, os.SEEK_SET, start, length, 0))
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]


def getlk(fd, kind, start, length):
    """F_GETLK: 'free' or 'conflict TYPE [start,+len)'."""
    res = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack(FLOCK, kind, os.SEEK_SET, start, length, 0))
    t, _, s, n, _ = struct.unpack(FLOCK, res)
    return "free" if t == fcntl.F_UNLCK else f"conflict {'write' if t == fcntl.F_WRLCK else 'read'} [{s},+{n})"


def flock(fd, how):
    try:
        fcntl.flock(fd, how)
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]


def lockf(fd, how, length, start):
    try:
        fcntl.lockf(fd, how, length, start)
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]


FAILED = []


def expect(what, got, want):
    ok = got == want
    print(f"{'ok  ' if ok else 'FAIL'} {what}: {got}" + ("" if ok else f" (expected {want})"))
    if not ok:
        FAILED.append(what)


def child(fn):
    """Runs fn() in a forked process; returns (pid, read end of a pipe carrying its report)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = fn()
        except Exception as e:  # reported to the parent, which fails the test
            out = f"exception {e!r}"
        os.write(w, out.encode())
        os._exit(0)
    os.close(w)
    return pid, r


def finish(pid, r, timeout):
    """The child's report, or None when it has not finished within timeout seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            out = os.read(r, 4096).decode()
            os.close(r)
            return out
        time.sleep(0.1)
    return None


def locks(path_a, path_c):
    a = os.open(path_a, os.O_RDWR | os.O_CREAT, 0o644)
    os.pwrite(a, b"0123456789" * 100, 0)
    os.fsync(a)
    expect("A F_SETLK write [0,100)", setlk(a, fcntl.F_WRLCK, 0, 100), "ok")

    # B: another process on the same client (another lock owner). The client decides the conflict
    # with A itself; the non-overlapping lock goes to the server.
    b = os.open(path_a, os.O_RDWR)
    pid, r = child(lambda: "|".join([setlk(b, fcntl.F_WRLCK, 50, 100), getlk(b, fcntl.F_WRLCK, 0, 10),
                                     setlk(b, fcntl.F_WRLCK, 200, 100), setlk(b, fcntl.F_UNLCK, 200, 100)]))
    res = (finish(pid, r, 60) or "timeout").split("|")
    expect("B F_SETLK write [50,150) (overlaps A)", res[0], "EAGAIN")
    expect("B F_GETLK [0,10)", res[1] if len(res) > 1 else None, "conflict write [0,+100)")
    expect("B F_SETLK write [200,300) (beside A)", res[2] if len(res) > 2 else None, "ok")
    expect("B F_SETLK unlock [200,300)", res[3] if len(res) > 3 else None, "ok")

    # C: the second client. The conflict is the server's to find (LOCKT, LOCK -> NFS4ERR_DENIED).
    c = os.open(path_c, os.O_RDWR)
    expect("C F_GETLK [0,10)", getlk(c, fcntl.F_WRLCK, 0, 10), "conflict write [0,+100)")
    expect("C F_SETLK write [0,10) (overlaps A)", setlk(c, fcntl.F_WRLCK, 0, 10), "EAGAIN")
    expect("C F_SETLK read [50,60) (overlaps A's write lock)", setlk(c, fcntl.F_RDLCK, 50, 10), "EAGAIN")
    expect("C F_SETLK write [500,600) (beside A)", setlk(c, fcntl.F_WRLCK, 500, 100), "ok")
    expect("A F_GETLK [550,560)", getlk(a, fcntl.F_WRLCK, 550, 10), "conflict write [500,+100)")
    expect("C F_SETLK unlock [500,600)", setlk(c, fcntl.F_UNLCK, 500, 100), "ok")

    # B blocks until A unlocks; then C blocks until B unlocks.
    def b_waits():
        t0 = time.time()
        got = setlk(b, fcntl.F_WRLCK, 0, 100, wait=True)
        waited = time.time() - t0
        time.sleep(3)  # hold it while C starts waiting
        return f"{got}|{waited:.1f}|{setlk(b, fcntl.F_UNLCK, 0, 100)}"
    pid_b, r_b = child(b_waits)
    time.sleep(2)
    expect("B F_SETLKW still waiting while A holds the lock", finish(pid_b, r_b, 0.1), None)
    expect("A F_SETLK unlock [0,100)", setlk(a, fcntl.F_UNLCK, 0, 100), "ok")
    pid_c, r_c = child(lambda: "%s|%.1f" % (setlk(c, fcntl.F_WRLCK, 0, 10, wait=True), 0))
    res = (finish(pid_b, r_b, 60) or "timeout").split("|")
    expect("B F_SETLKW write [0,100) once A unlocked", res[0], "ok")
    expect("B unlock", res[-1], "ok")
    res = (finish(pid_c, r_c, 60) or "timeout").split("|")
    expect("C F_SETLKW write [0,10) once B unlocked", res[0], "ok")
    # C's child held the lock on C's open file description until it exited: released with it.
    expect("A F_SETLK write [0,100) after C's process exited", setlk(a, fcntl.F_WRLCK, 0, 100), "ok")
    expect("A unlock", setlk(a, fcntl.F_UNLCK, 0, 100), "ok")

    # flock(2): a whole-file lock on the server for the Linux client; flock semantics on one client.
    expect("A flock LOCK_EX", flock(a, fcntl.LOCK_EX), "ok")
    expect("B flock LOCK_EX|LOCK_NB (another open file, same client)", flock(b, fcntl.LOCK_EX | fcntl.LOCK_NB),
           "EWOULDBLOCK" if errno.EWOULDBLOCK != errno.EAGAIN else "EAGAIN")
    expect("C flock LOCK_EX|LOCK_NB (second client)", flock(c, fcntl.LOCK_EX | fcntl.LOCK_NB), "EAGAIN")
    expect("A flock LOCK_UN", flock(a, fcntl.LOCK_UN), "ok")
    expect("C flock LOCK_EX|LOCK_NB after A's LOCK_UN", flock(c, fcntl.LOCK_EX | fcntl.LOCK_NB), "ok")
    expect("C flock LOCK_UN", flock(c, fcntl.LOCK_UN), "ok")

    # lockf() shared ranges: readers share, a writer conflicts.
    expect("A lockf LOCK_SH [100,200)", lockf(a, fcntl.LOCK_SH | fcntl.LOCK_NB, 100, 100), "ok")
    expect("C lockf LOCK_SH [150,250)", lockf(c, fcntl.LOCK_SH | fcntl.LOCK_NB, 100, 150), "ok")
    expect("C lockf LOCK_EX [100,110) (over A's shared lock)", lockf(c, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 100), "EAGAIN")
    expect("A lockf LOCK_UN [100,200)", lockf(a, fcntl.LOCK_UN, 100, 100), "ok")
    expect("C lockf LOCK_EX [100,110) once A let go", lockf(c, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 100), "ok")
    for fd in (a, b, c):
        os.close(fd)
    # The data is intact.
    with open(path_c, "rb") as f:
        expect("FILE_C content", f.read() == b"0123456789" * 100, True)


def hold(path, d):
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b"written before the server restart\n")
    os.fsync(fd)
    expect("holder F_SETLK write [0,10)", setlk(fd, fcntl.F_WRLCK, 0, 10), "ok")
    open(os.path.join(d, "held"), "w").close()
    while not os.path.exists(os.path.join(d, "go")):
        time.sleep(0.2)
    t0 = time.time()
    line = b"written through the same descriptor after the restart\n"
    off = os.lseek(fd, 0, os.SEEK_END)
    expect("holder write after the restart", os.pwrite(fd, line, off), len(line))
    os.fsync(fd)
    print(f"     (the write and fsync took {time.time() - t0:.1f} s: recovery included)")
    expect("holder read back", os.pread(fd, 200, 0),
           b"written before the server restart\n" + line)
    open(os.path.join(d, "wrote"), "w").close()
    while not os.path.exists(os.path.join(d, "release")):
        time.sleep(0.2)
    expect("holder unlock", setlk(fd, fcntl.F_UNLCK, 0, 10), "ok")
    os.close(fd)


def probe(path, want):
    fd = os.open(path, os.O_RDWR)
    if want == "held":
        expect("other client F_GETLK [0,10) reports a write lock", getlk(fd, fcntl.F_WRLCK, 0, 10)[:14], "conflict write")
        expect("other client F_SETLK write [0,10)", setlk(fd, fcntl.F_WRLCK, 0, 10), "EAGAIN")
    else:
        expect("other client F_SETLK write [0,10)", setlk(fd, fcntl.F_WRLCK, 0, 10), "ok")
        setlk(fd, fcntl.F_UNLCK, 0, 10)
    os.close(fd)


def main():
    cmds = {"locks": locks, "hold": hold, "probe": probe}
    if len(sys.argv) != 4 or sys.argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    cmds[sys.argv[1]](*sys.argv[2:])
    if FAILED:
        print(f"locks-v4.py {sys.argv[1]}: {len(FAILED)} unexpected outcome(s): {', '.join(FAILED)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
