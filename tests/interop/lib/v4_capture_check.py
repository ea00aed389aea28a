#!/usr/bin/env python3
"""tests/interop/lib/v4_capture_check.py FIELDS PORT MINOR — judge tshark's dissection of an NFSv4.1/4.2
capture made by nfsbench's client (tests/interop/lib/v4-capture-check.sh makes FIELDS: one line per
frame carrying ONC RPC, tab-separated, values of a frame's several RPC messages joined by ','):

  frame.number tcp.stream tcp.srcport tcp.dstport rpc.xid rpc.msgtyp rpc.replystat rpc.state_accept
  rpc.program nfs.minorversion nfs.opcode nfs.nfsstat4 _ws.col.Info

Fails (exit 1, one "BAD: ..." line) unless: every call the client sent to PORT has exactly one reply
(matched on TCP stream, XID and the client's port), no XID repeats on a stream, every reply is
MSG_ACCEPTED with SUCCESS, every COMPOUND names minor version MINOR, no operation result is an error,
and the operations a mount, a job and an unmount send were all decoded (RFC 8881 numbers below).
Server-to-client calls (the back channel: CB_NULL, CB_COMPOUND) are counted and paired the same way.
Prints "calls=N replies=N cb_calls=N compounds=N" and the operations by count.
"""
import collections
import sys

# RFC 8881 §16.2.1 / RFC 7862 operation numbers.
OPS = {3: "ACCESS", 4: "CLOSE", 5: "COMMIT", 6: "CREATE", 9: "GETATTR", 10: "GETFH", 15: "LOOKUP",
       18: "OPEN", 22: "PUTFH", 24: "PUTROOTFH", 25: "READ", 28: "REMOVE", 34: "SETATTR", 38: "WRITE",
       41: "BIND_CONN_TO_SESSION", 42: "EXCHANGE_ID", 43: "CREATE_SESSION", 44: "DESTROY_SESSION",
       52: "SECINFO_NO_NAME", 53: "SEQUENCE", 57: "DESTROY_CLIENTID", 58: "RECLAIM_COMPLETE",
       69: "SEEK"}
# What every `nfsbench run` of the study job sends: the mount (EXCHANGE_ID .. RECLAIM_COMPLETE, the root
# from PUTROOTFH), each file's OPEN/CLOSE, the data, the unmount.
REQUIRED = (42, 43, 53, 58, 24, 18, 22, 25, 38, 4, 44, 57)
NFS_PROGRAM = 100003


def split(value):
    return value.split(",") if value else []


def main(path, port, minor):
    calls, replies = collections.Counter(), collections.Counter()
    ops = collections.Counter()
    bad, errors, minors = [], [], collections.Counter()
    cb_calls = compounds = 0
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 13:
            continue
        frame, stream, sport, dport = f[0], f[1], f[2], f[3]
        xids, types = split(f[4]), split(f[5])
        progs = split(f[8])
        for i, (xid, t) in enumerate(zip(xids, types)):
            if t == "0":
                calls[(stream, xid, sport)] += 1
                if sport == port:
                    cb_calls += 1
                elif i < len(progs) and progs[i] == str(NFS_PROGRAM):
                    compounds += 1
            else:
                replies[(stream, xid, dport)] += 1
        if any(v != "0" for v in split(f[6]) + split(f[7])):
            bad.append("frame %s: a reply not MSG_ACCEPTED/SUCCESS: %s" % (frame, f[12]))
        if dport == port:   # client to server: its COMPOUNDs
            minors.update(split(f[9]))
            ops.update(int(o) for o in split(f[10]))
        elif any(s != "0" for s in split(f[11])):
            errors.append("frame %s: %s" % (frame, f[12]))
    dup = [k for k, n in calls.items() if n > 1]
    if dup:
        bad.append("%d calls sent twice (stream, XID, port), first %s" % (len(dup), dup[0]))
    unanswered = [k for k in calls if replies[k] != 1]
    if unanswered:
        bad.append("%d calls without exactly one reply, first %s" % (len(unanswered), unanswered[0]))
    orphans = [k for k in replies if k not in calls]
    if orphans:
        bad.append("%d replies to no call, first %s" % (len(orphans), orphans[0]))
    if set(minors) - {minor}:
        bad.append("COMPOUNDs by minor version %s, want all %s" % (dict(minors), minor))
    if errors:
        bad.append("%d replies with an error status, first %s" % (len(errors), errors[0]))
    missing = [OPS[o] for o in REQUIRED if not ops[o]]
    if missing:
        bad.append("no %s call decoded" % ", ".join(missing))
    print("calls=%d replies=%d cb_calls=%d compounds=%d" % (sum(calls.values()), sum(replies.values()), cb_calls,
                                                            compounds))
    print("operations: " + ", ".join("%s %d" % (OPS.get(o, "op%d" % o), n) for o, n in sorted(ops.items())))
    for e in errors[:10]:
        print("error reply: " + e)
    if bad:
        print("BAD: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
