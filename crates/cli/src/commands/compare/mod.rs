//! `nfsbench compare [PLAN.toml] [--target HOST:/EXPORT] [--quick] [--out DIR]`: the main job — a plan of
//! mount-option test cases × workloads × repetitions against the embedded RAM server on loopback (no
//! target) or a given server, with wire baselines, 95% intervals, paired ratios, and report.html,
//! results.md, results.csv and cells/*.json in DIR (see the `compare` crate).
//!
//! Exit status: 0 success; 1 a run failed (the message names the cell and the server's last words);
//! 2 bad usage or a bad plan (the message names the key or case).

use super::provider::open_provider;
use crate::error::CliError;
use anyhow::{anyhow, bail};
use compare::plan::{Case, Plan, SweepParameter, SweepSpec};
use compare::plan_file::{self, Defaults};
use compare::size::parse_size;
use mount_options::ProviderChoice;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// A plan file (TOML: title, reps, baseline, runtime, [[case]], [[workload]], [[sweep]]) [default:
    /// tcp, tcp-nconnect4, rdma, rdma-2qp × 1 MiB seq read/write, 4 KiB rand read/write, 3 reps]
    #[arg(value_name = "PLAN.toml")]
    pub plan: Option<PathBuf>,
    /// The export to measure, HOST:/EXPORT; without it the embedded RAM server runs on loopback
    #[arg(long, value_name = "HOST:/EXPORT")]
    pub target: Option<String>,
    /// The NFS client every case measures: nfsbench (its own userspace client) or kernel (the OS's
    /// client: each case mounted with mount.nfs in a private mount namespace, the jobs run on the mount,
    /// asked beside negotiated options in every output; needs root) [default: the plan's, else nfsbench]
    #[arg(long, value_name = "ENGINE", value_parser = ["nfsbench", "kernel"])]
    pub engine: Option<String>,
    /// Run every case once per NFS version (comma separated, e.g. 3,4.1,4.2): the case tcp becomes
    /// tcp-v3, tcp-v4.1 and tcp-v4.2
    #[arg(long, value_name = "LIST")]
    pub vers: Option<String>,
    /// Short cells (300 ms after a 100 ms ramp): the default plan in about 20 s
    #[arg(long)]
    pub quick: bool,
    /// Output directory [default: ./nfsbench-compare-DATE]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Repetitions per cell (overrides the plan)
    #[arg(long, value_name = "N")]
    pub reps: Option<u32>,
    /// Measured time per cell, e.g. 2s or 500ms (overrides the plan and --quick)
    #[arg(long, value_name = "DURATION")]
    pub runtime: Option<String>,
    /// Unmeasured warm-up per cell (overrides the plan and --quick)
    #[arg(long, value_name = "DURATION")]
    pub ramp_time: Option<String>,
    /// A test case NAME=MOUNT_OPTIONS (e.g. rdma8=vers=3,proto=rdma,nconnect=8), repeatable; replaces the
    /// plan's cases
    #[arg(long = "case", value_name = "NAME=OPTIONS")]
    pub cases: Vec<String>,
    /// Run only these cases of the plan (comma separated)
    #[arg(long = "cases", value_name = "LIST", conflicts_with = "cases")]
    pub only_cases: Option<String>,
    /// Run only these workloads of the plan (comma separated)
    #[arg(long, value_name = "LIST")]
    pub workloads: Option<String>,
    /// The case ratios are taken against [default: the plan's, else the first case]
    #[arg(long, value_name = "CASE")]
    pub baseline: Option<String>,
    /// A scaling sweep WORKLOAD:PARAM=V1,V2,... with PARAM iodepth, numjobs, bs, clients or rtt (e.g.
    /// rand-read-4k:iodepth=1,4,16,64, seq-read-1m:bs=4k,64k,1m,16m or seq-read-1m:rtt=0,1ms,20ms,8600mi),
    /// repeatable
    #[arg(long = "sweep", value_name = "WORKLOAD:PARAM=VALUES")]
    pub sweeps: Vec<String>,
    /// Every cell's client emulates this long-distance link (`nfsbench run --wan`), e.g. rate=10gbit or
    /// rtt=20ms,rate=10gbit; an rtt sweep or a workload's rtt sets the round trip
    #[arg(long, value_name = "SPEC")]
    pub wan: Option<String>,
    /// Run every workload as N client processes under Open MPI's mpirun (each client its own files; the
    /// figures are "All clients")
    #[arg(long, value_name = "N")]
    pub clients: Option<u32>,
    /// With --target and clients: Open MPI's hostfile, so that the client processes run on those hosts
    /// (the embedded server listens on loopback only)
    #[arg(long, value_name = "FILE", requires = "target")]
    pub hostfile: Option<PathBuf>,
    /// Bytes per job's file where the plan gives no size [default: 256m, 64m with --quick]
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// RDMA provider of the RDMA cases: auto (the embedded server: soft; a target: verbs when an RDMA
    /// device exists, else soft), verbs or soft
    #[arg(long, value_name = "P", default_value_t = ProviderChoice::Auto)]
    pub rdma_provider: ProviderChoice,
    /// Skip the wire baselines (raw TCP stream / RDMA Write bandwidth and ping-pong)
    #[arg(long)]
    pub no_wire: bool,
    /// With --target: the wire-baseline responders on the server host (`nfsbench serve --baseline-listen`),
    /// TCP_ADDR:PORT[,RDMA_ADDR:PORT]
    #[arg(long, value_name = "ADDR:PORT[,ADDR:PORT]", requires = "target")]
    pub wire_peer: Option<String>,
}

