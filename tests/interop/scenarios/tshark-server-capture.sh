#!/bin/bash
# interop-timeout: 420
# tshark-server-capture — Wireshark's dissectors and nfsbench's own codecs over the kernel client's
# traffic with our server (kernel-client-tcp.pcap):
#   tshark, every TCP port decoded as RPC: no malformed packet, no expert error, every call answered, the NFSv3
#   procedures of the workload all decoded; `nfsbench decode` exits 0.
# Uses the capture of this run's kernel-client-tcp when there is one; otherwise (run on its own) boots
# the lab VM for phase 1 of that workload under tcpdump.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

need_vm
src=$INTEROP_OUT/kernel-client-tcp
if [ -f "$src/capture.done" ] && [ -s "$src/kernel-client-tcp.pcap" ]; then
  log "using the capture made by kernel-client-tcp in this run"
else
  step "no capture from kernel-client-tcp in this run: capturing phase 1 in the lab VM"
  src=$SCEN_DIR/capture
  mkdir -p "$src"
  rc=0
  tmo 400 "$INTEROP_ROOT/lab/vm/run.sh" -m 2G -c 2 -t 380 -w "$src" -e "NFSBENCH=$NFSBENCH" -- \
    bash "$INTEROP_ROOT/tests/interop/guest/kernel-client.sh" "$src" capture tcp || rc=$?
  cp "$src/dmesg.txt" "$SCEN_DIR/dmesg.txt" 2>/dev/null || true
  [ $rc = 0 ] && [ -f "$src/capture.done" ] || fail "capturing in the VM failed (status $rc): $(cat "$src/reason" 2>/dev/null)"
fi
PCAP=$src/kernel-client-tcp.pcap
P=$(cat "$src/kernel-client-tcp.port")
[[ $P =~ ^[0-9]+$ ]] || fail "no server port recorded next to the capture"
log "capture $PCAP: $(stat -c %s "$PCAP") bytes, server port $P"

# A capture made inside the TCG-emulated guest can record a burst of segments out of order (tshark then
# flags "previous segment not captured" and retransmissions that are not): without out-of-order
# reassembly tshark drops the RPC record those segments belong to (seen with a 1 MiB WRITE).
TS=(tshark -n -r "$PCAP" "${TSHARK_RPC[@]}")
first() { printf '%s\n' "$1" | sed -n "1,${2}p"; }   # first TEXT N (reads all: no SIGPIPE under pipefail)
# tshark_fields FILTER FIELD...: one line per matching frame
tshark_fields() { local f=$1; shift; tmo 120 "${TS[@]}" -Y "$f" -T fields "${@/#/-e}" 2> "$SCEN_DIR/tshark.err"; }

step "tshark $(tshark --version | sed -n 1p | sed 's/^TShark (Wireshark) //')"
frames=$(tmo 120 "${TS[@]}" -T fields -e frame.number 2> "$SCEN_DIR/tshark.err" | wc -l) \
  || { cat "$SCEN_DIR/tshark.err"; fail "tshark could not read the capture"; }
[ "$frames" -gt 0 ] || fail "the capture holds no frames"

bad=$(tshark_fields '_ws.malformed || _ws.expert.severity >= "error"' frame.number _ws.col.Info _ws.expert.message) \
  || { cat "$SCEN_DIR/tshark.err"; fail "tshark failed on the malformed/expert filter"; }
if [ -n "$bad" ]; then
  first "$bad" 40
  fail "tshark: $(echo "$bad" | wc -l) malformed or expert-error frames, first: $(first "$bad" 1 | tr '\t' ' ')"
fi
warns=$(tshark_fields '_ws.expert.severity == "warning"' frame.number _ws.col.Info _ws.expert.message || true)
[ -z "$warns" ] || { log "tshark expert warnings (not failures): $(echo "$warns" | wc -l)"; first "$warns" 20; }

# Calls and replies matched by (TCP stream, XID). One frame may carry several RPC messages: tshark then
# prints comma-separated values.
tshark_fields 'rpc' tcp.stream rpc.xid rpc.msgtyp | awk -v calls="$SCEN_DIR/calls" -v replies="$SCEN_DIR/replies" '
  { n = split($2, x, ","); split($3, t, ",")
    for (i = 1; i <= n; i++) print $1, x[i] > (t[i] == 0 ? calls : replies) }'
