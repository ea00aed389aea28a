#!/bin/bash
# interop-timeout: 180
# nfsbench-client-nconnect — nconnect= and remoteports= of nfsbench's client, observed from outside:
#   `nfsbench serve --listen 127.0.0.1:P --listen 127.0.0.2:P --listen 127.0.0.3:P --listen 127.0.0.4:P`,
#   then `nfsbench run` (4 KiB randread, iodepth 16, time_based 5 s, 16 MiB file) with
#   -o vers=3,proto=tcp,port=P,mountport=P,remoteports=127.0.0.1-127.0.0.4 and
#   1. nconnect=8: while it runs, `ss -tn` (three samples 0.5 s apart) shows exactly 8 established
#      connections to port P, all the client process's, 2 to each of the 4 addresses, and the server's
#      side of them (source port P) the same 8, 2 per listener address; the run exits 0, its JSON has
#      error 0 and no verify error, and its "nfsbench" notes list the same 8 connections (local, remote);
#   2. nconnect=1 (same remoteports): exactly 1 connection, on both sides and in the notes.
# Loopback addresses 127.0.0.2-4 need no setup: the whole 127/8 is local on Linux.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

need_debs iproute2 python3
ADDRS=(127.0.0.1 127.0.0.2 127.0.0.3 127.0.0.4)
RUNTIME=5
cleanup() {
  local rc=$?; set +e
  if [ -n "${RUN_PID:-}" ]; then kill -TERM "$RUN_PID" 2>/dev/null; wait "$RUN_PID" 2>/dev/null || true; fi
  stop_server || { [ $rc = 0 ] && { _reason reason "the server did not shut down cleanly"; rc=1; }; }
  exit $rc
}
trap cleanup EXIT

# A port free on all four addresses at once (bound together, then released for the server).
P=$(python3 - "${ADDRS[@]}" <<'EOF'
import socket, sys
for _ in range(50):
    socks = []
    try:
        s = socket.socket(); s.bind((sys.argv[1], 0)); socks.append(s)
        port = s.getsockname()[1]
        for a in sys.argv[2:]:
            t = socket.socket(); t.bind((a, port)); socks.append(t)
        print(port)
        break
    except OSError:
        pass
    finally:
        for s in socks: s.close()
else:
    sys.exit(1)
EOF
) || fail "no TCP port free on all of ${ADDRS[*]}"
listen=()
for a in "${ADDRS[@]}"; do listen+=(--listen "$a:$P"); done
start_server "$SCEN_DIR" "${listen[@]}" --export /export=mem:256MiB
for a in "${ADDRS[@]}"; do
  grep -qx "$a:$P" "$SCEN_DIR/server.ready" || fail "the server's ready file does not name $a:$P: $(tr '\n' ' ' < "$SCEN_DIR/server.ready")"
done

# established TCP connections, one "LOCAL PEER PROCESS" line each: client side (to port P) or server side
client_conns() { ss -Htnp state established "( dport = :$P )" | awk '{print $3, $4, $5}' | sort; }
server_conns() { ss -Htn state established "( sport = :$P )" | awk '{print $3, $4}' | sort; }
# per_addr FIELD: "ADDR:count" for each of ADDRS, from the connection lines on stdin (FIELD 1 or 2)
per_addr() { awk -v f="$1" '{split($f, a, ":"); n[a[1]]++} END {for (k in n) print k ":" n[k]}' | sort | paste -sd' '; }

