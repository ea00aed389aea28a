//! Record in, reply out: what a front end asks of the NFS service for each record. A record is a call
//! (run by [`RecordHandler::handle`]) or, on a connection that carries backward calls, the client's
//! reply to one (given to [`RecordHandler::handle_reply`]): [`Direction::of`] tells them apart by the
//! RPC message type, and nothing the client sends as a REPLY is ever executed as a call.

use std::panic::AssertUnwindSafe;

use nfs_server::{BackwardReply, ConnectionInfo, Reply, Server};

/// What a front end drives: one complete RPC call record in, the reply (if any) out; and the replies
/// clients send to the server's backward calls. Implemented by [`nfs_server::Server`]; tests plug in
/// their own.
pub trait RecordHandler: Send + Sync + 'static {
    /// Executes one call record (the transport's framing removed); `None` when nothing is to be sent.
    fn handle(&self, record: &[u8], conn: &ConnectionInfo) -> Option<Reply>;

    /// True when `handle` may wait on a disk, so it must not run on a network thread.
    fn may_block(&self) -> bool;

    /// Takes one reply record the client sent on `conn` (to a call sent through
    /// [`BackChannel`](crate::BackChannel)); nothing is sent back. Runs on the connection's own task,
    /// so it must be quick and never block. By default nothing waits for replies: each is
    /// [`BackwardReply::Unknown`] and dropped.
    fn handle_reply(&self, record: &[u8], conn: &ConnectionInfo) -> BackwardReply {
        let _ = (record, conn);
        BackwardReply::Unknown
    }

    /// The most bytes the reply to the call `record` can take, when the call alone tells (a READ's
    /// count); `None` when unknown. Lets a connection admit a call into what it may still hold once the
    /// server-wide budget is spent. By default every reply is of unknown size.
    fn reply_bound(&self, record: &[u8]) -> Option<usize> {
        let _ = record;
        None
    }

    /// Counts `bytes` of a reply's payload the front end copied into a buffer of its own to send it
    /// (an RPC-over-RDMA reply sent inline or through a Reply chunk), for the service's "bytes copied
    /// per byte served". By default nothing counts them.
    fn payload_copied(&self, bytes: usize) {
        let _ = bytes;
    }
}

impl RecordHandler for Server {
    fn handle(&self, record: &[u8], conn: &ConnectionInfo) -> Option<Reply> {
        Server::handle(self, record, conn)
    }

    fn may_block(&self) -> bool {
        Server::may_block(self)
    }

    /// The NFSv4.1 callback path matches the reply to its call by xid; an unknown one is counted as a
    /// dropped REPLY (RFC 5531 §9: a server answers calls only). Nothing is sent back.
    fn handle_reply(&self, record: &[u8], conn: &ConnectionInfo) -> BackwardReply {
        Server::handle_reply(self, record, conn)
    }

    fn payload_copied(&self, bytes: usize) {
        Server::count_payload_copy(self, bytes);
    }

    fn reply_bound(&self, record: &[u8]) -> Option<usize> {
        Server::reply_bound(self, record)
    }
}

/// Which way an RPC record goes, read from its message type (RFC 5531 §9: `msg_type`, the word after
/// the xid: 0 CALL, 1 REPLY).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// A call, or a record too short or too odd to say: [`RecordHandler::handle`] judges it.
    Call,
    /// A reply: for [`RecordHandler::handle_reply`], never executed.
    Reply,
}

impl Direction {
    /// The direction of `record`.
    pub fn of(record: &[u8]) -> Direction {
        match record.get(4..8) {
            Some([0, 0, 0, 1]) => Direction::Reply,
            _ => Direction::Call,
        }
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

/// Hands one reply record to the handler; a panicking handler costs that reply only.
pub fn reply_contained<H: RecordHandler>(handler: &H, record: &[u8], info: &ConnectionInfo) -> BackwardReply {
    match std::panic::catch_unwind(AssertUnwindSafe(|| handler.handle_reply(record, info))) {
        Ok(verdict) => verdict,
        Err(_) => {
            tracing::error!(peer = %info.peer, len = record.len(), "reply handler panicked; reply dropped");
            BackwardReply::Unknown
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
    fn records_are_told_apart_by_their_message_type() {
        assert_eq!(Direction::of(&[0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0]), Direction::Reply);
        assert_eq!(Direction::of(&[0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 2]), Direction::Call);
        assert_eq!(Direction::of(&[0, 0, 0, 9, 0, 0, 0, 7]), Direction::Call, "the handler refuses garbage");
        assert_eq!(Direction::of(&[0, 0, 0, 9, 0, 0]), Direction::Call);
    }

    #[test]
    fn the_server_counts_a_reply_sent_to_it_and_answers_nothing() {
        use nfs_server::backend::mem::MemBackend;
        use nfs_server::{ExportConfig, ServerConfig, Squash};
        let export = ExportConfig {
            path: "/export".into(),
            backend: std::sync::Arc::new(MemBackend::new(1 << 20)),
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
            drc_entries: 16,
            tcp_port: 2049,
            rdma_port: None,
        };
        let server = Server::new(config).expect("server");
        let reply = onc_rpc::RpcMessage::reply(77, onc_rpc::ReplyBody::success(onc_rpc::OpaqueAuth::NONE));
        let record = reply.header_writer(0).into_vec();
        assert_eq!(Direction::of(&record), Direction::Reply);
        assert_eq!(reply_contained(&server, &record, &info()), BackwardReply::Unknown);
        assert!(server.stats_report().contains("rpc: dropped records: 1"), "{}", server.stats_report());
    }

    #[test]
    fn a_panicking_handler_costs_the_call_only() {
        assert!(run_contained(&Echo, b"", &info()).is_none());
        assert!(run_contained(&Echo, b"next", &info()).is_some(), "the handler still answers");
    }
}
