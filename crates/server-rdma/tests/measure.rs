//! Rates of the RDMA front end over the software provider, client and server in one process (ignored by
//! default; run `cargo test --release -p server-rdma --test measure -- --ignored --nocapture`). The
//! requester registers fresh memory per call, as a client does, so its costs are in the figures.
//!
//! Measured on the shared 2-core machine (release, soft provider with its SOCK_SEQPACKET channel, RAM
//! export, 2 runtime workers, 2026-11-22; runs vary by ±50 % with the machine's load):
//!
//! | load                   | rate                        |
//! |------------------------|-----------------------------|
//! | 4 KiB READ, depth 1    | 6k–70k ops/s (14–160 µs)    |
//! | 4 KiB READ, depth 32   | 94k–165k ops/s              |
//! | 4 KiB WRITE, depth 32  | 87k–144k ops/s              |
//! | 1 MiB READ, depth 1    | 2.0–5.3 GB/s                |
//! | 1 MiB READ, depth 8    | 1.6–2.2 GB/s                |
//! | 1 MiB WRITE, depth 8   | 2.0–3.2 GB/s (1.6–2.1 before call buffers were pooled) |
//!
//! At depth 8 the fresh 1 MiB buffers (the requester's, the backend's READ data) make glibc return
//! memory to the kernel and fault it back in: with `MALLOC_TRIM_THRESHOLD_` and
//! `MALLOC_MMAP_THRESHOLD_` at 1 GB, 1 MiB READs at depth 8 ran at 5.0 GB/s (466k page faults per run
//! before pooling, 255k after, 6.7k with those settings).
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::nfs::{create, nfs_call, reply_chunks, write_by_read_chunk, READ};
use common::{pattern, segments, Requester, Running};
use nfs3_proto::{FileHandle3, ReadArgs, StableHow, WriteArgs};
use rdma::{Access, MemoryRegion, RegBuf};
use rpcrdma_proto::{ChunkLists, RdmaHeader, ReadChunk, WriteChunk};

/// Sends `total` calls made by `make`, keeping `depth` in flight; the time taken.
async fn pipelined(
    req: &mut Requester,
    total: u32,
    depth: u32,
    mut make: impl FnMut(&Requester, u32) -> (RdmaHeader, Vec<u8>, MemoryRegion),
) -> Duration {
    let started = Instant::now();
    let mut in_flight: HashMap<u32, MemoryRegion> = HashMap::new();
    let (mut sent, mut done) = (0, 0);
    while done < total {
        while sent < total && (in_flight.len() as u32) < depth {
            let xid = 1_000_000 + sent;
            let (header, rpc, region) = make(req, xid);
            req.send(&header, &rpc);
            in_flight.insert(xid, region);
            sent += 1;
        }
        let (reply, _) = req.reply().await;
        assert!(!reply_chunks(&reply).writes.iter().any(|w| w.byte_len() == 0), "data written");
        let region = in_flight.remove(&reply.xid).expect("a call of ours");
        region.invalidate();
        done += 1;
    }
    started.elapsed()
}

fn read_call(req: &Requester, xid: u32, file: FileHandle3, size: usize) -> (RdmaHeader, Vec<u8>, MemoryRegion) {
    let region = req.register(RegBuf::Writable(vec![0; size]), Access::LOCAL_WRITE | Access::REMOTE_WRITE);
    let chunk = WriteChunk { segments: segments(&region, size, size) };
    let header = RdmaHeader::msg(xid, 64, ChunkLists { writes: rpcrdma_proto::smallvec![chunk], ..Default::default() });
    let call = nfs_call(xid, READ, &ReadArgs { file, offset: 0, count: size as u32 });
    (header, call.inline, region)
}

fn write_call(req: &Requester, xid: u32, file: FileHandle3, data: &[u8]) -> (RdmaHeader, Vec<u8>, MemoryRegion) {
    let call = nfs_call(xid, common::nfs::WRITE, &WriteArgs::new(file, 0, StableHow::Unstable, data));
    let (position, len) = call.payload.expect("payload");
    let region = req.register(RegBuf::ReadOnly(data.to_vec().into()), Access::REMOTE_READ);
    let chunk = ReadChunk { position, segments: segments(&region, len, len) };
    let header = RdmaHeader::msg(xid, 64, ChunkLists { reads: rpcrdma_proto::smallvec![chunk], ..Default::default() });
    (header, call.inline, region)
}

fn report(what: &str, ops: u32, size: usize, took: Duration) {
    let secs = took.as_secs_f64();
    println!(
        "{what:<28} {ops:>6} ops  {:>9.0} ops/s  {:>8.1} µs/op  {:>7.2} GB/s",
        f64::from(ops) / secs,
        secs * 1e6 / f64::from(ops),
        (f64::from(ops) * size as f64) / secs / 1e9
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement; run with --release -- --ignored --nocapture"]
async fn measures_read_and_write_rates_over_the_soft_provider() {
    let running = Running::start().await;
    let mut req = running.connect().await;
    let file = create(&mut req, 1, running.root(), b"measure").await;
    write_by_read_chunk(&mut req, 2, file, &pattern(1 << 20, 1), 1 << 20).await;
    for (what, size, depth, ops) in [
        ("4 KiB READ, depth 1", 4096, 1, 5000),
        ("4 KiB READ, depth 32", 4096, 32, 20000),
        ("1 MiB READ, depth 1", 1 << 20, 1, 300),
        ("1 MiB READ, depth 8", 1 << 20, 8, 1000),
    ] {
        let took = pipelined(&mut req, ops, depth, |r, xid| read_call(r, xid, file, size)).await;
        report(what, ops, size, took);
    }
    let data = pattern(1 << 20, 2);
    for (what, size, depth, ops) in
        [("4 KiB WRITE, depth 32", 4096, 32, 20000), ("1 MiB WRITE, depth 8", 1 << 20, 8, 1000)]
    {
        let took = pipelined(&mut req, ops, depth, |r, xid| write_call(r, xid, file, &data[..size])).await;
        report(what, ops, size, took);
    }
    println!("{}", running.stats.snapshot());
    running.stop().await;
}
