//! Running a plan: the embedded server (or the target), the files laid out once, the wire baselines,
//! then every repetition of every cell in an interleaved order — repetition k runs each workload under
//! every case back to back (the cases' order reversed every other repetition), so paired runs share the
//! machine's state — and the sweeps last.

use crate::cell::{CellError, ClientSetup};
use crate::cpu_sampler::CpuSampler;
use crate::embedded::{EmbeddedConfig, EmbeddedServer, ServerError};
use crate::plan::{Case, CaseKind, Plan, Workload};
use crate::progress::PlanProgress;
use crate::results::Report;
use crate::summarize::{headline, summarize, Context, Outcome};
use crate::validate::Unsupported;
use crate::wire_baselines::{self, BaselineError, Responders};
use mount_options::OptionsError;
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where and how to run.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The nfsbench binary (client and embedded server).
    pub exe: PathBuf,
    /// HOST:/EXPORT, or `None` for the embedded RAM server on loopback.
    pub target: Option<String>,
    pub out_dir: PathBuf,
    /// `--rdma-provider` for the children: auto, verbs or soft.
    pub rdma_provider: String,
    /// The opened provider, for the RDMA wire baseline (when a case uses RDMA).
    pub provider: Option<Arc<dyn rdma::Provider>>,
    /// Wire-baseline responders of an external target (`nfsbench serve --baseline-listen` there).
    pub wire_peer: Option<Responders>,
    /// Open MPI's hostfile for the client processes of workloads with `clients`.
    pub hostfile: Option<PathBuf>,
    pub cpus: usize,
}

/// The report and the raw repetitions.
#[derive(Debug)]
pub struct Finished {
    pub report: Report,
    pub outcomes: Vec<Outcome>,
}

impl Finished {
    /// The cases that stopped, "NAME: why", in plan order.
    pub fn failed_cases(&self) -> Vec<String> {
        self.report.cases.iter().filter_map(|c| Some(format!("{}: {}", c.case.name, c.failed.as_ref()?))).collect()
    }
}

/// A failed run in one line, with the embedded server's last words when it ran.
fn failure(source: &CellError, server_log: Option<String>) -> String {
    match server_log.filter(|l| !l.is_empty()) {
        Some(log) => format!("{source} (server log: {log})"),
        None => source.to_string(),
    }
}

/// Why a comparison stopped: each message names the cell, the file or the case.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("creating {}: {source}", .path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Server(#[from] ServerError),
    /// A case's mount options, read to find the loopback addresses the embedded server must serve.
    #[error("case '{case}': {source}")]
    Options {
        case: String,
        #[source]
        source: OptionsError,
    },
    #[error(
        "case '{case}': remoteports address {addr} is not a loopback address; the embedded server listens on \
         loopback only (give --target to measure a server on other addresses)"
    )]
    NotLoopback { case: String, addr: IpAddr },
    #[error("laying out {job}'s files: {source}")]
    LayOut {
        job: String,
        #[source]
        source: CellError,
    },
    #[error(transparent)]
    Baselines(#[from] BaselineError),
    /// SIGINT or SIGTERM: the cell in progress was stopped and the plan ended.
    #[error("interrupted during {during}; no report was written")]
    Interrupted { during: String },
}

/// One run of one cell, in plan order.
struct Step<'a> {
    case: &'a Case,
    workload: Workload,
    rep: u32,
}

