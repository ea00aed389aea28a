//! `nfsbench serve`: the embedded NFSv3 + MOUNT v3 and NFSv4.1/4.2 server on TCP and, with `--rdma`, NFS
//! over RPC-over-RDMA v1 too (port 20049, any provider: verbs on an RDMA device, soft without one). NFSv4
//! callbacks go back on the clients' own connections (the transports' back channel), and a ticker keeps
//! NFSv4 time (leases, grace, callback timeouts) while no call comes; `[nfs4]` sets it up (`nfs4.rs`). With
//! `--baseline-listen ADDR:PORT` it also answers `nfsbench compare`'s wire baselines (the
//! `wire-baseline` crate): the raw TCP stream and ping-pong on ADDR:PORT and, with `--rdma`, RDMA Write
//! bandwidth and Send ping-pong on ADDR, port PORT+1 (any when PORT is 0), over the same provider.
//! `--wan SPEC` serves every connection through an emulated long-distance link (the `wan` crate), so
//! any client, the Linux kernel's too, sees that path.
//!
//! Flags and the optional TOML file are merged into a [`ServePlan`]; the listeners are bound first (so
//! the ports chosen for `:0` are what GETPORT answers), then the backends and the server are built, the
//! ready file is written (one bound address per line: the TCP listeners, the RDMA listeners, then the
//! wire-baseline responders of `--baseline-listen`: TCP, then RDMA), and connections are served until
//! SIGINT or SIGTERM. Shutdown stops accepting, lets each connection finish its calls, and prints the
//! statistics to stdout.
//!
//! Exit status: 0 after a clean shutdown; 1 when serving fails (an address in use, an unwritable ready
//! file, no RDMA provider); 2 for bad usage (a bad flag or configuration).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mount_options::ProviderChoice;
use nfs_server::backend::dir::DirBackend;
use nfs_server::backend::mem::MemBackend;
use nfs_server::backend::Backend;
use nfs_server::{ExportConfig, Server, ServerConfig};
use server_core::BackChannel;
use server_rdma::{RdmaServer, RdmaServerConfig};
use server_tcp::{Listeners, TcpServer, TransportStats};
use tokio::signal::unix::{signal, SignalKind};

use super::provider::open_provider;
use crate::error::CliError;
use crate::serve_config::spec::{self, BackendSpec, ExportSpec};
use crate::serve_config::{ConfigFile, ExportPlan, ServeConfigError, ServePlan};
use mount_options::rdma::{parse_credits, parse_inline};

pub mod nfs4;

/// How often the NFSv4 housekeeping runs (lease expiry, grace, callback timeouts) when no call does.
const NFS4_TICK: Duration = Duration::from_secs(1);

