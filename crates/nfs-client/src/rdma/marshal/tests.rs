//! The marshalling decisions, against the Linux client's choices and RFC 8166 / RFC 8267.

use super::*;
use crate::encode::CallEncoder;
use crate::transport::BulkPayload;
use nfs3_proto::{FileHandle3, GetattrArgs, ReadArgs};
use xdr::{XdrEncode, XdrWriter};

const LINUX: InlineThresholds = InlineThresholds { send: 4096, recv: 4096 };

fn nfs_call<'a>(proc: u32, args: impl FnOnce(&mut XdrWriter<'a>)) -> RpcCall {
    let (xid, inline) = CallEncoder::new(0, 0).encode(NFS_PROGRAM, NFS_V3, proc, 128, args);
    RpcCall { xid, proc: "TEST", inline, payload: None, reply_payload: 0, reply_len: None }
}

fn fh() -> FileHandle3 {
    FileHandle3::new(&[7; 32]).expect("32 bytes")
}

fn write_call(len: usize) -> RpcCall {
    let mut call = nfs_call(nfs3_proc::WRITE, |w| {
        w.put_opaque(fh().as_bytes());
        w.put_u64(0);
        w.put_u32(len as u32);
        w.put_u32(0);
        w.put_u32(len as u32);
    });
    let data = Bytes::from((0..len).map(|i| i as u8).collect::<Vec<_>>());
    call.payload = Some(BulkPayload { offset: call.inline.len(), data });
    call
}

fn read_call(count: u32) -> RpcCall {
    let args = ReadArgs { file: fh(), offset: 0, count };
    let mut call = nfs_call(nfs3_proc::READ, |w| args.encode(w));
    call.reply_payload = count;
    call
}

fn readdirplus_call(maxcount: u32) -> RpcCall {
    let args = ReaddirplusArgs { dir: fh(), cookie: 0, cookieverf: Default::default(), dircount: 512, maxcount };
    nfs_call(nfs3_proc::READDIRPLUS, |w| args.encode(w))
}

fn flat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

#[test]
fn small_calls_and_their_replies_go_inline() {
    let args = GetattrArgs { object: fh() };
    let call = nfs_call(nfs3_proc::GETATTR, |w| args.encode(w));
    assert_eq!(call_ids(&call.inline), Some((NFS_PROGRAM, NFS_V3, nfs3_proc::GETATTR)));
    let layout = layout(&call, LINUX).expect("layout");
    assert_eq!(layout, Layout { send: SendPlan::Inline, reply: ReplyRoom::Inline });
    assert!(chunk_lists(&layout, &Segments::default()).is_empty());
    assert_eq!(flat(&send_parts(b"HDR", &call, layout.send)), [b"HDR".as_slice(), &call.inline].concat());
}

#[test]
fn write_payloads_of_4095_4096_and_4097_bytes_go_in_a_read_chunk_at_their_xdr_position() {
    for len in [4095, 4096, 4097] {
        let call = write_call(len);
        let offset = call.payload.as_ref().expect("payload").offset;
        let layout = layout(&call, LINUX).expect("layout");
        assert_eq!(layout.send, SendPlan::ReadChunk { position: offset as u32 }, "{len} bytes");
        // The Send carries the call without the data and without its XDR padding.
        assert_eq!(flat(&send_parts(b"", &call, layout.send)), call.inline, "{len} bytes");
        let seg = Segment { handle: 1, length: len as u32, offset: 0x10 };
        let chunks = chunk_lists(&layout, &Segments { read: Some(seg), ..Segments::default() });
        assert_eq!(chunks.reads[..], [ReadChunk { position: offset as u32, segments: rpcrdma_proto::smallvec![seg] }]);
    }
}

#[test]
fn a_small_write_goes_inline_with_its_payload_and_padding_gathered() {
    let call = write_call(5);
    let layout = layout(&call, LINUX).expect("layout");
    assert_eq!(layout.send, SendPlan::Inline);
    let expected = [call.inline.as_slice(), &[0, 1, 2, 3, 4, 0, 0, 0]].concat();
    assert_eq!(flat(&send_parts(b"", &call, layout.send)), expected);
    assert_eq!(&whole_call(&call)[..], &expected[..]);
}