/// Run `plan`; `unsupported` is what validation found (those cases are skipped).
pub fn execute(plan: &Plan, unsupported: &Unsupported, setup: &Setup) -> Result<Finished, RunError> {
    let started = crate::machine::utc_now();
    let clock = Instant::now();
    let cells_dir = setup.out_dir.join("cells");
    std::fs::create_dir_all(&cells_dir).map_err(|source| RunError::CreateDir { path: cells_dir.clone(), source })?;
    remove_earlier_cells(&cells_dir);
    let runnable: Vec<&Case> =
        plan.cases.iter().zip(unsupported).filter(|(_, u)| u.is_none()).map(|(c, _)| c).collect();
    let any_rdma = runnable.iter().any(|c| c.is_rdma());
    let server = match &setup.target {
        Some(_) => None,
        None => Some(EmbeddedServer::start(&embedded_config(plan, &runnable, setup, any_rdma)?)?),
    };
    let target = setup.target.clone().unwrap_or_else(|| "127.0.0.1:/export".to_string());
    let client = ClientSetup {
        exe: setup.exe.clone(),
        target: target.clone(),
        ports: server.as_ref().map(|s| (s.nfs_port, s.rdma_port)),
        rdma_provider: setup.rdma_provider.clone(),
        hostfile: setup.hostfile.clone(),
        cpus: setup.cpus,
    };
    let sampler = server.as_ref().map(|s| CpuSampler::start(s.pid()));
    let steps = steps(plan, &runnable);
    let per_cell = plan.runtime + plan.ramp + Duration::from_millis(150);
    let wire_time = wire_duration(plan);
    let planned = per_cell * steps.len() as u32 + wire_time * 4 * plan.reps;
    let mut progress = PlanProgress::new(steps.len(), planned);

    // Files first, unmeasured, over the baseline case (or, when its client fails, the next case that
    // works: that case is marked failed and the plan goes on).
    let mut failed: BTreeMap<String, String> = BTreeMap::new();
    let server_log = || server.as_ref().map(EmbeddedServer::log_tail);
    // Cases that share storage share its files: the NFS cases the export's, the SMB cases the share's; a
    // block case has its device to itself (a thin or RAM target answers reads of blocks never written
    // without touching its medium). Each group is laid out once, over its first case that works.
    let mut groups: Vec<(String, Vec<&Case>)> = Vec::new();
    let ordered =
        runnable.iter().filter(|c| c.name == plan.baseline).chain(runnable.iter().filter(|c| c.name != plan.baseline));
    for case in ordered {
        let storage = storage_of(case);
        match groups.iter_mut().find(|(s, _)| *s == storage) {
            Some((_, cases)) => cases.push(case),
            None => groups.push((storage, vec![case])),
        }
    }
    for ((job, mpi), (w, numjobs)) in files_to_lay_out(plan) {
        progress.start(&format!("laying out {job}'s files"));
        for (storage, cases) in &groups {
            let suffix = if storage.is_empty() { String::new() } else { format!("-{storage}") };
            let json = setup.out_dir.join(format!("layout-{job}{}{suffix}.json", if mpi { "-clients" } else { "" }));
            let mut last_error = None;
            let candidates: Vec<&Case> = cases.iter().filter(|c| !failed.contains_key(&c.name)).copied().collect();
            for case in candidates {
                match client.lay_out(case, &w, numjobs, &json) {
                    Ok(()) => {
                        last_error = None;
                        break;
                    }
                    Err(CellError::Interrupted) => {
                        return Err(RunError::Interrupted { during: format!("laying out {job}'s files") })
                    }
                    Err(source) => {
                        let log = if storage.is_empty() { server_log() } else { None };
                        failed.insert(case.name.clone(), failure(&source, log));
                        last_error = Some(source);
                    }
                }
            }
            // Without its files no NFS case can run: the plan stops. Other groups' cases are failed.
            if let (Some(source), true) = (last_error, storage.is_empty()) {
                return Err(RunError::LayOut { job: job.clone(), source });
            }
        }
    }

    let mut notes = Vec::new();
    let wire = if plan.wire {
        let responders = match &server {
            Some(s) => Some(Responders { tcp: s.baseline_tcp, rdma: s.baseline_rdma }),
            None => setup.wire_peer.clone(),
        };
        match responders {
            Some(responders) => {
                progress.start("wire baselines");
                wire_baselines::measure(&responders, &runnable, setup.provider.clone(), wire_time, plan.reps)?
            }
            None => {
                notes.push(
                    "wire baselines not measured: run `nfsbench serve --baseline-listen ADDR:PORT` on the server \
                     host and give --wire-peer ADDR:PORT"
                        .to_string(),
                );
                Vec::new()
            }
        }
    } else {
        Vec::new()
    };

    let mut outcomes = Vec::new();
    for step in &steps {
        let what = format!("{} × {} rep {}/{}", step.case.name, step.workload.name, step.rep, plan.reps);
        if failed.contains_key(&step.case.name) {
            progress.finish(&what, per_cell, "skipped: the case failed");
            continue;
        }
        progress.start(&what);
        let file =
            format!("cells/{}--{}--{}.json", step.case.name, step.workload.name.replace(['@', '='], "_"), step.rep);
        let json = setup.out_dir.join(&file);
        let link = plan.link_for(&step.workload);
        let measure = match client.run_cell(step.case, &step.workload, plan.runtime, plan.ramp, link.as_ref(), &json) {
            Ok(measure) => measure,
            Err(CellError::Interrupted) => return Err(RunError::Interrupted { during: what }),
            Err(source) => {
                // The case stops here; every other case is still measured.
                let why = failure(&source, server_log());
                progress.finish(&what, per_cell, &format!("failed: {why}"));
                failed.insert(step.case.name.clone(), why);
                continue;
            }
        };
        let server_cpu_s = sampler.as_ref().and_then(|s| {
            let end = measure.end_ms as f64;
            s.cpu_between(end - measure.runtime_s * 1e3, end)
        });
        let figure = headline(step.workload.metric, &measure);
        progress.finish(&what, per_cell, &format!("{:.0} {}", figure, step.workload.metric.unit()));
        outcomes.push(Outcome {
            case: step.case.name.clone(),
            workload: step.workload.name.clone(),
            rep: step.rep,
            measure,
            server_cpu_s,
            file,
        });
    }
    drop(progress);
    if outcomes.iter().any(|o| o.measure.transport.contains("soft")) {
        notes.push(
            "RDMA ran over nfsbench's soft provider (shared memory between processes on this host, no RDMA device): \
             it stands in for an RDMA NIC, and this host's CPUs do the copies a NIC would do."
                .to_string(),
        );
    }
    if server.is_some() {
        notes.push(
            "client and server share this host: host-wide CPU counts both (and the kernel's work for both)".to_string(),
        );
    }
    let context = Context {
        started,
        duration_s: clock.elapsed().as_secs_f64(),
        machine: crate::machine::describe(setup.cpus),
        target: match (&setup.target, &server) {
            (Some(t), _) => t.clone(),
            (None, Some(s)) => format!(
                "embedded RAM server (nfsbench serve, mem:) on {}",
                s.addrs.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ")
            ),
            (None, None) => String::new(),
        },
        notes,
        failed,
    };
    let report = summarize(plan, unsupported, &outcomes, wire, context);
    Ok(Finished { report, outcomes })
}

