#!/bin/bash
# nfsbench builds without rdma-core: `--no-default-features` drops the verbs provider (crates/rdma-verbs
# over crates/rdma-sys, whose build runs bindgen on rdma-core's headers through libclang) and keeps the
# soft one. Fails when rdma-sys, bindgen or clang-sys creep back into that build's dependency graph, or
# when that build does not compile.
# Usage: scripts/check-soft-only-build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

# Normal and build dependencies only: what compiling the binary needs (dev-dependencies are the tests').
graph=$(cargo tree --locked --no-default-features -p nfsbench -e normal,build --prefix none)
needs_rdma_core=$(grep -E '^(rdma-sys|rdma-verbs|bindgen|clang-sys) ' <<<"$graph" | sort -u || true)
if [ -n "$needs_rdma_core" ]; then
  echo "check-soft-only-build: \`cargo build --no-default-features -p nfsbench\` would need rdma-core/libclang:" >&2
  sed 's/^/  /' <<<"$needs_rdma_core" >&2
  echo "  (see why with: cargo tree --no-default-features -p nfsbench -e normal,build -i rdma-sys)" >&2
  exit 1
fi
cargo check --locked --no-default-features -p nfsbench
echo "check-soft-only-build: nfsbench --no-default-features needs neither rdma-core headers nor libclang"
