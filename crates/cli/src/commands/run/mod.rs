//! `nfsbench run`: fio-style jobs against an NFS export through nfsbench's own client, or — without
//! `--target` — on local files and block devices through the file engine (io_uring).
//!
//! The command line is split ([`args`]); the job file and fio options become a [`fio_job::JobSet`]; the
//! target and `-o` options a [`mount_options::MountSpec`]; the client mounts the export and the engine
//! ([`load_engine::run`], or [`load_engine::file::run`] on local paths) runs the groups; the results are
//! written as fio writes them (normal, json, json+), the engine and what it ran on in the notes.
//! Started by `mpirun -np N`, every rank is one client and rank 0 writes the merged result ([`clients`]).
//!
//! Exit status: 0 success; 1 the run failed (an I/O or verify error, the server unreachable); 2 bad usage
//! or an unsupported option (the message names it).

pub mod args;
mod clients;
mod output;
mod progress;

use anyhow::Context;
use args::{Eta, RunArgs};
use clients::MpiClients;
use load_engine::{EngineConfig, LiveCounters};
use mount_options::{MountConfig, MountSpec};
use nfs_client::{ClientError, NfsClient};
use std::sync::Arc;
use std::time::SystemTime;

use super::kernel_engine::{KernelBlock, KernelSmb, KernelTarget};
use crate::error::{CliError, ExitKind};

