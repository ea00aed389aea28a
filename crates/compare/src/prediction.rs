//! The model beside the measurement: every point of a round-trip sweep gets `nfsbench model`'s
//! prediction for its case and workload (crate `model`), so a report shows where the transports behave
//! as round trips, credits, windows and the link rate say they must, and flags where they do not.
//!
//! The model needs what no formula gives: the time an operation takes with no distance (client, server,
//! copies) and what the host can carry at all. Both come from the sweep's own shortest round trip: its
//! measured bandwidth is the LAN ceiling, and its measured mean completion latency, less the queueing
//! the model itself predicts there, is the per-operation service time.

use crate::plan::{Case, Plan, Workload};
use crate::results::{Cell, Metric, Prediction};
use std::time::Duration;

/// Credits `nfsbench serve` and knfsd grant unless told otherwise.
const SERVER_DEFAULT_CREDITS: u32 = 64;

/// The shortest service time taken from a measurement (a LAN point whose latency is all queueing).
const MIN_SERVICE: Duration = Duration::from_micros(10);

/// Predictions for `case`'s points of a round-trip sweep, `(workload, measured cell)` in any order;
/// `None` for each when the model does not apply (a mixed read/write job, options the client refuses).
pub fn sweep_predictions(
    plan: &Plan,
    case: &Case,
    points: &[(&Workload, &Cell)],
    metric: Metric,
) -> Vec<Option<Prediction>> {
    let lan = points.iter().filter(|(w, _)| w.rtt.is_some()).min_by_key(|(w, _)| w.rtt);
    let Some(input) = lan.and_then(|(w, cell)| lan_input(plan, case, w, cell)) else {
        return vec![None; points.len()];
    };
    points
        .iter()
        .map(|(w, cell)| {
            let rtt = w.rtt?;
            let out = model::predict(&input.with_rtt(rtt));
            let value = match metric {
                Metric::Bandwidth => out.bandwidth / 1e6,
                Metric::Iops => out.iops,
            };
            let measured = crate::summarize::cell_headline(metric, cell).mean;
            let disagreement = model::disagreement(measured, value);
            Some(Prediction {
                value,
                limit: out.limit.name().to_string(),
                explanation: out.explanation.clone(),
                disagreement,
                flagged: model::is_flagged(measured, value),
            })
        })
        .collect()
}

/// The model's input for `case` × `workload` over the plan's link, with the LAN baseline taken from
/// `lan`, the measurement at the sweep's shortest round trip.
fn lan_input(plan: &Plan, case: &Case, workload: &Workload, lan: &Cell) -> Option<model::ModelInput> {
    // The server grants at most what the plan's largest ask made it grant (the embedded server), or its
    // default; the client asks for the case's credits or Linux's 128.
    let granted = plan.cases.iter().filter_map(|c| c.rdma_credits).max().unwrap_or(SERVER_DEFAULT_CREDITS);
    let config = case.mount_config().ok()?;
    let mut mount = model::Mount::from_config(&config);
    mount.rdma_credits = mount.rdma_credits.min(granted);
    let load =
        model::Workload::from_fio(&workload.rw, workload.bs, workload.iodepth, workload.numjobs, workload.clients)?;
    let network = match plan.link_for(workload) {
        Some(link) => model::Network::from_wan(&link),
        None => model::Network::with_rtt(Duration::ZERO),
    };
    let mut input = model::ModelInput {
        mount,
        workload: load,
        network,
        lan: model::LanBaseline { latency: Duration::ZERO, throughput: None },
    };
    let measured_latency = Duration::from_secs_f64(lan.clat_mean_us.mean.max(0.0) / 1e6);
    let queueing_only = model::predict(&input).latency;
    input.lan = model::LanBaseline {
        latency: measured_latency.saturating_sub(queueing_only).max(MIN_SERVICE),
        throughput: (lan.bandwidth_mbs.mean > 0.0).then_some(lan.bandwidth_mbs.mean * 1e6),
    };
    Some(input)
}