/// Network threads by default. One event-loop thread measured as fast as two workers on the 2-core
/// machine with less CPU (see `server_tcp::runtime`): the client needs the other core.
pub const DEFAULT_WORKERS: usize = 1;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// TCP address to listen on, repeatable; port 0 picks a free port [default: 127.0.0.1:2049]
    #[arg(long, value_name = "ADDR:PORT", value_parser = spec::parse_listen)]
    pub listen: Vec<SocketAddr>,
    /// An export, repeatable: PATH=mem[:SIZE] (RAM disk, e.g. /export=mem:4GiB) or PATH=dir:DIR
    /// [default: /export=mem:1GiB]
    #[arg(long, value_name = "PATH=BACKEND", value_parser = ExportSpec::parse)]
    pub export: Vec<ExportSpec>,
    /// TOML file with listeners, exports (access rules, squash) and limits; flags override it
    #[arg(long, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,
    /// Written, with the bound addresses one per line, once every listener accepts connections
    #[arg(long, value_name = "PATH")]
    pub ready_file: Option<PathBuf>,
    /// Print statistics to stderr every SECS seconds
    #[arg(long, value_name = "SECS", value_parser = parse_interval)]
    pub stats_interval: Option<Duration>,
    /// Network threads: 1 runs every connection on one event loop; more use a work-stealing pool
    #[arg(long, value_name = "N", default_value_t = DEFAULT_WORKERS, value_parser = parse_threads)]
    pub workers: usize,
    /// Threads for calls to backends that may block (dir:), i.e. disk I/Os in flight at once
    #[arg(long, value_name = "N", default_value_t = server_tcp::DEFAULT_BLOCKING_THREADS, value_parser = parse_threads)]
    pub blocking_threads: usize,
    /// Also serve NFS over RPC-over-RDMA v1 (RFC 8166; MOUNT and the port mapper stay on TCP)
    #[arg(long)]
    pub rdma: bool,
    /// RPC-over-RDMA listen address, repeatable (a multi-homed server: clients spread over them with
    /// remoteports); port 0 picks a free port [default: the first TCP listener's address, port 20049]
    #[arg(long, value_name = "ADDR:PORT", value_parser = spec::parse_listen, requires = "rdma")]
    pub rdma_listen: Vec<SocketAddr>,
    /// auto (verbs when an RDMA device exists, else soft), verbs (rdma-core) or soft (shared memory,
    /// clients on this host only)
    #[arg(long, value_name = "P", default_value_t = ProviderChoice::Auto, requires = "rdma")]
    pub rdma_provider: ProviderChoice,
    /// Credits granted per RDMA connection, 1..=1024 (RFC 8166 §3.3; knfsd grants 64)
    #[arg(long, value_name = "N", value_parser = parse_credits, requires = "rdma")]
    pub rdma_credits: Option<u32>,
    /// Inline threshold offered, 1KiB..=64KiB (RFC 8797) [default: 4KiB]
    #[arg(long, value_name = "SIZE", value_parser = parse_inline, requires = "rdma")]
    pub rdma_inline: Option<u32>,
    /// Network threads RDMA connections are dealt to, per --rdma-listen address, each connection on one
    /// for its whole life (its queue pair's completions reaped by that thread) [default: half the
    /// machine's cores, 1 to 8]
    #[arg(long, value_name = "N", value_parser = parse_threads, requires = "rdma")]
    pub rdma_threads: Option<usize>,
    /// Completion vectors (verbs: the device's interrupts) the queue pairs' completion queues are
    /// spread over, dealt out with the threads [default: one per RDMA thread]
    #[arg(long, value_name = "N", value_parser = parse_comp_vectors, requires = "rdma")]
    pub rdma_comp_vectors: Option<u32>,
    /// Also answer `nfsbench compare`'s wire baselines (TCP stream and ping-pong) on ADDR:PORT, and with
    /// --rdma the RDMA ones (Write bandwidth, Send ping-pong) on ADDR, port PORT+1 (any when PORT is 0),
    /// over --rdma-provider; the ready file lists them last (TCP, then RDMA)
    #[arg(long, value_name = "ADDR:PORT", value_parser = spec::parse_listen)]
    pub baseline_listen: Option<SocketAddr>,
    /// Emulate a long-distance link on the server side, e.g. rtt=20ms,rate=10gbit (rtt= or
    /// distance=8600mi|km at 5 us/km each way; rate=, jitter=, loss=0.1%, tcp_window=6m): every TCP
    /// connection, TCP or RDMA (soft provider), the wire baselines' too, is delayed and paced as on that link
    #[arg(long, value_name = "SPEC")]
    pub wan: Option<String>,
    /// Directory for the key that signs file handles of dir: exports, so they survive a restart (created
    /// 0700, key 0600; outside every export) [default: /var/lib/nfsbench as root, else ~/.local/state/nfsbench]
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
}

fn parse_threads(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!("'{text}' is not a thread count from 1 to 1024")),
    }
}

fn parse_comp_vectors(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!("'{text}' is not a number of completion vectors from 1 to 1024")),
    }
}

/// RDMA network threads when `--rdma-threads` is not given: half the cores, from 1 to 8. The other half
/// is for the clients on the same machine and the blocking pool: on the 2-core development VM two
/// threads made 0.79× the IOPS of one beside a 2-connection client (docs/results.md).
fn default_rdma_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).clamp(1, 8))
}

fn parse_interval(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs.is_finite() && secs < 1e9 => Ok(Duration::from_secs_f64(secs)),
        _ => Err(format!("'{text}' is not a positive number of seconds")),
    }
}

/// How `serve` failed: bad usage (exit 2) or a failed run (exit 1); each a one-line message.
#[derive(Debug)]
enum Failure {
    Usage(String),
    Run(String),
}

impl From<Failure> for CliError {
    fn from(failure: Failure) -> CliError {
        match failure {
            Failure::Usage(message) => CliError::Usage(message),
            Failure::Run(message) => CliError::Failed(message),
        }
    }
}

pub fn run(args: &ServeArgs) -> Result<(), CliError> {
    super::init_logging();
    Ok(serve(args)?)
}

/// The plan from the flags and the configuration file.
pub fn plan(args: &ServeArgs) -> Result<ServePlan, ServeConfigError> {
    let file = match &args.config {
        Some(path) => {
            Some((path.as_path(), ConfigFile::load(path).map_err(|e| ServeConfigError::ConfigFlag(Box::new(e)))?))
        }
        None => None,
    };
    ServePlan::build(file, &args.listen, &args.export)
}

