//! What binds the bandwidth: the concurrency Little's law allows, or a ceiling. Each limit carries the
//! figures it comes from, computes its bandwidth from them, and says so in a sentence.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::format::{bandwidth, plural, size, time};
use crate::seconds;

/// The term of the model that sets the bandwidth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Limit {
    /// The workload's outstanding I/O, as RPCs in flight, over each RPC's latency (Little's law).
    OutstandingIo {
        in_flight_rpcs: u64,
        bytes_per_rpc: f64,
        #[serde(with = "seconds")]
        rpc_latency: Duration,
    },
    /// RPC-over-RDMA credits: at most `credits` calls outstanding per connection (RFC 8166 §3.3.1).
    RdmaCredits {
        credits: u32,
        nconnect: u32,
        bytes_per_rpc: f64,
        #[serde(with = "seconds")]
        rpc_latency: Duration,
    },
    /// The server's RDMA Reads outstanding per connection (its initiator depth), each pulling one write
    /// payload for a round trip plus its serialisation.
    RdmaReadDepth {
        depth: u32,
        nconnect: u32,
        bytes_per_rpc: f64,
        #[serde(with = "seconds")]
        pull_time: Duration,
    },
    /// One receive window unacknowledged per TCP connection per round trip.
    TcpWindow {
        window: u64,
        nconnect: u32,
        #[serde(with = "seconds")]
        rtt: Duration,
    },
    /// The link's rate, all of it payload (headers are ignored).
    LinkRate { rate_bps: u64 },
    /// What the same mount and workload reached with no distance (CPU, copies, the server).
    LanCeiling { throughput: f64 },
}

impl Limit {
    /// Bytes per second this term allows.
    pub fn bandwidth(&self) -> f64 {
        let per_second = |bytes: f64, d: &Duration| bytes / d.as_secs_f64();
        match self {
            Limit::OutstandingIo { in_flight_rpcs, bytes_per_rpc, rpc_latency } => {
                per_second(*in_flight_rpcs as f64 * bytes_per_rpc, rpc_latency)
            }
            Limit::RdmaCredits { credits, nconnect, bytes_per_rpc, rpc_latency } => {
                per_second(f64::from(*credits) * f64::from(*nconnect) * bytes_per_rpc, rpc_latency)
            }
            Limit::RdmaReadDepth { depth, nconnect, bytes_per_rpc, pull_time } => {
                per_second(f64::from(*depth) * f64::from(*nconnect) * bytes_per_rpc, pull_time)
            }
            Limit::TcpWindow { window, nconnect, rtt } => per_second(*window as f64 * f64::from(*nconnect), rtt),
            Limit::LinkRate { rate_bps } => *rate_bps as f64 / 8.0,
            Limit::LanCeiling { throughput } => *throughput,
        }
    }

    /// A short label for tables.
    pub fn name(&self) -> &'static str {
        match self {
            Limit::OutstandingIo { .. } => "outstanding I/O",
            Limit::RdmaCredits { .. } => "RDMA credits",
            Limit::RdmaReadDepth { .. } => "RDMA Read depth",
            Limit::TcpWindow { .. } => "TCP window",
            Limit::LinkRate { .. } => "link rate",
            Limit::LanCeiling { .. } => "LAN ceiling",
        }
    }

    /// The sentence: "outstanding I/O: 16 × 1 MiB in flight over 20.889ms is 803 MB/s".
    pub fn explain(&self) -> String {
        let bw = bandwidth(self.bandwidth());
        match self {
            Limit::OutstandingIo { in_flight_rpcs, bytes_per_rpc, rpc_latency } => format!(
                "outstanding I/O: {in_flight_rpcs} × {} in flight over {} is {bw}",
                size(*bytes_per_rpc),
                time(*rpc_latency)
            ),
            Limit::RdmaCredits { credits, nconnect, bytes_per_rpc, rpc_latency } => format!(
                "RDMA credits: {credits} per connection × {nconnect} connection{} = {} × {} in flight over {} is {bw}",
                plural(u64::from(*nconnect)),
                u64::from(*credits) * u64::from(*nconnect),
                size(*bytes_per_rpc),
                time(*rpc_latency)
            ),
            Limit::RdmaReadDepth { depth, nconnect, bytes_per_rpc, pull_time } => format!(
                "RDMA Read depth: the server pulls at most {depth} write payloads per connection at once, \
                 {} × {} per {} pull (round trip + serialisation) is {bw}",
                u64::from(*depth) * u64::from(*nconnect),
                size(*bytes_per_rpc),
                time(*pull_time)
            ),
            Limit::TcpWindow { window, nconnect, rtt } => format!(
                "TCP window {} per connection over {} × {nconnect} connection{} is {bw}",
                size(*window as f64),
                time(*rtt),
                plural(u64::from(*nconnect))
            ),
            Limit::LinkRate { rate_bps } => {
                format!(
                    "link rate: {} carries {bw} of payload (headers ignored)",
                    mount_options::link::format_rate(*rate_bps)
                )
            }
            Limit::LanCeiling { .. } => format!("LAN ceiling: {bw}, measured with no distance"),
        }
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.explain())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_says_where_its_bandwidth_comes_from() {
        let outstanding =
            Limit::OutstandingIo { in_flight_rpcs: 8, bytes_per_rpc: 1e6, rpc_latency: Duration::from_millis(20) };
        assert_eq!(outstanding.explain(), "outstanding I/O: 8 × 976.6 KiB in flight over 20ms is 400 MB/s");
        let window = Limit::TcpWindow { window: 6 << 20, nconnect: 1, rtt: Duration::from_millis(140) };
        assert_eq!(window.explain(), "TCP window 6 MiB per connection over 140ms × 1 connection is 44.9 MB/s");
        let link = Limit::LinkRate { rate_bps: 10_000_000_000 };
        assert_eq!(link.explain(), "link rate: 10gbit carries 1250 MB/s of payload (headers ignored)");
    }
}
