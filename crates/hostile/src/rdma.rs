//! A small RPC-over-RDMA requester (RFC 8166) on the software RDMA provider, for the attacks and checks
//! that reach the server's RDMA front end: NFSv3 calls inline or with their WRITE data in a Read chunk,
//! replies matched by xid. Asynchronous (the provider runs inside a tokio runtime); callers own the
//! runtime. It offers the server no RDMA Read of its own (initiator depth 0), as the Linux client.

use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use nfs3_proto::{FileHandle3, GetattrArgs, Nfs3Proc, NfsStat3, StableHow, WriteArgs, NFS_PROGRAM, NFS_V3};
use onc_rpc::{AcceptStat, AuthSysParms, CallHeader, OpaqueAuth, ReplyBody, RpcMessage};
use rdma::{next_completions, Access, Completion, CompletionKind, MemoryRegion, QpConfig, QueuePair, RegBuf};
use rdma_soft::hostile::BusyCounters;
use rpcrdma_proto::{ChunkLists, ConnectPrivate, DecodeLimits, RdmaBody, RdmaHeader, ReadChunk, Segment};
use xdr::XdrEncode;

use crate::rpc::{RpcFailure, REPLY_TIMEOUT};

/// Inline send and receive size the requester offers (RFC 8797 private data), and its receive buffers.
const INLINE: u32 = 4096;
/// Receives posted: more than any server grants in credits.
const RECVS: u32 = 128;
/// Credits asked for in each call's header.
const CREDITS: u32 = 32;

/// Why the provider failed, as the crate's error.
fn rdma_failure(err: impl std::fmt::Display) -> RpcFailure {
    RpcFailure::Rdma(err.to_string())
}

/// An NFSv3 call, encoded for RPC-over-RDMA: the call with its bulk data item cut out, and where that
/// item goes (its XDR position in the whole call, RFC 8166 §3.4.5).
struct Call {
    inline: Vec<u8>,
    payload: Option<u32>,
}

/// An AUTH_SYS (root) NFSv3 call of `proc` with `args`.
fn nfs_call<T: XdrEncode>(xid: u32, proc: Nfs3Proc, args: &T) -> Call {
    let mut cred_buf = Vec::new();
    let cred = match AuthSysParms::new(1, b"hostile", 0, 0, &[0]) {
        Ok(parms) => parms.to_opaque_auth(&mut cred_buf),
        Err(_) => OpaqueAuth::NONE,
    };
    let msg = RpcMessage::call(xid, CallHeader::new(NFS_PROGRAM, NFS_V3, proc as u32, cred, OpaqueAuth::NONE));
    let mut w = msg.header_writer(256);
    args.encode(&mut w);
    let payload = w.payloads().first().map(|p| p.position as u32);
    Call { inline: w.inline_bytes().to_vec(), payload }
}

/// One RPC-over-RDMA connection.
#[derive(Debug)]
pub struct RdmaRequester {
    qp: Box<dyn QueuePair>,
    ready: VecDeque<Completion>,
    next_wr: u64,
    xid: u32,
}

/// The queue configuration of every connection made here.
fn config() -> QpConfig {
    QpConfig {
        recv_size: INLINE,
        max_recv: RECVS,
        max_send: 256,
        initiator_depth: 0,
        responder_resources: 16,
        ..QpConfig::default()
    }
}

/// The RFC 8797 private data sent when connecting.
fn private_data() -> [u8; rpcrdma_proto::CONNECT_PRIVATE_LEN] {
    ConnectPrivate::new(INLINE, INLINE, false).encode()
}

/// Declares any process a permitted tracer of this one, once, so that the server may RDMA-Read our
/// memory under Yama `ptrace_scope` 1 (what [`rdma_soft::SoftProvider::new`] does).
fn allow_the_server_to_read_us() -> Result<(), RpcFailure> {
    rdma_soft::SoftProvider::new().map(drop).map_err(rdma_failure)
}