#[test]
fn a_call_too_large_for_the_send_threshold_becomes_a_long_call() {
    let call = nfs_call(nfs3_proc::GETATTR, |w| w.put_opaque(&[9; 2000]));
    let small = InlineThresholds { send: 1024, recv: 4096 };
    let layout = layout(&call, small).expect("layout");
    assert_eq!(layout.send, SendPlan::LongCall);
    assert_eq!(send_parts(b"HDR", &call, layout.send)[..], [b"HDR".as_slice()]);
    assert_eq!(&whole_call(&call)[..], &call.inline[..]);
    let seg = Segment { handle: 1, length: call.inline.len() as u32, offset: 0 };
    let chunks = chunk_lists(&layout, &Segments { read: Some(seg), ..Segments::default() });
    assert_eq!(chunks.reads[0].position, 0, "RFC 8166 §3.5.3: position zero is the whole call");
    // A WRITE whose arguments alone do not fit is a Long Call with its payload copied in.
    let mut write = write_call(100);
    if let Some(payload) = write.payload.as_mut() {
        let mut inline = vec![0; 1100];
        inline[..payload.offset].copy_from_slice(&write.inline);
        write.inline = inline;
    }
    assert_eq!(layout_of(&write, small).send, SendPlan::LongCall);
    assert_eq!(whole_call(&write).len(), 1100 + 100);
}

fn layout_of(call: &RpcCall, limits: InlineThresholds) -> Layout {
    layout(call, limits).expect("layout")
}

#[test]
fn every_header_byte_counts_against_the_send_threshold() {
    let plain = RdmaHeader::MIN_LEN;
    let exactly = nfs_call(nfs3_proc::NULL, |w| w.put_raw(&[0; 4096]));
    let fits = |extra: usize| {
        let mut call = exactly.clone_for_test();
        call.inline.truncate(4096 - plain - extra);
        layout_of(&call, LINUX).send
    };
    assert_eq!(fits(0), SendPlan::Inline);
    let mut over = exactly.clone_for_test();
    over.inline.truncate(4096 - plain + 4);
    assert_eq!(layout_of(&over, LINUX).send, SendPlan::LongCall);
}

#[test]
fn read_replies_that_cannot_fit_get_a_write_chunk_of_the_count() {
    assert_eq!(layout_of(&read_call(1024), LINUX).reply, ReplyRoom::Inline);
    assert_eq!(layout_of(&read_call(4096), LINUX).reply, ReplyRoom::WriteChunk(4096));
    assert_eq!(layout_of(&read_call(1 << 20), LINUX).reply, ReplyRoom::WriteChunk(1 << 20));
    let layout = layout_of(&read_call(4096), LINUX);
    let seg = Segment { handle: 3, length: 4096, offset: 0 };
    let chunks = chunk_lists(&layout, &Segments { write: Some(seg), ..Segments::default() });
    assert_eq!(chunks.writes[..], [WriteChunk { segments: rpcrdma_proto::smallvec![seg] }]);
    assert!(chunks.reply.is_none() && chunks.reads.is_empty());
    // A READ larger than any responder's chunk limit is refused before anything is registered.
    let err = super::layout(&read_call(4 << 20), LINUX).expect_err("too large");
    assert!(err.len > u64::from(super::MAX_REPLY_CHUNK), "{err}");
    assert!(err.to_string().contains("needs a chunk larger than"), "{err}");
}

#[test]
fn readdirplus_gets_a_reply_chunk_sized_by_its_maxcount() {
    assert_eq!(layout_of(&readdirplus_call(1024), LINUX).reply, ReplyRoom::Inline);
    let layout = layout_of(&readdirplus_call(32768), LINUX);
    assert_eq!(layout.reply, ReplyRoom::ReplyChunk(RPC_REPLY_HEADER_LEN + 4 + 32768));
    let seg = Segment { handle: 4, length: 100, offset: 0 };
    let chunks = chunk_lists(&layout, &Segments { reply: Some(seg), ..Segments::default() });
    assert_eq!(chunks.reply, Some(WriteChunk { segments: rpcrdma_proto::smallvec![seg] }));
}

