#!/usr/bin/env python3
"""Hand-made NFSv4.1 calls for what the Linux client never sends; the replies are knfsd's.

    rpc4_handmade.py HOST PORT DIR     (DIR: an existing directory below the export root, e.g. v4.1/d)

Used by tools/golden/guest-capture-v4.sh. A minimal NFSv4.1 client over TCP (AUTH_SYS, one slot, no
backchannel) that makes, in order:

  EXCHANGE_ID, CREATE_SESSION, SEQUENCE + RECLAIM_COMPLETE
  OPEN create GUARDED4 (share deny WRITE)          -> NFS4_OK   (Linux uses GUARDED4 only with
  OPEN create GUARDED4 of the same name            -> NFS4ERR_EXIST  persistent sessions)
  OPEN for writing by a second open owner          -> NFS4ERR_SHARE_DENIED (Linux always denies none)
  TEST_STATEID of the open stateid and a made-up one -> NFS4_OK, [NFS4_OK, NFS4ERR_BAD_STATEID]
  CLOSE, FREE_STATEID of the closed stateid
  a COMPOUND of minor version 3                    -> NFS4ERR_MINOR_VERS_MISMATCH
  PUTROOTFH without SEQUENCE                       -> NFS4ERR_OP_NOT_IN_SESSION
  SEQUENCE + an unknown operation (99)             -> NFS4ERR_OP_ILLEGAL
  SEQUENCE + more operations than the session allows -> NFS4ERR_TOO_MANY_OPS
  DESTROY_SESSION, DESTROY_CLIENTID

XIDs start with "hm" (0x686d), as rpc_handmade.py's, so extract_v4.py marks these calls hand-made.
Python standard library only. Exits 1 when a reply is not the one expected.
"""
import os
import socket
import struct
import sys

NFS_PROG, NFS_V4 = 100003, 4
OP = {"ACCESS": 3, "CLOSE": 4, "GETFH": 10, "LOOKUP": 15, "OPEN": 18, "PUTFH": 22, "PUTROOTFH": 24,
      "EXCHANGE_ID": 42, "CREATE_SESSION": 43, "DESTROY_SESSION": 44, "FREE_STATEID": 45,
      "SEQUENCE": 53, "TEST_STATEID": 55, "DESTROY_CLIENTID": 57, "RECLAIM_COMPLETE": 58}
OK, EXIST, SHARE_DENIED, BAD_STATEID = 0, 17, 10015, 10025
MINOR_VERS_MISMATCH, OP_ILLEGAL = 10021, 10044
OP_NOT_IN_SESSION, TOO_MANY_OPS = 10071, 10070


def u32(v):
    return struct.pack(">I", v)


def u64(v):
    return struct.pack(">Q", v)


def opaque(b):
    return u32(len(b)) + b + b"\0" * (-len(b) % 4)


class Reader:
    def __init__(self, b):
        self.b, self.o = b, 0

    def u32(self):
        v = struct.unpack(">I", self.b[self.o:self.o + 4])[0]
        self.o += 4
        return v

    def u64(self):
        v = struct.unpack(">Q", self.b[self.o:self.o + 8])[0]
        self.o += 8
        return v

    def fixed(self, n):
        v = self.b[self.o:self.o + n]
        self.o += n
        return v

    def opaque(self):
        n = self.u32()
        v = self.fixed(n)
        self.o += -n % 4
        return v


class Client:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port))
        self.xid = 0x686D0000
        self.seqid = 1
        self.sessionid = None
        self.failures = []

    def call(self, body, minor=1):
        """Sends a COMPOUND (tag "handmade"), returns (status, Reader at the first result)."""
        self.xid += 1
        cred = u32(0) + opaque(b"golden-handmade") + u32(0) + u32(0) + u32(0)
        msg = (u32(self.xid) + u32(0) + u32(2) + u32(NFS_PROG) + u32(NFS_V4) + u32(1)
               + u32(1) + opaque(cred) + u32(0) + u32(0)
               + opaque(b"handmade") + u32(minor) + u32(len(body)) + b"".join(body))
        self.sock.sendall(u32(0x80000000 | len(msg)) + msg)
        rec = b""
        while True:
            mark = struct.unpack(">I", self.recv(4))[0]
            rec += self.recv(mark & 0x7FFFFFFF)
            if mark >> 31:
                break
        r = Reader(rec)
        xid, mtype, rstat = r.u32(), r.u32(), r.u32()
        assert xid == self.xid and mtype == 1 and rstat == 0, "RPC reply not accepted"
        r.u32()
        r.opaque()  # verifier
        assert r.u32() == 0, "RPC accept_stat not SUCCESS"
        status = r.u32()
        r.opaque()  # tag
        r.u32()     # number of results
        return status, r

    def recv(self, n):
        b = b""
        while len(b) < n:
            chunk = self.sock.recv(n - len(b))
            if not chunk:
                raise EOFError("server closed the connection")
            b += chunk
        return b

    def sequence(self):
        return u32(OP["SEQUENCE"]) + self.sessionid + u32(self.seqid) + u32(0) + u32(0) + u32(0)

    def skip_sequence(self, r):
        """Reads the SEQUENCE result; the slot's sequence ID moves on only when SEQUENCE succeeded."""
        assert r.u32() == OP["SEQUENCE"]
        st = r.u32()
        if st == OK:
            r.fixed(16 + 20)
            self.seqid += 1
        return st

    def expect(self, what, got, want):
        print(f"{'ok  ' if got == want else 'FAIL'} {what}: {got}" + ("" if got == want else f" (expected {want})"))
        if got != want:
            self.failures.append(what)


