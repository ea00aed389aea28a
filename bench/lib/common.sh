# bench/lib/common.sh — shell pieces the benchmark scripts in bench/ share; sourced, not run.
#
# Expects `repo` (the repository root) set by the caller; the Ganesha helpers also read OUT, GANESHA_PORT,
# GANESHA_MNT and TMPFS_SIZE. The Python side is bench/lib/benchlib.py (BENCHLIB below).
# shellcheck shell=bash

BENCHLIB=${repo:?set repo before sourcing bench/lib/common.sh}/bench/lib/benchlib.py

say() { echo "bench: $*" >&2; }
die() { say "error: $*"; exit 1; }
# usage: the calling script's header comment, from line 2 to `set -euo pipefail`
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

# bytes_of SIZE: fio-style size (1g, 512m, 4GiB) in bytes
bytes_of() { numfmt --from=iec "$(echo "$1" | tr '[:lower:]' '[:upper:]' | sed 's/IB$//; s/B$//')"; }

# py ARGS...: the calling script's own Python helper ($PY), with benchlib importable
py() { PYTHONPATH=$repo/bench/lib python3 "$PY" "$@"; }

# shellcheck disable=SC2034  # the variables are the calling script's
# common_option ARGS...: one of the options every script takes (--quick --reps --runtime --ramp
# --file-size --cells --mem-size --nfsbench --out --help) from the front of ARGS; sets OPT_ARGS to the words it took
common_option() {
  OPT_ARGS=2
  case $1 in
    --quick) REPS=1 RUNTIME=3 RAMP=1 OPT_ARGS=1 ;;
    --reps) REPS=${2:?--reps N} ;;
    --runtime) RUNTIME=${2:?--runtime S} ;;
    --ramp) RAMP=${2:?--ramp S} ;;
    --file-size) FILE_SIZE=${2:?--file-size SIZE} ;;
    --cells) CELLS_ARG=${2:?--cells LIST} ;;
    --mem-size) MEM_SIZE=${2:?--mem-size SIZE} ;;
    --nfsbench) NFSBENCH=${2:?--nfsbench PATH} ;;
    --out) OUT=${2:?--out DIR} ;;
    -h|--help) usage ;;
    *) say "unknown option: $1"; usage ;;
  esac
}

