//! Golden RPC-over-RDMA v1 vectors (`testdata/golden/rpcrdma/`, indexed by its `index.json`): the
//! Send payloads the Linux kernel client and knfsd exchanged over Soft-RoCE, and the RFC 8797 private
//! data of the RDMA-CM handshake (see tools/golden/README.md).
//!
//! For every Send: [`RdmaHeader::decode`] with the default [`DecodeLimits`] gives the indexed xid,
//! version, credits, procedure, Read list, Write list and Reply chunk, and re-encodes to the same header
//! bytes; the fields tshark dissected agree; calls pass a responder's [`validate_call`]. Where an RPC
//! message follows (RDMA_MSG) the inspector decodes it (replies with the procedure of their call) and
//! header plus message re-encode to the whole Send.
//!
//! Reduced messages (RFC 8166 §3.4, RFC 8267 §3): when a DDP-eligible item moves by RDMA — WRITE data
//! and a SYMLINK path in a Read chunk, READ data through a Write chunk — its bytes (and XDR padding)
//! are removed from the inline message while its length word stays. The inline message then ends at
//! that length word, and the test asserts that our decoder reports exactly that truncation: an
//! `UnexpectedEnd` at the item's XDR position, needing the item's length, with nothing left. Putting
//! placeholder bytes of that length back at that position (the Read chunk's `position`; for a Write
//! chunk, where the decoder stopped) must give a message that decodes, whose encoder places the item as
//! a payload at that same position, and whose inline bytes (payload cut out) are the Send's message.
//!
//! RDMA_NOMSG carries its RPC message in a position-zero Read chunk (call) or the Reply chunk (reply),
//! by RDMA Read/Write: the Send holds the transport header only.

mod golden_support;

use std::collections::HashMap;

use golden_support::{
    compare_with_tshark, hex, load_index, number_of, our_status, read_vector, report, text_of, word_of, Fields,
    NotCompared,
};
use nfs3_proto::Nfs3Reply;
use nfsbench::inspect::{decode_call, decode_reply, Body, CallKey, Decoded, InspectError};
use onc_rpc::{MessageBody, ReplyBody, RpcMessage};
use rpcrdma_proto::nfs3_binding::{ddp_eligible_item, nfs3_inline_result_len, DdpDirection};
use rpcrdma_proto::{
    validate_call, ChunkLists, ChunkPolicy, ConnectPrivate, DecodeLimits, RdmaBody, RdmaErrorBody, RdmaHeader,
    RdmaProc, Segment, CONNECT_PRIVATE_LEN,
};
use serde_json::{json, Value};
use xdr::{XdrEncode, XdrError, XdrWriter};

/// tshark keys the test does not compare. Keep this short: every entry needs a reason.
const NOT_COMPARED: &[NotCompared] = &[
    NotCompared {
        keys: &[
            "rpc_xid",
            "rpc_msgtyp",
            "rpc_program",
            "rpc_version",
            "rpc_procedure",
            "rpc_accept_stat",
            "nfs_status",
        ],
        applies: |entry, _| entry["rdma_proc_name"] == "RDMA_NOMSG",
        why: "RDMA_NOMSG: the RPC message went by RDMA Write into the Reply chunk (or was pulled from a \
              Read chunk); tshark read it from those packets, the Send in the file holds the header only",
    },
    NotCompared {
        keys: &["rpc_program", "rpc_version", "rpc_procedure"],
        applies: |entry, pair| entry["direction"] == "reply" && pair["rdma_proc_name"] == "RDMA_NOMSG",
        why: "a reply carries no program/version/procedure, and its call went in a position-zero Read chunk \
              (RDMA_NOMSG), so there are no call bytes to read them from",
    },
];

fn index() -> Vec<Value> {
    load_index("rpcrdma/index.json")
}

fn messages(index: &[Value]) -> impl Iterator<Item = &Value> {
    index.iter().filter(|e| e["kind"] == "rpcrdma_message")
}

fn by_file(index: &[Value]) -> HashMap<&str, &Value> {
    index.iter().map(|e| (text_of(e, "file"), e)).collect()
}

fn pair_of<'i>(entry: &Value, files: &HashMap<&str, &'i Value>) -> &'i Value {
    entry["pair"].as_str().and_then(|p| files.get(p)).map_or(&Value::Null, |p| *p)
}

fn is_call(entry: &Value) -> bool {
    text_of(entry, "direction") == "call"
}

