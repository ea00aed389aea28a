#!/bin/bash
# lab/peers/fio-plot.sh — makes (once) a Python venv with fio-plot (PyPI), the fio JSON charting tool
# whose JSON import storage people use on fio results, and prints the venv's python on stdout.
#
# fio-plot reads fio's --output-format=json(+) files (fio_plot.fiolib.jsonimport / jsonparsing) and
# draws PNG charts with matplotlib; tests/interop/scenarios/nfsbench-client-study-job.sh feeds it
# nfsbench's JSON. The version is pinned so that a new release cannot change what the test checks.
#
# Idempotent: when the venv exists and imports the pinned version, it only prints the path. Everything
# except that path goes to stderr. Uses Debian's /usr/bin/python3, so needs python3-venv (installed here
# if missing; root or sudo for apt).
# First run ~15–60 s (pip downloads fio-plot, matplotlib, numpy, pillow wheels); cached ~0.2 s.
#
#   usage: PY=$(lab/peers/fio-plot.sh)      # then: $PY -m fio_plot ...  or  $(dirname $PY)/fio-plot ...
#   env:   NFSBENCH_PEERS_DIR  cache root (default /var/tmp/nfsbench-peers); venv at $NFSBENCH_PEERS_DIR/fio-plot/venv
set -euo pipefail

VERSION=1.1.21
root=${NFSBENCH_PEERS_DIR:-/var/tmp/nfsbench-peers}/fio-plot
venv=$root/venv
py=$venv/bin/python3
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

say() { echo "fio-plot: $*" >&2; }
die() { say "error: $*"; exit 1; }

current() { # the venv is Debian's python's and imports fio_plot at the pinned version
  [ -x "$py" ] && [ -x "$venv/bin/fio-plot" ] && grep -qx 'home = /usr/bin' "$venv/pyvenv.cfg" 2>/dev/null \
    && [ "$("$py" -c 'import importlib.metadata as m; print(m.version("fio-plot"))' 2>/dev/null)" = "$VERSION" ] \
    && "$py" -c 'import fio_plot.fiolib.jsonimport, fio_plot.fiolib.jsonparsing' 2>/dev/null
}

mkdir -p "$root"
exec 9>"$root/.lock"
flock 9   # one install at a time; a second caller waits, then takes the fast path

if current; then echo "$py"; exit 0; fi

if ! dpkg -s python3-venv >/dev/null 2>&1; then
  say "installing python3-venv"
  $SUDO apt-get update -qq >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi

rm -rf "$venv"
say "creating $venv and installing fio-plot==$VERSION from PyPI"
# Debian's python3 (python3-venv), not whichever python3 comes first in PATH (pyenv, a user's venv).
/usr/bin/python3 -m venv "$venv" || die "/usr/bin/python3 -m venv failed"
"$py" -m pip install -q --disable-pip-version-check "fio-plot==$VERSION" >&2 || die "pip install fio-plot==$VERSION failed"
current || die "the venv does not import fio_plot $VERSION after the install"
say "fio-plot $VERSION ready ($venv)"
echo "$py"
