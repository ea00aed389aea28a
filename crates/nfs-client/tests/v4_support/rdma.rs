//! The fake NFSv4 server over RPC-over-RDMA: its COMPOUNDs served through server-rdma's front end on the
//! soft provider, the same state as over TCP.

use std::net::SocketAddr;
use std::sync::Arc;

use nfs4_proto::{Compound4Res, Nfs4Result, NfsResOp};
use nfs_server::{ConnectionInfo, Reply};
use onc_rpc::RpcMessage;
use rdma::Provider;
use server_core::RecordHandler;
use server_rdma::{RdmaServer, RdmaServerConfig};

use super::{answer, FakeV4, Inner};

/// server-rdma's record handler: the fake's answer to each call.
struct Front(Arc<Inner>);

impl RecordHandler for Front {
    fn handle(&self, record: &[u8], _: &ConnectionInfo) -> Option<Reply> {
        answer(&self.0, record).map(|(reply, _)| read_data_apart(reply))
    }

    fn may_block(&self) -> bool {
        false
    }
}

/// The reply with its READ data apart, as `nfsbench serve` hands it to the transport: server-rdma puts
/// it in the call's Write chunk, or inline when the call offered none (RFC 8267 §4.2). A client that
/// sized its reply (a data COMPOUND's few words) offers no Reply chunk for the data to go in.
fn read_data_apart(record: Vec<u8>) -> Reply {
    let Some((start, len)) = read_data(&record) else { return Reply::from_inline(record) };
    let end = start + len + xdr::padding(len);
    let data = record[start..start + len].to_vec();
    let mut inline = record[..start].to_vec();
    inline.extend_from_slice(&record[end..]);
    Reply::with_payload(inline, start, data)
}

/// Where a READ result's data lies in a reply record, and its length.
fn read_data(record: &[u8]) -> Option<(usize, usize)> {
    let (_, body) = RpcMessage::decode(record).ok()?;
    let res: Compound4Res<'_> = xdr::decode_exact(body).ok()?;
    res.resarray.iter().find_map(|op| match op {
        NfsResOp::Read(Nfs4Result::Ok(ok)) => {
            Some((ok.data.as_ptr() as usize - record.as_ptr() as usize, ok.data.len()))
        }
        _ => None,
    })
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
