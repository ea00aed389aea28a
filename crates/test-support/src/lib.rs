//! Test fixtures shared by nfsbench's crates: [`TestServer`] runs the embedded NFSv3 server (a RAM
//! export at `/export`, NFS, MOUNT and the port mapper on one port) in-process on loopback listeners,
//! optionally behind a [`RecordHandler`] wrapper that misbehaves on purpose; [`spec`] gives the mount
//! options that reach it.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::net::SocketAddr;
use std::sync::Arc;

use mount_options::MountSpec;
use nfs_server::backend::mem::MemBackend;
use nfs_server::{ExportConfig, Server, ServerConfig, Squash};
use server_core::{ConnectionLimits, RecordHandler};
use server_tcp::{Listeners, TcpServer, TransportStats};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Size of the RAM export.
pub const EXPORT_SIZE: u64 = 256 << 20;

/// Our server, running until [`TestServer::stop`].
#[derive(Debug)]
pub struct TestServer {
    /// The first listener's address (all listeners share its port when bound to one).
    pub addr: SocketAddr,
    /// Every listener's address.
    pub addrs: Vec<SocketAddr>,
    pub server: Arc<Server>,
    pub transport: Arc<TransportStats>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl TestServer {
    /// The server on one ephemeral loopback port.
    pub async fn start() -> TestServer {
        Self::start_with(&["127.0.0.1:0".parse().expect("addr")], |server| server)
    }

    /// The server on `listen` (port 0 picks one), behind the handler `wrap` makes from it.
    pub fn start_with<H: RecordHandler>(listen: &[SocketAddr], wrap: impl FnOnce(Arc<Server>) -> Arc<H>) -> TestServer {
        let listeners = Listeners::bind(listen).expect("bind");
        let addrs = listeners.local_addrs().to_vec();
        let addr = addrs[0];
        let export = ExportConfig {
            path: "/export".into(),
            backend: Arc::new(MemBackend::new(EXPORT_SIZE)),
            read_only: false,
            clients: Vec::new(),
            squash: Squash::None,
            anon_uid: 65534,
            anon_gid: 65534,
            secure: false,
        };
        let config = ServerConfig {
            exports: vec![export],
            max_io_size: 1 << 20,
            drc_entries: 1024,
            tcp_port: addr.port(),
            rdma_port: None,
        };
        let server = Arc::new(Server::new(config).expect("server config"));
        let tcp = TcpServer::new(listeners, wrap(Arc::clone(&server)), ConnectionLimits::default());
        let transport = tcp.stats();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(tcp.run(async {
            let _ = stopped.await;
        }));
        TestServer { addr, addrs, server, transport, stop: Some(stop), task: Some(task) }
    }

    /// Stop accepting, let connections finish, and wait for the server to end; panics if it failed.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.expect("server task").expect("server ran without error");
        }
    }
}

/// A spec for `127.0.0.1:/export` at `port` (NFS, MOUNT and port mapper all there) plus `options`.
pub fn spec(port: u16, options: &str) -> MountSpec {
    spec_for("/export", port, options)
}

/// [`spec`] for another export path.
pub fn spec_for(export: &str, port: u16, options: &str) -> MountSpec {
    let all = format!("port={port},mountport={port}{}{options}", if options.is_empty() { "" } else { "," });
    let mut spec = MountSpec::parse(&format!("127.0.0.1:{export}"), Some(&all)).expect("valid options");
    spec.portmapper_port = port;
    spec
}