impl RdmaRequester {
    /// Connects to the soft-RDMA listener at `addr`, and returns too the busy counters the server
    /// consults before it frees a registration of its own (a hostile peer raises them).
    pub async fn connect_with_counters(addr: SocketAddr) -> Result<(RdmaRequester, BusyCounters), RpcFailure> {
        allow_the_server_to_read_us()?;
        let private = private_data();
        let connecting = rdma_soft::hostile::connect(addr, config(), &private);
        let (qp, counters) =
            tokio::time::timeout(REPLY_TIMEOUT, connecting).await.map_err(|_| rdma_failure("connect timed out"))??;
        Ok((RdmaRequester::new(qp)?, counters))
    }

    /// Connects to the soft-RDMA listener at `addr` claiming in the Hello to have dialed `claimed`:
    /// `Err(RpcFailure::RdmaRefused)` carries the listener's reason when it says no.
    pub async fn connect_claiming(addr: SocketAddr, claimed: IpAddr) -> Result<RdmaRequester, RpcFailure> {
        allow_the_server_to_read_us()?;
        let private = private_data();
        let connecting = rdma_soft::hostile::connect_claiming(addr, claimed, config(), &private);
        let qp =
            tokio::time::timeout(REPLY_TIMEOUT, connecting).await.map_err(|_| rdma_failure("connect timed out"))??;
        RdmaRequester::new(qp)
    }

    /// Connects honestly (the address dialed is the address claimed).
    pub async fn connect(addr: SocketAddr) -> Result<RdmaRequester, RpcFailure> {
        Self::connect_claiming(addr, addr.ip()).await
    }

    fn new(qp: Box<dyn QueuePair>) -> Result<RdmaRequester, RpcFailure> {
        qp.post_recvs(RECVS).map_err(rdma_failure)?;
        Ok(RdmaRequester { qp, ready: VecDeque::new(), next_wr: 1, xid: 0x4d0a_0000 })
    }

    fn next_xid(&mut self) -> u32 {
        self.xid = self.xid.wrapping_add(1);
        self.xid
    }

    /// Posts one Send of `header` followed by the RPC message `rpc`; the bytes sent.
    fn send(&mut self, header: &RdmaHeader, rpc: &[u8]) -> Result<u64, RpcFailure> {
        let head = header.to_xdr_bytes();
        self.next_wr += 1;
        self.qp.post_send(self.next_wr, &[&head, rpc]).map_err(rdma_failure)?;
        Ok((head.len() + rpc.len()) as u64)
    }

    async fn next_completion(&mut self) -> Result<Completion, RpcFailure> {
        loop {
            if let Some(c) = self.ready.pop_front() {
                return Ok(c);
            }
            let mut out = Vec::new();
            match next_completions(&*self.qp, &mut out).await {
                Ok(()) => self.ready.extend(out),
                Err(rdma::RdmaError::Disconnected) => return Err(RpcFailure::Closed),
                Err(err) => return Err(rdma_failure(err)),
            }
        }
    }

    /// The RPC reply to `xid` (the bytes after the RPC-over-RDMA header), within [`REPLY_TIMEOUT`].
    async fn reply(&mut self, xid: u32) -> Result<Vec<u8>, RpcFailure> {
        let wait = async {
            loop {
                let completion = self.next_completion().await?;
                let message = match completion.result {
                    Ok(CompletionKind::Recv(message)) => message,
                    Ok(_) => continue,
                    Err(err) => return Err(rdma_failure(err)),
                };
                self.qp.post_recvs(1).map_err(rdma_failure)?;
                let (header, rpc) = RdmaHeader::decode(&message, &DecodeLimits::default())
                    .map_err(|e| RpcFailure::Malformed(e.to_string()))?;
                if header.xid != xid {
                    continue; // A late reply to an earlier call.
                }
                if let RdmaBody::Error(err) = header.body {
                    return Err(RpcFailure::NotAccepted(format!("RDMA_ERROR {err:?}")));
                }
                return Ok(rpc.to_vec());
            }
        };
        tokio::time::timeout(REPLY_TIMEOUT, wait).await.map_err(|_| rdma_failure("no reply in time"))?
    }