fn decode_header(entry: &Value, bin: &[u8]) -> Result<(RdmaHeader, usize), String> {
    let (header, rest) = RdmaHeader::decode(bin, &DecodeLimits::default())
        .map_err(|e| format!("{}: header does not decode: {e}", text_of(entry, "file")))?;
    Ok((header, bin.len() - rest.len()))
}

fn segment_json(s: &Segment) -> Value {
    json!({ "handle": s.handle, "length": s.length, "offset": s.offset })
}

/// The chunk lists in the index's shape: the Read list flat (one entry per segment, with its position),
/// the Write list as one list of segments per chunk, the Reply chunk's segments or `null`.
fn chunks_json(chunks: Option<&ChunkLists>) -> (Value, Value, Value) {
    let Some(c) = chunks else { return (json!([]), json!([]), Value::Null) };
    let reads = c
        .reads
        .iter()
        .flat_map(|chunk| {
            chunk.segments.iter().map(move |s| {
                json!({ "position": chunk.position, "handle": s.handle, "length": s.length, "offset": s.offset })
            })
        })
        .collect();
    let writes = c.writes.iter().map(|w| Value::Array(w.segments.iter().map(segment_json).collect())).collect();
    let reply = c.reply.as_ref().map_or(Value::Null, |r| Value::Array(r.segments.iter().map(segment_json).collect()));
    (Value::Array(reads), Value::Array(writes), reply)
}

fn proc_name(p: RdmaProc) -> &'static str {
    match p {
        RdmaProc::Msg => "RDMA_MSG",
        RdmaProc::NoMsg => "RDMA_NOMSG",
        RdmaProc::MsgP => "RDMA_MSGP",
        RdmaProc::Done => "RDMA_DONE",
        RdmaProc::Error => "RDMA_ERROR",
    }
}

#[test]
fn every_transport_header_matches_the_index_and_reencodes() {
    let index = index();
    let mut failures = Vec::new();
    let mut check = |file: &str, what: &str, ours: Value, theirs: &Value| {
        if ours != *theirs {
            failures.push(format!("{file}: {what}: index {theirs}, ours {ours}"));
        }
    };
    for entry in messages(&index) {
        let file = text_of(entry, "file");
        let bin = read_vector(file);
        let (header, header_len) = match decode_header(entry, &bin) {
            Ok(h) => h,
            Err(e) => {
                check(file, "decode", json!(e), &json!("ok"));
                continue;
            }
        };
        let inline = &bin[header_len..];
        check(file, "length", json!(bin.len()), &entry["length"]);
        check(file, "xid", json!(header.xid), &entry["xid"]);
        check(file, "rdma_vers", json!(rpcrdma_proto::RPCRDMA_VERSION), &entry["rdma_vers"]);
        check(file, "credits", json!(header.credits), &entry["credits"]);
        check(file, "rdma_proc", json!(header.procedure().as_u32()), &entry["rdma_proc"]);
        check(file, "rdma_proc_name", json!(proc_name(header.procedure())), &entry["rdma_proc_name"]);
        check(file, "header_length", json!(header_len), &entry["header_length"]);
        check(file, "encoded_len", json!(header.encoded_len()), &entry["header_length"]);
        let (reads, writes, reply) = chunks_json(header.chunks());
        check(file, "read_list", reads, &entry["read_list"]);
        check(file, "write_list", writes, &entry["write_list"]);
        check(file, "reply_chunk", reply, &entry["reply_chunk"]);
        check(file, "inline_rpc", json!(!inline.is_empty()), &entry["inline_rpc"]);
        if header.to_xdr_bytes() != bin[..header_len] {
            check(file, "re-encoded header", json!("different"), &json!("the same bytes"));
        }
        // RFC 8166 §3.5: RDMA_MSG is followed by the RPC message, RDMA_NOMSG by nothing.
        let carries_message = matches!(header.body, RdmaBody::Msg(_));
        check(file, "message follows", json!(!inline.is_empty()), &json!(carries_message));
        if carries_message {
            // RFC 8166 §4.2.1: the transport header's xid mirrors the RPC message's.
            let rpc_xid = RpcMessage::peek_xid(inline);
            check(file, "RPC xid", json!(rpc_xid), &json!(header.xid));
        }
        if is_call(entry) {
            let valid = validate_call(&header, inline.len(), &ChunkPolicy::default()).map_err(|e| e.to_string());
            check(file, "validate_call", json!(valid.err()), &Value::Null);
        }
    }
    report("transport headers against the index", &failures);
}

