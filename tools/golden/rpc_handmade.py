#!/usr/bin/env python3
"""Hand-made ONC RPC calls for the golden capture (run inside the lab VM by guest-capture.sh).

Some calls no standard tool issues: MOUNT v3 UMNTALL, a GUARDED CREATE (the Linux client only falls
back to GUARDED when a server refuses EXCLUSIVE), and calls that make a real server answer with an
RPC-level error (PROC_UNAVAIL, GARBAGE_ARGS, a MSG_DENIED RPC_MISMATCH or AUTH_ERROR). This script builds those calls by hand and sends
each on its own TCP connection from a privileged port, so the *reply* is the real server's bytes.
The extractor marks the calls as hand-made: it recognises their connections by the XID prefix below.

usage: rpc_handmade.py HOST NFS_PORT MOUNTD_PORT [EXPORT]
"""
import socket
import struct
import sys

# XIDs of hand-made calls start with these two bytes ("hm") so extract.py can tell them apart.
XID_BASE = 0x686D0000

MOUNT_PROG, NFS_PROG = 100005, 100003
AUTH_NONE, AUTH_SYS = 0, 1


def pad(b: bytes) -> bytes:
    return b + b"\0" * (-len(b) % 4)


def xdr_string(s: bytes) -> bytes:
    return struct.pack(">I", len(s)) + pad(s)


def auth_sys(stamp: int, machine: bytes, uid: int, gid: int, gids=()) -> bytes:
    """opaque_auth with an AUTH_SYS body (RFC 5531 section 14)."""
    body = struct.pack(">I", stamp) + xdr_string(machine) + struct.pack(">II", uid, gid)
    body += struct.pack(">I", len(gids)) + b"".join(struct.pack(">I", g) for g in gids)
    return struct.pack(">II", AUTH_SYS, len(body)) + body


def call(xid, prog, vers, proc, cred, args=b"", rpcvers=2) -> bytes:
    """A CALL message (without record mark): xid, CALL, rpcvers, prog, vers, proc, cred, verf, args."""
    verf = struct.pack(">II", AUTH_NONE, 0)
    return struct.pack(">IIIIII", xid, 0, rpcvers, prog, vers, proc) + cred + verf + args


PORTS = iter(range(1000, 600, -1))


def exchange(host, port, msg: bytes) -> bytes:
    """Sends one record (a single last fragment) and reads one complete reply record back."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    while True:  # a reserved port (as kernel clients use), a fresh one for each connection
        local = next(PORTS)
        try:
            s.bind(("127.0.0.1", local))
            break
        except OSError:
            continue
    s.settimeout(20)
    s.connect((host, port))
    s.sendall(struct.pack(">I", 0x80000000 | len(msg)) + msg)
    reply, last = b"", False
    while not last:
        hdr = recv_exact(s, 4)
        (mark,) = struct.unpack(">I", hdr)
        last = bool(mark & 0x80000000)
        reply += recv_exact(s, mark & 0x7FFFFFFF)
    s.close()
    return reply


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        chunk = s.recv(n - len(b))
        if not chunk:
            raise EOFError("connection closed mid-record")
        b += chunk
    return b


def accepted_body(reply: bytes) -> bytes:
    """The results of an accepted, successful reply (after xid, REPLY, MSG_ACCEPTED, verf, SUCCESS)."""
    xid, mtype, stat = struct.unpack(">III", reply[:12])
    vlen = struct.unpack(">I", reply[16:20])[0]
    off = 20 + vlen + (-vlen % 4)
    if mtype != 1 or stat != 0 or struct.unpack(">I", reply[off:off + 4])[0] != 0:
        raise ValueError("not an accepted, successful reply")
    return reply[off + 4:]


def sattr3(mode=None) -> bytes:
    """sattr3 setting at most the mode; uid, gid, size unset; times DONT_CHANGE."""
    b = struct.pack(">II", 1, mode) if mode is not None else struct.pack(">I", 0)
    return b + struct.pack(">IIIII", 0, 0, 0, 0, 0)


def main():
    host, nfs_port, mountd_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    export = sys.argv[4].encode() if len(sys.argv) > 4 else b"/srv/nfs"
    cred = auth_sys(0x4E465342, b"nfsbench-vm", 0, 0, (0,))
    xids = iter(range(XID_BASE, XID_BASE + 0x10000))

    def send(what, port, prog, vers, proc, cr=cred, args=b"", rpcvers=2):
        xid = next(xids)
        try:
            reply = exchange(host, port, call(xid, prog, vers, proc, cr, args, rpcvers))
            print(f"handmade: {what}: xid {xid:#x}: {len(reply)}-byte reply")
            return reply
        except (OSError, EOFError) as e:
            print(f"handmade: {what}: xid {xid:#x}: no reply ({e})")
            return None

    # MOUNT v3 UMNTALL (procedure 4): no arguments, void result.
    send("MOUNT3 UMNTALL", mountd_port, MOUNT_PROG, 3, 4)

    # CREATE with createmode GUARDED (1), twice: NFS3_OK, then NFS3ERR_EXIST. The directory handle
    # comes from a hand-made MNT (whose reply is rpc.mountd's); UMNT afterwards.
    reply = send("MOUNT3 MNT", mountd_port, MOUNT_PROG, 3, 1, args=xdr_string(export))
    if reply is not None:
        body = accepted_body(reply)
        status, fhlen = struct.unpack(">II", body[:8])
        if status == 0:
            fh = body[8:8 + fhlen]
            create = xdr_string(fh) + xdr_string(b"guarded-create") + struct.pack(">I", 1) + sattr3(0o644)
            send("NFS3 CREATE GUARDED", nfs_port, NFS_PROG, 3, 8, args=create)
            send("NFS3 CREATE GUARDED (exists)", nfs_port, NFS_PROG, 3, 8, args=create)
        send("MOUNT3 UMNT", mountd_port, MOUNT_PROG, 3, 3, args=xdr_string(export))

    # NFSv3 has procedures 0..21: 22 does not exist -> accepted, PROC_UNAVAIL.
    send("NFS3 proc 22", nfs_port, NFS_PROG, 3, 22)
    # GETATTR whose nfs_fh3 claims 64 bytes (more than NFS3_FHSIZE and than sent) -> GARBAGE_ARGS.
    send("NFS3 GETATTR garbage", nfs_port, NFS_PROG, 3, 1, args=struct.pack(">I", 64))
    # RPC version 3 -> MSG_DENIED, RPC_MISMATCH {2, 2}.
    send("RPC version 3", nfs_port, NFS_PROG, 3, 0, rpcvers=3)
    # A credential flavour no one defines (126) -> MSG_DENIED, AUTH_ERROR (AUTH_BADCRED).
    send("AUTH flavour 126", nfs_port, NFS_PROG, 3, 1, cr=struct.pack(">II", 126, 0))


if __name__ == "__main__":
    main()