    /// The results of an accepted, successful RPC reply to `xid`.
    async fn results(&mut self, xid: u32) -> Result<Vec<u8>, RpcFailure> {
        let rpc = self.reply(xid).await?;
        let (msg, results) = RpcMessage::decode(&rpc).map_err(|e| RpcFailure::Malformed(e.to_string()))?;
        match msg.as_reply() {
            Some(ReplyBody::Accepted(a)) if a.stat == AcceptStat::Success => Ok(results.to_vec()),
            Some(other) => Err(RpcFailure::NotAccepted(format!("{other:?}"))),
            None => Err(RpcFailure::Malformed("a call where a reply was expected".into())),
        }
    }

    /// NFSv3 NULL, inline: the server answers at all.
    pub async fn null(&mut self) -> Result<(), RpcFailure> {
        let xid = self.next_xid();
        let call = nfs_call(xid, Nfs3Proc::Null, &nfs3_proto::Void);
        self.send(&RdmaHeader::msg(xid, CREDITS, ChunkLists::default()), &call.inline)?;
        self.results(xid).await.map(drop)
    }

    /// GETATTR of `fh`, inline: the status the server answered (NFS3_OK or the error).
    pub async fn getattr_status(&mut self, fh: &FileHandle3) -> Result<NfsStat3, RpcFailure> {
        let xid = self.next_xid();
        let call = nfs_call(xid, Nfs3Proc::Getattr, &GetattrArgs { object: *fh });
        self.send(&RdmaHeader::msg(xid, CREDITS, ChunkLists::default()), &call.inline)?;
        let results = self.results(xid).await?;
        let word = results.get(..4).ok_or_else(|| RpcFailure::Malformed("GETATTR reply without a status".into()))?;
        let status = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        NfsStat3::from_u32(status).ok_or_else(|| RpcFailure::Malformed(format!("GETATTR status {status}")))
    }

    /// Sends a WRITE (UNSTABLE) of `data` at offset 0 of `fh` whose data the server must pull with an
    /// RDMA Read from a region registered here (a Read chunk), without waiting for the reply. The
    /// region must live as long as the server may read it; the bytes sent go with it.
    pub fn send_write_by_read_chunk(
        &mut self,
        fh: &FileHandle3,
        data: &[u8],
    ) -> Result<(MemoryRegion, u64), RpcFailure> {
        let xid = self.next_xid();
        let call = nfs_call(xid, Nfs3Proc::Write, &WriteArgs::new(*fh, 0, StableHow::Unstable, data));
        let position = call.payload.ok_or_else(|| RpcFailure::Malformed("WRITE data was not a payload".into()))?;
        let region =
            self.qp.register(RegBuf::ReadOnly(data.to_vec().into()), Access::REMOTE_READ).map_err(rdma_failure)?;
        let whole = region.segment(0, data.len() as u32).ok_or_else(|| rdma_failure("segment outside the region"))?;
        let segment = Segment { handle: whole.handle, length: whole.length, offset: whole.offset };
        let chunks = ChunkLists {
            reads: rpcrdma_proto::smallvec![ReadChunk { position, segments: rpcrdma_proto::smallvec![segment] }],
            ..Default::default()
        };
        let sent = self.send(&RdmaHeader::msg(xid, CREDITS, chunks), &call.inline)?;
        Ok((region, sent))
    }

    /// Waits up to `limit` for the connection to go down, draining whatever arrives (receives are
    /// reposted): true when the server (or the provider) ended it.
    pub async fn closed_within(&mut self, limit: Duration) -> bool {
        let wait = async {
            loop {
                match self.next_completion().await {
                    Err(_) => return,
                    Ok(Completion { result: Ok(CompletionKind::Recv(_)), .. }) => {
                        if self.qp.post_recvs(1).is_err() {
                            return;
                        }
                    }
                    Ok(_) => {}
                }
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }

    /// Ends the connection from this side.
    pub fn disconnect(&self) {
        self.qp.disconnect();
    }
}

impl From<rdma::RdmaError> for RpcFailure {
    fn from(err: rdma::RdmaError) -> RpcFailure {
        match err {
            rdma::RdmaError::Refused { addr, reason } => RpcFailure::RdmaRefused { addr, reason },
            other => rdma_failure(other),
        }
    }
}
