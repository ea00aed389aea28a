#!/usr/bin/env python3
"""tests/interop/lib/v4_capture_check.py FIELDS PORT MINOR [CLIENT] — judge tshark's dissection of an
NFSv4.1/4.2 capture made by nfsbench's client (CLIENT nfsbench, the default) or by the Linux kernel client
running guest/workload.sh's phase 1 (CLIENT kernel) (tests/interop/lib/v4-capture-check.sh makes FIELDS: one line per
frame carrying ONC RPC, tab-separated, values of a frame's several RPC messages joined by ','):

  frame.number tcp.stream tcp.srcport tcp.dstport rpc.xid rpc.msgtyp rpc.replystat rpc.state_accept
  rpc.program nfs.minorversion nfs.opcode nfs.nfsstat4 _ws.col.Info

Fails (exit 1, one "BAD: ..." line) unless: every call the client sent to PORT has exactly one reply
(matched on TCP stream, XID and the client's port), no XID repeats on a stream, every reply is
MSG_ACCEPTED with SUCCESS, every COMPOUND names minor version MINOR, no operation result is an error,
and the operations a mount, a job and an unmount send were all decoded (RFC 8881 numbers below).
With CLIENT kernel the workload's own errors are expected (LOOKUP of a name about to be created answers
NOENT, RENAME onto a non-empty directory NOTEMPTY, a v4.2 probe NOTSUPP): they are counted by status and
printed, and only the statuses that say the server or the session failed (FORBIDDEN_KERNEL) fail the
check; the operations required are the file-system ones phase 1 sends (REQUIRED_KERNEL).
Server-to-client calls (the back channel: CB_NULL, CB_COMPOUND) are counted and paired the same way.
Prints "calls=N replies=N cb_calls=N compounds=N" and the operations by count.
"""
import collections
import sys

# RFC 8881 §16.2.1 / RFC 7862 operation numbers.
OPS = {3: "ACCESS", 4: "CLOSE", 5: "COMMIT", 6: "CREATE", 9: "GETATTR", 10: "GETFH", 11: "LINK", 12: "LOCK",
       13: "LOCKT", 14: "LOCKU", 15: "LOOKUP", 16: "LOOKUPP", 17: "NVERIFY", 18: "OPEN", 21: "OPEN_DOWNGRADE",
       22: "PUTFH", 24: "PUTROOTFH", 25: "READ", 26: "READDIR", 27: "READLINK", 28: "REMOVE", 29: "RENAME",
       31: "RESTOREFH", 32: "SAVEFH", 34: "SETATTR", 37: "VERIFY", 38: "WRITE", 41: "BIND_CONN_TO_SESSION",
       42: "EXCHANGE_ID", 43: "CREATE_SESSION", 44: "DESTROY_SESSION", 45: "FREE_STATEID",
       52: "SECINFO_NO_NAME", 53: "SEQUENCE", 55: "TEST_STATEID", 57: "DESTROY_CLIENTID",
       58: "RECLAIM_COMPLETE", 59: "ALLOCATE", 62: "DEALLOCATE", 68: "READ_PLUS", 69: "SEEK"}
# What every `nfsbench run` of the study job sends: the mount (EXCHANGE_ID .. RECLAIM_COMPLETE, the root
# from PUTROOTFH), each file's OPEN/CLOSE, the data, the unmount.
REQUIRED = (42, 43, 53, 58, 24, 18, 22, 25, 38, 4, 44, 57)
# What the Linux client sends for phase 1 (creates, writes, links, renames, listings, attribute changes).
REQUIRED_KERNEL = (53, 22, 15, 9, 18, 4, 38, 6, 28, 29, 11, 26, 34)
# Statuses that mean the server failed, not the workload (RFC 8881 §15.1): SERVERFAULT, RESOURCE,
# STALE_STATEID, OLD_STATEID, BAD_STATEID, BADXDR, OP_ILLEGAL, BADSESSION, BADSLOT, SEQ_MISORDERED,
# REQ_TOO_BIG, REP_TOO_BIG, REP_TOO_BIG_TO_CACHE, RETRY_UNCACHED_REP, SEQUENCE_POS.
FORBIDDEN_KERNEL = {10006, 10018, 10023, 10024, 10025, 10036, 10044, 10052, 10053, 10063, 10065, 10066, 10067,
                    10068, 10064}
# RFC 8881 §15.1 (nfsstat4 keeps NFSv3's numbers, but NOTEMPTY is 66 and NAMETOOLONG 63).
STATUS_NAMES = {1: "PERM", 2: "NOENT", 13: "ACCESS", 17: "EXIST", 18: "XDEV", 20: "NOTDIR", 21: "ISDIR",
                22: "INVAL", 27: "FBIG", 28: "NOSPC", 31: "MLINK", 63: "NAMETOOLONG", 66: "NOTEMPTY",
                10004: "NOTSUPP", 10008: "DELAY"}
NFS_PROGRAM = 100003


def split(value):
    return value.split(",") if value else []


def main(path, port, minor, client="nfsbench"):
    kernel = client == "kernel"
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
            errors.append((frame, {int(x) for x in split(f[11]) if x != "0"}, f[12]))
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
    if kernel:
        fatal = [e for e in errors if set(e[1]) & FORBIDDEN_KERNEL]
        if fatal:
            bad.append("%d replies with a server or session failure, first frame %s: %s" % (len(fatal), *fatal[0][::2]))
    elif errors:
        bad.append("%d replies with an error status, first frame %s: %s" % (len(errors), *errors[0][::2]))
    missing = [OPS[o] for o in (REQUIRED_KERNEL if kernel else REQUIRED) if not ops[o]]
    if missing:
        bad.append("no %s call decoded" % ", ".join(missing))
    print("calls=%d replies=%d cb_calls=%d compounds=%d" % (sum(calls.values()), sum(replies.values()), cb_calls,
                                                            compounds))
    print("operations: " + ", ".join("%s %d" % (OPS.get(o, "op%d" % o), n) for o, n in sorted(ops.items())))
    if kernel:
        by = collections.Counter(x for e in errors for x in e[1])
        print("error statuses (the workload's own): " + (", ".join(
            "%s %d" % (STATUS_NAMES.get(x, str(x)), n) for x, n in sorted(by.items())) or "none"))
    else:
        for e in errors[:10]:
            print("error reply: frame %s: %s" % (e[0], e[2]))
    if bad:
        print("BAD: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5) or sys.argv[4:] not in ([], ["nfsbench"], ["kernel"]):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
