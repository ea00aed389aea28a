//! The embedded RAM server, run as a background `nfsbench serve` on loopback for the length of a
//! comparison: NFS over TCP on every loopback address the plan's `remoteports` name (one port for all,
//! as a multi-homed server), RPC-over-RDMA on each of them when a case uses RDMA, and the wire-baseline
//! responders (`--baseline-listen`).

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How to start the server.
#[derive(Clone, Debug)]
pub struct EmbeddedConfig {
    pub exe: PathBuf,
    /// Loopback addresses to serve on (127.0.0.1 first).
    pub addrs: Vec<IpAddr>,
    /// RAM export capacity, bytes.
    pub mem_bytes: u64,
    /// `--rdma-provider` for the server, when any case uses RDMA.
    pub rdma_provider: Option<String>,
    /// Server-side `--rdma-credits` / `--rdma-inline` (the plan's largest asks).
    pub rdma_credits: Option<u32>,
    pub rdma_inline: Option<u32>,
    /// Where its ready file and log go.
    pub dir: PathBuf,
}

/// Why the embedded server did not come up; the last lines of its log are in the message.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("finding a free port: {0}")]
    FreePort(#[source] std::io::Error),
    #[error("creating {}: {source}", .path.display())]
    CreateLog {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {source}", .path.display())]
    ShareLog {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("starting {} serve: {source}", .exe.display())]
    Spawn {
        exe: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("server ready file: '{0}' is not an address")]
    ReadyLine(String),
    #[error("the embedded server exited ({status}): {log_tail}")]
    Exited { status: ExitStatus, log_tail: String },
    #[error("the embedded server did not start within 20 s: {log_tail}")]
    NotReady { log_tail: String },
}

/// A running server; stopped (SIGTERM, then SIGKILL after 5 s) when dropped.
#[derive(Debug)]
pub struct EmbeddedServer {
    child: Child,
    /// The loopback addresses it serves.
    pub addrs: Vec<IpAddr>,
    /// NFS and MOUNT over TCP (same port on every address).
    pub nfs_port: u16,
    /// RPC-over-RDMA (same port on every address), when started with RDMA.
    pub rdma_port: Option<u16>,
    /// The wire-baseline responders: TCP, and RDMA when started with RDMA.
    pub baseline_tcp: SocketAddr,
    pub baseline_rdma: Option<SocketAddr>,
    pub log: PathBuf,
}

impl EmbeddedServer {
    /// Start and wait (up to 20 s) until it accepts connections.
    pub fn start(config: &EmbeddedConfig) -> Result<EmbeddedServer, ServerError> {
        let nfs_port = free_port()?;
        let rdma_port = config.rdma_provider.as_ref().map(|_| free_port()).transpose()?;
        let ready = config.dir.join("server.ready");
        let log = config.dir.join("server.log");
        let _ = std::fs::remove_file(&ready);
        let mut cmd = Command::new(&config.exe);
        cmd.arg("serve");
        for a in &config.addrs {
            cmd.arg("--listen").arg(SocketAddr::new(*a, nfs_port).to_string());
        }
        cmd.arg("--export").arg(format!("/export=mem:{}", config.mem_bytes));
        if let (Some(provider), Some(port)) = (&config.rdma_provider, rdma_port) {
            cmd.arg("--rdma").arg("--rdma-provider").arg(provider);
            for a in &config.addrs {
                cmd.arg("--rdma-listen").arg(SocketAddr::new(*a, port).to_string());
            }
            if let Some(c) = config.rdma_credits {
                cmd.arg("--rdma-credits").arg(c.to_string());
            }
            if let Some(i) = config.rdma_inline {
                cmd.arg("--rdma-inline").arg(i.to_string());
            }
        }
        cmd.arg("--baseline-listen").arg("127.0.0.1:0").arg("--ready-file").arg(&ready);
        let log_file =
            std::fs::File::create(&log).map_err(|source| ServerError::CreateLog { path: log.clone(), source })?;
        let err_file = log_file.try_clone().map_err(|source| ServerError::ShareLog { path: log.clone(), source })?;
        let child = cmd
            .stdin(Stdio::null())
            .stdout(log_file)
            .stderr(err_file)
            .spawn()
            .map_err(|source| ServerError::Spawn { exe: config.exe.clone(), source })?;
        let mut server = EmbeddedServer {
            child,
            addrs: config.addrs.clone(),
            nfs_port,
            rdma_port,
            baseline_tcp: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            baseline_rdma: None,
            log: log.clone(),
        };
        let lines = server.wait_ready(&ready, config.addrs.len(), rdma_port.is_some())?;
        server.baseline_tcp = lines[0];
        server.baseline_rdma = lines.get(1).copied();
        Ok(server)
    }

    /// The server's process id (for its CPU time).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Wait for the ready file: the NFS addresses, the RDMA ones, then the baseline responders; returns
    /// the baseline lines.
    fn wait_ready(&mut self, ready: &Path, addrs: usize, rdma: bool) -> Result<Vec<SocketAddr>, ServerError> {
        let expected = addrs * if rdma { 2 } else { 1 } + if rdma { 2 } else { 1 };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(text) = std::fs::read_to_string(ready) {
                let lines: Vec<&str> = text.lines().collect();
                if lines.len() >= expected {
                    return lines[expected - if rdma { 2 } else { 1 }..expected]
                        .iter()
                        .map(|l| l.trim().parse().map_err(|_| ServerError::ReadyLine(l.to_string())))
                        .collect();
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(ServerError::Exited { status, log_tail: self.log_tail() });
            }
            if Instant::now() > deadline {
                return Err(ServerError::NotReady { log_tail: self.log_tail() });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The last lines of the server's log, for error messages.
    pub fn log_tail(&self) -> String {
        let mut text = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut text);
        }
        let lines: Vec<&str> = text.lines().rev().take(5).collect();
        lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
    }

    /// Whether the server is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for EmbeddedServer {
    fn drop(&mut self) {
        // SIGTERM lets it print its statistics to the log; std's kill() is SIGKILL, so ask kill(1).
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port free on 127.0.0.1 now (the server binds it on every loopback address it serves).
fn free_port() -> Result<u16, ServerError> {
    let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(ServerError::FreePort)?;
    l.local_addr().map(|a| a.port()).map_err(ServerError::FreePort)
}
