//! Random reads at a fixed depth against a server, for measuring the client's cost per call:
//!
//! ```text
//! cargo run --release -p nfs-client --example randread -- 127.0.0.1:/export "port=2049,mountport=2049" \
//!     FILE [SECONDS] [IODEPTH] [BLOCK] [FILE_SIZE]
//! ```
//!
//! Runs on a current-thread runtime (one core for the client). FILE is created and filled to
//! FILE_SIZE (default 256 MiB) first when it is shorter. With `proto=rdma` in OPTIONS the NFS
//! connections are RPC-over-RDMA over the software provider (`rdma-soft`: a server on this host).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use mount_options::{MountConfig, MountSpec};
use nfs_client::{CreateHow, NfsClient, StableHow};

// As in the nfsbench binary: glibc returns large freed buffers to the kernel, costing page faults.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn arg<T: std::str::FromStr>(args: &[String], i: usize, default: T) -> T {
    args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(target), Some(options), Some(file)) = (args.get(1), args.get(2), args.get(3)) else {
        return Err("usage: randread TARGET OPTIONS FILE [SECONDS] [IODEPTH] [BLOCK] [FILE_SIZE]".into());
    };
    let seconds: u64 = arg(&args, 4, 10);
    let depth: usize = arg(&args, 5, 32);
    let block: u32 = arg(&args, 6, 4096);
    let file_size: u64 = arg(&args, 7, 256 << 20);
    let spec = MountSpec::parse(target, Some(options))?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        let config = MountConfig::new(spec);
        let mut mount = NfsClient::builder(&config);
        if config.is_rdma() {
            mount = mount.rdma_provider(Arc::new(rdma_soft::SoftProvider::new()?));
        }
        let client = mount.mount().await?;
        let (fh, attr) = client.create(client.root(), file, CreateHow::Unchecked, 0o644).await?;
        if attr.size < file_size {
            let chunk = Bytes::from(vec![0x5a; client.wsize() as usize]);
            let mut offset = 0;
            while offset < file_size {
                client.write(&fh, offset, chunk.clone(), StableHow::Unstable).await?;
                offset += chunk.len() as u64;
            }
            client.commit(&fh, 0, 0).await?;
        }
        let blocks = file_size / u64::from(block);
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next_offset = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % blocks) * u64::from(block)
        };
        let mut in_flight = VecDeque::with_capacity(depth);
        for _ in 0..depth {
            in_flight.push_back(client.submit_read(&fh, next_offset(), block));
        }
        let started = Instant::now();
        let until = started + Duration::from_secs(seconds);
        let (mut done, mut running) = (0u64, true);
        while let Some(pending) = in_flight.pop_front() {
            pending.await?;
            done += 1;
            running = running && (done % 64 != 0 || Instant::now() < until);
            if running {
                in_flight.push_back(client.submit_read(&fh, next_offset(), block));
            }
        }
        let elapsed = started.elapsed().as_secs_f64();
        let stats = client.stats();
        println!(
            "{done} reads of {block} B in {elapsed:.2} s: {:.0} IOPS, {:.1} MiB/s (depth {depth}, {} {} connection(s), {} retransmissions)",
            done as f64 / elapsed,
            done as f64 * f64::from(block) / elapsed / (1 << 20) as f64,
            client.connections().len(),
            client.connections().first().map_or("", |c| c.transport.as_str()),
            stats.retransmissions
        );
        client.unmount().await?;
        Ok(())
    })
}