#[test]
fn readlink_gets_a_reply_chunk_as_with_linux_not_a_write_chunk() {
    let call = nfs_call(nfs3_proc::READLINK, |w| w.put_opaque(fh().as_bytes()));
    let small = InlineThresholds { send: 1024, recv: 1024 };
    assert!(matches!(layout_of(&call, small).reply, ReplyRoom::ReplyChunk(len) if len > 4096));
}

#[test]
fn calls_this_module_cannot_size_get_room_for_the_largest_reply() {
    let (xid, inline) = CallEncoder::new(0, 0).encode(100_005, 3, 1, 0, |_| {});
    let call = RpcCall { xid, proc: "MNT", inline, payload: None, reply_payload: 0, reply_len: None };
    assert_eq!(layout_of(&call, LINUX).reply, ReplyRoom::ReplyChunk(MAX_REPLY_CHUNK));
    let garbage =
        RpcCall { xid: 1, proc: "?", inline: vec![1, 2, 3], payload: None, reply_payload: 0, reply_len: None };
    assert_eq!(call_ids(&garbage.inline), None);
    assert_eq!(layout_of(&garbage, LINUX).reply, ReplyRoom::ReplyChunk(MAX_REPLY_CHUNK));
    // READDIRPLUS arguments that do not decode cannot be sized either.
    let broken = nfs_call(nfs3_proc::READDIRPLUS, |w| w.put_u32(1));
    assert_eq!(layout_of(&broken, LINUX).reply, ReplyRoom::ReplyChunk(MAX_REPLY_CHUNK));
}

trait CloneForTest {
    fn clone_for_test(&self) -> RpcCall;
}

impl CloneForTest for RpcCall {
    fn clone_for_test(&self) -> RpcCall {
        RpcCall {
            xid: self.xid,
            proc: self.proc,
            inline: self.inline.clone(),
            payload: self.payload.clone(),
            reply_payload: self.reply_payload,
            reply_len: self.reply_len,
        }
    }
}

#[test]
fn a_sized_reply_comes_inline_in_a_write_chunk_or_a_reply_chunk_by_its_size() {
    let limits = InlineThresholds { send: 4096, recv: 4096 };
    let sized = |len: u32, payload: u32| {
        let mut call = RpcCall {
            xid: 1,
            proc: "COMPOUND",
            inline: vec![0; 200],
            payload: None,
            reply_payload: payload,
            reply_len: Some(len),
        };
        call.inline.truncate(200);
        layout(&call, limits).expect("layout").reply
    };
    assert_eq!(sized(256, 0), ReplyRoom::Inline, "a WRITE or COMMIT reply of a few words");
    assert_eq!(sized(256, 1024), ReplyRoom::Inline, "a small READ fits inline with its data");
    assert_eq!(sized(256, 4096), ReplyRoom::WriteChunk(4096), "4 KiB of READ data is placed directly");
    assert_eq!(sized(8192, 0), ReplyRoom::ReplyChunk(8192));
    assert_eq!(sized(8192, 4096), ReplyRoom::ReplyChunk(12288), "the rest does not fit: all of it in a Reply chunk");
}

#[test]
fn nfsv4_write_data_goes_in_a_read_chunk_at_its_position_not_in_a_long_call() {
    use crate::v4::data_path::{encode, DataOp};
    use crate::v4::wire::WriteHead;
    use nfs4_proto::{NfsFh4, SequenceArgs, StableHow4, Stateid4};
    let fh = NfsFh4::new(&[7; 32]).expect("handle");
    for len in [4096usize, 1 << 20] {
        let data = Bytes::from(vec![5u8; len]);
        let head = WriteHead { stateid: Stateid4::ANONYMOUS, offset: 0, stable: StableHow4::Unstable };
        let op = DataOp::Write { head, data };
        let call = encode(&CallEncoder::new(0, 0), 1, "WRITE", &SequenceArgs::default(), &fh, op).call;
        let position = call.payload.as_ref().expect("payload").offset as u32;
        let layout = layout(&call, LINUX).expect("layout");
        assert_eq!(layout.send, SendPlan::ReadChunk { position }, "{len} bytes of WRITE data");
        let sent = flat(&send_parts(b"", &call, layout.send));
        assert_eq!(sent, call.inline, "the Send carries the call without its data");
    }
}