/// Run `nfsbench run` with the arguments after the subcommand name.
pub fn run(raw: &[String]) -> Result<(), CliError> {
    super::init_logging();
    // The kernel engine's mount namespace is entered before any thread starts (MPI's, the runtime's):
    // unshare moves only the calling thread.
    // A block target is attached, not mounted: no namespace, but its initiator's tools are checked first.
    if let Ok(a) = args::parse(raw).as_ref().map(|a| (a.engine, a.target.as_deref())) {
        match a {
            (args::Engine::Kernel, Some(t)) if KernelBlock::is_block(t) => KernelBlock::check(t)?,
            (args::Engine::Kernel, Some(t)) => super::kernel_engine::enter_namespace(t)?,
            (args::Engine::Kernel, None) => {}
            _ => {}
        }
    }
    // MPI comes up first, on the main thread (where every MPI call is made: the engine's Peers calls run
    // inside `block_on`, on this thread).
    let clients = match MpiClients::from_env() {
        None => None,
        Some(Ok(clients)) => Some(Arc::new(clients)),
        Some(Err(message)) => {
            eprintln!("nfsbench: {message}");
            return Err(CliError::Reported(ExitKind::Failure));
        }
    };
    let me = Me::new(clients.as_deref());
    let setup = setup(raw, &me);
    if let Some(clients) = &clients {
        if !clients.all_ok(setup.is_ok()) {
            return Err(setup.err().unwrap_or_else(|| me.another_failed("starting")));
        }
    }
    let (args, mut jobs, spec) = match setup {
        Ok(Setup::Run(run)) => *run,
        Ok(Setup::Help) => {
            if me.speaks() {
                print!("{}", args::HELP);
            }
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let clones: usize = jobs.jobs.iter().map(|j| j.numjobs.max(1) as usize).sum();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Half the cores: the client's tasks are cheap and a loopback or same-host server needs the rest; on
    // 2 cores one thread measured faster than two (bench/client-vs-fio.sh, 4 jobs). The file engine's
    // clones run on threads of their own; the runtime only waits for them.
    let threads = match spec {
        Some(_) => args.client_threads.unwrap_or_else(|| (cores / 2).min(clones).max(1)),
        None => 1,
    };
    // One thread runs everything on the calling thread (tokio's current-thread scheduler): no
    // cross-thread wake-ups between a connection's reader and the jobs it completes.
    let mut builder = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(threads).thread_name("nfsbench-run");
        b
    };
    let path_delay = delay_path(&args, &me)?;
    let kernel = match (&args.engine, &args.target) {
        (args::Engine::Kernel, Some(target)) => {
            let mounted = if KernelBlock::is_block(target) {
                attach_kernel(&args, target, &mut jobs, &me)
            } else {
                mount_kernel(&args, target, &mut jobs, &me)
            };
            // Every rank mounts on its own host; all go on only if all mounted (the mounts that were
            // made are undone as they are dropped).
            if let Some(clients) = &clients {
                if !clients.all_ok(mounted.is_ok()) {
                    return Err(mounted.err().unwrap_or_else(|| me.another_failed("mounting")));
                }
            }
            Some(mounted?)
        }
        _ => None,
    };
    let runtime = builder.enable_all().build().context("starting the client runtime")?;
    let result = runtime.block_on(run_jobs(&args, &jobs, spec.as_ref(), kernel, clients, &me));
    // The path delay comes off after the target is unmounted or detached.
    if let Some(Err(e)) = path_delay.map(kernel_link::PathDelay::remove) {
        me.say(&format!("taking the delay off the path: {e}"));
    }
    result
}

/// `--engine kernel --wan`: the link put on the path to the target (tc netem), before the mount or
/// attach so that they cross it too.
fn delay_path(args: &RunArgs, me: &Me) -> Result<Option<kernel_link::PathDelay>, CliError> {
    let (Some(link), Some(target), args::Engine::Kernel) = (&args.wan, &args.target, args.engine) else {
        return Ok(None);
    };
    let host = super::kernel_engine::target_host(target);
    let delay = kernel_link::resolve(&host)
        .and_then(|addr| kernel_link::PathDelay::apply(addr, link, Box::new(kernel_link::SystemRunner)))
        .map_err(|e| me.failed(&format!("--wan on the path to {host}: {e}")))?;
    if me.speaks() {
        eprintln!("nfsbench: the path delayed: {}", delay.describe());
    }
    Ok(Some(delay))
}

/// `--engine kernel`: the target mounted by the OS's client (NFS, or SMB for `//HOST/SHARE`), every job's
/// files on the mount (a job's `directory=` is a path inside the export), and what the kernel did not
/// grant as asked said once.
fn mount_kernel(args: &RunArgs, target: &str, jobs: &mut fio_job::JobSet, me: &Me) -> Result<KernelTarget, CliError> {
    if let Some(job) = jobs.jobs.iter().find(|j| !j.filenames.is_empty()) {
        return Err(me.usage(&format!(
            "job '{}': filename= names a local path; with --engine kernel the files are on the mount (use directory= \
             inside the export)",
            job.name
        )));
    }
    let options = args.mount_options.as_deref().unwrap_or("");
    let parent = std::env::temp_dir();
    let mounted = match kernel_mount::FileSystem::of_target(target) {
        kernel_mount::FileSystem::Cifs => KernelSmb::mount(target, options, &parent).map(|m| {
            let point = m.point().to_path_buf();
            (KernelTarget::Smb(m), point)
        }),
        kernel_mount::FileSystem::Nfs => super::kernel_engine::KernelMount::mount(target, options, &parent).map(|m| {
            let point = m.point().to_path_buf();
            (KernelTarget::Nfs(m), point)
        }),
    };
    let (kernel, point) = mounted.map_err(|e| {
        me.say(&e.to_string());
        CliError::Reported(e.kind())
    })?;
    for job in &mut jobs.jobs {
        let inside = job.directory.as_deref().unwrap_or("").trim_start_matches('/');
        job.directory = Some(point.join(inside).display().to_string());
    }
    if me.speaks() {
        eprintln!("nfsbench: {} mounted by the kernel: {}", target, kernel.transport());
        for difference in kernel.differences() {
            eprintln!("nfsbench: note: the kernel did not grant what was asked: {difference}");
        }
    }
    Ok(kernel)
}

/// `--engine kernel` with a block target: attached by the OS's initiator, every job on its block device
/// (fio's `filename=`), and what the kernel did not grant as asked said once.
fn attach_kernel(args: &RunArgs, target: &str, jobs: &mut fio_job::JobSet, me: &Me) -> Result<KernelTarget, CliError> {
    if let Some(job) = jobs.jobs.iter().find(|j| !j.filenames.is_empty() || j.directory.is_some()) {
        return Err(me.usage(&format!(
            "job '{}': filename= or directory= names a local path; with a block target the jobs run on the \
             attached device",
            job.name
        )));
    }
    let options = args.mount_options.as_deref().unwrap_or("");
    let block = KernelBlock::attach(target, options).map_err(|e| {
        me.say(&e.to_string());
        CliError::Reported(e.kind())
    })?;
    for job in &mut jobs.jobs {
        job.filenames = vec![block.device().display().to_string()];
    }
    if me.speaks() {
        eprintln!("nfsbench: {} attached by the kernel: {}", target, block.transport());
        for difference in block.differences() {
            eprintln!("nfsbench: note: the kernel did not grant what was asked: {difference}");
        }
    }
    Ok(KernelTarget::Block(block))
}

/// What the command line asks for.
enum Setup {
    Help,
    /// The command line, the jobs, and the export (`None`: the file engine on local paths).
    Run(Box<(RunArgs, fio_job::JobSet, Option<MountSpec>)>),
}

/// The command line, the job file and the target, or the exit status that says why not.
fn setup(raw: &[String], me: &Me) -> Result<Setup, CliError> {
    let args = match args::parse(raw) {
        Ok(args) if args.help => return Ok(Setup::Help),
        Ok(args) => args,
        Err(message) => return Err(me.usage(&message)),
    };
    let job_text = match &args.job_file {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) => return Err(me.failed(&format!("reading job file {}: {e}", path.display()))),
        },
        None => None,
    };
    // Where the jobs run is said first: a job the file engine could not run for want of a path must not
    // be refused for its size.
    if args.target.is_none() && !names_a_local_path(&args.fio_args, job_text.as_deref()) {
        return Err(me.usage(NO_TARGET));
    }
    let job_name = args.job_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
    let jobs = match fio_job::parse(job_text.as_deref().map(|t| (t, job_name.as_str())), &args.fio_args) {
        Ok(jobs) => jobs,
        Err(e) => return Err(me.usage(&e.to_string())),
    };
    let spec = match &args.target {
        // The kernel's client reads the options (mount.nfs): nfsbench's own parser does not judge them.
        Some(_) if args.engine == args::Engine::Kernel => None,
        Some(target) => match MountSpec::parse(target, args.mount_options.as_deref()) {
            Ok(spec) => Some(spec),
            Err(e) => return Err(me.usage(&e.to_string())),
        },
        None => {
            if let Some(job) = jobs.jobs.iter().find(|j| j.directory.is_none() && j.filenames.is_empty()) {
                return Err(me.usage(&format!("job '{}': {NO_TARGET}", job.name)));
            }
            None
        }
    };
    if me.speaks() {
        let nfs_notices = spec.as_ref().map_or(&[][..], |s| &s.notices[..]);
        let own_client = spec.is_some();
        for notice in jobs.notices.iter().filter(|n| own_client || !nfs_only_notice(n)).chain(nfs_notices) {
            eprintln!("nfsbench: note: {notice}");
        }
    }
    Ok(Setup::Run(Box::new((args, jobs, spec))))
}

