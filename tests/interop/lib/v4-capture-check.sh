# tests/interop/lib/v4-capture-check.sh — sourced (after common.sh) by the nfsbench-client-v4-* scenarios
# shellcheck shell=bash
# that capture TCP and by kernel-client-v4-serve-tcp: Wireshark's dissectors and nfsbench's own codecs
# over a `tcpdump -s 0` capture of an NFSv4.1/4.2 client and server (nfsbench's client and a real server,
# or the Linux client and nfsbench's server).
#
#   v4_capture_check PCAP PORT MINOR NAME [CLIENT]   (CLIENT: nfsbench, the default, or kernel)
#
# On the host, in $SCEN_DIR: tshark 4.0 (every TCP port decoded as RPC, out-of-order reassembly on: a capture
# made in the TCG guest records some segments out of order) must find no malformed frame and no expert
# error; lib/v4_capture_check.py judges its dissection of every RPC message (each call answered once,
# accepted, minor version MINOR, no error status — with CLIENT kernel, none that says the server failed —
# and the operations the client's run sends present);
# `nfsbench decode --summary` must decode every RPC message tshark saw, with no failure. Fails the scenario
# otherwise; sets CAPTURE_LINE to a one-line account (frames, calls, operations, decode).

v4_capture_check() {
  local pcap=$1 port=$2 minor=$3 name=$4 client=${5:-nfsbench} frames bad line rc=0
  local ts=(tshark -n -r "$pcap" "${TSHARK_RPC[@]}")
  local err=$SCEN_DIR/$name.tshark.err
  [ -s "$pcap" ] || fail "$name: no capture at $pcap"
  step "$name: tshark and nfsbench decode over $(basename "$pcap") ($(stat -c %s "$pcap") bytes)"
  frames=$(tmo 300 "${ts[@]}" -T fields -e frame.number 2> "$err" | wc -l) \
    || { cat "$err"; fail "$name: tshark could not read $pcap"; }
  [ "$frames" -gt 0 ] || fail "$name: the capture holds no frames"
  bad=$(tmo 300 "${ts[@]}" -Y '_ws.malformed || _ws.expert.severity >= "error"' -T fields -e frame.number \
    -e _ws.col.Info -e _ws.expert.message 2> "$err") || { cat "$err"; fail "$name: tshark failed on the malformed filter"; }
  if [ -n "$bad" ]; then
    printf '%s\n' "$bad" | head -n 40
    fail "$name: tshark finds $(printf '%s\n' "$bad" | wc -l) malformed or expert-error frames, first: $(printf '%s\n' "$bad" | head -n1 | tr '\t' ' ')"
  fi
  tmo 300 "${ts[@]}" -Y rpc -T fields -E separator=/t -E occurrence=a -E aggregator=, \
    -e frame.number -e tcp.stream -e tcp.srcport -e tcp.dstport -e rpc.xid -e rpc.msgtyp -e rpc.replystat \
    -e rpc.state_accept -e rpc.program -e nfs.minorversion -e nfs.opcode -e nfs.nfsstat4 -e _ws.col.Info \
    > "$SCEN_DIR/$name.rpc.tsv" 2> "$err" || { cat "$err"; fail "$name: tshark failed on the RPC fields"; }
  python3 "$INTEROP_ROOT/tests/interop/lib/v4_capture_check.py" "$SCEN_DIR/$name.rpc.tsv" "$port" "$minor" "$client" \
    > "$SCEN_DIR/$name.tshark.txt" || rc=$?
  cat "$SCEN_DIR/$name.tshark.txt"
  [ $rc = 0 ] || fail "$name: tshark's dissection: $(sed -n 's/^BAD: //p' "$SCEN_DIR/$name.tshark.txt")"
  local calls replies
  calls=$(sed -n 's/^calls=\([0-9]*\) .*/\1/p' "$SCEN_DIR/$name.tshark.txt")
  replies=$(sed -n 's/.* replies=\([0-9]*\) .*/\1/p' "$SCEN_DIR/$name.tshark.txt")

  rc=0
  tmo 300 "$NFSBENCH" decode --summary "$pcap" > "$SCEN_DIR/$name.decode.txt" 2>&1 || rc=$?
  tail -n 8 "$SCEN_DIR/$name.decode.txt"
  [ $rc = 0 ] || fail "$name: nfsbench decode --summary exited with status $rc"
  line=$(grep -E '^decode: [0-9]+ of [0-9]+ RPC messages decoded, [0-9]+ failed' "$SCEN_DIR/$name.decode.txt" || true)
  [ -n "$line" ] || fail "$name: nfsbench decode printed no 'decode: N of M RPC messages decoded' line"
  # shellcheck disable=SC2086
  set -- $line
  [ "$2" = "$4" ] && [ "$8" = 0 ] || fail "$name: nfsbench decode: $line"
  [ "$2" = $((calls + replies)) ] || fail "$name: nfsbench decode found $2 RPC messages, tshark $((calls + replies))"
  CAPTURE_LINE="$name: $frames frames, $calls calls all answered, minor version $minor, tshark clean, nfsbench decode $2/$4"
  log "$CAPTURE_LINE"
}