// ---------------------------------------------------------------------------------------------------
// The inline RPC message

/// The procedure a reply answers: from its call's inline message when there is one, else (a call sent
/// in a position-zero Read chunk) from the index.
fn reply_key(entry: &Value, files: &HashMap<&str, &Value>) -> CallKey {
    let pair = pair_of(entry, files);
    if let Some(file) = pair["file"].as_str() {
        let bin = read_vector(file);
        if let Ok((_, header_len)) = decode_header(pair, &bin) {
            if let Ok((message, _)) = RpcMessage::decode(&bin[header_len..]) {
                if let Some(c) = message.as_call() {
                    return CallKey { prog: c.prog, vers: c.vers, proc: c.proc };
                }
            }
        }
    }
    CallKey { prog: word_of(entry, "prog"), vers: word_of(entry, "vers"), proc: word_of(entry, "proc") }
}

/// Where the decoder stopped for want of bytes, as an offset in the RPC message, and how many it needed.
fn truncation(message: &[u8], err: &InspectError) -> Option<(usize, usize)> {
    let InspectError::Body { source: XdrError::UnexpectedEnd { offset, needed, remaining: 0 }, .. } = err else {
        return None;
    };
    let (_, body) = RpcMessage::decode(message).ok()?;
    Some((message.len() - body.len() + offset, *needed))
}

/// Re-encodes a decoded message into an [`XdrWriter`], keeping bulk data as payloads.
fn writer_of<'d>(decoded: &'d Decoded<'_>) -> XdrWriter<'d> {
    let mut w = XdrWriter::new();
    decoded.message.encode_header(&mut w);
    match &decoded.body {
        Body::Nfs3Call(c) => c.encode(&mut w),
        Body::Nfs3Reply(r) => r.encode(&mut w),
        _ => w.put_raw(&decoded.encode()[decoded.message.encoded_len()..]),
    }
    w
}

/// The message with each `(position, length)` item put back: `length` placeholder bytes plus XDR padding.
fn restore(inline: &[u8], items: &[(usize, usize)]) -> Vec<u8> {
    let mut full = Vec::with_capacity(inline.len() + items.iter().map(|(_, l)| l + 3).sum::<usize>());
    let mut at = 0;
    for &(position, len) in items {
        full.extend_from_slice(&inline[at..position]);
        full.resize(full.len() + len + xdr::padding(len), 0x5a);
        at = position;
    }
    full.extend_from_slice(&inline[at..]);
    full
}

/// Checks a reduced message: decoding stops exactly at the removed item; with the item restored it
/// decodes, and the encoder cuts the item out at the same position, leaving the Send's bytes.
fn check_reduced(
    file: &str,
    inline: &[u8],
    decode: impl for<'m> Fn(&'m [u8]) -> Result<Decoded<'m>, InspectError>,
    expected_items: &[(usize, usize)],
) -> Result<(), String> {
    let err = match decode(inline) {
        Ok(d) => return Err(format!("{file}: the reduced message decodes as a whole: {:?}", d.body)),
        Err(e) => e,
    };
    let stop = truncation(inline, &err).ok_or(format!("{file}: reduced message fails otherwise: {err:?}"))?;
    let first = expected_items.first().copied().ok_or(format!("{file}: no DDP item expected"))?;
    if stop != first {
        return Err(format!("{file}: decoding stops at (offset, needed) {stop:?}, the removed item is {first:?}"));
    }
    let full = restore(inline, expected_items);
    let decoded = decode(&full).map_err(|e| format!("{file}: restored message does not decode: {e}"))?;
    if decoded.encode() != full {
        return Err(format!("{file}: restored message re-encodes differently"));
    }
    let w = writer_of(&decoded);
    let payloads: Vec<(usize, usize)> = w.payloads().iter().map(|p| (p.position, p.data.len())).collect();
    if payloads != expected_items {
        return Err(format!("{file}: encoder places payloads at {payloads:?}, the chunks at {expected_items:?}"));
    }
    if w.inline_bytes() != inline {
        return Err(format!("{file}: the encoder's inline bytes differ from the Send's message"));
    }
    Ok(())
}

fn reply_decoder(key: CallKey) -> impl for<'m> Fn(&'m [u8]) -> Result<Decoded<'m>, InspectError> {
    move |m| decode_reply(m, key)
}

