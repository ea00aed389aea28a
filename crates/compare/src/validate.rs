//! Checks a plan before anything runs: names usable in file names and unique, the baseline and every
//! sweep's workload and cases defined, values in range, and each case's mount options read as the
//! client would read them. A case the client does not support yet (NFSv4) is not an error: it is
//! reported as "not supported yet" with the client's reason.

use crate::plan::{Plan, SweepParameter};
use mount_options::{MountSpec, OptionsError};
use std::collections::HashSet;

/// Per case (in plan order), why it cannot run, or `None`.
pub type Unsupported = Vec<Option<String>>;

/// Validate `plan` against `target` (HOST:/EXPORT); an error is bad usage and names what is wrong.
pub fn validate(plan: &Plan, target: &str) -> Result<Unsupported, String> {
    if !(1..=100).contains(&plan.reps) {
        return Err(format!("reps = {} is not 1..=100", plan.reps));
    }
    if plan.runtime.is_zero() {
        return Err("runtime must be more than 0".into());
    }
    if plan.cases.is_empty() || plan.workloads.is_empty() {
        return Err("a plan needs at least one case and one workload".into());
    }
    unique_names("case", plan.cases.iter().map(|c| c.name.as_str()))?;
    unique_names("workload", plan.workloads.iter().map(|w| w.name.as_str()))?;
    let mut unsupported = Vec::new();
    for case in &plan.cases {
        if !case.is_rdma() && (case.rdma_credits.is_some() || case.rdma_inline.is_some()) {
            return Err(format!("case '{}': rdma_credits and rdma_inline apply to proto=rdma only", case.name));
        }
        if let Some(c) = case.rdma_credits.filter(|c| !(1..=1024).contains(c)) {
            return Err(format!("case '{}': rdma_credits = {c} is not 1..=1024", case.name));
        }
        if let Some(i) = case.rdma_inline.filter(|i| !(1024..=65536).contains(i)) {
            return Err(format!("case '{}': rdma_inline = {i} is not 1KiB..=64KiB", case.name));
        }
        match MountSpec::parse(target, Some(&case.mount_options())) {
            Ok(_) => unsupported.push(None),
            Err(OptionsError::Unsupported { option, reason, .. }) => {
                unsupported.push(Some(format!("not supported yet: {option} ({reason})")));
            }
            Err(e) => return Err(format!("case '{}': {e}", case.name)),
        }
    }
    let baseline = plan.cases.iter().position(|c| c.name == plan.baseline);
    match baseline {
        None => return Err(format!("baseline '{}' is not one of the plan's cases", plan.baseline)),
        Some(i) if unsupported[i].is_some() => {
            return Err(format!(
                "baseline '{}' cannot run: {}",
                plan.baseline,
                unsupported[i].as_deref().unwrap_or("")
            ));
        }
        Some(_) => {}
    }
    for w in &plan.workloads {
        if !matches!(w.rw.as_str(), "read" | "write" | "randread" | "randwrite" | "rw" | "readwrite" | "randrw") {
            return Err(format!(
                "workload '{}': rw '{}' is not read, write, randread, randwrite, rw or randrw",
                w.name, w.rw
            ));
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
            return Err(format!("sweep of {}: workload '{}' is not in the plan", s.parameter.name(), s.workload));
        };
        if s.values.is_empty() {
            return Err(format!("sweep of {} on '{}' has no values", s.parameter.name(), s.workload));
        }
        for c in &s.cases {
            if !plan.cases.iter().any(|k| &k.name == c) {
                return Err(format!("sweep of {} on '{}': case '{c}' is not in the plan", s.parameter.name(), w.name));
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

fn check_range(name: &str, what: &str, v: u64, lo: u64, hi: u64) -> Result<(), String> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(format!("workload '{name}': {what} = {v} is not {lo}..={hi}"))
    }
}

/// Names become file names (cells/CASE--WORKLOAD--REP.json): letters, digits, '.', '_', '-'.
fn unique_names<'a>(kind: &str, names: impl Iterator<Item = &'a str>) -> Result<(), String> {
    let mut seen = HashSet::new();
    for name in names {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) {
            return Err(format!("{kind} name '{name}' must be letters, digits, '.', '_' or '-'"));
        }
        if !seen.insert(name) {
            return Err(format!("{kind} name '{name}' is used twice"));
        }
    }
    Ok(())
}
