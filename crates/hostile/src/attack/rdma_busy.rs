//! Soft-RDMA peers that hold the server's busy counters: each connects to the server's RPC-over-RDMA
//! listener, raises every busy counter the server consults before it frees a registration of its own
//! (a local process holding the other side's shared memory can), then sends a WRITE of 8 bytes in a
//! Read chunk, so that the server RDMA-Reads them into a buffer it registers and must deregister. A
//! server that waits for the counters stalls; a sound one quarantines the buffer and drops the peer.
//! Each peer keeps its connection until the server drops it, then connects again after a pause.
//!
//! The file written is made over TCP first (MOUNT and CREATE with the raw client): the RDMA front end
//! serves no MOUNT.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use nfs3_proto::FileHandle3;

use super::Tally;
use crate::rdma::RdmaRequester;
use crate::rpc::{RawClient, RpcFailure, Target};

const FILE_NAME: &str = "hostile-rdma-busy";
/// Pause before connecting again once the server dropped (or refused) a peer.
const REOPEN_PAUSE: Duration = Duration::from_millis(100);
/// How long a peer waits for the server to drop it before it gives up and disconnects itself (a
/// server that does not drop a peer holding its counters keeps the connection that long each time).
const HOLD_LIMIT: Duration = Duration::from_secs(5);
/// How often a waiting peer looks at the stop flag.
const STEP: Duration = Duration::from_millis(20);

pub(super) fn run(
    target: &Target,
    rdma: SocketAddr,
    connections: usize,
    stop: &AtomicBool,
    tally: &Tally,
) -> Result<(), RpcFailure> {
    let fh = prepare(target)?;
    // The listener is there and serves an honest peer: otherwise the attack cannot start.
    runtime()?.block_on(async {
        let mut probe = RdmaRequester::connect(rdma).await?;
        probe.null().await?;
        probe.disconnect();
        Ok::<_, RpcFailure>(())
    })?;
    std::thread::scope(|scope| {
        for _ in 0..connections {
            scope.spawn(|| match runtime() {
                Ok(rt) => rt.block_on(hold(rdma, &fh, stop, tally)),
                Err(_) => tally.refused(),
            });
        }
    });
    Ok(())
}

/// A runtime of the calling thread's own, for the provider.
fn runtime() -> Result<tokio::runtime::Runtime, RpcFailure> {
    Ok(tokio::runtime::Builder::new_current_thread().enable_all().build()?)
}

/// Mounts over TCP and makes the file to write (any existing one of that name is reused).
fn prepare(target: &Target) -> Result<FileHandle3, RpcFailure> {
    let mut client = RawClient::connect(target.addr)?;
    let root = client.mount(&target.export)?;
    client.create(&root, FILE_NAME, 0o644)
}

/// One peer, connecting again and again until stopped.
async fn hold(rdma: SocketAddr, fh: &FileHandle3, stop: &AtomicBool, tally: &Tally) {
    while !stop.load(Relaxed) {
        let (mut peer, counters) = match RdmaRequester::connect_with_counters(rdma).await {
            Ok(connected) => connected,
            Err(_) => {
                tally.refused();
                pause(stop).await;
                continue;
            }
        };
        tally.connected();
        counters.raise_all();
        // The region stays registered (and the counters up) until the connection is over.
        let _region = match peer.send_write_by_read_chunk(fh, &[0x5a; 8]) {
            Ok((region, bytes)) => {
                tally.sent(1, bytes);
                Some(region)
            }
            Err(_) => None,
        };
        let deadline = Instant::now() + HOLD_LIMIT;
        let mut dropped = false;
        while !stop.load(Relaxed) && Instant::now() < deadline {
            if peer.closed_within(STEP).await {
                dropped = true;
                break;
            }
        }
        if dropped {
            tally.closed();
        } else {
            peer.disconnect();
        }
        drop((peer, counters));
        pause(stop).await;
    }
}

/// Sleeps [`REOPEN_PAUSE`] unless stopped first.
async fn pause(stop: &AtomicBool) {
    let until = Instant::now() + REOPEN_PAUSE;
    while !stop.load(Relaxed) && Instant::now() < until {
        tokio::time::sleep(STEP).await;
    }
}