fn check_inline_message(entry: &Value, files: &HashMap<&str, &Value>) -> Result<(), String> {
    let file = text_of(entry, "file");
    let bin = read_vector(file);
    let (header, header_len) = decode_header(entry, &bin)?;
    let inline = &bin[header_len..];
    let RdmaBody::Msg(chunks) = &header.body else {
        return if inline.is_empty() { Ok(()) } else { Err(format!("{file}: bytes after an RDMA_NOMSG header")) };
    };
    let key = if is_call(entry) {
        let (message, _) = RpcMessage::decode(inline).map_err(|e| format!("{file}: RPC header: {e}"))?;
        let c = message.as_call().ok_or(format!("{file}: a reply in a call's Send"))?;
        CallKey { prog: c.prog, vers: c.vers, proc: c.proc }
    } else {
        reply_key(entry, files)
    };
    let ddp = ddp_eligible_item(key.prog, key.vers, key.proc);
    let decode = |m: &[u8]| -> Result<(), String> {
        let result = if is_call(entry) { decode_call(m) } else { decode_reply(m, key) };
        let decoded = result.map_err(|e| format!("{file}: {e}"))?;
        let mut send = header.to_xdr_bytes();
        send.extend_from_slice(&decoded.encode());
        (send == bin).then_some(()).ok_or(format!("{file}: header + message re-encode differently"))
    };
    if is_call(entry) && !chunks.reads.is_empty() {
        // RFC 8166 §3.4.5: each Read chunk's data sits at its position in the unreduced message.
        if ddp.map(|d| d.direction()) != Some(DdpDirection::Call) {
            return Err(format!("{file}: Read chunk in a call without a DDP-eligible argument"));
        }
        let items: Vec<(usize, usize)> =
            chunks.reads.iter().map(|c| (c.position as usize, c.byte_len() as usize)).collect();
        return check_reduced(file, inline, decode_call, &items);
    }
    if !is_call(entry) && !chunks.writes.is_empty() {
        // RFC 8166 §3.4.6: the responder wrote the result into the Write chunk the call offered; the
        // reduced reply keeps the item's length word. RFC 8267 §3: only READ data and READLINK paths.
        if ddp.map(|d| d.direction()) != Some(DdpDirection::Reply) {
            return Err(format!("{file}: Write chunk in a reply without a DDP-eligible result"));
        }
        let decode = reply_decoder(key);
        let err = decode(inline).err().ok_or(format!("{file}: reduced reply decodes as a whole"))?;
        let (position, needed) = truncation(inline, &err).ok_or(format!("{file}: fails otherwise: {err:?}"))?;
        let offered: u64 = chunks.writes.iter().map(|w| w.byte_len()).sum();
        if needed as u64 > offered {
            return Err(format!("{file}: result of {needed} bytes, Write chunk of {offered}"));
        }
        // RFC 1813 §3.3.6, §3.3.5: READ data and the READLINK path end their results.
        if position != inline.len() {
            return Err(format!("{file}: decoding stops at {position}, before the end of the message"));
        }
        let (_, results) = RpcMessage::decode(inline).map_err(|e| format!("{file}: {e}"))?;
        if nfs3_inline_result_len(key.proc) != Some(results.len() as u64) {
            return Err(format!(
                "{file}: {} bytes of results inline, RFC 8267 sizing says {:?}",
                results.len(),
                nfs3_inline_result_len(key.proc)
            ));
        }
        return check_reduced(file, inline, decode, &[(position, needed)]);
    }
    decode(inline)
}

#[test]
fn inline_rpc_messages_decode_and_reduced_ones_stop_at_the_removed_item() {
    let index = index();
    let files = by_file(&index);
    let failures: Vec<String> = messages(&index).filter_map(|e| check_inline_message(e, &files).err()).collect();
    report("inline RPC messages", &failures);
    // The set must keep its reduced messages: WRITE and SYMLINK with a Read chunk, READ with a Write chunk.
    let reduced = messages(&index)
        .filter(|e| {
            let listed = |key: &str| e[key].as_array().is_some_and(|l| !l.is_empty());
            e["inline_rpc"] == true && if is_call(e) { listed("read_list") } else { listed("write_list") }
        })
        .count();
    assert!(reduced >= 3, "only {reduced} reduced messages left in the set");
}

// ---------------------------------------------------------------------------------------------------
// tshark

fn segment(f: &mut Fields, s: &Segment) {
    f.push("handles", s.handle);
    f.push("lengths", s.length);
    f.push("offsets", s.offset);
}

