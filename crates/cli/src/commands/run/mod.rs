//! `nfsbench run`: fio-style jobs against an NFS export through nfsbench's own client.
//!
//! The command line is split ([`args`]); the job file and fio options become a [`fio_job::JobSet`]; the
//! target and `-o` options a [`mount_options::MountSpec`]; the client mounts the export and the engine
//! ([`bench::run`]) runs the groups; the results are written as fio writes them (normal, json, json+).
//!
//! Exit status: 0 success; 1 the run failed (an I/O or verify error, the server unreachable); 2 bad usage
//! or an unsupported option (the message names it).

pub mod args;
mod output;
mod progress;

use anyhow::Context;
use args::{Eta, RunArgs};
use bench::{EngineConfig, LiveCounters};
use mount_options::MountSpec;
use nfs_client::{NfsClient, RdmaConfig};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::SystemTime;

/// Run `nfsbench run` with the arguments after the subcommand name.
pub fn run(raw: &[String]) -> anyhow::Result<ExitCode> {
    super::init_logging();
    let args = match args::parse(raw) {
        Ok(args) if args.help => {
            print!("{}", args::HELP);
            return Ok(ExitCode::SUCCESS);
        }
        Ok(args) => args,
        Err(message) => return Ok(usage(&message)),
    };
    let job_text = match &args.job_file {
        Some(path) => {
            Some(std::fs::read_to_string(path).with_context(|| format!("reading job file {}", path.display()))?)
        }
        None => None,
    };
    let job_name = args.job_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
    let jobs = match fio_job::parse(job_text.as_deref().map(|t| (t, job_name.as_str())), &args.fio_args) {
        Ok(jobs) => jobs,
        Err(e) => return Ok(usage(&e.to_string())),
    };
    let spec = match MountSpec::parse(&args.target, args.mount_options.as_deref()) {
        Ok(spec) => spec,
        Err(e) => return Ok(usage(&e.to_string())),
    };
    for notice in jobs.notices.iter().chain(&spec.notices) {
        eprintln!("nfsbench: note: {notice}");
    }
    let clones: usize = jobs.jobs.iter().map(|j| j.numjobs.max(1) as usize).sum();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Half the cores: the client's tasks are cheap and a loopback or same-host server needs the rest; on
    // 2 cores one thread measured faster than two (bench/client-vs-fio.sh, 4 jobs).
    let threads = args.client_threads.unwrap_or_else(|| (cores / 2).min(clones).max(1));
    // One thread runs everything on the calling thread (tokio's current-thread scheduler): no
    // cross-thread wake-ups between a connection's reader and the jobs it completes.
    let mut builder = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(threads).thread_name("nfsbench-run");
        b
    };
    let runtime = builder.enable_all().build().context("starting the client runtime")?;
    runtime.block_on(run_jobs(&args, &jobs, &spec))
}

async fn run_jobs(args: &RunArgs, jobs: &fio_job::JobSet, spec: &MountSpec) -> anyhow::Result<ExitCode> {
    let rdma = match spec.proto {
        mount_options::Proto::Rdma => match rdma_config(args) {
            Ok(config) => Some(config),
            Err(message) => {
                eprintln!("nfsbench: {message}");
                return Ok(ExitCode::FAILURE);
            }
        },
        mount_options::Proto::Tcp => {
            if let Some(flag) = args.rdma_flag_given() {
                return Ok(usage(&format!("{flag} applies to proto=rdma only (this mount is proto=tcp)")));
            }
            None
        }
    };
    let client = match NfsClient::mount_with(spec, rdma).await {
        Ok(client) => client,
        Err(nfs_client::ClientError::Unsupported(what)) => return Ok(usage(&what)),
        Err(e) => {
            eprintln!("nfsbench: mounting {}: {e}", args.target);
            return Ok(ExitCode::FAILURE);
        }
    };
    let live = Arc::new(LiveCounters::default());
    let config = EngineConfig { export: spec.export.clone(), live: live.clone(), verbose_layout: true, peers: None };
    let show_progress = match args.eta {
        Eta::Always => true,
        Eta::Never => false,
        Eta::Auto => std::io::IsTerminal::is_terminal(&std::io::stderr()),
    };
    let ticker = show_progress.then(|| progress::spawn(live.clone(), jobs));
    let interrupts = tokio::spawn(stop_on_interrupt(live.clone()));
    let start_time = SystemTime::now();
    let outcome = bench::run(&client, jobs, &config).await;
    interrupts.abort();
    if let Some(ticker) = ticker {
        ticker.stop().await;
    }
    let connections = client.connections();
    if let Err(e) = client.unmount().await {
        eprintln!("nfsbench: unmounting {}: {e}", args.target);
    }
    let engine_run = match outcome {
        Ok(run) => run,
        Err(bench::EngineError::Usage(message)) => return Ok(usage(&message)),
        Err(e) => {
            eprintln!("nfsbench: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    for notice in &engine_run.notices {
        eprintln!("nfsbench: note: {notice}");
    }
    output::write(args, jobs, spec, &connections, engine_run.results, start_time)?;
    for failure in &engine_run.failures {
        eprintln!("nfsbench: {failure}");
    }
    Ok(if engine_run.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The RDMA provider and settings of `--rdma-*`; the provider used is named on stderr, since every report
/// must say which one carried the I/O.
fn rdma_config(args: &RunArgs) -> Result<RdmaConfig, String> {
    let provider = super::rdma_flags::open_provider(args.rdma_provider)?;
    eprintln!("nfsbench: RPC-over-RDMA over {}", provider.name());
    let mut config = RdmaConfig::new(provider);
    if let Some(credits) = args.rdma_credits {
        config.credits = credits;
    }
    if let Some(inline) = args.rdma_inline {
        config.inline_size = inline;
    }
    Ok(config)
}

/// The first SIGINT stops the jobs as fio does (I/O in flight completes, results are printed); a second
/// one exits at once with status 130, for a hard mount whose server went away.
async fn stop_on_interrupt(live: Arc<LiveCounters>) {
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    eprintln!("nfsbench: interrupted: stopping the jobs (interrupt again to quit at once)");
    live.interrupt();
    if tokio::signal::ctrl_c().await.is_ok() {
        std::process::exit(130);
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("nfsbench run: {message}");
    ExitCode::from(2)
}
