//! From the repetitions' measurements to the [`Report`]: per-cell estimates, ratios against the
//! baseline case, efficiency against the wire, sweep curves.

use crate::measure::{percentiles_us, KernelRep, KernelTotals, RepMeasure, PERCENTILE_POINTS};
use crate::plan::{Case, Plan, SweepParameter, Workload};
use crate::results::{
    CaseRow, Cell, Estimate, KernelCounters, LatencyRatio, Metric, Ratio, Report, Sweep, SweepPoint, WireBaseline,
    WorkloadRow,
};
use crate::stats::{estimate_nonnegative, paired_ratio};
use crate::validate::Unsupported;
use std::collections::BTreeMap;

/// One measured repetition.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub case: String,
    pub workload: String,
    pub rep: u32,
    pub measure: RepMeasure,
    /// The server process's CPU-seconds over the window, when it runs on this host.
    pub server_cpu_s: Option<f64>,
    /// The fio JSON, relative to the output directory.
    pub file: String,
}

/// What the report says about where and when it ran.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub started: String,
    pub duration_s: f64,
    pub machine: String,
    pub target: String,
    pub notes: Vec<String>,
    /// Cases that stopped, with why (their cells are left out).
    pub failed: BTreeMap<String, String>,
}

/// Build the report.
pub fn summarize(
    plan: &Plan,
    unsupported: &Unsupported,
    outcomes: &[Outcome],
    wire: Vec<WireBaseline>,
    context: Context,
) -> Report {
    let mut by_cell: BTreeMap<(&str, &str), Vec<&Outcome>> = BTreeMap::new();
    for o in outcomes.iter().filter(|o| !context.failed.contains_key(&o.case)) {
        by_cell.entry((o.case.as_str(), o.workload.as_str())).or_default().push(o);
    }
    for reps in by_cell.values_mut() {
        reps.sort_by_key(|o| o.rep);
    }
    let mut workloads: Vec<Workload> = plan.workloads.clone();
    for sweep in &plan.sweeps {
        workloads.extend(plan.sweep_workloads(sweep));
    }
    let mut cells = Vec::new();
    for w in &workloads {
        for case in &plan.cases {
            if let Some(reps) = by_cell.get(&(case.name.as_str(), w.name.as_str())) {
                cells.push(cell(case, w, reps, &wire));
            }
        }
    }
    let ratios = ratios(plan, &by_cell);
    let latency_ratios = latency_ratios(plan, &by_cell);
    let sweeps = sweeps(plan, &cells);
    let failed = &context.failed;
    let outcomes: Vec<&Outcome> = outcomes.iter().filter(|o| !failed.contains_key(&o.case)).collect();
    let cases = plan
        .cases
        .iter()
        .zip(unsupported)
        .map(|(c, why)| {
            let first = outcomes.iter().find(|o| o.case == c.name).map(|o| &o.measure);
            CaseRow {
                case: c.clone(),
                mount_options: crate::plan::masked(&c.mount_options()),
                transport: first.map_or("", |m| m.transport.as_str()).to_string(),
                unsupported: why.clone(),
                failed: failed.get(&c.name).cloned(),
                negotiation: first.and_then(|m| m.kernel.as_ref()).map(|k| k.negotiation.clone()),
            }
        })
        .collect();
    let mut notes = context.notes.clone();
    if let Some(link) = &plan.wan {
        let text = link.describe();
        let text = match text.strip_prefix("rtt=0us,") {
            Some(rest) => format!("{rest}, each workload's or sweep point's round trip"),
            None => text,
        };
        notes.push(format!(
            "the client emulated a long-distance link ({text}; nfsbench's own transports delay TCP and RDMA alike)"
        ));
    }
    if sweeps.iter().flat_map(|s| &s.points).any(|p| p.model.is_some()) {
        notes.push(format!(
            "model: nfsbench model's prediction beside each round-trip sweep point (dashed in the charts), with \
             the per-operation service time and the host's ceiling taken from the sweep's shortest round \
             trip; a point more than {:.0}% off it is flagged",
            (model::FLAG_RATIO - 1.0) * 100.0
        ));
    }
    Report {
        title: plan.title.clone(),
        started: context.started,
        duration_s: context.duration_s,
        machine: context.machine,
        target: context.target,
        notes,
        reps: plan.reps,
        baseline_case: plan.baseline.clone(),
        cases,
        workloads: plan.workloads.iter().map(workload_row).collect(),
        cells,
        ratios,
        latency_ratios,
        wire,
        sweeps,
    }
}

