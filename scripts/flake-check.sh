#!/bin/bash
# Flaky-test hunt: runs the whole unit suite (`cargo test --workspace --locked`) ROUNDS times while a CPU
# hog keeps every core busy (stress-ng when installed, else one `yes` loop per core), so timing-dependent
# tests meet a loaded machine as they do on a busy CI host. Prints each round's pass/fail with the names
# of the failing tests; exits 1 if any round failed. Not part of `make test`.
# Usage: scripts/flake-check.sh [ROUNDS]   (default 3; `make flake-check ROUNDS=5`)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
rounds=${1:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "flake-check: ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2; }

# Build every test binary before the hog starts: the rounds measure the tests, not the compiler.
cargo test --workspace --locked --no-run

logs=$(mktemp -d /tmp/flake-check.XXXXXX)
hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null || true; done
  hogs=()
}
trap stop_hogs EXIT
cores=$(nproc)
if command -v stress-ng >/dev/null; then
  stress-ng --cpu "$cores" --quiet & hogs+=($!)
  hog="stress-ng --cpu $cores"
else
  for _ in $(seq "$cores"); do yes >/dev/null & hogs+=($!); done
  hog="$cores \`yes\` loops"
fi
echo "flake-check: $rounds round(s) of cargo test --workspace under $hog; logs in $logs"

# The failing tests of a cargo test log, each as "BINARY: TEST", BINARY being the test target cargo ran
# ("unittests src/lib.rs (report)", "tests/run.rs (run)", "Doc-tests report").
failing_tests() {
  awk '
    /^ *Running / { bin = $0; sub(/^ *Running /, "", bin); sub(/ \(.*$/, "", bin)
                    if (match($0, /\([^)]*\)$/)) { n = split(substr($0, RSTART + 1, RLENGTH - 2), p, "/")
                      dep = p[n]; sub(/-[0-9a-f]+$/, "", dep); bin = bin " (" dep ")" } }
    /^ *Doc-tests / { bin = "Doc-tests " $2 }
    /^test .* \.\.\. FAILED$/ { name = $0; sub(/^test /, "", name); sub(/ \.\.\. FAILED$/, "", name); print bin ": " name }
  ' "$1"
}

failed_rounds=0
for round in $(seq "$rounds"); do
  log="$logs/round-$round.log"
  start=$SECONDS
  if cargo test --workspace --locked --no-fail-fast >"$log" 2>&1; then
    passed=$(grep -Eo '^test result: ok\. [0-9]+ passed' "$log" | awk '{ n += $4 } END { print n + 0 }')
    echo "round $round/$rounds: pass ($passed tests, $((SECONDS - start)) s)"
  else
    failed_rounds=$((failed_rounds + 1))
    failures=$(failing_tests "$log")
    echo "round $round/$rounds: FAIL ($((SECONDS - start)) s; $log)"
    if [ -n "$failures" ]; then
      sed 's/^/  failed: /' <<<"$failures"
    else
      echo "  no test reported FAILED: cargo itself failed (a build error or a crashed test binary); see the log"
      tail -n 5 "$log" | sed 's/^/  | /'
    fi
  fi
done
stop_hogs

if [ "$failed_rounds" -gt 0 ]; then
  echo "flake-check: $failed_rounds of $rounds round(s) failed (logs in $logs)"
  exit 1
fi
rm -rf "$logs"
echo "flake-check: all $rounds round(s) passed"
