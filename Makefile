# nfsbench — the two commands the README promises, and the pieces they are made of.
#   make run    installs what is needed and runs the main job
#   make test   installs what is needed and runs every test (what CI runs)
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
FUZZ_SECONDS ?= 10

.PHONY: run test deps deps-test build lint unit fuzz-smoke interop bench

# The embedded RAM server on loopback measured by nfsbench's own client over TCP and over RPC-over-RDMA
# (jobs/transport-study.fio; the soft RDMA provider when there is no RDMA device), as RDMA/TCP ratios.
run: deps build
	scripts/main-job.sh

test: deps-test lint unit fuzz-smoke interop
	@echo "make test: all checks passed"

deps:
	scripts/install-deps.sh build

deps-test:
	scripts/install-deps.sh test

build:
	cargo build --release --locked -p nfsbench

lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --locked -- -D warnings

unit:
	cargo test --workspace --locked

fuzz-smoke:
	scripts/fuzz-smoke.sh $(FUZZ_SECONDS)

# The Linux kernel NFS client, libnfs, fio's nfs engine and tshark against `nfsbench serve`
# (boots Debian's kernel under QEMU; installs its own packages and fetches the kernel once).
interop: build
	tests/interop/run.sh $(SCENARIO)   # make interop SCENARIO=fio-nfs-engine

bench:
	cargo bench -p nfs3-proto --bench codec