/// Run `nfsbench compare`.
pub fn run(args: &CompareArgs) -> Result<(), CliError> {
    super::init_logging();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (plan, unsupported) = match build_plan(args, cpus) {
        Ok(p) => p,
        Err(e) => return Err(CliError::Usage(e.to_string())),
    };
    if plan.uses_kernel_nfs() {
        check_kernel_engine(args.target.as_deref()).map_err(|e| CliError::Usage(e.to_string()))?;
    }
    if plan.uses_smb() {
        kernel_mount::namespace::can_mount(kernel_mount::FileSystem::Cifs)
            .map_err(|e| CliError::Usage(e.to_string()))?;
    }
    for kind in plan.block_kinds() {
        kernel_attach::can_attach(kind).map_err(|e| CliError::Usage(e.to_string()))?;
    }
    let wire_peer = match args.wire_peer.as_deref().map(parse_wire_peer).transpose() {
        Ok(p) => p,
        Err(e) => return Err(CliError::Usage(e.to_string())),
    };
    let runnable_rdma = plan.cases.iter().zip(&unsupported).any(|(c, u)| u.is_none() && c.is_rdma());
    let choice = match (args.rdma_provider, &args.target) {
        // Loopback: the verbs provider would need a device address; the soft one is made for it.
        (ProviderChoice::Auto, None) => ProviderChoice::Soft,
        (choice, _) => choice,
    };
    let provider = if runnable_rdma {
        match open_provider(choice) {
            Ok(p) => Some(p),
            Err(e) => return Err(CliError::Failed(e.to_string())),
        }
    } else {
        None
    };
    let provider_arg = match (choice, &provider) {
        (ProviderChoice::Auto, Some(p)) if p.name().starts_with("soft") => "soft".to_string(),
        (ProviderChoice::Auto, Some(_)) => "verbs".to_string(),
        (c, _) => c.to_string(),
    };
    let out_dir = args.out.clone().unwrap_or_else(|| {
        let stamp = compare::machine::utc_now().replace(['-', ':'], "").replace(' ', "-").replace("-UTC", "");
        PathBuf::from(format!("nfsbench-compare-{stamp}"))
    });
    std::fs::create_dir_all(&out_dir).map_err(|e| anyhow::anyhow!("creating {}: {e}", out_dir.display()))?;
    let setup = compare::execute::Setup {
        exe: std::env::current_exe().map_err(|e| anyhow::anyhow!("finding the nfsbench binary: {e}"))?,
        target: args.target.clone(),
        out_dir: out_dir.clone(),
        rdma_provider: provider_arg,
        provider,
        wire_peer,
        hostfile: args.hostfile.clone(),
        cpus,
    };
    if let Err(e) = compare::interrupt::watch() {
        return Err(CliError::Failed(format!("watching for interrupts: {e}")));
    }
    let finished = match compare::execute::execute(&plan, &unsupported, &setup) {
        Ok(f) => f,
        Err(e) => return Err(CliError::Failed(e.to_string())),
    };
    let html = compare::output::write_all(&out_dir, &finished).map_err(|e| anyhow::anyhow!("{e}"))?;
    print!("{}", compare::render::terminal::to_terminal(&finished.report));
    println!("\nreport: {}", html.display());
    println!("also: {0}/results.md, {0}/results.csv, {0}/reps.csv, {0}/cells/*.json", out_dir.display());
    let failed = finished.failed_cases();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::Failed(format!("{} case(s) failed, the rest were measured: {}", failed.len(), failed.join("; "))))
    }
}

