#!/usr/bin/env python3
"""tests/interop/lib/mountstats_v4.py MOUNTPOINT [--connects N] [--after-restart] [--provider-faults N] — the kernel
client's counters for one NFSv4 mount (TCP or RPC-over-RDMA), for guest/kernel-client-v4.sh.

Prints the transport line and the operations used; exits 1 when something went wrong:
  always           bad XIDs (replies the client could not match to a call), major timeouts on any
                   operation, and over RDMA bad replies (a reply the client could not parse; failed
                   marshals are printed, not judged: the client retries them when it runs short of
                   memory registrations, and the retransmission check below sees any resend);
  unless --after-restart
                   retransmissions on any operation, and (TCP) a connect count above N, the count
                   right after mounting (the connection was lost and re-established).
After a server restart the client reconnects and resends what was in flight: that is the test.
With --provider-faults N > 0 (N refusals of the client's own registrations by rxe since the mount,
common.sh's rxe_client_faults) retransmissions and reconnects are printed as explained, not judged.

/proc/self/mountstats, per mount: `xprt: tcp` srcport bind_count connect_count connect_time idle_time
sends recvs bad_xids req_u bklog_u max_slots sending_u pending_u; `xprt: rdma` the same ten first
fields, then the xprtrdma counters in RDMA below (Linux 6.1 net/sunrpc/xprtrdma/transport.c,
xprt_rdma_print_stats).
"""
import argparse
import sys

sys.dont_write_bytecode = True
from mountstats import explain_provider_faults, section  # noqa: E402  (tests/interop/lib/mountstats.py)

COMMON = ["srcport", "bind_count", "connect_count", "connect_time", "idle_time", "sends", "recvs",
          "bad_xids", "req_u", "bklog_u"]
RDMA = COMMON + ["read_chunks", "write_chunks", "reply_chunks", "rdma_request_bytes", "rdma_reply_bytes",
                 "pullup_copies", "fixup_copies", "hardway_registers", "failed_marshals", "bad_replies",
                 "nomsg_calls", "mrs_recycled", "mrs_orphaned", "mrs_allocated", "local_inv_needed",
                 "empty_sendctx_q", "reply_waits_for_send"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mountpoint")
    ap.add_argument("--connects", type=int)
    ap.add_argument("--after-restart", action="store_true")
    ap.add_argument("--provider-faults", type=int, default=0)
    args = ap.parse_args()
    resends_judged = not args.after_restart and not args.provider_faults
    explain_provider_faults(args.provider_faults)
    lines = section(args.mountpoint)
    if not lines:
        print(f"mountstats: no NFS mount on {args.mountpoint}")
        return 1
    bad, in_ops = [], False
    for line in lines:
        s = line.strip()
        if s.startswith("xprt:"):
            print("  " + s)
            parts = s.split()
            names = RDMA if parts[1] == "rdma" else COMMON
            xp = dict(zip(names, (int(v) for v in parts[2:2 + len(names)])))
            if xp.get("bad_xids"):
                bad.append(f"{xp['bad_xids']} bad XIDs")
            if xp.get("bad_replies"):
                bad.append(f"{xp['bad_replies']} RPC-over-RDMA replies the client could not parse")
            if parts[1] == "rdma":  # a failed marshal is retried (no memory registration free yet)
                print("  rdma: " + ", ".join(f"{k} {xp[k]}" for k in RDMA[10:] if k in xp))
            if parts[1] == "tcp" and args.connects is not None and resends_judged \
                    and xp["connect_count"] > args.connects:
                bad.append(f"connect count {xp['connect_count']}, {args.connects} right after mounting")
        elif s.startswith("per-op statistics"):
            in_ops = True
        elif in_ops and ":" in s:
            name, values = s.split(":", 1)
            v = [int(x) for x in values.split()]
            if not v or v[0] == 0:
                continue
            ops, ntrans, timeouts = v[0], v[1], v[2]
            errors = v[8] if len(v) > 8 else 0
            print(f"  {name:<20} ops={ops:<6} ntrans={ntrans:<6} timeouts={timeouts} errors={errors}")
            if ntrans != ops and resends_judged:
                bad.append(f"{name}: {ops} calls, {ntrans} transmissions (retransmitted)")
            if timeouts:
                bad.append(f"{name}: {timeouts} major timeouts")
    if bad:
        print("mountstats: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