fn transport_fields(f: &mut Fields, header: &RdmaHeader) {
    f.first("xid", header.xid);
    f.first("vers", rpcrdma_proto::RPCRDMA_VERSION);
    f.first("credits", header.credits);
    f.first("proc", header.procedure().as_u32());
    match &header.body {
        RdmaBody::Msg(c) | RdmaBody::NoMsg(c) => {
            // tshark counts Read list entries (segments), Write list chunks, and the Reply chunk.
            f.first("read_list_count", c.reads.iter().map(|r| r.segments.len()).sum::<usize>() as u64);
            f.first("write_list_count", c.writes.len() as u64);
            f.first("reply_chunk_count", u64::from(c.reply.is_some()));
            for chunk in &c.reads {
                for s in &chunk.segments {
                    f.push("positions", chunk.position);
                    segment(f, s);
                }
            }
            for chunk in c.writes.iter().chain(&c.reply) {
                f.push("segment_counts", chunk.segments.len() as u64);
                chunk.segments.iter().for_each(|s| segment(f, s));
            }
        }
        RdmaBody::Error(e) => match e {
            RdmaErrorBody::Vers { low, high } => {
                f.first("errcode", 1);
                f.first("vers_low", *low);
                f.first("vers_high", *high);
            }
            RdmaErrorBody::Chunk => f.first("errcode", 2),
        },
    }
}

/// Fields of the inline RPC message: its header, and the NFS status of a reply's results (decoded
/// whole, or with the removed DDP item put back).
fn rpc_fields(f: &mut Fields, entry: &Value, files: &HashMap<&str, &Value>, inline: &[u8]) -> Result<(), String> {
    let file = text_of(entry, "file");
    let Ok((message, _)) = RpcMessage::decode(inline) else { return Ok(()) };
    f.first("rpc_xid", message.xid);
    match &message.body {
        MessageBody::Call(c) => {
            f.first("rpc_msgtyp", 0);
            f.first("rpc_program", c.prog);
            f.first("rpc_version", c.vers);
            f.first("rpc_procedure", c.proc);
        }
        MessageBody::Reply(reply) => {
            f.first("rpc_msgtyp", 1);
            let pair = pair_of(entry, files);
            let key = reply_key(entry, files);
            if pair["rdma_proc_name"] == "RDMA_MSG" {
                f.first("rpc_program", key.prog);
                f.first("rpc_version", key.vers);
                f.first("rpc_procedure", key.proc);
            }
            if let ReplyBody::Accepted(a) = reply {
                f.first("rpc_accept_stat", a.stat.code());
            }
            let decoded = match decode_reply(inline, key) {
                Ok(d) => Some(d.body),
                Err(e) => match truncation(inline, &e) {
                    Some(item) => {
                        let full = restore(inline, &[item]);
                        let status = match decode_reply(&full, key).map(|d| d.body) {
                            Ok(Body::Nfs3Reply(r)) => r.status(),
                            other => return Err(format!("{file}: restored reply: {other:?}")),
                        };
                        f.first("nfs_status", status.as_u32());
                        None
                    }
                    None => return Err(format!("{file}: {e}")),
                },
            };
            if let Some(Body::Nfs3Reply(r)) = decoded {
                if !matches!(r, Nfs3Reply::Null) {
                    f.first("nfs_status", r.status().as_u32());
                }
            }
        }
    }
    Ok(())
}

#[test]
fn transport_fields_match_tshark_dissection() {
    let index = index();
    let files = by_file(&index);
    let mut failures = Vec::new();
    for entry in messages(&index) {
        let file = text_of(entry, "file");
        let bin = read_vector(file);
        let mut ours = Fields::default();
        match decode_header(entry, &bin) {
            Ok((header, header_len)) => {
                transport_fields(&mut ours, &header);
                if let Err(e) = rpc_fields(&mut ours, entry, &files, &bin[header_len..]) {
                    failures.push(e);
                }
            }
            Err(e) => failures.push(e),
        }
        compare_with_tshark(entry, pair_of(entry, &files), &ours, NOT_COMPARED, false, &mut failures);
    }
    report("RPC-over-RDMA fields against tshark", &failures);
}

#[test]
fn not_compared_entries_are_all_used() {
    let index = index();
    let files = by_file(&index);
    for n in NOT_COMPARED {
        for key in n.keys {
            let used = messages(&index).any(|e| (n.applies)(e, pair_of(e, &files)) && e["tshark"].get(key).is_some());
            assert!(used, "not-compared key {key:?} ({}) applies to no message", n.why);
        }
    }
}