/// The kernel engine mounts NFS: it needs root, mount.nfs, and a target mount.nfs takes, and says which is
/// missing before anything runs.
fn check_kernel_engine(target: Option<&str>) -> Result<(), kernel_mount::KernelMountError> {
    kernel_mount::namespace::can_mount(kernel_mount::FileSystem::Nfs)?;
    target.map(kernel_mount::mount_target).transpose().map(|_| ())
}

/// The plan from the file or the defaults, with the command line's overrides, validated; an error is bad
/// usage, its message (without its sources: they are in it) names the flag, file, key or case.
fn build_plan(args: &CompareArgs, cpus: usize) -> anyhow::Result<(Plan, compare::validate::Unsupported)> {
    let mut defaults = Defaults::for_machine(cpus, args.quick);
    if let Some(s) = &args.size {
        defaults.size = parse_size(s).ok_or_else(|| anyhow!("--size '{s}' is not a size"))?;
    }
    let mut plan = match &args.plan {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| anyhow!("reading {}: {e}", path.display()))?;
            plan_file::parse(&text, defaults).map_err(|e| anyhow!("{}: {e}", path.display()))?
        }
        None => Plan::default_for(defaults),
    };
    if args.quick {
        plan.make_quick();
    }
    if let Some(r) = args.reps {
        plan.reps = r;
    }
    if let Some(r) = &args.runtime {
        plan.runtime = plan_file::parse_duration(r).ok_or_else(|| anyhow!("--runtime '{r}' is not a duration"))?;
    }
    if let Some(r) = &args.ramp_time {
        plan.ramp = plan_file::parse_duration(r).ok_or_else(|| anyhow!("--ramp-time '{r}' is not a duration"))?;
    }
    if !args.cases.is_empty() {
        plan.cases = args
            .cases
            .iter()
            .map(|c| {
                let (name, options) = c.split_once('=').ok_or_else(|| anyhow!("--case '{c}' is not NAME=OPTIONS"))?;
                Ok(Case::from_options(name, options))
            })
            .collect::<anyhow::Result<_>>()?;
        if !plan.cases.iter().any(|c| c.name == plan.baseline) {
            plan.baseline = plan.cases[0].name.clone();
        }
    }
    if let Some(list) = &args.only_cases {
        plan.cases = select(&plan.cases, list, "case", |c| &c.name)?;
        if !plan.cases.iter().any(|c| c.name == plan.baseline) {
            plan.baseline = plan.cases[0].name.clone();
        }
        // A sweep that names its cases keeps those still in the plan, and goes when none is left.
        let kept: Vec<String> = plan.cases.iter().map(|c| c.name.clone()).collect();
        plan.sweeps.retain_mut(|s| {
            s.cases.is_empty() || {
                s.cases.retain(|c| kept.contains(c));
                !s.cases.is_empty()
            }
        });
    }
    if let Some(list) = &args.workloads {
        plan.workloads = select(&plan.workloads, list, "workload", |w| &w.name)?;
        plan.sweeps.retain(|s| plan.workloads.iter().any(|w| w.name == s.workload));
    }
    let versions: Vec<String> = args
        .vers
        .iter()
        .flat_map(|l| l.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(String::from)
        .collect();
    if args.vers.is_some() && versions.is_empty() {
        bail!("--vers '' names no NFS version (e.g. --vers 3,4.1)");
    }
    plan.cross_versions(&versions);
    if let Some(b) = &args.baseline {
        // With --vers, a case's plain name means its first version.
        let crossed = versions.first().map(|v| format!("{b}-v{v}"));
        plan.baseline = match crossed {
            Some(name) if plan.cases.iter().any(|c| c.name == name) => name,
            _ => b.clone(),
        };
    }
    // After every change to the cases: `--engine` sets all of them.
    if let Some(engine) = args.engine.as_deref().and_then(compare::plan::Engine::parse) {
        plan.set_engine(engine);
        if engine == compare::plan::Engine::Kernel {
            plan.title = format!("{} — kernel NFS client", plan.title);
        }
    }
    if args.no_wire {
        plan.wire = false;
    }
    if let Some(w) = &args.wan {
        plan.wan = Some(mount_options::LinkSpec::parse(w)?);
    }
    if let Some(n) = args.clients {
        plan.workloads.iter_mut().for_each(|w| w.clients = Some(n));
    }
    for s in &args.sweeps {
        plan.sweeps.push(parse_sweep(s)?);
    }
    let unsupported = compare::validate::validate(&plan, args.target.as_deref())?;
    if plan.uses_mpi() && !compare::cell::mpirun_available() {
        bail!("clients needs Open MPI's mpirun, which is not installed (Debian: openmpi-bin)");
    }
    if let Some(hostfile) = &args.hostfile {
        if !plan.uses_mpi() {
            bail!("--hostfile places client processes, but no workload has clients (--clients N)");
        }
        std::fs::metadata(hostfile).map_err(|e| anyhow!("--hostfile {}: {e}", hostfile.display()))?;
    }
    Ok((plan, unsupported))
}

