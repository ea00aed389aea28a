//! Checks a plan before anything runs: names usable in file names and unique, the baseline and every
//! sweep's workload and cases defined, values in range, and each case's mount options read as the
//! client would read them. A case the client does not support yet (NFSv4) is not an error: it is
//! reported as "not supported yet" with the client's reason. A kernel-engine case's options go to
//! mount.nfs as written: the kernel is the judge of them, and the report shows what it negotiated. A
//! block case's target and attach options are read as the kernel engine reads them, before anything runs;
//! an SMB case's mount options go to mount.cifs as written.

use crate::plan::{Plan, SweepParameter};
use mount_options::OptionsError;
use std::collections::HashSet;

/// Per case (in plan order), why it cannot run, or `None`.
pub type Unsupported = Vec<Option<String>>;

/// Why a plan cannot run: bad usage, each message naming the case, workload, sweep or key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("reps = {0} is not 1..=100")]
    Reps(u32),
    #[error("runtime must be more than 0")]
    ZeroRuntime,
    #[error("a plan needs at least one case and one workload")]
    Empty,
    /// `kind`: "case" or "workload".
    #[error("{kind} name '{name}' must be letters, digits, '.', '_' or '-'")]
    BadName { kind: &'static str, name: String },
    #[error("{kind} name '{name}' is used twice")]
    NameTwice { kind: &'static str, name: String },
    #[error("case '{case}': rdma_credits and rdma_inline apply to proto=rdma only")]
    RdmaOnly { case: String },
    #[error(
        "case '{case}': rdma_credits and rdma_inline set nfsbench's own client; the kernel engine takes mount \
         options only"
    )]
    KernelRdmaFlags { case: String },
    #[error(
        "case '{case}': the kernel engine puts the long-distance link ({what}) on the path to the target with \
         netem, and the embedded server's path never leaves this host; give --target"
    )]
    KernelLink { case: String, what: String },
    /// A part of the link netem cannot give the kernel's transports (the message names it).
    #[error("case '{case}': {message}")]
    KernelLinkPart { case: String, message: String },
    #[error(
        "case '{case}': the kernel's RPC-over-RDMA needs an RDMA device, and the embedded server's RDMA is \
         nfsbench's soft provider; give --target"
    )]
    KernelEmbeddedRdma { case: String },
    #[error(
        "case '{case}': a {kind} case needs a target host of its own; give --target HOST (the embedded server \
         serves NFS only)"
    )]
    OwnTargetEmbedded { case: String, kind: String },
    /// A block case's target or attach options as the kernel engine reads them (the message names
    /// the option).
    #[error("case '{case}': {message}")]
    Block { case: String, message: String },
    #[error("case '{case}': rdma_credits = {credits} is not 1..=1024")]
    RdmaCredits { case: String, credits: u32 },
    #[error("case '{case}': rdma_inline = {inline} is not 1KiB..=64KiB")]
    RdmaInline { case: String, inline: u32 },
    /// The case's mount options as the client reads them.
    #[error("case '{case}': {source}")]
    Options {
        case: String,
        #[source]
        source: OptionsError,
    },
    #[error("baseline '{0}' is not one of the plan's cases")]
    UnknownBaseline(String),
    #[error("baseline '{baseline}' cannot run: {reason}")]
    BaselineUnsupported { baseline: String, reason: String },
    #[error("workload '{workload}': rw '{rw}' is not read, write, randread, randwrite, rw or randrw")]
    Rw { workload: String, rw: String },
    /// `what`: the key ("iodepth") or "sweep value of iodepth".
    #[error("workload '{workload}': {what} = {value} is not {lo}..={hi}")]
    OutOfRange { workload: String, what: String, value: u64, lo: u64, hi: u64 },
    #[error("sweep of {parameter}: workload '{workload}' is not in the plan")]
    SweepWorkload { parameter: &'static str, workload: String },
    #[error("sweep of {parameter} on '{workload}' has no values")]
    SweepEmpty { parameter: &'static str, workload: String },
    #[error("sweep of {parameter} on '{workload}': case '{case}' is not in the plan")]
    SweepCase { parameter: &'static str, workload: String, case: String },
}

/// Validate `plan` against `target` (HOST:/EXPORT; `None`: the embedded server); an error is bad usage
/// and names what is wrong.
pub fn validate(plan: &Plan, target: Option<&str>) -> Result<Unsupported, PlanError> {
    let embedded = target.is_none();
    let target = target.unwrap_or("127.0.0.1:/export");
    if !(1..=100).contains(&plan.reps) {
        return Err(PlanError::Reps(plan.reps));
    }
    if plan.runtime.is_zero() {
        return Err(PlanError::ZeroRuntime);
    }
    if plan.cases.is_empty() || plan.workloads.is_empty() {
        return Err(PlanError::Empty);
    }
    unique_names("case", plan.cases.iter().map(|c| c.name.as_str()))?;
    unique_names("workload", plan.workloads.iter().map(|w| w.name.as_str()))?;
    let mut unsupported = Vec::new();
    for case in &plan.cases {
        if !case.is_rdma() && (case.rdma_credits.is_some() || case.rdma_inline.is_some()) {
            return Err(PlanError::RdmaOnly { case: case.name.clone() });
        }
        if let Some(c) = case.rdma_credits.filter(|c| !(1..=1024).contains(c)) {
            return Err(PlanError::RdmaCredits { case: case.name.clone(), credits: c });
        }
        if let Some(i) = case.rdma_inline.filter(|i| !(1024..=65536).contains(i)) {
            return Err(PlanError::RdmaInline { case: case.name.clone(), inline: i });
        }
        if case.kind != crate::plan::CaseKind::Nfs && embedded {
            return Err(PlanError::OwnTargetEmbedded { case: case.name.clone(), kind: case.kind.to_string() });
        }
        if case.is_block() {
            check_block_case(case, target)?;
        }
        if case.is_kernel() {
            check_kernel_case(plan, case, embedded)?;
            unsupported.push(None);
            continue;
        }
        match case.mount_config_for(target) {
            Ok(_) => unsupported.push(None),
            Err(OptionsError::Unsupported { option, reason, .. }) => {
                unsupported.push(Some(format!("not supported yet: {option} ({reason})")));
            }
            Err(source) => return Err(PlanError::Options { case: case.name.clone(), source }),
        }
    }
    let baseline = plan.cases.iter().position(|c| c.name == plan.baseline);
    match baseline {
        None => return Err(PlanError::UnknownBaseline(plan.baseline.clone())),
        Some(i) => {
            if let Some(reason) = &unsupported[i] {
                return Err(PlanError::BaselineUnsupported { baseline: plan.baseline.clone(), reason: reason.clone() });
            }
        }
    }
    for w in &plan.workloads {
        if !matches!(w.rw.as_str(), "read" | "write" | "randread" | "randwrite" | "rw" | "readwrite" | "randrw") {
            return Err(PlanError::Rw { workload: w.name.clone(), rw: w.rw.clone() });
        }
        check_range(&w.name, "bs", w.bs, 512, 64 << 20)?;
        check_range(&w.name, "iodepth", w.iodepth.into(), 1, 4096)?;
        check_range(&w.name, "numjobs", w.numjobs.into(), 1, 256)?;
        check_range(&w.name, "size", w.size, w.bs, 1 << 40)?;
        if let Some(clients) = w.clients {
            check_range(&w.name, "clients", clients.into(), 1, 256)?;
        }
        if let Some(rtt) = w.rtt {
            check_range(&w.name, "rtt (µs)", rtt.as_micros() as u64, 0, 10_000_000)?;
        }
    }
    for s in &plan.sweeps {
        let Some(w) = plan.workloads.iter().find(|w| w.name == s.workload) else {
            return Err(PlanError::SweepWorkload { parameter: s.parameter.name(), workload: s.workload.clone() });
        };
        if s.values.is_empty() {
            return Err(PlanError::SweepEmpty { parameter: s.parameter.name(), workload: s.workload.clone() });
        }
        for c in &s.cases {
            if !plan.cases.iter().any(|k| &k.name == c) {
                return Err(PlanError::SweepCase {
                    parameter: s.parameter.name(),
                    workload: w.name.clone(),
                    case: c.clone(),
                });
            }
        }
        for &v in &s.values {
            let (lo, hi) = match s.parameter {
                SweepParameter::Iodepth => (1, 4096),
                SweepParameter::Numjobs => (1, 256),
                SweepParameter::BlockSize => (512, w.size.min(64 << 20)),
                SweepParameter::Clients => (1, 256),
                // µs: what `--wan` accepts.
                SweepParameter::Rtt => (0, 10_000_000),
            };
            check_range(&s.workload, &format!("sweep value of {}", s.parameter.name()), v, lo, hi)?;
        }
    }
    Ok(unsupported)
}

/// A block case: a target URL and attach options the kernel engine takes.
fn check_block_case(case: &crate::plan::Case, target: &str) -> Result<(), PlanError> {
    let crate::plan::CaseKind::Block(kind) = case.kind else {
        return Ok(());
    };
    let block = |e: kernel_attach::AttachError| PlanError::Block { case: case.name.clone(), message: e.to_string() };
    let url = case.target_on(crate::plan::target_host(target)).unwrap_or_default();
    kernel_attach::Target::parse(&url).map_err(block)?;
    kernel_attach::AttachOptions::parse(kind, &case.mount_options()).map_err(block)?;
    Ok(())
}

/// What the kernel engine cannot do: nfsbench's own RDMA flags, a link on a path that never leaves this
/// host (the embedded server) or one netem cannot give (jitter, tcp_window), the soft provider.
fn check_kernel_case(plan: &Plan, case: &crate::plan::Case, embedded: bool) -> Result<(), PlanError> {
    let name = || case.name.clone();
    if case.rdma_credits.is_some() || case.rdma_inline.is_some() {
        return Err(PlanError::KernelRdmaFlags { case: name() });
    }
    let link = if plan.wan.is_some() {
        Some("--wan or the plan's wan".to_string())
    } else if let Some(w) = plan.workloads.iter().find(|w| w.rtt.is_some()) {
        Some(format!("workload '{}': rtt", w.name))
    } else {
        plan.sweeps
            .iter()
            .find(|s| s.parameter == SweepParameter::Rtt && plan.sweep_cases(s).any(|c| c.name == case.name))
            .map(|s| format!("the rtt sweep on '{}'", s.workload))
    };
    match (link, embedded) {
        (Some(what), true) => return Err(PlanError::KernelLink { case: name(), what }),
        (Some(_), false) => {
            if let Some(wan) = &plan.wan {
                kernel_link::kernel_link_spec(wan)
                    .map_err(|e| PlanError::KernelLinkPart { case: name(), message: e.to_string() })?;
            }
        }
        (None, _) => {}
    }
    if embedded && case.is_rdma() {
        return Err(PlanError::KernelEmbeddedRdma { case: name() });
    }
    Ok(())
}

fn check_range(name: &str, what: &str, value: u64, lo: u64, hi: u64) -> Result<(), PlanError> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(PlanError::OutOfRange { workload: name.to_string(), what: what.to_string(), value, lo, hi })
    }
}

/// Names become file names (cells/CASE--WORKLOAD--REP.json): letters, digits, '.', '_', '-'.
fn unique_names<'a>(kind: &'static str, names: impl Iterator<Item = &'a str>) -> Result<(), PlanError> {
    let mut seen = HashSet::new();
    for name in names {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) {
            return Err(PlanError::BadName { kind, name: name.to_string() });
        }
        if !seen.insert(name) {
            return Err(PlanError::NameTwice { kind, name: name.to_string() });
        }
    }
    Ok(())
}