/// The order the cells run in.
fn steps<'a>(plan: &'a Plan, cases: &[&'a Case]) -> Vec<Step<'a>> {
    let mut steps = Vec::new();
    for rep in 1..=plan.reps {
        let ordered: Vec<&Case> = if rep % 2 == 1 { cases.to_vec() } else { cases.iter().rev().copied().collect() };
        for w in &plan.workloads {
            for case in &ordered {
                steps.push(Step { case, workload: w.clone(), rep });
            }
        }
    }
    for sweep in &plan.sweeps {
        let sweep_cases: Vec<&Case> =
            plan.sweep_cases(sweep).filter(|c| cases.iter().any(|k| k.name == c.name)).collect();
        for rep in 1..=plan.reps {
            for w in plan.sweep_workloads(sweep) {
                for case in &sweep_cases {
                    steps.push(Step { case, workload: w.clone(), rep });
                }
            }
        }
    }
    steps
}

/// The files to lay out, by fio job name and whether MPI clients use them (each client has its own): the
/// workload with the most jobs, and clients, any cell gives it.
fn files_to_lay_out(plan: &Plan) -> BTreeMap<(String, bool), (Workload, u32)> {
    let mut files: BTreeMap<(String, bool), (Workload, u32)> = BTreeMap::new();
    let sweeps = plan.sweeps.iter().map(|s| plan.sweep_workloads(s));
    for w in plan.workloads.iter().cloned().chain(sweeps.flatten()) {
        let entry = files.entry((w.job_name.clone(), w.clients.is_some())).or_insert_with(|| (w.clone(), 0));
        entry.1 = entry.1.max(w.numjobs);
        entry.0.clients = entry.0.clients.max(w.clients);
    }
    files
}

/// The storage a case's files live on, as a name for its layout file: "" for the NFS export, "smb" for
/// the SMB share, the case's name for a block device of its own.
fn storage_of(case: &Case) -> String {
    match case.kind {
        CaseKind::Nfs => String::new(),
        CaseKind::Smb => "smb".to_string(),
        CaseKind::Block(_) => case.name.clone(),
    }
}

fn wire_duration(plan: &Plan) -> Duration {
    (plan.runtime / 2).clamp(Duration::from_millis(200), Duration::from_secs(1))
}

/// The server's configuration: every loopback address the cases name, room for every file plus 1 GiB,
/// RDMA with the largest credits and inline threshold any case asks for.
fn embedded_config(plan: &Plan, cases: &[&Case], setup: &Setup, rdma: bool) -> Result<EmbeddedConfig, RunError> {
    let addrs = loopback_addrs(cases)?;
    let files: u64 =
        files_to_lay_out(plan).values().map(|(w, n)| w.size * u64::from(*n) * u64::from(w.clients.unwrap_or(1))).sum();
    Ok(EmbeddedConfig {
        exe: setup.exe.clone(),
        addrs,
        mem_bytes: files + (1 << 30),
        rdma_provider: rdma.then(|| setup.rdma_provider.clone()),
        rdma_credits: cases.iter().filter_map(|c| c.rdma_credits).max(),
        rdma_inline: cases.iter().filter_map(|c| c.rdma_inline).max(),
        dir: setup.out_dir.clone(),
    })
}

/// 127.0.0.1 and every address of the cases' remoteports, which must be loopback addresses: the
/// embedded server listens on them and on nothing else.
fn loopback_addrs(cases: &[&Case]) -> Result<Vec<IpAddr>, RunError> {
    let mut addrs = vec![IpAddr::V4(Ipv4Addr::LOCALHOST)];
    for case in cases {
        let config = case.mount_config().map_err(|source| RunError::Options { case: case.name.clone(), source })?;
        for a in config.spec.remoteports {
            if !a.is_loopback() {
                return Err(RunError::NotLoopback { case: case.name.clone(), addr: a });
            }
            if !addrs.contains(&a) {
                addrs.push(a);
            }
        }
    }
    Ok(addrs)
}

/// A directory used before keeps no repetition of an earlier comparison: only this run's are listed.
fn remove_earlier_cells(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().is_some_and(|x| x == "json" || x == "err") {
            let _ = std::fs::remove_file(path);
        }
    }
}
