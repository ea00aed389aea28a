# tests/interop/lib/common.sh — sourced by the runner, every scenario and the guest scripts.
# shellcheck shell=bash
#
# Conventions (see tests/interop/README.md):
#   - a scenario is tests/interop/scenarios/NAME.sh, run by tests/interop/run.sh with
#       INTEROP_ROOT  the repository root           INTEROP_OUT  this run's output directory
#       SCEN_DIR      the scenario's own directory  NFSBENCH     the nfsbench binary (a snapshot)
#     its stdout+stderr are the scenario log ($SCEN_DIR/log);
#   - exit 0 = PASS, 77 = SKIP, anything else = FAIL; the one-line reason is in $SCEN_DIR/reason
#     (written by `fail` / `skip`), a one-line result summary in $SCEN_DIR/summary (`summary`);
#   - every wait has a deadline, every external command a timeout (`tmo SECS CMD...`);
#   - servers started here are stopped by their pid from an EXIT trap (`stop_server`).
# Works under `set -euo pipefail` and without it; needs bash 5.

INTEROP_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
INTEROP_ROOT=${INTEROP_ROOT:-$(cd "$INTEROP_LIB/../../.." && pwd)}
SKIP_STATUS=77
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

# --- logging and verdicts -------------------------------------------------------------------------
ts() { date +%H:%M:%S; }
log() { echo "[$(ts)] $*"; }
step() { echo "[$(ts)] == $*"; }
_reason() { # _reason FILE TEXT: first verdict wins (a later cleanup failure must not hide the cause)
  [ -n "${SCEN_DIR:-}" ] && [ -d "$SCEN_DIR" ] && [ ! -s "$SCEN_DIR/$1" ] && printf '%s\n' "$2" > "$SCEN_DIR/$1"
  return 0
}
fail() { echo "[$(ts)] FAIL: $*" >&2; _reason reason "$*"; exit 1; }
skip() { echo "[$(ts)] SKIP: $*"; _reason reason "$*"; exit "$SKIP_STATUS"; }
summary() { log "summary: $*"; [ -n "${SCEN_DIR:-}" ] && printf '%s\n' "$*" >> "$SCEN_DIR/summary"; return 0; }
# Under `set -e`, a command failing where nobody checks it ends the script: say which one, so that a
# scenario never fails without a reason.
on_err() {
  local rc=$?
  echo "[$(ts)] FAIL: unexpected status $rc at ${BASH_SOURCE[1]:-?}:${BASH_LINENO[0]:-?}: $BASH_COMMAND" >&2
  _reason reason "unexpected status $rc at $(basename "${BASH_SOURCE[1]:-?}"):${BASH_LINENO[0]:-?}: $BASH_COMMAND"
}
if [[ $- == *e* ]]; then set -E; trap on_err ERR; fi

# tshark's options for our captures: every TCP conversation in them is ONC RPC (NFS, MOUNT, the port
# mapper, NFSv4 callbacks), so every port is decoded as RPC. Pinning only the server's port is not
# enough: Wireshark binds a few ports of the ephemeral range to other protocols (TCP 57000 is IRC in
# Wireshark 4.0) and tries the lower port first, so a client that happened to get one had its whole
# conversation dissected as that protocol (1290 "malformed" frames, seen once in a clean-clone run).
# Out-of-order reassembly: a capture in the TCG guest records some bursts of segments out of order.
TSHARK_RPC=(-d "tcp.port==1-65535,rpc" -o tcp.reassemble_out_of_order:TRUE)

# tmo SECS CMD...: CMD with a wall-clock limit (TERM, then KILL 5 s later); status 124 on timeout.
tmo() { local s=$1; shift; timeout -k 5 "$s" "$@"; }

# must SECS WHAT CMD...: run CMD with a timeout; on failure fail with WHAT and the status.
must() {
  local s=$1 what=$2 rc=0; shift 2
  tmo "$s" "$@" || rc=$?
  [ $rc = 0 ] && return 0
  [ $rc = 124 ] || [ $rc = 137 ] && fail "$what: timed out after ${s}s ($*)"
  fail "$what: exit status $rc ($*)"
}

# wait_for SECS WHAT CMD...: poll CMD every 0.2 s until it succeeds; fail after SECS.
wait_for() {
  local s=$1 what=$2 deadline; shift 2
  deadline=$((SECONDS + s))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "$what: not within ${s}s"
    sleep 0.2
  done
}

