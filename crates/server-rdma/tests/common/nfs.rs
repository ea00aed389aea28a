//! NFSv3 calls as the Linux client sends them over RPC-over-RDMA: small calls inline, WRITE data in a
//! Read chunk at its XDR position, READ data through a Write chunk, large replies through a Reply chunk.

use nfs3_proto::{
    CreateArgs, CreateHow3, CreateRes, DirOpArgs3, FileHandle3, NfsStat3, PostOpAttr, ReadArgs, Sattr3, StableHow,
    WriteArgs, WriteRes,
};
use onc_rpc::{AuthSysParms, CallHeader, OpaqueAuth, ReplyBody, RpcMessage, NFS_PROGRAM};
use rdma::{Access, RegBuf};
use rpcrdma_proto::{ChunkLists, RdmaBody, RdmaHeader, ReadChunk, WriteChunk};
use xdr::{XdrDecode, XdrEncode, XdrReader};

use super::{contents, segments, Requester};

pub const CREATE: u32 = 8;
pub const WRITE: u32 = 7;
pub const READ: u32 = 6;

/// An NFSv3 call encoded with its bulk data kept apart.
pub struct Encoded {
    /// The call with the data item (and its padding) removed; its length word stays.
    pub inline: Vec<u8>,
    /// The whole call.
    pub whole: Vec<u8>,
    /// The data item's XDR position in the whole call, and its length.
    pub payload: Option<(u32, usize)>,
}

/// An AUTH_SYS (root) NFSv3 call of `proc` with `args`.
pub fn nfs_call<T: XdrEncode>(xid: u32, proc: u32, args: &T) -> Encoded {
    let mut cred_buf = Vec::new();
    let cred = AuthSysParms::new(1, b"rdma-test", 0, 0, &[0]).expect("cred").to_opaque_auth(&mut cred_buf);
    let msg = RpcMessage::call(xid, CallHeader::new(NFS_PROGRAM, 3, proc, cred, OpaqueAuth::NONE));
    let mut w = msg.header_writer(256);
    args.encode(&mut w);
    let payload = w.payloads().first().map(|p| (p.position as u32, p.data.len()));
    Encoded { inline: w.inline_bytes().to_vec(), whole: w.to_vec(), payload }
}

/// The results of an accepted, successful RPC reply.
pub fn results(rpc: &[u8]) -> &[u8] {
    let (msg, results) = RpcMessage::decode(rpc).expect("RPC reply decodes");
    assert_eq!(msg.as_reply(), Some(&ReplyBody::success(OpaqueAuth::NONE)), "accepted success");
    results
}

/// An RDMA_MSG header with no chunks.
pub fn inline_header(xid: u32) -> RdmaHeader {
    RdmaHeader::msg(xid, 64, ChunkLists::default())
}

/// The chunk lists of an RDMA_MSG or RDMA_NOMSG reply.
pub fn reply_chunks(header: &RdmaHeader) -> &ChunkLists {
    match &header.body {
        RdmaBody::Msg(c) | RdmaBody::NoMsg(c) => c,
        RdmaBody::Error(e) => panic!("RDMA_ERROR {e:?} for xid {}", header.xid),
    }
}

/// CREATE (unchecked) of `name` in `dir`, inline; the new file's handle.
pub async fn create(req: &mut Requester, xid: u32, dir: FileHandle3, name: &[u8]) -> FileHandle3 {
    let args = CreateArgs { where_: DirOpArgs3 { dir, name }, how: CreateHow3::Unchecked(Sattr3::default()) };
    let (header, rpc) = req.call(&inline_header(xid), &nfs_call(xid, CREATE, &args).inline).await;
    assert!(matches!(header.body, RdmaBody::Msg(_)));
    match xdr::decode_exact::<CreateRes>(results(&rpc)).expect("CREATE3res") {
        nfs3_proto::Nfs3Result::Ok(ok) => ok.obj.expect("a handle"),
        nfs3_proto::Nfs3Result::Fail(e, _) => panic!("CREATE failed: {e:?}"),
    }
}

/// WRITE (FILE_SYNC) with the data in a Read chunk of `piece`-byte segments; the count written.
pub async fn write_by_read_chunk(req: &mut Requester, xid: u32, file: FileHandle3, data: &[u8], piece: usize) -> u32 {
    let call = nfs_call(xid, WRITE, &WriteArgs::new(file, 0, StableHow::FileSync, data));
    let (position, len) = call.payload.expect("WRITE data is a payload");
    let region = req.register(RegBuf::ReadOnly(data.to_vec().into()), Access::REMOTE_READ);
    // RFC 8166 §3.4.5: the data item's position in the whole call; its XDR pad is not in the chunk.
    let chunk = ReadChunk { position, segments: segments(&region, len, piece) };
    let header = RdmaHeader::msg(xid, 64, ChunkLists { reads: rpcrdma_proto::smallvec![chunk], ..Default::default() });
    let (reply, rpc) = req.call(&header, &call.inline).await;
    assert!(matches!(reply.body, RdmaBody::Msg(_)), "WRITE reply inline");
    region.invalidate();
    match xdr::decode_exact::<WriteRes>(results(&rpc)).expect("WRITE3res") {
        nfs3_proto::Nfs3Result::Ok(ok) => ok.count,
        nfs3_proto::Nfs3Result::Fail(e, _) => panic!("WRITE failed: {e:?}"),
    }
}

/// READ of `count` bytes from offset 0 through a Write chunk of `piece`-byte segments: the data.
pub async fn read_by_write_chunk(
    req: &mut Requester,
    xid: u32,
    file: FileHandle3,
    count: usize,
    piece: usize,
) -> Vec<u8> {
    let region = req.register(RegBuf::Writable(vec![0; count]), Access::LOCAL_WRITE | Access::REMOTE_WRITE);
    let chunk = WriteChunk { segments: segments(&region, count, piece) };
    let header = RdmaHeader::msg(xid, 64, ChunkLists { writes: rpcrdma_proto::smallvec![chunk], ..Default::default() });
    let call = nfs_call(xid, READ, &ReadArgs { file, offset: 0, count: count as u32 });
    let (reply, rpc) = req.call(&header, &call.inline).await;
    let chunks = reply_chunks(&reply);
    assert!(matches!(reply.body, RdmaBody::Msg(_)) && chunks.reply.is_none(), "READ reply inline, data by Write");
    let written = chunks.writes.first().expect("the Write list comes back").byte_len() as usize;
    // The reduced READ3resok: status, attributes, count, eof, the data's length word, and nothing more.
    let mut r = XdrReader::new(results(&rpc));
    assert_eq!(r.get_u32().expect("status"), NfsStat3::Ok.as_u32());
    PostOpAttr::decode(&mut r).expect("post_op_attr");
    let returned = r.get_u32().expect("count") as usize;
    r.get_bool().expect("eof");
    assert_eq!(r.get_u32().expect("data length") as usize, returned);
    r.finish().expect("the data was removed from the inline reply");
    assert_eq!(written, returned, "the Write chunk's lengths say what was written");
    region.invalidate();
    let mut data = contents(region);
    data.truncate(written);
    data
}