/// The headline figure of one repetition.
pub fn headline(metric: Metric, m: &RepMeasure) -> f64 {
    match metric {
        Metric::Bandwidth => m.bandwidth_mbs,
        Metric::Iops => m.iops,
    }
}

fn cell(case: &Case, w: &Workload, reps: &[&Outcome], wire: &[WireBaseline]) -> Cell {
    let each = |f: &dyn Fn(&Outcome) -> f64| estimate_nonnegative(&reps.iter().map(|o| f(o)).collect::<Vec<_>>());
    let per_gb = |cpu: f64, m: &RepMeasure| if m.bytes > 0 { cpu / (m.bytes as f64 / 1e9) } else { f64::NAN };
    let mut bins = BTreeMap::new();
    for o in reps {
        for (k, v) in &o.measure.clat_bins {
            *bins.entry(*k).or_insert(0) += v;
        }
    }
    let bandwidth = each(&|o| o.measure.bandwidth_mbs);
    let efficiency = wire
        .iter()
        .find(|b| b.proto == case.proto && b.connections == case.nconnect.max(1))
        .filter(|b| b.bandwidth_mbs > 0.0)
        .map(|b| bandwidth.mean / b.bandwidth_mbs);
    let server = reps
        .iter()
        .all(|o| o.server_cpu_s.is_some())
        .then(|| each(&|o| per_gb(o.server_cpu_s.unwrap_or(f64::NAN), &o.measure)));
    Cell {
        case: case.name.clone(),
        workload: w.name.clone(),
        bandwidth_mbs: bandwidth,
        iops: each(&|o| o.measure.iops),
        clat_mean_us: each(&|o| o.measure.clat_mean_us),
        clat_stdev_us: each(&|o| o.measure.clat_stdev_us),
        clat_percentiles_us: percentiles_us(&bins, &PERCENTILE_POINTS),
        host_cpu_per_gb: each(&|o| per_gb(o.measure.host_cpu_s, &o.measure)),
        host_cpu_per_mio: each(&|o| {
            if o.measure.ios > 0 {
                o.measure.host_cpu_s / (o.measure.ios as f64 / 1e6)
            } else {
                f64::NAN
            }
        }),
        client_cpu_per_gb: each(&|o| per_gb(o.measure.client_cpu_s, &o.measure)),
        server_cpu_per_gb: server,
        efficiency,
        files: reps.iter().map(|o| o.file.clone()).collect(),
        kernel: kernel_counters(reps),
    }
}

/// The kernel client's counters summed over the repetitions, times as means per data RPC over all of
/// them; `None` unless every repetition ran on the kernel engine.
fn kernel_counters(reps: &[&Outcome]) -> Option<KernelCounters> {
    let kernel: Vec<&KernelRep> = reps.iter().map(|o| o.measure.kernel.as_ref()).collect::<Option<_>>()?;
    let mut totals = KernelTotals::default();
    kernel.iter().for_each(|k| totals.add(&k.totals));
    Some(totals.counters())
}

fn ratios(plan: &Plan, by_cell: &BTreeMap<(&str, &str), Vec<&Outcome>>) -> Vec<Ratio> {
    let mut out = Vec::new();
    for w in &plan.workloads {
        let Some(base) = by_cell.get(&(plan.baseline.as_str(), w.name.as_str())) else { continue };
        for case in plan.cases.iter().filter(|c| c.name != plan.baseline) {
            let Some(reps) = by_cell.get(&(case.name.as_str(), w.name.as_str())) else { continue };
            let (a, b) = paired(reps, base, |m| headline(w.metric, m));
            let (ratio, verdict) = paired_ratio(&a, &b);
            out.push(Ratio {
                case: case.name.clone(),
                baseline: plan.baseline.clone(),
                workload: w.name.clone(),
                metric: w.metric,
                ratio,
                verdict,
            });
        }
    }
    out
}

