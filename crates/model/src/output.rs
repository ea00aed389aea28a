//! What the model predicts for one input.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::limit::Limit;
use crate::placement::RpcShape;
use crate::seconds;

/// Where an I/O's time goes (seconds in JSON). The first three make up one RPC's latency; queueing is
/// what a binding ceiling or missing credits add on top (Little's law: outstanding I/Os ÷ IOPS).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyBreakdown {
    /// The LAN service time: client, server and the local network with no distance.
    #[serde(with = "seconds")]
    pub service: Duration,
    /// Round trips per RPC × RTT.
    #[serde(with = "seconds")]
    pub round_trips: Duration,
    /// The largest RPC's payload at the link rate.
    #[serde(with = "seconds")]
    pub serialisation: Duration,
    /// Waiting for a credit, the window, the link or the hosts.
    #[serde(with = "seconds")]
    pub queueing: Duration,
}

/// The prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelOutput {
    /// The round trip this prediction is for (seconds in JSON).
    #[serde(with = "seconds")]
    pub rtt: Duration,
    /// Payload bytes per second.
    pub bandwidth: f64,
    /// I/Os per second (bandwidth ÷ bs).
    pub iops: f64,
    /// Per I/O, as fio's completion latency would show it (seconds in JSON).
    #[serde(with = "seconds")]
    pub latency: Duration,
    pub breakdown: LatencyBreakdown,
    /// Network round trips per RPC (2 for an RDMA write pulled through a Read chunk, else 1).
    pub round_trips: u32,
    /// How an I/O becomes RPCs and how their data moves.
    pub shape: RpcShape,
    /// RPCs issued and not yet answered: outstanding I/Os × RPCs per I/O, at most the credits.
    pub in_flight_rpcs: u64,
    /// The term that sets the bandwidth.
    pub limit: Limit,
    /// `limit` in a sentence.
    pub explanation: String,
}
