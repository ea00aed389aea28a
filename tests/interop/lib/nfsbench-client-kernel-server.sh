# tests/interop/lib/nfsbench-client-kernel-server.sh — sourced by the two
# shellcheck shell=bash
# nfsbench-client-kernel-server-{tcp,rdma} scenarios with PROTO set: nfsbench's own client
# (`nfsbench run`) against the Linux kernel NFS server (knfsd in the lab VM), NFSv3.
# SKIPs while the binary has no `run` subcommand, and (PROTO=rdma) while its client refuses proto=rdma.
# The guest half is tests/interop/guest/nfsbench-client.sh (64 MiB write/read/randread with
# verify=crc32c, a server-side corruption that verify must catch, 4 KiB randwrite with fsync=32,
# nconnect=4 seen with ss). Over TCP the host then dissects the capture of the randwrite job with
# tshark (no malformed packet, every call answered, only the expected errors, the WRITE/COMMIT counts
# knfsd counted, one write verifier) and decodes it with `nfsbench decode`.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! tmo 10 "$NFSBENCH" run --help > "$SCEN_DIR/probe.out" 2>&1; then
  cat "$SCEN_DIR/probe.out"
  skip "nfsbench client not built yet (no 'nfsbench run' subcommand)"
fi
if [ "$PROTO" = rdma ]; then
  # The client's RDMA transport: absent while `run -o proto=rdma` is refused as a usage error (status 2,
  # naming rdma) before anything is sent. Port 1 on loopback: a client that accepts proto=rdma fails
  # fast there instead (no RDMA device on the host).
  rc=0
  tmo 20 "$NFSBENCH" run --name=probe --rw=read --bs=4k --size=4k --target 127.0.0.1:/probe \
    -o vers=3,proto=rdma,port=1,mountport=1,soft,timeo=10,retrans=0 > "$SCEN_DIR/probe-rdma.out" 2>&1 || rc=$?
  cat "$SCEN_DIR/probe-rdma.out"
  if [ $rc = 2 ] && grep -Eqi 'rdma.*(not implemented|not supported|unsupported|refused)' "$SCEN_DIR/probe-rdma.out"; then
    skip "RPC-over-RDMA transport not built yet in the client ($(grep -m1 -i rdma "$SCEN_DIR/probe-rdma.out"))"
  fi
  log "the client accepts proto=rdma (probe exit status $rc): running the RDMA scenario"
fi

vm_guest bash "$INTEROP_ROOT/tests/interop/guest/nfsbench-client.sh" "$SCEN_DIR" "$PROTO"
[ "$PROTO" = tcp ] || exit 0

# --- the capture of the 4 KiB randwrite job (guest step 5), on the host ---------------------------------
step "tshark and nfsbench decode over the capture of the randwrite job"
PCAP=$SCEN_DIR/nfsbench-client-knfsd.pcap
[ -f "$SCEN_DIR/capture.done" ] && [ -s "$PCAP" ] || fail "the guest left no complete capture ($PCAP)"
read -r WRITES COMMITS < "$SCEN_DIR/rand4k.counts" || fail "the guest left no rand4k.counts"
# Out-of-order reassembly: on the guest's loopback with 2 vCPUs, knfsd's threads' replies sometimes
# reach the socket (and the capture) out of order; TCP then retransmits (spuriously), and without this
# tshark leaves the RPC replies in those segments undissected.
TS=(tshark -n -r "$PCAP" "${TSHARK_RPC[@]}")
first() { printf '%s\n' "$1" | sed -n "1,${2}p"; }
tf() { local f=$1; shift; tmo 180 "${TS[@]}" -Y "$f" -T fields "${@/#/-e}" 2> "$SCEN_DIR/tshark.err"; }
# calls_of FILTER: "PROGRAM PROCEDURE" of each RPC call in the matching frames (one frame may carry several)
calls_of() {
  tf "$1" rpc.msgtyp rpc.program rpc.procedure \
    | awk '{ n = split($1, t, ","); split($2, g, ","); split($3, p, ",")
             for (i = 1; i <= n; i++) if (t[i] == 0) print g[i], p[i] }'
}

frames=$(tmo 180 "${TS[@]}" -T fields -e frame.number 2> "$SCEN_DIR/tshark.err" | wc -l) \
  || { cat "$SCEN_DIR/tshark.err"; fail "tshark could not read the capture"; }
log "capture: $(stat -c %s "$PCAP") bytes, $frames frames"
bad=$(tf '_ws.malformed || _ws.expert.severity >= "error"' frame.number _ws.col.Info _ws.expert.message) \
  || { cat "$SCEN_DIR/tshark.err"; fail "tshark failed on the malformed/expert filter"; }
[ -z "$bad" ] || { first "$bad" 40; fail "tshark: $(echo "$bad" | wc -l) malformed or expert-error frames, first: $(first "$bad" 1 | tr '\t' ' ')"; }

tf 'rpc' tcp.stream rpc.xid rpc.msgtyp | awk -v calls="$SCEN_DIR/calls" -v replies="$SCEN_DIR/replies" '
  { n = split($2, x, ","); split($3, t, ",")
    for (i = 1; i <= n; i++) print $1, x[i] > (t[i] == 0 ? calls : replies) }'
