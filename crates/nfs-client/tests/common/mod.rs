//! Test fixtures: our NFS server in-process on a loopback port, mount specs for it, a TCP proxy that
//! can cut or silence connections, and a scripted fake server for hostile replies.
#![allow(dead_code)]

pub mod fake;
pub mod proxy;

use std::net::SocketAddr;
use std::sync::Arc;

use mount_options::MountSpec;
use nfs_server::backend::mem::MemBackend;
use nfs_server::{ExportConfig, Server, ServerConfig, Squash};
use server_tcp::{ConnectionLimits, Listeners, TcpServer};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Our server with a 256 MiB RAM export at `/export`, serving NFS, MOUNT and the port mapper on one
/// loopback port.
pub struct TestServer {
    pub addr: SocketAddr,
    pub server: Arc<Server>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl TestServer {
    pub async fn start() -> TestServer {
        let listeners = Listeners::bind(&["127.0.0.1:0".parse().expect("addr")]).expect("bind");
        let addr = listeners.local_addrs()[0];
        let export = ExportConfig {
            path: "/export".into(),
            backend: Arc::new(MemBackend::new(256 << 20)),
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
        let tcp = TcpServer::new(listeners, Arc::clone(&server), ConnectionLimits::default());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(tcp.run(async {
            let _ = stopped.await;
        }));
        TestServer { addr, server, stop: Some(stop), task: Some(task) }
    }

    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

/// A spec for `127.0.0.1:/export` at `port` (NFS, MOUNT and port mapper all there) plus `options`.
pub fn spec(port: u16, options: &str) -> MountSpec {
    spec_for("/export", port, options)
}

pub fn spec_for(export: &str, port: u16, options: &str) -> MountSpec {
    let all = format!("port={port},mountport={port}{}{options}", if options.is_empty() { "" } else { "," });
    let mut spec = MountSpec::parse(&format!("127.0.0.1:{export}"), Some(&all)).expect("valid options");
    spec.portmapper_port = port;
    spec
}
