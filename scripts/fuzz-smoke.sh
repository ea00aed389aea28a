#!/bin/bash
# Runs every fuzz target for a short fixed budget, seeded from the golden wire vectors.
# Coverage-guided (libFuzzer through cargo-fuzz) on stable Rust, so no sanitizer: the code under test
# is free of `unsafe`; what we look for is panics, round-trip violations and unbounded memory.
# Usage: scripts/fuzz-smoke.sh [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo-fuzz >/dev/null || { echo "fuzz-smoke: cargo-fuzz missing; run scripts/install-deps.sh test" >&2; exit 2; }

# The build's own output is kept: CI shows only the end of a failed run, and cargo-fuzz's backtrace would
# push the compiler's message out of it. A build that fails is tried once more on one job (a link killed
# for memory or a full temporary directory passes then; a real compile error fails twice), with what the
# compiler said and the machine's memory and disk printed first.
build_log=$(mktemp); trap 'rm -f "$build_log"' EXIT
build() { RUST_BACKTRACE=0 cargo fuzz build --fuzz-dir fuzz -s none -O >"$build_log" 2>&1; }
compiler_said() {
  grep -E -B3 -A12 '^(error|warning: .*(killed|signal))|fatal error|terminated' "$build_log" | head -80 >&2 || true
}
if ! build; then
  echo "fuzz-smoke: the fuzz build failed; what the compiler said:" >&2
  compiler_said
  echo "fuzz-smoke: memory and disk at that moment:" >&2
  free -m >&2; df -h . "${TMPDIR:-/tmp}" >&2
  dmesg 2>/dev/null | grep -iE 'out of memory|oom-kill|killed process' | tail -5 >&2 || true
  echo "fuzz-smoke: building again on one job" >&2
  if ! CARGO_BUILD_JOBS=1 build; then
    compiler_said
    echo "fuzz-smoke: the fuzz build failed twice" >&2
    exit 1
  fi
fi
targets=$(cargo fuzz list --fuzz-dir fuzz)
work=$(mktemp -d); trap 'rm -rf "$work" "$build_log"' EXIT
# Seeds from the golden wire vectors, cut to each target's input format (scripts/fuzz-seeds.py).
python3 scripts/fuzz-seeds.py "$work/golden-seeds" >/dev/null
fails=0 passed=0
for t in $targets; do
  corpus="$work/$t"; mkdir -p "$corpus"
  # Seeds: each target's own saved corpus (if any) plus its golden seeds; libFuzzer mutates from there.
  [ -d "fuzz/seeds/$t" ] && cp fuzz/seeds/$t/* "$corpus/" 2>/dev/null || true
  if [ -d "$work/golden-seeds/$t" ]; then
    cp "$work/golden-seeds/$t"/* "$corpus/"
  else
    echo "fuzz $t: no golden seeds (add its input format to scripts/fuzz-seeds.py)" >&2
  fi
  # -malloc_limit_mb: a single allocation above 64 MiB is a finding (hostile lengths must not allocate).
  if cargo fuzz run --fuzz-dir fuzz -s none -O "$t" "$corpus" -- \
      -max_total_time="$secs" -rss_limit_mb=1024 -malloc_limit_mb=64 -max_len=1100000 \
      -print_final_stats=1 > "$work/$t.log" 2>&1; then
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$work/$t.log" | grep -oE '[0-9]+$' || echo '?')
    echo "fuzz $t: ok, $runs inputs in ${secs}s"
    passed=$((passed + 1))
  else
    echo "fuzz $t: FAILED"; tail -40 "$work/$t.log"
    mkdir -p fuzz/artifacts && cp -r fuzz/artifacts "$work/" 2>/dev/null || true
    fails=$((fails + 1))
  fi
done
echo "fuzz: $passed passed, $fails failed"
[ "$fails" = 0 ]
