//! Record in, reply out: what a front end asks of the NFS service for each call.

use std::panic::AssertUnwindSafe;

use nfs_server::{ConnectionInfo, Reply, Server};

/// What a front end drives: one complete RPC call record in, the reply (if any) out.
/// Implemented by [`nfs_server::Server`]; tests plug in their own.
pub trait RecordHandler: Send + Sync + 'static {
    /// Executes one call record (the transport's framing removed); `None` when nothing is to be sent.
    fn handle(&self, record: &[u8], conn: &ConnectionInfo) -> Option<Reply>;

    /// True when `handle` may wait on a disk, so it must not run on a network thread.
    fn may_block(&self) -> bool;
}

impl RecordHandler for Server {
    fn handle(&self, record: &[u8], conn: &ConnectionInfo) -> Option<Reply> {
        Server::handle(self, record, conn)
    }

    fn may_block(&self) -> bool {
        Server::may_block(self)
    }
}

/// Runs one call; a panicking handler costs that call (no reply, the client retransmits), not the
/// connection or the server.
pub fn run_contained<H: RecordHandler>(handler: &H, record: &[u8], info: &ConnectionInfo) -> Option<Reply> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| handler.handle(record, info))) {
        Ok(reply) => reply,
        Err(_) => {
            tracing::error!(peer = %info.peer, len = record.len(), "RPC handler panicked; call dropped");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use nfs_server::{ConnectionId, TransportKind};

    use super::*;

    /// Echoes the record, or panics on an empty one.
    struct Echo;

    impl RecordHandler for Echo {
        fn handle(&self, record: &[u8], _conn: &ConnectionInfo) -> Option<Reply> {
            assert!(!record.is_empty(), "empty record");
            Some(Reply::from_inline(record.to_vec()))
        }

        fn may_block(&self) -> bool {
            false
        }
    }

    fn info() -> ConnectionInfo {
        let addr = "127.0.0.1:2049".parse().expect("addr");
        ConnectionInfo { id: ConnectionId::next(), peer: addr, local: addr, transport: TransportKind::Tcp }
    }

    #[test]
    fn a_reply_comes_back_as_the_handler_made_it() {
        let reply = run_contained(&Echo, b"call", &info()).expect("a reply");
        assert_eq!(reply.to_vec(), b"call");
    }

    #[test]
    fn a_panicking_handler_costs_the_call_only() {
        assert!(run_contained(&Echo, b"", &info()).is_none());
        assert!(run_contained(&Echo, b"next", &info()).is_some(), "the handler still answers");
    }
}
