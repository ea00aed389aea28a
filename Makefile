# nfsbench — the two commands the README promises, and the pieces they are made of.
#   make run    installs what is needed and runs the main job
#   make test   installs what is needed and runs every test (what CI runs)
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
FUZZ_SECONDS ?= 10

.PHONY: run test deps deps-test build lint unit flake-check hostile soak fuzz-smoke interop bench

# The main job: `nfsbench compare` with its default plan — the embedded RAM server on loopback, TCP,
# TCP nconnect=4, RDMA and RDMA over 2 queue pairs × the studies' four workloads × 3 repetitions (the soft
# RDMA provider when there is no RDMA device), ratios with 95% intervals and report.html in COMPARE_OUT.
COMPARE_OUT ?= nfsbench-compare
run: deps build
	target/release/nfsbench compare --out $(COMPARE_OUT) $(COMPARE_ARGS)

# A full run builds everything once: no incremental caches, and test binaries with line tables only (their
# panics and backtraces keep file and line): a fresh machine's disk holds the run with room to spare.
test: export CARGO_INCREMENTAL := 0
test: export CARGO_PROFILE_DEV_DEBUG := line-tables-only
test: deps-test lint unit hostile fuzz-smoke interop
	@echo "make test: all checks passed"

deps:
	scripts/install-deps.sh build

deps-test:
	scripts/install-deps.sh test

build:
	cargo build --release --locked -p nfsbench

# Also: nfsbench still builds without rdma-core (`--no-default-features`: the soft RDMA provider only).
lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --locked -- -D warnings
	cargo clippy --no-default-features -p nfsbench --all-targets --locked -- -D warnings
	scripts/check-doc-links.sh
	scripts/check-soft-only-build.sh

unit:
	cargo test --workspace --locked

# Flaky-test hunt (not part of `make test`): the unit suite ROUNDS times while a CPU hog loads every core.
ROUNDS ?= 3
flake-check:
	scripts/flake-check.sh $(ROUNDS)

# The hostile-client suite: `nfsbench serve` under each attack of crates/hostile with a good client
# beside it (release build: it judges the good client's IOPS and p99 against its undisturbed figures).
hostile:
	cargo test --release --locked -p nfsbench --test hostile --test hostile_rdma --test hostile_v4 -- --test-threads=1

# Ten minutes of the studies' four workloads from 8 clients while the attacks run in rotation.
soak:
	scripts/soak.sh

fuzz-smoke:
	scripts/fuzz-smoke.sh $(FUZZ_SECONDS)

# The Linux kernel NFS client, libnfs, fio's nfs engine and tshark against `nfsbench serve`
# (boots Debian's kernel under QEMU; installs its own packages and fetches the kernel once).
interop: build
	tests/interop/run.sh $(SCENARIO)   # make interop SCENARIO=fio-nfs-engine

bench:
	cargo bench -p nfs3-proto --bench codec