const NO_TARGET: &str = "no --target and no local path: give --target HOST:/EXPORT (NFS), or --directory DIR or \
                         filename= (the file engine on local files)";

/// Whether the fio options or the job file give a `directory=` or `filename=`.
fn names_a_local_path(fio_args: &[String], job_text: Option<&str>) -> bool {
    let key = |s: &str| {
        let k = s.trim_start_matches('-').split('=').next().unwrap_or("").trim();
        k == "directory" || k == "filename"
    };
    fio_args.iter().any(|a| key(a)) || job_text.is_some_and(|t| t.lines().any(|l| key(l.trim())))
}

/// fio-job's notices that speak of the NFS client (ioengine=, invalidate, thread): the file engine runs
/// io_uring on threads of its own and invalidates cached pages as fio does, so they do not apply.
fn nfs_only_notice(notice: &str) -> bool {
    ["ioengine=", "invalidate:", "thread:"].iter().any(|p| notice.starts_with(p))
}

async fn run_jobs(
    args: &RunArgs,
    jobs: &fio_job::JobSet,
    spec: Option<&MountSpec>,
    kernel: Option<KernelTarget>,
    clients: Option<Arc<MpiClients>>,
    me: &Me,
) -> Result<(), CliError> {
    let client = match spec {
        Some(spec) => Some(mount_in_step(args, spec, calls_in_flight(jobs), clients.as_deref(), me).await?),
        None => None,
    };
    let live = Arc::new(LiveCounters::default());
    let peers = clients.clone().map(|c| c as Arc<dyn load_engine::Peers>);
    let export = spec.map_or_else(String::new, |s| s.export.clone());
    let config = EngineConfig { export, live: live.clone(), verbose_layout: me.speaks(), peers };
    let show_progress = me.speaks()
        && match args.eta {
            Eta::Always => true,
            Eta::Never => false,
            Eta::Auto => std::io::IsTerminal::is_terminal(&std::io::stderr()),
        };
    let ticker = show_progress.then(|| progress::spawn(live.clone(), jobs));
    let interrupts = tokio::spawn(stop_on_interrupt(live.clone()));
    let start_time = SystemTime::now();
    let outcome = match &client {
        Some(client) => load_engine::run(client, jobs, &config).await,
        None => load_engine::file::run(jobs, &config).await,
    };
    interrupts.abort();
    if let Some(ticker) = ticker {
        ticker.stop().await;
    }
    let notes = match (client, spec) {
        (Some(client), Some(spec)) => {
            let connections = client.connections();
            let rpc = client.stats();
            if let Err(e) = client.unmount().await {
                me.say(&format!("unmounting {}: {e}", args.target.as_deref().unwrap_or_default()));
            }
            output::nfs_notes(args, spec, &connections, &rpc)
        }
        _ => output::file_notes(jobs),
    };
    // The kernel engine: its notes, and the client's counters over the run with the mount undone.
    let (notes, sections) = match kernel {
        Some(kernel) => {
            let notes = output::kernel_notes(args, &kernel, notes);
            (notes, vec![("kernel", kernel.finish().map_err(|e| me.failed(&e.to_string()))?)])
        }
        None => (notes, Vec::new()),
    };
    let engine_run = match outcome {
        Ok(run) => run,
        Err(load_engine::EngineError::Usage(message)) => return Err(me.usage(&message)),
        Err(e @ load_engine::EngineError::DirectRefused { .. }) => return Err(me.usage(&e.to_string())),
        Err(e @ load_engine::EngineError::Task(_)) if clients.is_some() => {
            // The ranks are no longer in step: end now, and mpirun ends the others.
            me.say(&e.to_string());
            std::process::exit(1);
        }
        Err(load_engine::EngineError::Peer { .. }) if !me.speaks() => {
            return Err(CliError::Reported(ExitKind::Failure))
        }
        Err(e) => return Err(me.failed(&e.to_string())),
    };
    if me.speaks() {
        for notice in &engine_run.notices {
            eprintln!("nfsbench: note: {notice}");
        }
    }
    let run = output::run_result(jobs, notes, engine_run.results, start_time);
    let Some(clients) = clients else {
        output::write(args, &run, &sections)?;
        for failure in &engine_run.failures {
            eprintln!("nfsbench: {failure}");
        }
        return said_failures(&engine_run.failures);
    };
    let own = said_failures(&engine_run.failures);
    let gathered = match clients.gather(&run, &engine_run.failures) {
        Ok(Some(gathered)) => gathered,
        Ok(None) => return own,
        Err(message) => return Err(me.failed(&message)),
    };
    let all = match report::clients::all_clients(&gathered.clients) {
        Ok(all) => all,
        Err(message) => return Err(me.failed(&format!("merging the clients' results: {message}"))),
    };
    output::write_clients(args, &gathered.clients, &all, &sections)?;
    for failure in &gathered.failures {
        eprintln!("nfsbench: {failure}");
    }
    said_failures(&gathered.failures)
}