# select_cells CELL...: CELLS = the cells (strings "name ...") that --cells names, all without it
select_cells() {
  local c names=()
  CELLS=()
  for c in "$@"; do
    names+=("${c%% *}")
    if [ -z "$CELLS_ARG" ] || [[ ,$CELLS_ARG, == *,${c%% *},* ]]; then CELLS+=("$c"); fi
  done
  [ ${#CELLS[@]} -gt 0 ] || die "--cells '$CELLS_ARG' names none of: ${names[*]}"
}

# cells_spec FIELDS: the selected cells for the report helper, fields '|'-separated, cells ';'-separated;
# the last of FIELDS fields takes the rest of the words (the label)
cells_spec() {
  local c w spec=
  for c in "${CELLS[@]}"; do
    read -r -a w <<<"$c"
    spec+="$(IFS='|'; echo "${w[*]:0:$1 - 1}")|${w[*]:$1 - 1};"
  done
  echo "${spec%;}"
}

# run_matrix NOUN ITEM...: REPS × CELLS × ITEMs (servers, clients), interleaved: rep 1 runs every cell
# with every item, then rep 2, the items' order reversed every rep; calls the script's
# measure REP ITEM CELL RW BS IODEPTH NUMJOBS for each run; then the load goes to machine.txt
run_matrix() {
  local noun=$1 rep c name rw bs qd nj item i order
  shift
  echo
  echo "== runs (${#CELLS[@]} cells × $# ${noun}s × $REPS reps, ~$(( ${#CELLS[@]} * $# * REPS * (RUNTIME + RAMP + 2) / 60 + 1 )) min)"
  for rep in $(seq "$REPS"); do
    order=("$@")
    if [ $((rep % 2)) = 0 ]; then
      order=(); for ((i=$#; i>=1; i--)); do order+=("${!i}"); done
    fi
    for c in "${CELLS[@]}"; do
      read -r name rw bs qd nj _ <<<"$c"
      for item in "${order[@]}"; do measure "$rep" "$item" "$name" "$rw" "$bs" "$qd" "$nj"; done
    done
  done
  echo "load:     $(uptime | sed 's/.*load average/load average/') (after)" >> "$OUT/machine.txt"
}

# parse_options ARGS...: the script's own options (its script_option ARGS... sets OPT_ARGS and returns 0
# for one of them) and common_option's, then the common ones checked (check_common_options)
parse_options() {
  while [ $# -gt 0 ]; do
    script_option "$@" || common_option "$@"
    shift "$OPT_ARGS"
  done
  check_common_options
}

# check_common_options: the options every script takes, validated (REPS RUNTIME RAMP NFSBENCH), and root
check_common_options() {
  [[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps: a positive integer, not '$REPS'"
  [[ $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "--runtime: whole seconds, not '$RUNTIME'"
  [[ $RAMP =~ ^[0-9]+$ ]] || die "--ramp: whole seconds, not '$RAMP'"
  [ "${NEEDS_ROOT:-1}" = 0 ] || [ "$(id -u)" = 0 ] || die "needs root (Ganesha's FSAL_VFS, tmpfs mounts)"
  [ -x "$NFSBENCH" ] || die "no nfsbench binary at $NFSBENCH (cargo build --release -p nfsbench)"
}

# default_mem_size NFILES FILE_BYTES: MEM_SIZE (--mem-size) or room for the files + 1 GiB, at least 2 GiB
default_mem_size() {
  local gib=$(( ($1 * $2 + (1 << 30) - 1) / (1 << 30) + 1 ))
  [ $gib -ge 2 ] || gib=2
  MEM_SIZE=${MEM_SIZE:-${gib}GiB}
}

# write_machine_info FILE: date, host, cores, CPU model, kernel, memory, load; also printed
write_machine_info() {
  {
    echo "date:     $(date -Is)"
    echo "host:     $(hostname)  nproc=$(nproc)  CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
    echo "kernel:   $(uname -srm)  memory: $(free -g | awk '/^Mem:/ {print $2 " GiB total, " $7 " GiB available"}')"
    echo "load:     $(uptime | sed 's/.*load average/load average/') (before)"
  } > "$1"
  cat "$1"
}

# check_ram BYTES: the files (on tmpfs or in a RAM export) fit in the available memory, with 1 GiB to spare
check_ram() {
  local need_kb=$(( $1 / 1024 + 1048576 )) avail_kb
  avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
  [ "$avail_kb" -gt "$need_kb" ] || die "needs ~$((need_kb / 1048576)) GiB of RAM for the files, $((avail_kb / 1048576)) GiB available; try --file-size 512m"
}

# find_fio: FIO (env) or the patched fio with the nfs engine from lab/peers/fio-nfs.sh, checked
find_fio() {
  FIO=${FIO:-$("$repo/lab/peers/fio-nfs.sh")}
  "$FIO" --enghelp 2>/dev/null | grep -qx '[[:space:]]*nfs' || die "$FIO has no nfs engine"
}

ganesha_version() { ganesha.nfsd -v 2>/dev/null | sed -n 's/.*Release = V\{0,1\}\([^ ]*\).*/\1/p' | head -1; }

# version_lines NFSBENCH: one line each for nfsbench (build time, git), fio (+ libnfs package) and Ganesha
version_lines() {
  echo "nfsbench: $1 ($(stat -c %y "$1" | cut -d. -f1); git $(git -C "$repo" rev-parse --short HEAD 2>/dev/null)$(git -C "$repo" status --porcelain 2>/dev/null | grep -q . && echo ', work tree modified'))"
  echo "fio:      $FIO ($("$FIO" --version)), ioengine=nfs, $(lib=$(ldd "$FIO" | awk '/libnfs/ {print $3}'); pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | cut -d: -f1); echo "$(basename "$lib") from ${pkg:-?} $(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null)")"
  echo "ganesha:  $(ganesha_version), FSAL_VFS on tmpfs"
}

# prepare_tools RAM_BYTES SUBCOMMAND PLAN: $OUT/machine.txt (machine, versions, plan; printed), the RAM
# the files need, FIO, and NFSBENCH copied to $WORK/nfsbench (immune to rebuilds) with SUBCOMMAND working
prepare_tools() {
  write_machine_info "$OUT/machine.txt"
  check_ram "$1"
  warn_other_ganesha
  find_fio
  cp "$NFSBENCH" "$WORK/nfsbench"
  "$WORK/nfsbench" "$2" --help >/dev/null 2>&1 || die "$NFSBENCH has no working '$2' command"
  {
    version_lines "$NFSBENCH"
    echo "plan:     $3"
    echo "output:   $OUT"
  } | tee -a "$OUT/machine.txt"
}

# ganesha start|stop|status...: lab/peers/ganesha.sh with its state in $OUT/ganesha, on our own ports
ganesha() {
  GANESHA_STATE=$OUT/ganesha GANESHA_NFS_PORT=$GANESHA_PORT GANESHA_MNT_PORT=$GANESHA_MNT \
    GANESHA_TMPFS_SIZE=$TMPFS_SIZE "$repo/lab/peers/ganesha.sh" "$@"
}

warn_other_ganesha() {
  if pgrep -x ganesha.nfsd >/dev/null; then
    say "warning: another ganesha.nfsd is running (pid $(pgrep -x ganesha.nfsd | tr '\n' ' ')): it shares rpcbind registrations and CPU"
  fi
}

# port_of URL / mntport_of URL: the nfsport= / mountport= of a libnfs URL
port_of() { local p=${1#*nfsport=}; echo "${p%%[!0-9]*}"; }
mntport_of() { local p=${1#*mountport=}; echo "${p%%[!0-9]*}"; }

# url_up URL: NFS v3 and MOUNT v3 answer a NULL call on the URL's ports (sent straight there: `rpcinfo -n`
# asks rpcbind first, and fails once another Ganesha on this machine has stopped and unregistered them)
url_up() {
  python3 "$BENCHLIB" null "$(port_of "$1")" 100003 3 || { say "no answer to NFS NULL on $1"; return 1; }
  python3 "$BENCHLIB" null "$(mntport_of "$1")" 100005 3 || { say "no answer to MOUNT NULL on $1"; return 1; }
}

# --- our own servers: `nfsbench serve`, started once, on a free port ------------------------------------
# SRV_PID / SRV_URL: pid and libnfs URL of each server by name (the scripts put Ganesha's there too);
# OURS: the names start_ours started, logs in $OUT/servers/NAME.{stdout,stderr}
declare -A SRV_PID=() SRV_URL=()
OURS=()

# start_ours NAME EXPORT_SPEC [SERVE_ARGS...]: `nfsbench serve --export /export=EXPORT_SPEC SERVE_ARGS`
# ($WORK/nfsbench) on 127.0.0.1, port 0 (a free one, from its ready file); with --rdma, SRV_RDMA_PORT[NAME]
# is the RPC-over-RDMA port (the ready file's second line)
declare -A SRV_RDMA_PORT=()
start_ours() {
  local name=$1 spec=$2 ready=$WORK/$1.ready i port
  shift 2
  mkdir -p "$OUT/servers"
  "$WORK/nfsbench" serve --listen 127.0.0.1:0 --export "/export=$spec" --ready-file "$ready" "$@" \
    >"$OUT/servers/$name.stdout" 2>"$OUT/servers/$name.stderr" &
  SRV_PID[$name]=$!
  OURS+=("$name")
  for i in $(seq 300); do
    [ -s "$ready" ] && break
    kill -0 "${SRV_PID[$name]}" 2>/dev/null || { cat "$OUT/servers/$name.stderr" >&2; die "$name exited during startup"; }
    sleep 0.1
  done
  [ -s "$ready" ] || die "$name: no ready file after 30 s"
  port=$(head -1 "$ready" | sed 's/.*://')
  SRV_RDMA_PORT[$name]=$(sed -n '2s/.*://p' "$ready")
  SRV_URL[$name]="nfs://127.0.0.1/export?version=3&nfsport=$port&mountport=$port"
  say "$name pid ${SRV_PID[$name]} on 127.0.0.1:$port exporting /export=$spec"
}

# stop_ours NAME: SIGTERM, wait (the server prints its statistics to stdout on exit), SIGKILL after 20 s
stop_ours() {
  local name=$1 pid=${SRV_PID[$1]} i
  SRV_PID[$1]=
  kill -0 "$pid" 2>/dev/null || { say "warning: $name (pid $pid) had already exited"; wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM "$pid"
  for i in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then say "warning: $name still alive 20 s after SIGTERM, SIGKILL"; kill -KILL "$pid"; fi
  wait "$pid" 2>/dev/null && true
  say "$name stopped (exit $?); statistics in $OUT/servers/$name.stdout"
}

# server_counters NAME: prints the data-path counters our server NAME printed when it stopped (stop_ours
# first, outside any pipeline: a subshell can neither wait for the server nor forget its pid), indented:
# READ payload bytes it copied per byte served, and its RDMA registrations per I/O (one per connection's
# warm-up, then none). Nothing when it printed none.
server_counters() {
  local lines
  lines=$(grep -hE '^(payload|rdma):' "$OUT/servers/$1.stdout" 2>/dev/null || true)
  [ -z "$lines" ] || { echo; echo "server counters over the whole run ($1):"; sed 's/^/  /' <<< "$lines"; }
}

# stop_all_ours: every server start_ours started and nobody stopped yet
stop_all_ours() {
  local s
  for s in "${OURS[@]}"; do if [ -n "${SRV_PID[$s]}" ]; then stop_ours "$s"; fi; done
}

# check_up NAME: the process lives and answers NFS v3 and MOUNT v3 NULL calls
check_up() {
  local name=$1 pid=${SRV_PID[$1]}
  kill -0 "$pid" 2>/dev/null || { tail -5 "$OUT/servers/$name.stderr" >&2 2>/dev/null; return 1; }
  url_up "${SRV_URL[$1]}"
}

# check_files NAME REGEX N BYTES: nfs-ls (libnfs) lists N files named REGEX of BYTES bytes in the root of
# server NAME's export (skipped without nfs-ls)
check_files() {
  command -v nfs-ls >/dev/null || { say "no nfs-ls: the files on $1 are not listed"; return 0; }
  local n
  n=$(nfs-ls "${SRV_URL[$1]}" 2>/dev/null | awk -v re="$2" -v w="$4" '$NF ~ re && $(NF-1) == w' | wc -l)
  [ "$n" = "$3" ] || die "nfs-ls on $1 lists $n of $3 files $2 of $4 bytes"
}

# on_exit, set as the EXIT trap by set_traps: the script's cleanup_hook (its clients, servers), then
# the sampler, Ganesha (when GANESHA_STARTED=1) and WORK; keeps the exit status
GANESHA_STARTED=0
on_exit() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  stop_sampler
  cleanup_hook
  if [ "$GANESHA_STARTED" = 1 ]; then ganesha stop >/dev/null 2>&1 || say "warning: ganesha.sh stop failed"; fi
  rm -rf "$WORK"
  [ $rc = 0 ] || say "failed (rc=$rc); partial results in $OUT"
  exit $rc
}
set_traps() {
  trap on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# check_layout JSON BYTES T0 WHAT: every job of a write+verify pass wrote and read back BYTES (benchlib)
check_layout() {
  python3 "$BENCHLIB" layout "$@" || die "$4: incomplete"
}

# start_sampler OUT SPEC...: CPU samples every 50 ms (benchlib.py sample) into OUT until stop_sampler
SAMPLER=
start_sampler() {
  python3 "$BENCHLIB" sample "$@" &
  SAMPLER=$!
  sleep 0.15
}
stop_sampler() {
  [ -n "$SAMPLER" ] || return 0
  kill -TERM "$SAMPLER" 2>/dev/null || true
  wait "$SAMPLER" 2>/dev/null || true
  SAMPLER=
}
