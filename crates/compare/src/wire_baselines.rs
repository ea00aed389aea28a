//! The wire baselines: each path's raw transport measured in the same run as the storage cells — a TCP
//! stream over as many connections as a case opens (iperf -P) and a TCP ping-pong (netperf TCP_RR);
//! RDMA Writes over as many queue pairs (ib_write_bw) and a Send ping-pong (ib_send_lat) — against the
//! responders of `nfsbench serve --baseline-listen` (the `wire-baseline` crate).

use crate::plan::Case;
use crate::results::WireBaseline;
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

/// Measure every (transport, connections) the cases use; `provider` carries the RDMA ones.
pub fn measure(
    responders: &Responders,
    cases: &[&Case],
    provider: Option<Arc<dyn rdma::Provider>>,
    duration: Duration,
) -> Result<Vec<WireBaseline>, BaselineError> {
    let kinds: BTreeSet<(bool, u32)> = cases.iter().map(|c| (c.is_rdma(), c.nconnect.max(1))).collect();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(BaselineError::Runtime)?;
    runtime.block_on(async {
        let mut out = Vec::new();
        for (rdma, connections) in kinds {
            let baseline = if rdma {
                let (Some(addr), Some(provider)) = (responders.rdma, provider.as_deref()) else {
                    continue;
                };
                let stream = wire_baseline::rdma_write_bandwidth(provider, addr, connections, duration)
                    .await
                    .map_err(failed("RDMA wire baseline", addr))?;
                let ping = wire_baseline::rdma_ping_pong(provider, addr, PING_BYTES, duration / 2)
                    .await
                    .map_err(failed("RDMA ping-pong", addr))?;
                WireBaseline {
                    proto: Proto::Rdma,
                    connections,
                    description: format!(
                        "RDMA Write, {}, {connections} queue pair{}, 1 MiB messages",
                        provider.name(),
                        plural(connections)
                    ),
                    bandwidth_mbs: stream.mbs(),
                    round_trip_us: ping.median_us,
                }
            } else {
                let addr = responders.tcp;
                let stream = wire_baseline::tcp_stream(addr, connections, duration)
                    .await
                    .map_err(failed("TCP wire baseline", addr))?;
                let ping = wire_baseline::tcp_ping_pong(addr, PING_BYTES, duration / 2)
                    .await
                    .map_err(failed("TCP ping-pong", addr))?;
                WireBaseline {
                    proto: Proto::Tcp,
                    connections,
                    description: format!("TCP stream to {addr}, {connections} connection{}", plural(connections)),
                    bandwidth_mbs: stream.mbs(),
                    round_trip_us: ping.median_us,
                }
            };
            out.push(baseline);
        }
        Ok(out)
    })
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