def lookup_path(path):
    return [u32(OP["PUTROOTFH"])] + [u32(OP["LOOKUP"]) + opaque(c.encode()) for c in path.split("/") if c]


def open_op(clientid, owner, access, deny, name, create):
    how = u32(0)
    if create:  # CREATE, GUARDED4, fattr4 {mode (attribute 33) = 0644}
        how = u32(1) + u32(1) + u32(2) + u32(0) + u32(1 << (33 - 32)) + opaque(u32(0o644))
    return (u32(OP["OPEN"]) + u32(0) + u32(access) + u32(deny) + u64(clientid) + opaque(owner)
            + how + u32(0) + opaque(name.encode()))  # CLAIM_NULL


def main():
    host, port, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    c = Client(host, port)

    # EXCHANGE_ID: verifier, owner, flags (EXCHGID4_FLAG_USE_NON_PNFS), SP4_NONE, no implementation id.
    owner = b"nfsbench golden handmade client %d" % os.getpid()
    st, r = c.call([u32(OP["EXCHANGE_ID"]) + b"handmade" + opaque(owner) + u32(0x00010000) + u32(0) + u32(0)])
    c.expect("EXCHANGE_ID", st, OK)
    r.u32(), r.u32()
    clientid, eir_seq = r.u64(), r.u32()

    # CREATE_SESSION: no backchannel (flags 0); fore channel 1 MiB, 8 operations, 1 slot.
    attrs = lambda ops: u32(0) + u32(1 << 20) + u32(1 << 20) + u32(4096) + u32(ops) + u32(1) + u32(0)
    st, r = c.call([u32(OP["CREATE_SESSION"]) + u64(clientid) + u32(eir_seq) + u32(0) + attrs(8) + attrs(2)
                    + u32(0x40000000) + u32(1) + u32(0)])  # callback security: AUTH_NONE
    c.expect("CREATE_SESSION", st, OK)
    r.u32(), r.u32()
    c.sessionid = r.fixed(16)

    st, r = c.call([c.sequence(), u32(OP["RECLAIM_COMPLETE"]) + u32(0)])
    c.skip_sequence(r)
    c.expect("RECLAIM_COMPLETE", st, OK)

    # OPEN create GUARDED4, denying writers; again (EXIST); a second owner asking to write.
    st, r = c.call([c.sequence()] + lookup_path(d) + [open_op(clientid, b"owner-1", 3, 2, "guarded", True)])
    c.skip_sequence(r)
    c.expect("OPEN GUARDED4 (new name, deny WRITE)", st, OK)
    for _ in lookup_path(d):  # PUTROOTFH and LOOKUP results: operation and status
        r.u32(), r.u32()
    assert r.u32() == OP["OPEN"] and r.u32() == OK
    stateid = r.fixed(16)
    st, r = c.call([c.sequence()] + lookup_path(d) + [open_op(clientid, b"owner-1", 3, 0, "guarded", True)])
    c.skip_sequence(r)
    c.expect("OPEN GUARDED4 (existing name)", st, EXIST)
    st, r = c.call([c.sequence()] + lookup_path(d) + [open_op(clientid, b"owner-2", 2, 0, "guarded", False)])
    c.skip_sequence(r)
    c.expect("OPEN for writing by another owner", st, SHARE_DENIED)

    # TEST_STATEID: the open stateid and one the server never gave out.
    made_up = u32(1) + b"\xff" * 12
    st, r = c.call([c.sequence(), u32(OP["TEST_STATEID"]) + u32(2) + stateid + made_up])
    c.skip_sequence(r)
    c.expect("TEST_STATEID", st, OK)
    r.u32(), r.u32()
    c.expect("TEST_STATEID results", [r.u32() for _ in range(r.u32())], [OK, BAD_STATEID])

    st, r = c.call([c.sequence()] + lookup_path(d + "/guarded") + [u32(OP["CLOSE"]) + u32(0) + stateid])
    c.skip_sequence(r)
    c.expect("CLOSE", st, OK)
    st, r = c.call([c.sequence(), u32(OP["FREE_STATEID"]) + stateid])
    c.skip_sequence(r)
    c.expect("FREE_STATEID of the closed stateid", st, BAD_STATEID)

    # COMPOUNDs a server must refuse.
    st, _ = c.call([c.sequence(), u32(OP["PUTROOTFH"])], minor=3)
    c.expect("COMPOUND of minor version 3", st, MINOR_VERS_MISMATCH)
    st, _ = c.call([u32(OP["PUTROOTFH"])])
    c.expect("PUTROOTFH without SEQUENCE", st, OP_NOT_IN_SESSION)
    st, r = c.call([c.sequence(), u32(99)])
    c.skip_sequence(r)
    c.expect("unknown operation 99", st, OP_ILLEGAL)
    st, r = c.call([c.sequence()] + [u32(OP["PUTROOTFH"])] * 12)
    c.expect("13 operations in a session of 8", c.skip_sequence(r), TOO_MANY_OPS)

    st, _ = c.call([u32(OP["DESTROY_SESSION"]) + c.sessionid])
    c.expect("DESTROY_SESSION", st, OK)
    st, _ = c.call([u32(OP["DESTROY_CLIENTID"]) + u64(clientid)])
    c.expect("DESTROY_CLIENTID", st, OK)
    if c.failures:
        sys.exit(f"rpc4_handmade.py: unexpected replies: {', '.join(c.failures)}")


if __name__ == "__main__":
    main()
