//! The prediction: one RPC's latency, the RPCs in flight, Little's law, and the ceilings.

use std::time::Duration;

use mount_options::Proto;

use crate::input::ModelInput;
use crate::limit::Limit;
use crate::output::{LatencyBreakdown, ModelOutput};
use crate::placement::{Placement, RpcShape};

/// A floor under one RPC's latency, so that a zero LAN latency over no distance stays finite.
const MIN_RPC_LATENCY: Duration = Duration::from_nanos(1);

/// Predicts bandwidth, IOPS and latency for `input`, and names the binding limit.
pub fn predict(input: &ModelInput) -> ModelOutput {
    let ModelInput { mount, workload, network, lan } = input;
    let shape = RpcShape::of(mount, workload);
    let round_trips = shape.placement.round_trips();
    let service = lan.latency;
    let propagation = network.rtt * round_trips;
    let serialisation = network.serialisation(shape.largest_rpc as f64);
    let rpc_latency = (service + propagation + serialisation).max(MIN_RPC_LATENCY);
    let nconnect = mount.nconnect.max(1);
    let bytes_per_rpc = shape.bytes_per_rpc;

    let wanted = workload.outstanding() * shape.rpcs_per_io;
    let credit_cap = match mount.proto {
        Proto::Rdma => u64::from(mount.rdma_credits.max(1)) * u64::from(nconnect),
        // Linux's TCP slot table grows to 65,536 entries: nothing a workload reaches.
        Proto::Tcp => u64::MAX,
    };
    let in_flight_rpcs = wanted.min(credit_cap);

    // In this order, so that on a tie the earlier (more specific) term is named.
    let mut limits = Vec::with_capacity(5);
    if wanted > credit_cap {
        limits.push(Limit::RdmaCredits { credits: mount.rdma_credits.max(1), nconnect, bytes_per_rpc, rpc_latency });
    } else {
        limits.push(Limit::OutstandingIo { in_flight_rpcs, bytes_per_rpc, rpc_latency });
    }
    let pull_time = network.rtt + serialisation;
    if shape.placement == Placement::RdmaReadChunk && !pull_time.is_zero() {
        limits.push(Limit::RdmaReadDepth { depth: mount.rdma_read_depth.max(1), nconnect, bytes_per_rpc, pull_time });
    }
    if mount.proto == Proto::Tcp && !network.rtt.is_zero() {
        limits.push(Limit::TcpWindow { window: network.tcp_window, nconnect, rtt: network.rtt });
    }
    if let Some(rate_bps) = network.rate_bps.filter(|&r| r > 0) {
        limits.push(Limit::LinkRate { rate_bps });
    }
    if let Some(throughput) = lan.throughput.filter(|&t| t > 0.0) {
        limits.push(Limit::LanCeiling { throughput });
    }
    let limit = limits
        .into_iter()
        .reduce(|best, next| if next.bandwidth() < best.bandwidth() { next } else { best })
        .unwrap_or(Limit::OutstandingIo { in_flight_rpcs, bytes_per_rpc, rpc_latency });

    let bandwidth = limit.bandwidth();
    let bs = workload.bs.max(1) as f64;
    let iops = bandwidth / bs;
    let latency = Duration::try_from_secs_f64(workload.outstanding() as f64 / iops).unwrap_or(Duration::MAX);
    let breakdown = LatencyBreakdown {
        service,
        round_trips: propagation,
        serialisation,
        queueing: queueing(latency, service + propagation + serialisation),
    };
    ModelOutput {
        rtt: network.rtt,
        bandwidth,
        iops,
        latency,
        breakdown,
        round_trips,
        shape,
        in_flight_rpcs,
        explanation: limit.explain(),
        limit,
    }
}

/// The I/O latency beyond one RPC's, with rounding noise (under a millionth) taken as none.
fn queueing(latency: Duration, rpc: Duration) -> Duration {
    let extra = latency.saturating_sub(rpc);
    if extra.as_secs_f64() < latency.as_secs_f64() * 1e-6 {
        Duration::ZERO
    } else {
        extra
    }
}

/// Predictions for `input` at each round trip in turn (a distance sweep); everything else is kept.
pub fn sweep(input: &ModelInput, rtts: &[Duration]) -> Vec<ModelOutput> {
    rtts.iter().map(|&rtt| predict(&input.with_rtt(rtt))).collect()
}