/// The client mounted, every rank agreeing under MPI (a rank that cannot mount stops them all).
async fn mount_in_step(
    args: &RunArgs,
    spec: &MountSpec,
    in_flight: u32,
    clients: Option<&MpiClients>,
    me: &Me,
) -> Result<NfsClient, CliError> {
    let mounted = mount(args, spec, in_flight, me).await;
    if let Some(clients) = clients {
        if !clients.all_ok(mounted.is_ok()) {
            return Err(match mounted {
                Ok(client) => {
                    let _ = client.unmount().await;
                    me.another_failed("mounting")
                }
                Err(e) => e,
            });
        }
    }
    mounted
}

/// Exit status 1 when jobs failed (their failures were printed with the results), else success.
fn said_failures(failures: &[String]) -> Result<(), CliError> {
    if failures.is_empty() {
        Ok(())
    } else {
        Err(CliError::Reported(ExitKind::Failure))
    }
}

/// The most I/Os the engine keeps in flight at once: `iodepth × numjobs` summed over the jobs of the
/// largest group (groups run one after another). An NFSv4 session asks for that many slots.
fn calls_in_flight(jobs: &fio_job::JobSet) -> u32 {
    let mut groups: std::collections::BTreeMap<u32, u32> = std::collections::BTreeMap::new();
    for job in &jobs.jobs {
        let calls = job.iodepth.max(1).saturating_mul(job.numjobs.max(1));
        let group = groups.entry(job.group).or_default();
        *group = group.saturating_add(calls);
    }
    groups.into_values().max().unwrap_or(1)
}

