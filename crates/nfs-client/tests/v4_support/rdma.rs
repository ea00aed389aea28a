//! The fake NFSv4 server over RPC-over-RDMA: its COMPOUNDs served through server-rdma's front end on the
//! soft provider, the same state as over TCP.

use std::net::SocketAddr;
use std::sync::Arc;

use nfs_server::{ConnectionInfo, Reply};
use rdma::Provider;
use server_core::RecordHandler;
use server_rdma::{RdmaServer, RdmaServerConfig};

use super::{answer, FakeV4, Inner};

/// server-rdma's record handler: the fake's answer to each call.
struct Front(Arc<Inner>);

impl RecordHandler for Front {
    fn handle(&self, record: &[u8], _: &ConnectionInfo) -> Option<Reply> {
        answer(&self.0, record).map(|(reply, _)| Reply::from_inline(reply))
    }

    fn may_block(&self) -> bool {
        false
    }
}

impl FakeV4 {
    /// Serves the fake over RPC-over-RDMA too, on the soft provider; returns the address to mount.
    pub fn serve_rdma(&mut self) -> SocketAddr {
        let provider = rdma_soft::SoftProvider::new().expect("soft provider");
        let listener = provider.listen("127.0.0.1:0".parse().expect("addr")).expect("listen");
        let server = RdmaServer::new(listener, Arc::new(Front(self.inner.clone())), RdmaServerConfig::default());
        let addr = server.local_addr();
        self.tasks.push(tokio::spawn(async move {
            let _ = server.run(std::future::pending()).await;
        }));
        addr
    }
}