# elapsed_since T0_NS: seconds (1 decimal) since a `date +%s%N` stamp.
now_ns() { date +%s%N; }
elapsed_since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
# mib_per_s BYTES T0_NS: throughput since T0.
mib_per_s() { awk -v n="$1" -v a="$2" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", n / 1048576 / ((b - a) / 1e9) }'; }

sha() { sha256sum "$1" | cut -d' ' -f1; }

# --- packages -------------------------------------------------------------------------------------
# need_debs PKG...: install the missing Debian packages (idempotent; quiet when all are present).
need_debs() {
  local p missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  tmo 300 $SUDO apt-get update -qq >/dev/null || fail "apt-get update failed"
  tmo 600 $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >/dev/null || fail "apt-get install ${missing[*]} failed"
}
need_vm() { # the VM lab's host packages (qemu, nfs-common, tcpdump, tshark, ...)
  tmo 900 "$INTEROP_ROOT/lab/vm/install-deps.sh" || fail "lab/vm/install-deps.sh failed"
}

# vm_guest CMD...: boot the lab VM with $SCEN_DIR shared read-write and $NFSBENCH passed in, run CMD
# in the guest; returns when it succeeded, fails the scenario otherwise.
# VM_LIMIT=SECS: the VM's wall-clock limit (default 540 s; the scenario's interop-timeout must exceed it).
vm_guest() {
  need_vm
  step "booting the lab VM (the guest log follows)"
  local rc=0 limit=${VM_LIMIT:-540}
  tmo $((limit + 30)) "$INTEROP_ROOT/lab/vm/run.sh" -m 2G -c 2 -t "$limit" -w "$SCEN_DIR" -e "NFSBENCH=$NFSBENCH" -- "$@" || rc=$?
  [ $rc = 0 ] && return 0
  [ $rc = 125 ] && fail "the VM died or timed out before the guest script finished (guest kernel log above)"
  fail "guest script failed (exit status $rc)"
}
# interrupt_compare PID ERRFILE: SIGINT a running `nfsbench compare` (a child of this shell), wait up
# to 90 s for it to end, and check that it failed, said it was interrupted, and left no `nfsbench run`
# child behind. Sets INTERRUPT_RC to its exit status.
interrupt_compare() {
  local pid=$1 err=$2 rc=0
  kill -INT "$pid"
  tmo 90 bash -c "while kill -0 $pid 2>/dev/null; do sleep 0.2; done" || rc=$?
  [ $rc = 0 ] || { kill -9 "$pid"; fail "compare still running 90 s after SIGINT"; }
  wait "$pid" && rc=0 || rc=$?
  [ $rc != 0 ] || fail "compare exited 0 after SIGINT"
  grep -q "interrupted" "$err" || fail "compare did not say it was interrupted: $(tail -n 1 "$err")"
  ! pgrep -f "$NFSBENCH run" >/dev/null || fail "an nfsbench run child outlived the interrupted compare"
  INTERRUPT_RC=$rc
}

# vm_scenario CMD...: vm_guest, then end the scenario with its verdict (exit 0 on success).
vm_scenario() { vm_guest "$@"; exit 0; }

# --- the nfsbench server ----------------------------------------------------------------------------
# start_server DIR [ARGS...]: start `nfsbench serve` on 127.0.0.1 with a fresh 1 GiB RAM export and a
# free port (or ARGS), logging to DIR/server.log; returns once the ready file names the address.
# Sets SERVER_PID, SERVER_PORT, SERVER_LOG. Server stdout (the statistics at exit) goes to the log too.
SERVER_PID=
start_server() {
  local dir=$1; shift
  local args=("$@")
  [ ${#args[@]} -gt 0 ] || args=(--listen 127.0.0.1:0 --export /export=mem:1GiB)
  [ -x "${NFSBENCH:-}" ] || fail "NFSBENCH=${NFSBENCH:-} is not an executable nfsbench binary"
  SERVER_LOG=$dir/server.log
  local ready=$dir/server.ready
  rm -f "$ready"
  log "starting: $NFSBENCH serve ${args[*]} --ready-file $ready"
  "$NFSBENCH" serve "${args[@]}" --ready-file "$ready" >> "$SERVER_LOG" 2>&1 &
  SERVER_PID=$!
  local deadline=$((SECONDS + 30))
  until [ -s "$ready" ]; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      local rc=0; wait "$SERVER_PID" || rc=$?
      SERVER_PID=
      cat "$SERVER_LOG" >&2
      fail "nfsbench serve exited with status $rc before it was ready"
    fi
    [ $SECONDS -lt $deadline ] || fail "nfsbench serve: no ready file within 30 s"
    sleep 0.1
  done
  SERVER_PORT=$(sed -n '1s/.*://p' "$ready")
  [[ $SERVER_PORT =~ ^[0-9]+$ ]] || fail "ready file $ready does not name ADDR:PORT: $(head -c 200 "$ready")"
  log "server pid $SERVER_PID listening on $(head -n1 "$ready")"
}

# server_alive: the server we started is still running (it must survive every peer).
server_alive() { [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; }
check_server_alive() {
  server_alive && return 0
  local rc=0; [ -n "$SERVER_PID" ] && { wait "$SERVER_PID" || rc=$?; }
  SERVER_PID=
  echo "---- server log (tail) ----" >&2; tail -n 40 "$SERVER_LOG" >&2 || true
  fail "nfsbench serve died during the test (exit status $rc)${1:+ ($1)}"
}

# stop_server: SIGTERM, wait up to 20 s for a clean exit (status 0), SIGKILL otherwise. Safe to call
# twice. Returns non-zero (and says why) when the server did not shut down cleanly.
stop_server() {
  [ -n "${SERVER_PID:-}" ] || return 0
  local pid=$SERVER_PID rc=0
  SERVER_PID=
  kill -0 "$pid" 2>/dev/null || { wait "$pid" || rc=$?; echo "server pid $pid had already exited ($rc)" >&2; return 1; }
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    echo "server pid $pid did not exit within 20 s of SIGTERM (killed)" >&2
    return 1
  fi
  wait "$pid" || rc=$?
  [ $rc = 0 ] || { echo "server pid $pid exited with status $rc after SIGTERM" >&2; return 1; }
  log "server pid $pid stopped cleanly"
}

# server_log_check: a panic or an ERROR in the server's log fails the scenario (warnings are shown).
server_log_check() {
  [ -f "${SERVER_LOG:-}" ] || return 0
  if grep -Eq 'panicked|RUST_BACKTRACE| ERROR ' "$SERVER_LOG"; then
    grep -E -m 20 'panicked| ERROR ' "$SERVER_LOG" >&2
    fail "the server logged a panic or an error (see $SERVER_LOG)"
  fi
  local w; w=$(grep -c ' WARN ' "$SERVER_LOG" || true)
  [ "$w" = 0 ] || { log "server warnings: $w (first 10 below)"; grep -m 10 ' WARN ' "$SERVER_LOG"; }
  return 0
}

# libnfs URL of the RAM export (libnfs-utils, fio's nfs engine): nfs_url PORT [FILE]
nfs_url() { echo "nfs://127.0.0.1/export${2:+/$2}?version=3&nfsport=$1&mountport=$1"; }

# In a guest: fail when the kernel logged anything about NFS/RPC since the test started (the boot's
# transport registrations aside).
check_kernel_log() {
  local msgs
  msgs=$(dmesg | sed -n '/nfsbench-interop: test starts/,$p' | sed 1d \
    | grep -Ei 'nfs|rpc|xdr|xprt|lockd|svc' \
    | grep -Ev 'Registering the id_resolver|Key type id_(resolver|legacy)|Registered .* transport module' || true)
  if [ -n "$msgs" ]; then
    echo "$msgs"
    fail "the kernel logged NFS/RPC messages: $(echo "$msgs" | sed -n 1p | sed 's/^\[[^]]*\] //')"
  fi
}

# rxe_client_faults: how many times the guest's Soft-RoCE refused one of the kernel client's own
# fast registrations ("rxe_reg_fast_mr: mr->lkey = 0x.. not free"): a race inside Linux 6.1's rxe
# between the client's invalidation of an MR and its re-registration. The failed REG_MR puts the
# client's queue pair in error; the client reconnects and resends (seen once in CI, 2026-11-27). The
# server has no part in it (it never invalidates the client's keys: no Send With Invalidate), so
# mountstats*.py --provider-faults reports the resends it explains instead of failing on them.
rxe_client_faults() { dmesg | grep -Ec 'rxe_reg_fast_mr: mr->lkey = 0x[0-9a-f]+ not free' || true; }
# rxe_faults_since_mount: those since the mount (mount_nfs keeps the count in RXE_FAULTS_AT_MOUNT).
rxe_faults_since_mount() { echo $(($(rxe_client_faults) - ${RXE_FAULTS_AT_MOUNT:-0})); }

# Capture loopback traffic matching FILTER into PCAP (tcpdump's stderr in tcpdump.err of $OUT in a guest,
# else of $SCEN_DIR) with a kernel buffer of BUFFER_KIB (default 32 MiB; full-speed loopback traffic of
# nfsbench's own client, ~70 MB in seconds, needs 256 MiB and the file in RAM rather than on 9p).
start_tcpdump() { # start_tcpdump PCAP FILTER [BUFFER_KIB]
  local err=${OUT:-$SCEN_DIR}/tcpdump.err
  rm -f "$1"
  tcpdump -i lo -s 0 -B "${3:-32768}" -U -Z root -w "$1" "$2" 2> "$err" &
  TCPDUMP=$!
  wait_for 30 "tcpdump start" grep -q 'listening on' "$err"
  sleep 0.5
}

# Stop it once it has written everything: tcpdump lags behind (under TCG, or with a large buffer), so wait
# until PCAP stops growing (at most 90 s); fail if it dropped packets.
stop_tcpdump() { # stop_tcpdump PCAP
  local err=${OUT:-$SCEN_DIR}/tcpdump.err prev=-1 deadline=$((SECONDS + 90))
  while [ "$(stat -c %s "$1")" != "$prev" ] && [ $SECONDS -lt $deadline ]; do
    prev=$(stat -c %s "$1"); sleep 2
  done
  kill -INT "$TCPDUMP"
  tmo 30 tail --pid="$TCPDUMP" -f /dev/null || fail "tcpdump did not stop within 30 s"
  wait "$TCPDUMP" || true
  TCPDUMP=
  cat "$err"
  grep -q '^0 packets dropped by kernel' "$err" || fail "tcpdump dropped packets (see above)"
}