/// The client mounted as `-o` asks (an NFSv4 session with a slot for each of `in_flight` calls), or the
/// exit status that says why not.
async fn mount(args: &RunArgs, spec: &MountSpec, in_flight: u32, me: &Me) -> Result<NfsClient, CliError> {
    let rdma = super::rdma_flags::rdma_settings(args.rdma_provider, args.rdma_credits, args.rdma_inline);
    // `--wan`: one link for every connection of this client, TCP and RDMA alike (the client applies it).
    let config = MountConfig { spec: spec.clone(), rdma, link: args.wan.clone() };
    let mut builder = NfsClient::builder(&config).max_in_flight(in_flight);
    if config.is_rdma() {
        let provider = super::provider::open_provider(config.rdma.provider).map_err(|message| me.failed(&message))?;
        builder = builder.rdma_provider(provider);
        // Every report must say which provider carried the I/O (and the link it carries, if any).
        let rdma = builder.rdma().map_err(|e| mount_failed(args, me, e))?;
        if let (Some(rdma), true) = (rdma, me.speaks()) {
            eprintln!("nfsbench: RPC-over-RDMA over {}", rdma.provider.name());
        }
    } else if let Some(flag) = args.rdma_flag_given() {
        return Err(me.usage(&format!("{flag} applies to proto=rdma only (this mount is proto=tcp)")));
    }
    if let (Some(link), true) = (&config.link, me.speaks()) {
        eprintln!("nfsbench: emulating a long-distance link on the client side: {link} (TCP and RDMA alike)");
    }
    builder.mount().await.map_err(|e| mount_failed(args, me, e))
}

/// A mount refused for what this client does not do or cannot combine is a usage error; anything else
/// a failure naming the target.
fn mount_failed(args: &RunArgs, me: &Me, e: ClientError) -> CliError {
    match e {
        ClientError::Unsupported(what) => me.usage(&what),
        e @ ClientError::LinkNeedsSoftProvider { .. } => me.usage(&e.to_string()),
        e => me.failed(&format!("mounting {}: {e}", args.target.as_deref().unwrap_or_default())),
    }
}

/// The first SIGINT or SIGTERM stops the jobs as fio does (I/O in flight completes, results are
/// printed, a kernel engine's mount is undone); a second one exits at once with status 130, for a hard
/// mount whose server went away. `compare` stops a cell with SIGTERM.
async fn stop_on_interrupt(live: Arc<LiveCounters>) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) else {
        return;
    };
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
    }
    eprintln!("nfsbench: interrupted: stopping the jobs (interrupt again to quit at once)");
    live.interrupt();
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
    }
    std::process::exit(130);
}

/// Who prints: a single process always; under MPI rank 0 speaks for everyone (every rank has the same
/// command line, so usage errors and notes are said once) and the other ranks say only their own
/// failures, naming themselves.
struct Me {
    /// "host rank K" under MPI.
    name: Option<String>,
    rank: usize,
}

impl Me {
    fn new(clients: Option<&MpiClients>) -> Me {
        match clients {
            Some(c) => Me { name: Some(format!("{} rank {}", c.host(), c.rank())), rank: c.rank() },
            None => Me { name: None, rank: 0 },
        }
    }

    fn speaks(&self) -> bool {
        self.rank == 0
    }

    /// One line on stderr, naming the rank under MPI.
    fn say(&self, message: &str) {
        match &self.name {
            Some(name) => eprintln!("nfsbench: {name}: {message}"),
            None => eprintln!("nfsbench: {message}"),
        }
    }

    /// Exit status 1 after saying why.
    fn failed(&self, message: &str) -> CliError {
        self.say(message);
        CliError::Reported(ExitKind::Failure)
    }

    /// Exit status 2 after the usage message (said once).
    fn usage(&self, message: &str) -> CliError {
        if self.speaks() {
            eprintln!("nfsbench run: {message}");
        }
        CliError::Reported(ExitKind::Usage)
    }

    /// Exit status 1 when this rank was fine but another was not (which said why itself).
    fn another_failed(&self, step: &str) -> CliError {
        if self.speaks() {
            eprintln!("nfsbench: another client failed while {step}; stopping");
        }
        CliError::Reported(ExitKind::Failure)
    }
}
