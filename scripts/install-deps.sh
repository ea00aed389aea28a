#!/bin/bash
# Installs what nfsbench needs to build and test on a Debian 12 machine. Idempotent; run as root
# (or with sudo available). Usage: scripts/install-deps.sh [build|test]
#   build  the Rust toolchain, a C compiler, and rdma-core's headers with libclang (bindgen generates the
#          verbs bindings at build time; the libraries load with or without an RDMA device)
#   test   also the peers and tools the tests use: tshark, the VM lab's packages, cargo-fuzz, and for the
#          nfsbench-client-* interop scenarios NFS-Ganesha (+ rpcbind), iproute2's ss, Debian's fio
#          (fio_jsonplus_clat2csv, with python3-six) and fio-plot in a venv (lab/peers/fio-plot.sh), and
#          Chromium, whose headless mode renders `nfsbench compare`'s HTML report in a test, and Open MPI's
#          mpirun (crates/mpi-rt loads libmpi at run time; the build never needs it)
set -euo pipefail
what=${1:-build}
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

debs="build-essential pkg-config ca-certificates curl python3 libibverbs-dev librdmacm-dev libclang-dev clang"
[ "$what" = test ] && debs="$debs tshark tcpdump python3 python3-six python3-venv iproute2 fio
  nfs-ganesha nfs-ganesha-vfs rpcbind chromium openmpi-bin"
missing=$(for p in $debs; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  echo "install-deps: installing Debian packages:" $missing >&2
  # tshark asks whether non-root users may capture; answer "no" so the install is non-interactive.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] || {
    echo "install-deps: installing the stable Rust toolchain with rustup" >&2
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal -c rustfmt,clippy
  }
fi
export PATH="$HOME/.cargo/bin:$PATH"
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt 2>/dev/null || true

if [ "$what" = test ]; then
  # Coverage-guided fuzzing (libFuzzer) on stable Rust: cargo-fuzz with `--sanitizer none`.
  command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked -q
  # fio-plot (PyPI, pinned) in /var/tmp/nfsbench-peers/fio-plot/venv: reads nfsbench's fio-style JSON.
  "$(dirname "$0")/../lab/peers/fio-plot.sh" >/dev/null
fi