/// Keep the items named in `list`, in the list's order.
fn select<T: Clone>(items: &[T], list: &str, kind: &str, name: impl Fn(&T) -> &String) -> anyhow::Result<Vec<T>> {
    list.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| {
            items.iter().find(|i| name(i) == n).cloned().ok_or_else(|| {
                let known: Vec<&str> = items.iter().map(|i| name(i).as_str()).collect();
                anyhow!("no {kind} '{n}' in the plan (it has: {})", known.join(", "))
            })
        })
        .collect()
}

/// `WORKLOAD:PARAM=V1,V2,...`.
fn parse_sweep(text: &str) -> anyhow::Result<SweepSpec> {
    let bad =
        || anyhow!("--sweep '{text}' is not WORKLOAD:PARAM=V1,V2,... (PARAM iodepth, numjobs, bs, clients or rtt)");
    let (workload, rest) = text.split_once(':').ok_or_else(bad)?;
    let (param, values) = rest.split_once('=').ok_or_else(bad)?;
    let parameter = SweepParameter::parse(param).ok_or_else(bad)?;
    let values = values
        .split(',')
        .map(|v| parameter.parse_value(v).map_err(|e| anyhow!("--sweep '{text}': {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SweepSpec { parameter, values, workload: workload.to_string(), cases: Vec::new() })
}

fn parse_wire_peer(text: &str) -> anyhow::Result<compare::wire_baselines::Responders> {
    let mut parts = text.split(',');
    let addr = |p: Option<&str>| -> anyhow::Result<Option<std::net::SocketAddr>> {
        p.map(|a| a.trim().parse().map_err(|_| anyhow!("--wire-peer: '{a}' is not ADDR:PORT"))).transpose()
    };
    let tcp = addr(parts.next())?.ok_or_else(|| anyhow!("--wire-peer needs TCP_ADDR:PORT"))?;
    let rdma = addr(parts.next())?;
    Ok(compare::wire_baselines::Responders { tcp, rdma })
}

#[cfg(test)]
mod tests;
