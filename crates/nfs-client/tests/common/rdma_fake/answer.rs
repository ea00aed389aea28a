//! The fake's answers: READ data RDMA-Written into the call's Write chunk, the reply sent inline or
//! RDMA-Written into the Reply chunk (RFC 8166 §3.5), FSINFO answered without the script, raw messages.

use nfs3_proto::{FsinfoRes, FsinfoResOk, Nfs3Proc, NfsTime3};
use onc_rpc::{OpaqueAuth, ReplyBody, RpcMessage};
use rdma::{Access, RegBuf};
use rpcrdma_proto::{ChunkLists, RdmaBody, RdmaHeader, Segment, WriteChunk};
use xdr::{XdrEncode, XdrWriter};

use super::{remote, Conn, FakeError, RdmaCall};

pub(super) fn send(conn: &Conn, header: &RdmaHeader, rest: &[u8]) {
    let mut w = XdrWriter::new();
    header.encode(&mut w);
    let _ = conn.qp.post_send(0, &[&w.to_vec(), rest]);
}

/// RFC 8166 §3.5: READ data into the Write chunk, then the reply inline, or into the Reply chunk
/// when it does not fit the client's receive threshold.
pub(super) async fn answer(
    conn: &Conn,
    xid: u32,
    grant: u32,
    offered: &ChunkLists,
    results: Vec<u8>,
    placed: Option<Vec<u8>>,
) -> Result<(), FakeError> {
    let mut w = RpcMessage::reply(xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(results.len());
    w.put_raw(&results);
    let mut record = w.to_vec();
    let mut chunks = ChunkLists::default();
    match (placed, offered.writes.first()) {
        (Some(data), Some(chunk)) => {
            let target = chunk.segments.first().ok_or(FakeError::Malformed("empty write chunk"))?;
            let len = data.len() as u32;
            if len > 0 {
                let local = conn.qp.register(RegBuf::Writable(data), Access::LOCAL_WRITE)?;
                conn.one_sided(true, &local, 0, remote(target, len)).await?;
            }
            chunks.writes.push(WriteChunk { segments: rpcrdma_proto::smallvec![Segment { length: len, ..*target }] });
        }
        (Some(data), None) => {
            record.extend_from_slice(&data);
            record.extend_from_slice(&[0; 4][..xdr::padding(data.len())]);
        }
        (None, _) => {}
    }
    let fits = record.len() + RdmaHeader::msg(xid, grant, chunks.clone()).encoded_len() <= conn.limits.send as usize;
    match &offered.reply {
        Some(reply) if !fits => {
            let target = reply.segments.first().ok_or(FakeError::Malformed("empty reply chunk"))?;
            let len = record.len() as u32;
            let local = conn.qp.register(RegBuf::Writable(record), Access::LOCAL_WRITE)?;
            conn.one_sided(true, &local, 0, remote(target, len)).await?;
            chunks.reply = Some(WriteChunk { segments: rpcrdma_proto::smallvec![Segment { length: len, ..*target }] });
            send(conn, &RdmaHeader::nomsg(xid, grant, chunks), &[]);
        }
        _ => send(conn, &RdmaHeader::msg(xid, grant, chunks), &record),
    }
    Ok(())
}

pub(super) fn builtin(call: &RdmaCall) -> Option<Vec<u8>> {
    if call.proc != Nfs3Proc::Fsinfo as u32 {
        return None;
    }
    let ok = FsinfoResOk {
        obj_attributes: None,
        rtmax: 1 << 20,
        rtpref: 1 << 20,
        rtmult: 4096,
        wtmax: 1 << 20,
        wtpref: 1 << 20,
        wtmult: 4096,
        dtpref: 8192,
        maxfilesize: u64::MAX,
        time_delta: NfsTime3 { seconds: 0, nseconds: 1 },
        properties: 0,
    };
    Some(FsinfoRes::Ok(ok).to_xdr_bytes())
}

/// The RDMA_MSG bytes of a reply to `xid` carrying `rpc` (for raw, hostile sends).
pub fn raw_reply(xid: u32, grant: u32, rpc: &[u8]) -> Vec<u8> {
    let header = RdmaHeader::msg(xid, grant, ChunkLists::default());
    let mut w = XdrWriter::new();
    header.encode(&mut w);
    w.put_raw(rpc);
    w.to_vec()
}

/// The RDMA_MSG / RDMA_NOMSG body of a header.
pub fn body(header: &RdmaHeader) -> &ChunkLists {
    match &header.body {
        RdmaBody::Msg(c) | RdmaBody::NoMsg(c) => c,
        RdmaBody::Error(_) => panic!("an RDMA_ERROR call"),
    }
}
