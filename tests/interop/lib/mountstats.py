#!/usr/bin/env python3
"""tests/interop/lib/mountstats.py MOUNTPOINT [CONNECTS] — the kernel client's view of one NFS mount.

    mountstats.py --connects MOUNTPOINT     print the transport's connect count (take it after mount)
    mountstats.py MOUNTPOINT [CONNECTS] [--provider-faults N]
                                            print the transport line and the operations used; exit 1
                                            when the transport misbehaved

Reads /proc/self/mountstats (the NFS client's per-mount transport and per-operation counters). Trouble:
  - bad XIDs (replies the client could not match to a call),
  - a connect count above CONNECTS, the count right after mounting (the connection was lost and
    re-established; the 6.1 client already counts 2 for one connection),
  - retransmissions or major timeouts on any operation (a call went unanswered).
With --provider-faults N > 0 (N refusals of the client's own registrations by rxe since the mount,
common.sh's rxe_client_faults) reconnects and retransmissions are printed as explained, not judged.
"""
import sys

XPRT_TCP = ["srcport", "bind_count", "connect_count", "connect_time", "idle_time", "sends", "recvs",
            "bad_xids", "req_u", "bklog_u", "max_slots", "sending_u", "pending_u"]


def section(mountpoint):
    with open("/proc/self/mountstats") as f:
        lines = f.read().splitlines()
    out, inside = [], False
    for line in lines:
        if line.startswith("device "):
            inside = (" mounted on %s with fstype nfs" % mountpoint) in line
            if inside:
                out = [line]
            continue
        if inside:
            out.append(line)
    return out


def xprt(lines):
    for line in lines:
        parts = line.split()
        if parts and parts[0] == "xprt:" and parts[1] == "tcp":
            return dict(zip(XPRT_TCP, (int(v) for v in parts[2:])))
    return None


def explain_provider_faults(faults):
    """Says why reconnects and resends go unjudged when rxe refused the client's own registrations."""
    if faults:
        print("  rxe refused %d of the client's own registrations since the mount: its reconnects and "
              "resends are not judged" % faults)


def main(mountpoint, connects=None, provider_faults=0):
    explain_provider_faults(provider_faults)
    if provider_faults:
        connects = None
    lines = section(mountpoint)
    if not lines:
        print("mountstats: no NFS mount on %s" % mountpoint)
        return 1
    bad = []
    in_ops = False
    for line in lines:
        s = line.strip()
        if s.startswith("xprt:"):
            print("  " + s)
            parts = s.split()
            if parts[1] == "tcp":
                xp = dict(zip(XPRT_TCP, (int(v) for v in parts[2:])))
                if xp["bad_xids"]:
                    bad.append("%d bad XIDs" % xp["bad_xids"])
                if connects is not None and xp["connect_count"] > connects:
                    bad.append("connect count %d, %d right after mounting (the connection was lost and re-established)"
                               % (xp["connect_count"], connects))
        elif s.startswith("per-op statistics"):
            in_ops = True
        elif in_ops and ":" in s:
            name, values = s.split(":", 1)
            v = [int(x) for x in values.split()]
            if not v or v[0] == 0:
                continue
            ops, ntrans, timeouts = v[0], v[1], v[2]
            errors = v[8] if len(v) > 8 else 0
            print("  %-12s ops=%-6d ntrans=%-6d timeouts=%d errors=%d" % (name, ops, ntrans, timeouts, errors))
            if ntrans != ops and not provider_faults:
                bad.append("%s: %d calls, %d transmissions (retransmitted)" % (name, ops, ntrans))
            if timeouts:
                bad.append("%s: %d major timeouts" % (name, timeouts))
    if bad:
        print("mountstats: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--connects":
        lines = section(sys.argv[2])
        x = xprt(lines)
        print(x["connect_count"] if x else "")  # nothing for a transport other than TCP
        sys.exit(0 if lines else 1)
    argv, faults = sys.argv[1:], 0
    if len(argv) >= 2 and argv[-2] == "--provider-faults":
        faults, argv = int(argv[-1]), argv[:-2]
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(argv[0], int(argv[1]) if len(argv) == 2 else None, faults))