/// Repetition k of `reps` paired with repetition k of `base`: the two columns of `figure`.
fn paired(reps: &[&Outcome], base: &[&Outcome], figure: impl Fn(&RepMeasure) -> f64) -> (Vec<f64>, Vec<f64>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for o in reps {
        if let Some(bo) = base.iter().find(|x| x.rep == o.rep) {
            a.push(figure(&o.measure));
            b.push(figure(&bo.measure));
        }
    }
    (a, b)
}

fn latency_ratios(plan: &Plan, by_cell: &BTreeMap<(&str, &str), Vec<&Outcome>>) -> Vec<LatencyRatio> {
    let mut out = Vec::new();
    for w in &plan.workloads {
        let Some(base) = by_cell.get(&(plan.baseline.as_str(), w.name.as_str())) else { continue };
        for case in plan.cases.iter().filter(|c| c.name != plan.baseline) {
            let Some(reps) = by_cell.get(&(case.name.as_str(), w.name.as_str())) else { continue };
            let (a, b) = paired(reps, base, |m| m.clat_mean_us);
            let (mean, mean_verdict) = paired_ratio(&a, &b);
            let (a, b) = paired(reps, base, |m| m.clat_stdev_us);
            let (stdev, stdev_verdict) = paired_ratio(&a, &b);
            out.push(LatencyRatio {
                case: case.name.clone(),
                baseline: plan.baseline.clone(),
                workload: w.name.clone(),
                mean,
                mean_verdict,
                stdev,
                stdev_verdict,
            });
        }
    }
    out
}

fn sweeps(plan: &Plan, cells: &[Cell]) -> Vec<Sweep> {
    let mut out = Vec::new();
    for spec in &plan.sweeps {
        let points_w = plan.sweep_workloads(spec);
        let Some(base) = plan.workloads.iter().find(|w| w.name == spec.workload) else { continue };
        let mut points = Vec::new();
        for case in plan.sweep_cases(spec) {
            let measured: Vec<(u64, &Workload, &Cell)> = spec
                .values
                .iter()
                .zip(&points_w)
                .filter_map(|(value, w)| {
                    cells.iter().find(|c| c.case == case.name && c.workload == w.name).map(|c| (*value, w, c))
                })
                .collect();
            let modelled = if spec.parameter == SweepParameter::Rtt {
                let pairs: Vec<(&Workload, &Cell)> = measured.iter().map(|(_, w, c)| (*w, *c)).collect();
                crate::prediction::sweep_predictions(plan, case, &pairs, base.metric)
            } else {
                vec![None; measured.len()]
            };
            for ((value, _, c), model) in measured.into_iter().zip(modelled) {
                points.push(SweepPoint {
                    case: case.name.clone(),
                    x: value as f64,
                    label: spec.parameter.label(value),
                    value: cell_headline(base.metric, c),
                    model,
                });
            }
        }
        out.push(Sweep {
            parameter: spec.parameter.name().into(),
            workload: base.name.clone(),
            metric: base.metric,
            points,
        });
    }
    out
}

/// A cell's headline estimate.
pub fn cell_headline(metric: Metric, c: &Cell) -> Estimate {
    match metric {
        Metric::Bandwidth => c.bandwidth_mbs,
        Metric::Iops => c.iops,
    }
}

fn workload_row(w: &Workload) -> WorkloadRow {
    WorkloadRow {
        name: w.name.clone(),
        description: w.description(),
        rw: w.rw.clone(),
        bs: w.bs,
        iodepth: w.iodepth,
        numjobs: w.numjobs,
        clients: w.clients,
        metric: w.metric,
    }
}