touch "$SCEN_DIR/calls" "$SCEN_DIR/replies"
calls=$(wc -l < "$SCEN_DIR/calls")
replies=$(wc -l < "$SCEN_DIR/replies")
log "frames $frames, RPC calls $calls, replies $replies"
[ "$calls" -gt 100 ] || fail "tshark decoded only $calls RPC calls on port $P"
unanswered=$(sort -u "$SCEN_DIR/replies" | comm -23 <(sort -u "$SCEN_DIR/calls") - | tr '\n' ' ')
[ -z "$unanswered" ] || fail "tshark found no reply to these calls (TCP stream, XID): $(echo "$unanswered" | cut -c1-200)"
unasked=$(sort -u "$SCEN_DIR/calls" | comm -23 <(sort -u "$SCEN_DIR/replies") - | tr '\n' ' ')
[ -z "$unasked" ] || fail "tshark found replies to no call (TCP stream, XID): $(echo "$unasked" | cut -c1-200)"
[ "$calls" = "$replies" ] || fail "tshark: $calls RPC calls but $replies replies"
# Not accepted, or accepted with an error: only PROG_UNAVAIL for NFSACL (100227, the kernel's probe for
# POSIX ACL support, which we do not serve) is expected.
denied=$(tshark_fields 'rpc.msgtyp == 1 && (rpc.replystat != 0 || (rpc.state_accept != 0
  && !(rpc.program == 100227 && rpc.state_accept == 1)))' frame.number _ws.col.Info)
[ -z "$denied" ] || { first "$denied" 10; fail "RPC replies that are not MSG_ACCEPTED/SUCCESS: $(first "$denied" 1)"; }

log "NFSv3 / MOUNT procedures decoded (calls):"
tshark_fields 'rpc' rpc.msgtyp rpc.program rpc.procedure \
  | awk '{ n = split($1, t, ","); split($2, g, ","); split($3, p, ",")
           for (i = 1; i <= n; i++) if (t[i] == 0) print g[i], p[i] }' \
  | sort | uniq -c | sort -k2,2n -k3,3n | awk '{ printf "  program %-7s procedure %-3s calls %s\n", $2, $3, $1 }'
# The NFSv3 procedures this workload must have produced (RFC 1813 numbers).
declare -A NAME=([1]=GETATTR [2]=SETATTR [3]=LOOKUP [4]=ACCESS [5]=READLINK [6]=READ [7]=WRITE [8]=CREATE
  [9]=MKDIR [10]=SYMLINK [12]=REMOVE [13]=RMDIR [14]=RENAME [15]=LINK [17]=READDIRPLUS [18]=FSSTAT
  [19]=FSINFO [20]=PATHCONF [21]=COMMIT)
seen=$(tshark_fields 'rpc.msgtyp == 0 && nfs' nfs.procedure_v3 | sort -un | tr '\n' ' ')
missing=()
for p in "${!NAME[@]}"; do [[ " $seen" == *" $p "* ]] || missing+=("${NAME[$p]}"); done
[ ${#missing[@]} = 0 ] || fail "tshark decoded no NFSv3 ${missing[*]} call in the capture"
tshark_fields 'rpc.msgtyp == 0 && mount' mount.procedure_v3 | grep -qx 1 || fail "tshark decoded no MOUNT MNT call"
errs=$(tshark_fields 'nfs.status != 0' nfs.status | tr ',' '\n' | sort -n | uniq -c | awk '
  BEGIN { split("2 NOENT 13 ACCES 17 EXIST 20 NOTDIR 21 ISDIR 22 INVAL 66 NOTEMPTY 70 STALE 10004 NOTSUPP", a, " ")
          for (i = 1; i in a; i += 2) name[a[i]] = a[i + 1] }
  { printf "NFS3ERR_%s x%s ", ($2 in name ? name[$2] : $2), $1 }')
log "NFS error replies (expected ones: the workload provokes ENOENT, EEXIST, ENOTEMPTY, ENOTDIR): ${errs:-none}"

step "nfsbench decode"
rc=0
tmo 120 "$NFSBENCH" decode "$PCAP" > "$SCEN_DIR/decode.txt" 2> "$SCEN_DIR/decode.err" || rc=$?
cat "$SCEN_DIR/decode.err"
[ $rc = 0 ] || { tail -n 20 "$SCEN_DIR/decode.txt"; fail "nfsbench decode exited with status $rc"; }
tmo 120 "$NFSBENCH" decode --summary "$PCAP" > "$SCEN_DIR/decode-summary.txt" 2>&1 || { cat "$SCEN_DIR/decode-summary.txt"; fail "nfsbench decode --summary failed"; }
cat "$SCEN_DIR/decode-summary.txt"
# "decode: N of M RPC messages decoded, F failed, ...": every message must decode.
line=$(grep -E '^decode: [0-9]+ of [0-9]+ RPC messages decoded, [0-9]+ failed' "$SCEN_DIR/decode-summary.txt" || true)
if [ -n "$line" ]; then
  set -- $line
  [ "$2" = "$4" ] && [ "$8" = 0 ] || fail "nfsbench decode: $line"
  [ "$2" = $((calls + replies)) ] || fail "nfsbench decode found $2 RPC messages, tshark $((calls + replies))"
else
  log "note: no 'decode: N of M RPC messages decoded' line to check"
fi
summary "$frames frames, $calls RPC calls all answered, no malformed/expert errors, nfsbench decode: ${2:-?} messages OK"