#[test]
fn replies_carry_the_status_the_index_reads() {
    let index = index();
    let files = by_file(&index);
    let mut failures = Vec::new();
    for entry in messages(&index).filter(|e| !is_call(e)) {
        let file = text_of(entry, "file");
        let bin = read_vector(file);
        let Ok((header, header_len)) = decode_header(entry, &bin) else { continue };
        let inline = &bin[header_len..];
        let key = reply_key(entry, &files);
        let status = match header.procedure() {
            RdmaProc::NoMsg => "(in the reply chunk)".to_owned(),
            _ => match decode_reply(inline, key) {
                Ok(d) => our_status(key, &d),
                Err(e) => match truncation(inline, &e) {
                    Some(item) => {
                        let full = restore(inline, &[item]);
                        decode_reply(&full, key).map_or_else(|e| e.to_string(), |d| our_status(key, &d))
                    }
                    None => e.to_string(),
                },
            },
        };
        if status != text_of(entry, "status") {
            failures.push(format!("{file}: status {status}, index {}", entry["status"]));
        }
    }
    report("reply statuses", &failures);
}

// ---------------------------------------------------------------------------------------------------
// RFC 8797 private data and remote invalidation

#[test]
fn connect_private_data_matches_the_rfc8797_fields() {
    let index = index();
    let entries: Vec<&Value> = index.iter().filter(|e| e["kind"] != "rpcrdma_message").collect();
    assert_eq!(entries.len(), 2, "expected the CM REQ and REP private data");
    for entry in entries {
        let file = text_of(entry, "file");
        let bin = read_vector(file);
        assert_eq!(bin.len() as u64, number_of(entry, "length"), "{file}");
        assert_eq!(json!(hex(&bin)), entry["tshark"]["private_data"], "{file}: tshark's private data");
        let p = ConnectPrivate::decode(&bin).unwrap_or_else(|| panic!("{file}: not RFC 8797 private data"));
        let wire = p.encode();
        assert_eq!(wire[..], bin[..CONNECT_PRIVATE_LEN], "{file}: re-encoded message");
        assert!(bin[CONNECT_PRIVATE_LEN..].iter().all(|b| *b == 0), "{file}: RDMA-CM padding is zero");
        let ours = json!({
            "magic": u32::from_be_bytes([wire[0], wire[1], wire[2], wire[3]]),
            "version": wire[4],
            "flags": p.flags(),
            "remote_invalidation": p.remote_invalidation(),
            "send_size_code": wire[6],
            "recv_size_code": wire[7],
            "send_size": p.send_size(),
            "recv_size": p.recv_size(),
        });
        assert_eq!(ours, entry["rfc8797"], "{file}");
    }
}

/// A Send With Invalidate (RFC 8166 §3.6.1, negotiated by RFC 8797's flag) invalidates a memory
/// registration the requester offered in the call: the client said it accepts them, and every rkey the
/// server invalidated is a handle of the call's chunks.
#[test]
fn remote_invalidation_targets_a_handle_the_call_offered() {
    let index = index();
    let files = by_file(&index);
    let req = index.iter().find(|e| e["kind"] == "cm_req_private_data").expect("CM REQ private data");
    let client = ConnectPrivate::decode(&read_vector(text_of(req, "file"))).expect("RFC 8797 private data");
    let invalidating: Vec<&Value> = messages(&index).filter(|e| e["opcode"] == "SEND_ONLY_WITH_INVALIDATE").collect();
    assert!(!invalidating.is_empty(), "the set lost its Send With Invalidate replies");
    assert!(client.remote_invalidation(), "the server invalidated remotely without the client's consent");
    for entry in invalidating {
        let file = text_of(entry, "file");
        let pair = pair_of(entry, &files);
        let call = read_vector(text_of(pair, "file"));
        let (header, _) = decode_header(pair, &call).expect("the call's header decodes");
        let chunks = header.chunks().expect("a call with chunks");
        let handles: Vec<u32> = chunks
            .reads
            .iter()
            .flat_map(|c| &c.segments)
            .chain(chunks.writes.iter().flat_map(|c| &c.segments))
            .chain(chunks.reply.iter().flat_map(|c| &c.segments))
            .map(|s| s.handle)
            .collect();
        let rkey = word_of(entry, "invalidate_rkey");
        assert!(handles.contains(&rkey), "{file}: invalidated rkey {rkey} is none of the call's handles {handles:?}");
    }
}