touch "$SCEN_DIR/calls" "$SCEN_DIR/replies"
calls=$(wc -l < "$SCEN_DIR/calls") replies=$(wc -l < "$SCEN_DIR/replies")
dups=$(sort "$SCEN_DIR/calls" | uniq -d | tr '\n' ' ')
[ -z "$dups" ] || fail "RPC calls sent more than once (TCP stream, XID): $(echo "$dups" | cut -c1-200)"
tcp_rexmit=$(tf 'tcp.analysis.retransmission || tcp.analysis.spurious_retransmission || tcp.analysis.out_of_order' frame.number | wc -l)
log "RPC calls $calls, replies $replies, no XID repeated; TCP segments flagged retransmitted/out of order: $tcp_rexmit (loopback reordering; not an RPC retransmission)"
unanswered=$(sort -u "$SCEN_DIR/replies" | comm -23 <(sort -u "$SCEN_DIR/calls") - | tr '\n' ' ')
[ -z "$unanswered" ] || fail "tshark found no reply to these calls (TCP stream, XID): $(echo "$unanswered" | cut -c1-200)"
[ "$calls" = "$replies" ] || fail "tshark: $calls RPC calls but $replies replies"
denied=$(tf 'rpc.msgtyp == 1 && (rpc.replystat != 0 || rpc.state_accept != 0)' frame.number _ws.col.Info)
[ -z "$denied" ] || { first "$denied" 10; fail "RPC replies that are not MSG_ACCEPTED/SUCCESS: $(first "$denied" 1)"; }

calls_of 'rpc' | sort | uniq -c | sort -k2,2n -k3,3n > "$SCEN_DIR/procedures.txt"
log "RPC calls by program and procedure:"; sed 's/^/  /' "$SCEN_DIR/procedures.txt"
count() { awk -v g="$1" -v p="$2" '$2 == g && $3 == p { print $1; f = 1 } END { if (!f) print 0 }' "$SCEN_DIR/procedures.txt"; }
# The port mapper (GETPORT for MOUNT and for NFS), MOUNT MNT/UMNT, then NFSv3.
[ "$(count 100000 3)" -ge 2 ] || fail "tshark saw $(count 100000 3) port-mapper GETPORT calls, expected 2 (MOUNT, NFS)"
[ "$(count 100005 1)" = 1 ] && [ "$(count 100005 3)" = 1 ] \
  || fail "tshark saw MOUNT MNT x$(count 100005 1), UMNT x$(count 100005 3), expected one of each"
[ "$(count 100003 7)" = "$WRITES" ] || fail "tshark saw $(count 100003 7) WRITE calls, knfsd counted $WRITES"
[ "$(count 100003 21)" = "$COMMITS" ] || fail "tshark saw $(count 100003 21) COMMIT calls, knfsd counted $COMMITS"
[ "$(count 100003 6)" -ge 1 ] && [ "$(count 100003 8)" = 1 ] && [ "$(count 100003 19)" -ge 1 ] \
  || fail "tshark saw READ x$(count 100003 6), CREATE x$(count 100003 8), FSINFO x$(count 100003 19)"
# NFS errors: only the LOOKUP of the file before its CREATE may fail, with NOENT.
errs=$(tf 'nfs.status != 0' nfs.procedure_v3 nfs.status \
  | awk '{ n = split($1, p, ","); split($2, s, ","); for (i = 1; i <= n; i++) if (s[i] != 0) print p[i], s[i] }' \
  | sort | uniq -c)
log "NFS error replies: ${errs:-none}"
[ -z "$(echo "$errs" | awk 'NF && !($2 == 3 && $3 == 2)')" ] || fail "NFS error replies other than LOOKUP NOENT: $(echo $errs)"
stable=$(tf 'rpc.msgtyp == 0 && nfs.write.stable' nfs.write.stable | tr ',' '\n' | sort | uniq -c | tr -s ' \n' ' ')
committed=$(tf 'rpc.msgtyp == 1 && nfs.write.committed' nfs.write.committed | tr ',' '\n' | sort | uniq -c | tr -s ' \n' ' ')
log "WRITE calls by stable_how (0 UNSTABLE, 1 DATA_SYNC, 2 FILE_SYNC): $stable; replies by committed: $committed"
[[ $stable =~ ^\ ?[0-9]+\ 0\ ?$ ]] || fail "WRITE calls not all UNSTABLE (buffered job): $stable"
verfs=$(tf 'rpc.msgtyp == 1 && (nfs.procedure_v3 == 7 || nfs.procedure_v3 == 21)' nfs.verifier | tr ',' '\n' | sort | uniq -c)
log "write verifiers in WRITE and COMMIT replies: $(echo $verfs)"
[ "$(echo "$verfs" | grep -c .)" = 1 ] || fail "WRITE/COMMIT replies carry $(echo "$verfs" | grep -c .) distinct write verifiers, expected 1"

rc=0
tmo 180 "$NFSBENCH" decode --summary "$PCAP" > "$SCEN_DIR/decode-summary.txt" 2>&1 || rc=$?
cat "$SCEN_DIR/decode-summary.txt"
[ $rc = 0 ] || fail "nfsbench decode --summary exited with status $rc"
line=$(grep -E '^decode: [0-9]+ of [0-9]+ RPC messages decoded, [0-9]+ failed' "$SCEN_DIR/decode-summary.txt" || true)
[ -n "$line" ] || fail "nfsbench decode printed no 'decode: N of M RPC messages decoded' line"
set -- $line
[ "$2" = "$4" ] && [ "$8" = 0 ] || fail "nfsbench decode: $line"
[ "$2" = $((calls + replies)) ] || fail "nfsbench decode found $2 RPC messages, tshark $((calls + replies))"
summary "capture of the randwrite job: $frames frames, $calls RPC calls all answered, WRITE $WRITES / COMMIT $COMMITS as knfsd counted, tshark clean, nfsbench decode $2/$4"
