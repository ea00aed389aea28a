//! The wire baselines: each path's raw transport measured in the same run as the storage cells — a TCP
//! stream over as many connections as a case opens (iperf -P) and a TCP ping-pong (netperf TCP_RR);
//! RDMA Writes over as many queue pairs (ib_write_bw) and a Send ping-pong (ib_send_lat) — against the
//! responders of `nfsbench serve --baseline-listen` (the `wire-baseline` crate). Each path is measured once
//! per repetition of the plan and reported as the median with its interval, as rigorously as the cells.

use crate::plan::Case;
use crate::results::WireBaseline;
use crate::stats::median_interval;
use mount_options::Proto;
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The responders' addresses.
#[derive(Clone, Debug)]
pub struct Responders {
    pub tcp: SocketAddr,
    pub rdma: Option<SocketAddr>,
}

/// A baseline that could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("starting the wire-baseline runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// `what`: "TCP wire baseline", "TCP ping-pong", "RDMA wire baseline" or "RDMA ping-pong".
    #[error("{what} against {addr}: {source}")]
    Measure {
        what: &'static str,
        addr: SocketAddr,
        /// Boxed: an RDMA error is large, and this one travels up through every caller.
        #[source]
        source: Box<wire_baseline::WireError>,
    },
}

/// Ping-pong message size: a small RPC's worth.
const PING_BYTES: u32 = 64;

/// One sample of a path: streaming MB/s and the ping-pong's median round trip, µs.
struct Sample {
    mbs: f64,
    round_trip_us: f64,
}

/// Measure every (transport, connections) the cases use, `rounds` times (the plan's repetitions; every
/// path once per round, in turn), and report each path's medians with their intervals; `provider`
/// carries the RDMA ones.
pub fn measure(
    responders: &Responders,
    cases: &[&Case],
    provider: Option<Arc<dyn rdma::Provider>>,
    duration: Duration,
    rounds: u32,
) -> Result<Vec<WireBaseline>, BaselineError> {
    let kinds: BTreeSet<(bool, u32)> = cases.iter().map(|c| (c.is_rdma(), c.nconnect.max(1))).collect();
    // RDMA paths need a responder and a provider.
    let kinds: Vec<(bool, u32)> =
        kinds.into_iter().filter(|(rdma, _)| !rdma || (responders.rdma.is_some() && provider.is_some())).collect();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(BaselineError::Runtime)?;
    runtime.block_on(async {
        let mut samples: Vec<Vec<Sample>> = kinds.iter().map(|_| Vec::new()).collect();
        for _ in 0..rounds.max(1) {
            for (k, &(rdma, connections)) in kinds.iter().enumerate() {
                samples[k].push(sample(responders, provider.as_deref(), rdma, connections, duration).await?);
            }
        }
        Ok(kinds
            .iter()
            .zip(samples)
            .map(|(&(rdma, connections), samples)| {
                let bandwidth = median_interval(&samples.iter().map(|s| s.mbs).collect::<Vec<_>>());
                let round_trip = median_interval(&samples.iter().map(|s| s.round_trip_us).collect::<Vec<_>>());
                let description = if rdma {
                    let name = provider.as_deref().map(|p| p.name()).unwrap_or_default();
                    format!("RDMA Write, {name}, {connections} queue pair{}, 1 MiB messages", plural(connections))
                } else {
                    format!("TCP stream to {}, {connections} connection{}", responders.tcp, plural(connections))
                };
                WireBaseline {
                    proto: if rdma { Proto::Rdma } else { Proto::Tcp },
                    connections,
                    description,
                    bandwidth_mbs: bandwidth.median,
                    round_trip_us: round_trip.median,
                    bandwidth: Some(bandwidth),
                    round_trip: Some(round_trip),
                }
            })
            .collect())
    })
}

/// One round of one path: its stream, then its ping-pong.
async fn sample(
    responders: &Responders,
    provider: Option<&dyn rdma::Provider>,
    rdma: bool,
    connections: u32,
    duration: Duration,
) -> Result<Sample, BaselineError> {
    match (rdma, responders.rdma, provider) {
        (true, Some(addr), Some(provider)) => {
            let stream = wire_baseline::rdma_write_bandwidth(provider, addr, connections, duration)
                .await
                .map_err(failed("RDMA wire baseline", addr))?;
            let ping = wire_baseline::rdma_ping_pong(provider, addr, PING_BYTES, duration / 2)
                .await
                .map_err(failed("RDMA ping-pong", addr))?;
            Ok(Sample { mbs: stream.mbs(), round_trip_us: ping.median_us })
        }
        _ => {
            let addr = responders.tcp;
            let stream = wire_baseline::tcp_stream(addr, connections, duration)
                .await
                .map_err(failed("TCP wire baseline", addr))?;
            let ping = wire_baseline::tcp_ping_pong(addr, PING_BYTES, duration / 2)
                .await
                .map_err(failed("TCP ping-pong", addr))?;
            Ok(Sample { mbs: stream.mbs(), round_trip_us: ping.median_us })
        }
    }
}

fn failed(what: &'static str, addr: SocketAddr) -> impl Fn(wire_baseline::WireError) -> BaselineError {
    move |source| BaselineError::Measure { what, addr, source: Box::new(source) }
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