fn serve(args: &ServeArgs) -> Result<(), Failure> {
    let plan = plan(args).map_err(|e| Failure::Usage(e.to_string()))?;
    // `--wan`: one link for every connection of this server, TCP and RDMA alike.
    let link = match &args.wan {
        Some(text) => {
            Some(wan::Link::new(mount_options::LinkSpec::parse(text).map_err(|e| Failure::Usage(e.to_string()))?))
        }
        None => None,
    };
    if let Some(ready) = &args.ready_file {
        remove_stale(ready).map_err(Failure::Run)?;
    }
    let listeners = Listeners::bind(&plan.listen).map_err(|e| Failure::Run(e.to_string()))?;
    let addrs = listeners.local_addrs().to_vec();
    let runtime =
        server_tcp::runtime(args.workers, args.blocking_threads).map_err(|e| Failure::Run(format!("runtime: {e}")))?;
    // Providers register their event sources with the runtime: the listener is made inside it.
    let rdma = match args.rdma {
        true => Some(runtime.block_on(async { rdma_listeners(args, &addrs, link.as_ref()) })?),
        false => None,
    };
    if let Some(link) = &link {
        eprintln!(
            "nfsbench serve: emulating a long-distance link on the server side: {} (TCP and RDMA alike)",
            link.spec
        );
    }
    let baseline = match args.baseline_listen {
        Some(addr) => Some(runtime.block_on(async { baseline_listeners(addr, rdma.as_ref()) })?),
        None => None,
    };
    let mut ready_addrs = addrs.clone();
    if let Some(r) = &rdma {
        ready_addrs.extend(r.listeners.iter().map(|l| l.local_addr()));
    }
    if let Some((tcp, rdma)) = &baseline {
        ready_addrs.push(tcp.local_addr().map_err(|e| Failure::Run(format!("--baseline-listen: {e}")))?);
        ready_addrs.extend(rdma.as_ref().map(|l| l.local_addr()));
    }
    let exports = plan.exports.iter().map(export_config).collect::<Result<Vec<_>, _>>().map_err(Failure::Usage)?;
    let config = ServerConfig {
        exports,
        max_io_size: plan.max_io_size,
        drc_entries: plan.drc_entries,
        tcp_port: addrs.first().map_or(0, SocketAddr::port),
        rdma_port: rdma.as_ref().and_then(|r| r.listeners.first()).map(|l| l.local_addr().port()),
    };
    let server = Server::with_nfs4(config, args.state_dir.as_deref(), &plan.nfs4);
    let server = Arc::new(server.map_err(|e| Failure::Usage(e.to_string()))?);
    // NFSv4.1 callbacks go back on the clients' own connections, TCP and RDMA alike.
    let back_channel = BackChannel::new();
    server.set_backchannel(back_channel.clone());
    let (transport, rdma_stats) = runtime.block_on(async {
        let shutdown = shutdown_signal().map_err(|e| Failure::Run(format!("signal handlers: {e}")))?;
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let until_stopped = || {
            let mut stopped = stopped.clone();
            async move {
                let _ = stopped.wait_for(|s| *s).await;
            }
        };
        let tcp = TcpServer::new(listeners, Arc::clone(&server), plan.connection)
            .with_link(link.clone())
            .with_back_channel(back_channel.clone());
        let stats = tcp.stats();
        let rdma_servers: Vec<RdmaServer> = rdma
            .map(|r| {
                // `[limits] max_connections` holds for queue pairs too (per RDMA listener).
                let config = RdmaServerConfig {
                    max_connections: plan.connection.max_connections,
                    max_read_target_bytes: plan.rdma_read_targets.unwrap_or(r.config.max_read_target_bytes),
                    ..r.config
                };
                eprintln!("nfsbench serve: RPC-over-RDMA: at most {} connections per listener", config.max_connections);
                r.listeners
                    .into_iter()
                    .map(|l| RdmaServer::new(l, Arc::clone(&server), config).with_back_channel(back_channel.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let rdma_stats: Vec<_> = rdma_servers.iter().map(RdmaServer::stats).collect();
        let baselines = baseline.map(|(tcp, rdma)| {
            let mut tasks = vec![tokio::spawn(wire_baseline::serve_tcp_over(tcp, link.clone()))];
            tasks.extend(rdma.map(|l| tokio::spawn(wire_baseline::serve_rdma(l))));
            tasks
        });
        // One line, before the ready file appears: the `[limits]` in force, each under its key.
        eprintln!(
            "nfsbench serve: limits: {} max_io_size {} drc_entries {}",
            plan.connection, plan.max_io_size, plan.drc_entries
        );
        eprintln!("nfsbench serve: nfs4: {}", nfs4::describe(&plan.nfs4));
        if let Some(ready) = &args.ready_file {
            write_ready_file(ready, &ready_addrs).map_err(Failure::Run)?;
        }
        tracing::info!(addrs = ?ready_addrs, exports = plan.exports.len(), "serving");
        let reporter = args.stats_interval.map(|every| {
            tokio::spawn(report_every(every, Arc::clone(&server), Arc::clone(&stats), rdma_stats.clone()))
        });
        let ticker = tokio::spawn(tick_every(NFS4_TICK, Arc::clone(&server)));
        let signalled = tokio::spawn(async move {
            shutdown.await;
            let _ = stop.send(true);
        });
        let rdma_served: Vec<_> =
            rdma_servers.into_iter().map(|rdma| tokio::spawn(rdma.run(until_stopped()))).collect();
        let served = tcp.run(until_stopped()).await;
        signalled.abort();
        for task in baselines.into_iter().flatten() {
            task.abort();
        }
        if let Some(reporter) = reporter {
            reporter.abort();
        }
        ticker.abort();
        served.map_err(|e| Failure::Run(format!("serving: {e}")))?;
        for rdma_served in rdma_served {
            match rdma_served.await {
                Ok(result) => result.map_err(|e| Failure::Run(format!("serving RPC-over-RDMA: {e}")))?,
                Err(e) => return Err(Failure::Run(format!("serving RPC-over-RDMA: {e}"))),
            }
        }
        Ok((stats, rdma_stats))
    })?;
    drop(runtime);
    if let Some(ready) = &args.ready_file {
        let _ = std::fs::remove_file(ready);
    }
    println!("{}", server.stats_report().trim_end());
    println!("{}", transport.snapshot());
    for rdma in rdma_stats {
        println!("{}", rdma.snapshot());
    }
    Ok(())
}

/// The RPC-over-RDMA listeners `--rdma` asks for, on the provider `--rdma-provider` names, with their
/// configuration and the provider (the RDMA wire baseline uses it too).
#[derive(Debug)]
struct RdmaListeners {
    listeners: Vec<Box<dyn rdma::Listener>>,
    config: RdmaServerConfig,
    provider: Arc<dyn rdma::Provider>,
}

/// Opens the provider and listens on every `--rdma-listen` address. The provider is named on stderr:
/// every report says which one served. `link`: the long-distance link of `--wan`, which the provider is
/// to carry.
fn rdma_listeners(
    args: &ServeArgs,
    tcp: &[SocketAddr],
    link: Option<&Arc<wan::Link>>,
) -> Result<RdmaListeners, Failure> {
    let addrs = if args.rdma_listen.is_empty() {
        let ip = tcp.first().map_or(std::net::Ipv4Addr::LOCALHOST.into(), SocketAddr::ip);
        vec![SocketAddr::new(ip, rpcrdma_proto::NFS_RDMA_PORT)]
    } else {
        args.rdma_listen.clone()
    };
    let provider = open_provider(args.rdma_provider).map_err(Failure::Run)?;
    // The RDMA wire baseline goes through the same provider, so through the link too.
    let provider = match link {
        Some(link) => {
            nfs_client::rdma::provider_over_link(provider, link).map_err(|e| Failure::Usage(e.to_string()))?
        }
        None => provider,
    };
    let listeners = addrs
        .iter()
        .map(|addr| provider.listen(*addr).map_err(|e| Failure::Run(format!("--rdma-listen {addr}: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let mut config = RdmaServerConfig::default();
    if let Some(credits) = args.rdma_credits {
        config.credits = credits;
    }
    if let Some(inline) = args.rdma_inline {
        config.inline_size = inline;
    }
    config.threads = args.rdma_threads.unwrap_or_else(default_rdma_threads);
    if let Some(vectors) = args.rdma_comp_vectors {
        if !provider.has_completion_vectors() {
            return Err(Failure::Usage(format!(
                "--rdma-comp-vectors: {} has no completion vectors (each queue pair is signalled on its own)",
                provider.name()
            )));
        }
        config.comp_vectors = vectors;
    }
    let bound: Vec<String> = listeners.iter().map(|l| l.local_addr().to_string()).collect();
    let vectors = if provider.has_completion_vectors() {
        format!(", {} completion vectors", config.comp_vectors())
    } else {
        String::new()
    };
    eprintln!(
        "nfsbench serve: RPC-over-RDMA on {} with {} ({} credits, inline {} bytes, {} network threads{vectors})",
        bound.join(", "),
        provider.name(),
        config.credits,
        config.inline_size,
        config.threads,
    );
    Ok(RdmaListeners { listeners, config, provider })
}

/// The wire-baseline listeners of `--baseline-listen`: TCP on `addr`, and RDMA on the same address at
/// port+1 (any port when `addr`'s is 0) over the RDMA listeners' provider. Made inside the runtime.
fn baseline_listeners(
    addr: SocketAddr,
    rdma: Option<&RdmaListeners>,
) -> Result<(tokio::net::TcpListener, Option<Box<dyn rdma::Listener>>), Failure> {
    let failed = |e: &dyn std::fmt::Display| Failure::Run(format!("--baseline-listen {addr}: {e}"));
    let rdma_port = match (rdma, addr.port()) {
        (None, _) | (_, 0) => 0,
        (Some(_), port) => port.checked_add(1).ok_or_else(|| {
            Failure::Usage(format!("--baseline-listen {addr}: no port {port}+1 for the RDMA baseline"))
        })?,
    };
    let tcp = std::net::TcpListener::bind(addr).map_err(|e| failed(&e))?;
    tcp.set_nonblocking(true).map_err(|e| failed(&e))?;
    let tcp = tokio::net::TcpListener::from_std(tcp).map_err(|e| failed(&e))?;
    let rdma = match rdma {
        Some(r) => {
            let at = SocketAddr::new(addr.ip(), rdma_port);
            Some(r.provider.listen(at).map_err(|e| Failure::Run(format!("--baseline-listen (RDMA) {at}: {e}")))?)
        }
        None => None,
    };
    Ok((tcp, rdma))
}

/// The backend an export names; the error names the export and its backend.
fn open_backend(export: &ExportPlan) -> Result<Arc<dyn Backend>, String> {
    match &export.backend {
        BackendSpec::Mem { size } => Ok(Arc::new(MemBackend::new(*size))),
        BackendSpec::Dir { path } => match DirBackend::new(path) {
            Ok(backend) => Ok(Arc::new(backend)),
            Err(e) => Err(format!("export {}=dir:{}: {e}", export.path, path.display())),
        },
    }
}

fn export_config(export: &ExportPlan) -> Result<ExportConfig, String> {
    Ok(ExportConfig {
        path: export.path.clone(),
        backend: open_backend(export)?,
        read_only: export.read_only,
        clients: export.clients.clone(),
        squash: export.squash,
        anon_uid: export.anon_uid,
        anon_gid: export.anon_gid,
        secure: export.secure,
    })
}

/// Completes on the first SIGINT or SIGTERM. The handlers are installed before this returns, so a
/// signal that arrives once the ready file exists is never the default (fatal) one.
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        let which = tokio::select! {
            _ = interrupt.recv() => "SIGINT",
            _ = terminate.recv() => "SIGTERM",
        };
        tracing::info!(signal = which, "shutting down");
    })
}

/// The server's report (procedures, bytes copied per byte served) and each transport's counters (RDMA:
/// registrations per I/O), every `every`.
async fn report_every(
    every: Duration,
    server: Arc<Server>,
    stats: Arc<TransportStats>,
    rdma: Vec<Arc<server_rdma::RdmaTransportStats>>,
) {
    let mut ticks = tokio::time::interval(every);
    ticks.tick().await; // the first tick is immediate
    loop {
        ticks.tick().await;
        eprintln!("{}\n{}", server.stats_report().trim_end(), stats.snapshot());
        for rdma in &rdma {
            eprintln!("{}", rdma.snapshot());
        }
    }
}

/// NFSv4 housekeeping while the server is idle (calls run it too). It may write the reclaim record of a
/// `dir:` server, so it runs on the blocking pool.
async fn tick_every(every: Duration, server: Arc<Server>) {
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        let server = Arc::clone(&server);
        let _ = tokio::task::spawn_blocking(move || server.tick(Instant::now())).await;
    }
}

fn remove_stale(ready: &Path) -> Result<(), String> {
    match std::fs::remove_file(ready) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("--ready-file {}: {e}", ready.display())),
    }
}

/// Writes the bound addresses, one per line, all at once (a temporary file renamed into place), so a
/// watcher never sees a partial file.
fn write_ready_file(ready: &Path, addrs: &[SocketAddr]) -> Result<(), String> {
    let text: String = addrs.iter().map(|a| format!("{a}\n")).collect();
    let mut tmp = ready.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, ready))
        .map_err(|e| format!("--ready-file {}: {e}", ready.display()))
}

#[cfg(test)]
mod tests;