# nconnect_case N: run with nconnect=N while sampling ss; the verdicts below.
nconnect_case() {
  local n=$1 name=nconnect-$1 i rc=0 want_each want
  local opts="vers=3,proto=tcp,port=$P,mountport=$P,nconnect=$n,remoteports=${ADDRS[0]}-${ADDRS[3]}"
  step "nfsbench run -o $opts ($RUNTIME s randread 4k)"
  # `timeout` itself (not the tmo function, which would fork a subshell): $! is its pid, the client its child.
  timeout -k 5 60 "$NFSBENCH" run --name="$name" --rw=randread --bs=4k --size=16m --iodepth=16 --time_based \
    --runtime=$RUNTIME --target 127.0.0.1:/export -o "$opts" --output-format=json \
    --output "$SCEN_DIR/$name.json" 2> "$SCEN_DIR/$name.err" &
  RUN_PID=$!
  wait_for 15 "nfsbench run (nconnect=$n): a first established connection to port $P" \
    bash -c "ss -Htn state established '( dport = :$P )' | grep -q ."
  local cpid
  cpid=$(pgrep -P "$RUN_PID" -x nfsbench || true)
  [ -n "$cpid" ] || fail "no nfsbench process under the run's timeout (pid $RUN_PID)"
  sleep 1   # all connections are opened at the start; the 16 MiB layout takes ~0.1 s of the 5 s run
  : > "$SCEN_DIR/ss-$name.txt"
  for i in 1 2 3; do
    client_conns > "$SCEN_DIR/$name.client.$i"
    server_conns > "$SCEN_DIR/$name.server.$i"
    { echo "-- sample $i, client side (to port $P):"; cat "$SCEN_DIR/$name.client.$i"
      echo "-- sample $i, server side (from port $P):"; cat "$SCEN_DIR/$name.server.$i"; } >> "$SCEN_DIR/ss-$name.txt"
    [ $i = 3 ] || sleep 0.5
  done
  kill -0 "$cpid" 2>/dev/null || fail "nfsbench run (nconnect=$n) ended before the ss samples were taken"
  cat "$SCEN_DIR/ss-$name.txt"
  tmo $((RUNTIME + 30)) tail --pid="$RUN_PID" -f /dev/null || true
  wait "$RUN_PID" || rc=$?
  RUN_PID=
  cat "$SCEN_DIR/$name.err"
  [ $rc = 0 ] || fail "nfsbench run -o $opts: exit status $rc: $(grep -v -e 'Laying out' -e '^nfsbench: note' "$SCEN_DIR/$name.err" | head -n1)"
  python3 "$INTEROP_ROOT/tests/interop/lib/nfsbench_json.py" clean "$SCEN_DIR/$name.json" | tee "$SCEN_DIR/$name.clean" \
    || fail "nconnect=$n: $(grep -m1 '^BAD' "$SCEN_DIR/$name.clean" | sed 's/^BAD: //')"

  # every sample: exactly N connections, all the client's, spread evenly (N=1: one, to one address)
  for i in 1 2 3; do
    local c=$SCEN_DIR/$name.client.$i s=$SCEN_DIR/$name.server.$i
    [ "$(wc -l < "$c")" = "$n" ] || fail "nconnect=$n: ss sample $i shows $(wc -l < "$c") established client connections to port $P, want $n"
    awk -v pid="pid=$cpid," '$3 !~ "\"nfsbench\"," || index($3, pid) == 0 {bad = 1} END {exit bad}' "$c" \
      || fail "nconnect=$n: ss sample $i: a connection to port $P not owned by the client (pid $cpid): $(head -n1 "$c")"
    [ "$(wc -l < "$s")" = "$n" ] || fail "nconnect=$n: ss sample $i shows $(wc -l < "$s") server-side connections from port $P, want $n"
    if [ "$n" -ge ${#ADDRS[@]} ]; then
      want_each=$((n / ${#ADDRS[@]}))
      want=$(for a in "${ADDRS[@]}"; do echo "$a:$want_each"; done | sort | paste -sd' ')
      [ "$(per_addr 2 < "$c")" = "$want" ] || fail "nconnect=$n: client connections per server address $(per_addr 2 < "$c"), want $want (ss sample $i)"
      [ "$(per_addr 1 < "$s")" = "$want" ] || fail "nconnect=$n: server connections per listener $(per_addr 1 < "$s"), want $want (ss sample $i)"
    fi
    cmp -s "$SCEN_DIR/$name.client.1" "$c" || fail "nconnect=$n: the client's connections changed between ss samples 1 and $i (reconnects?)"
  done
  # the same connections in the run's JSON notes (LOCAL REMOTE pairs)
  python3 "$INTEROP_ROOT/tests/interop/lib/nfsbench_json.py" connections "$SCEN_DIR/$name.json" > "$SCEN_DIR/$name.notes" \
    || fail "nconnect=$n: the JSON's connection notes: $(grep -m1 '^BAD' "$SCEN_DIR/$name.notes" | sed 's/^BAD: //')"
  local from_ss from_json
  from_ss=$(awk '{print $1, $2}' "$SCEN_DIR/$name.client.1" | sort)
  from_json=$(sort "$SCEN_DIR/$name.notes")
  if [ "$from_ss" != "$from_json" ]; then
    echo "ss:"; echo "$from_ss"; echo "JSON notes:"; echo "$from_json"
    fail "nconnect=$n: the JSON's nfsbench notes list other connections than ss shows"
  fi
  log "nconnect=$n: $n connection(s), per address: $(per_addr 2 < "$SCEN_DIR/$name.client.1"); JSON notes agree"
  check_server_alive "after nconnect=$n"
}

nconnect_case 8
nconnect_case 1

server_log_check
stop_server || fail "the server did not shut down cleanly"
iops8=$(sed -n 's/.* \([0-9]*\) IOPS.*/\1/p' "$SCEN_DIR/nconnect-8.clean" | head -n1)
iops1=$(sed -n 's/.* \([0-9]*\) IOPS.*/\1/p' "$SCEN_DIR/nconnect-1.clean" | head -n1)
summary "nconnect=8 over 127.0.0.1-4: 8 connections, 2 per address, in ss (client and server side) and the JSON notes, ${iops8} IOPS, nconnect=1: 1 connection, ${iops1} IOPS"
