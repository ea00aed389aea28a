//! Golden wire vectors over TCP (`testdata/golden/records/`, indexed by `testdata/golden/index.json`):
//! real ONC RPC records from the Linux kernel NFS client and server, rpc.mountd, rpcbind, libnfs and a
//! few hand-made calls (see tools/golden/README.md).
//!
//! For every record:
//! - the record marks are exactly the indexed fragments, and onc-rpc's [`RecordDecoder`] reassembles
//!   them (the EXPORT reply from rpc.mountd comes in two fragments);
//! - the message decodes with `nfsbench::inspect` (calls from their own bytes, replies with the
//!   program, version and procedure of their call) and re-encodes byte for byte, record marks removed —
//!   including programs the inspector keeps opaque (NFS_ACL, an unknown program), whose bodies go
//!   through untouched after the RPC header; AUTH_SYS credentials decode and re-encode too. Hand-made
//!   calls the server refused must fail in the same place: GARBAGE_ARGS in the arguments, PROC_UNAVAIL
//!   at the procedure number; the one refused for its credential (AUTH_BADCRED, flavor 126) decodes its
//!   header and re-encodes it, and fails only in its (absent) arguments;
//! - the fields tshark dissected (`tshark{}` in the index) equal what small extraction functions read
//!   from our decoded structs, walked in wire order (see `golden_support` for the comparison rules);
//!   the few keys not compared are listed in [`NOT_COMPARED`] with the reason.
//!
//! And the set itself: every NFSv3 and MOUNTv3 procedure appears as a call and as a successful reply,
//! so regenerating the vectors cannot silently lose coverage.

#[path = "golden_rpc/fields.rs"]
mod fields;
mod golden_support;
#[path = "golden_rpc/nfs3_fields.rs"]
mod nfs3_fields;

use std::collections::HashMap;

use golden_support::{
    compare_with_tshark, load_index, number_of, our_status, read_vector, report, text_of, word_of, NotCompared,
};
use nfs3_proto::mount::MountStat3;
use nfs3_proto::Nfs3Call;
use nfsbench::inspect::{decode_call, decode_reply, Body, CallKey, InspectError};
use onc_rpc::{
    split_records, AuthFlavor, AuthStat, AuthSysParms, MessageBody, RecordDecoder, RecordLimits, ReplyBody, RpcMessage,
    LAST_FRAGMENT_BIT, MAX_FRAGMENT_LEN, MOUNT_PROGRAM, NFS_ACL_PROGRAM, NFS_PROGRAM,
};
use serde_json::Value;
use xdr::XdrError;

/// tshark keys the test does not compare. Keep this short: every entry needs a reason.
///
/// Empty: every key tshark gave for a TCP record is compared. (Keys the index schema has but tshark
/// never gave here: `rpc_mismatch_low`/`_high`, since tshark does not dissect the one RPC_MISMATCH
/// exchange, whose call has rpcvers 3; `hand_made_calls_fail_exactly_where_the_server_refused_them`
/// checks that reply against our own RPC_MISMATCH instead.)
const NOT_COMPARED: &[NotCompared] = &[];

fn index() -> Vec<Value> {
    load_index("index.json")
}

fn is_call(entry: &Value) -> bool {
    text_of(entry, "direction") == "call"
}

fn call_key(entry: &Value) -> CallKey {
    CallKey { prog: word_of(entry, "prog"), vers: word_of(entry, "vers"), proc: word_of(entry, "proc") }
}

fn by_file(index: &[Value]) -> HashMap<&str, &Value> {
    index.iter().map(|e| (text_of(e, "file"), e)).collect()
}

// ---------------------------------------------------------------------------------------------------
// Record marking

/// Checks the record marks of `bin` against the index and reassembles the record through
/// [`RecordDecoder`], one fragment at a time. Returns the record without marks.
fn reassemble(entry: &Value, bin: &[u8]) -> Result<Vec<u8>, String> {
    let file = text_of(entry, "file");
    if bin.len() as u64 != number_of(entry, "length") {
        return Err(format!("{file}: {} bytes, index says {}", bin.len(), entry["length"]));
    }
    // RFC 5531 §11: each fragment is a 4-byte mark (last-fragment bit, 31-bit length) and its bytes.
    let mut fragments = Vec::new();
    let mut at = 0;
    while at < bin.len() {
        let mark = bin.get(at..at + 4).ok_or(format!("{file}: truncated record mark at {at}"))?;
        let mark = u32::from_be_bytes([mark[0], mark[1], mark[2], mark[3]]);
        let len = (mark & MAX_FRAGMENT_LEN) as usize;
        let end = at + 4 + len;
        if end > bin.len() {
            return Err(format!("{file}: fragment at {at} of {len} bytes runs past the file"));
        }
        fragments.push((mark & LAST_FRAGMENT_BIT != 0, at..end));
        at = end;
    }
    let lengths: Vec<u64> = fragments.iter().map(|(_, r)| (r.len() - 4) as u64).collect();
    let indexed: Vec<u64> =
        entry["fragment_lengths"].as_array().into_iter().flatten().filter_map(Value::as_u64).collect();
    if lengths != indexed || lengths.len() as u64 != number_of(entry, "fragments") {
        return Err(format!(
            "{file}: fragment lengths {lengths:?}, index {indexed:?} ({} fragments)",
            entry["fragments"]
        ));
    }
    let lasts: Vec<bool> = fragments.iter().map(|(last, _)| *last).collect();
    if lasts.iter().rev().skip(1).any(|l| *l) || lasts.last() != Some(&true) {
        return Err(format!("{file}: last-fragment bits {lasts:?}: only the final fragment may carry it"));
    }

    let mut decoder = RecordDecoder::new(RecordLimits::default());
    let mut expected = Vec::new();
    for (i, (last, range)) in fragments.iter().enumerate() {
        decoder.push(&bin[range.clone()]).map_err(|e| format!("{file}: fragment {i}: {e}"))?;
        expected.extend_from_slice(&bin[range.start + 4..range.end]);
        let ready = decoder.ready_len();
        match last {
            false if ready != 0 || decoder.partial_len() != expected.len() => {
                return Err(format!(
                    "{file}: after fragment {i}: {ready} records ready, {} bytes held",
                    decoder.partial_len()
                ))
            }
            true if ready != 1 => return Err(format!("{file}: after the last fragment, {ready} records ready")),
            _ => {}
        }
    }
    let record = decoder.pop().ok_or(format!("{file}: no record"))?;
    decoder.finish().map_err(|e| format!("{file}: {e}"))?;
    if record != expected {
        return Err(format!("{file}: reassembled record differs from the fragments' bytes"));
    }
    let split = split_records(bin, RecordLimits::default()).map_err(|e| format!("{file}: split_records: {e}"))?;
    if split != [record.clone()] {
        return Err(format!("{file}: split_records gives {} records", split.len()));
    }
    Ok(record)
}

fn record_of(entry: &Value) -> Vec<u8> {
    reassemble(entry, &read_vector(text_of(entry, "file"))).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_record_has_the_indexed_record_marks_and_reassembles() {
    let index = index();
    let failures: Vec<String> =
        index.iter().filter_map(|e| reassemble(e, &read_vector(text_of(e, "file"))).err()).collect();
    report("record marks", &failures);
    let multi: Vec<&str> = index.iter().filter(|e| number_of(e, "fragments") > 1).map(|e| text_of(e, "file")).collect();
    assert!(!multi.is_empty(), "the set lost its multi-fragment record (rpc.mountd's EXPORT reply)");
}

// ---------------------------------------------------------------------------------------------------
// Decoding and re-encoding

/// For a hand-made call, the refusal the server answered it with, when that refusal means "your
/// arguments, procedure number or credential are wrong": our decoder must refuse it in the same place.
/// (RPC_MISMATCH is not among them: the header keeps `rpcvers` as received and the call decodes.)
fn refusal<'i>(entry: &Value, files: &HashMap<&str, &'i Value>) -> Option<&'i str> {
    if !(is_call(entry) && entry["handmade"] == Value::Bool(true)) {
        return None;
    }
    let reply = files.get(text_of(entry, "pair"))?;
    let status = reply["status"].as_str()?;
    (matches!(status, "GARBAGE_ARGS" | "PROC_UNAVAIL") || status.starts_with("MSG_DENIED/AUTH_ERROR/"))
        .then_some(status)
}

fn check_refused_call(entry: &Value, record: &[u8], status: &str) -> Result<(), String> {
    let file = text_of(entry, "file");
    let (message, args) = RpcMessage::decode(record).map_err(|e| format!("{file}: header: {e}"))?;
    let call = message.as_call().ok_or(format!("{file}: not a call"))?;
    match (status, decode_call(record)) {
        // RFC 5531 §9: GARBAGE_ARGS, "procedure can't decode params": the header is fine, the
        // arguments are not, and the XDR error lies inside them.
        ("GARBAGE_ARGS", Err(InspectError::Body { source, .. })) => {
            let offset = match source {
                XdrError::UnexpectedEnd { offset, .. }
                | XdrError::BadDiscriminant { offset, .. }
                | XdrError::LengthOverLimit { offset, .. }
                | XdrError::Invalid { offset, .. } => offset,
                XdrError::TrailingBytes { count } => args.len() - count,
            };
            (offset <= args.len()).then_some(()).ok_or(format!("{file}: error at {offset}, past the arguments"))
        }
        // RFC 5531 §9: PROC_UNAVAIL, "program can't support procedure".
        ("PROC_UNAVAIL", Err(InspectError::UnknownProcedure(_))) => match Nfs3Call::decode(call.proc, args) {
            Err(nfs3_proto::DecodeError::UnknownProcedure(p)) if p == call.proc => Ok(()),
            other => Err(format!("{file}: Nfs3Call::decode({}) gave {other:?}", call.proc)),
        },
        // RFC 5531 §9 / §8.2: the credential is judged once the header is read, before the arguments.
        // Ours decodes the header whatever the flavor (an unknown one is kept opaque, for the server to
        // refuse) and re-encodes it byte for byte; the arguments may then be anything, even absent.
        (s, result) if s.starts_with("MSG_DENIED/AUTH_ERROR/") => {
            let header_len = record.len() - args.len();
            let mut w = xdr::XdrWriter::new();
            message.encode_header(&mut w);
            if w.into_vec() != record[..header_len] {
                return Err(format!("{file}: header re-encodes differently"));
            }
            match result {
                Ok(d) if d.encode() == record => Ok(()),
                Ok(_) => Err(format!("{file}: re-encodes differently")),
                Err(InspectError::Body { .. }) => Ok(()),
                Err(e) => Err(format!("{file}: refused for its credential, ours fails elsewhere: {e}")),
            }
        }
        (_, other) => Err(format!("{file}: server answered {status}, our decoder gave {:?}", other.map(|d| d.body))),
    }
}

#[test]
fn every_record_decodes_and_reencodes_byte_for_byte() {
    let index = index();
    let files = by_file(&index);
    let mut failures = Vec::new();
    for entry in &index {
        let file = text_of(entry, "file");
        let record = record_of(entry);
        if let Some(status) = refusal(entry, &files) {
            failures.extend(check_refused_call(entry, &record, status).err());
            continue;
        }
        let key = call_key(entry);
        let decoded = if is_call(entry) { decode_call(&record) } else { decode_reply(&record, key) };
        let decoded = match decoded {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{file}: does not decode: {e}"));
                continue;
            }
        };
        if decoded.encode() != record {
            failures.push(format!(
                "{file}: re-encodes differently ({} bytes vs {})",
                decoded.encode().len(),
                record.len()
            ));
        }
        if decoded.message.xid != word_of(entry, "xid") {
            failures.push(format!("{file}: xid {:#x}, index {}", decoded.message.xid, entry["xid"]));
        }
        match &decoded.message.body {
            MessageBody::Call(c) => {
                if c.cred.flavor == AuthFlavor::AUTH_SYS {
                    match AuthSysParms::from_opaque_auth(&c.cred) {
                        Ok(p) if p.encode_body() == c.cred.body => {}
                        Ok(p) => failures.push(format!("{file}: AUTH_SYS {p:?} re-encodes differently")),
                        Err(e) => failures.push(format!("{file}: AUTH_SYS credential: {e}")),
                    }
                }
                let ours = (c.prog, c.vers, c.proc, c.rpcvers, c.cred.flavor.0);
                let theirs = (key.prog, key.vers, key.proc, word_of(entry, "rpcvers"), word_of(entry, "cred_flavor"));
                if ours != theirs {
                    failures.push(format!("{file}: (prog, vers, proc, rpcvers, cred) {ours:?}, index {theirs:?}"));
                }
            }
            MessageBody::Reply(_) => {
                // The index's prog/vers/proc of a reply come from its call: read them there ourselves.
                let pair = files.get(text_of(entry, "pair")).map(|p| record_of(p));
                let call_key = pair
                    .as_deref()
                    .and_then(|r| RpcMessage::decode(r).ok())
                    .and_then(|(m, _)| m.as_call().map(|c| CallKey { prog: c.prog, vers: c.vers, proc: c.proc }));
                if call_key != Some(key) {
                    failures.push(format!("{file}: its call says {call_key:?}, index {key:?}"));
                }
                let status = our_status(key, &decoded);
                if status != text_of(entry, "status") {
                    failures.push(format!("{file}: status {status}, index {}", entry["status"]));
                }
            }
        }
        // Programs the inspector does not interpret must stay opaque (nothing guessed), and still
        // round-trip above: the RPC header is re-encoded, the body copied.
        let opaque_program = key.prog == NFS_ACL_PROGRAM || (key.prog == NFS_PROGRAM && key.vers != 3);
        let carries_body = match decoded.message.as_reply() {
            Some(reply) => reply.has_results(),
            None => true,
        };
        if opaque_program && carries_body && !matches!(decoded.body, Body::Opaque(_)) {
            failures.push(format!("{file}: program {} v{} decoded as {:?}", key.prog, key.vers, decoded.body));
        }
    }
    report("decode and re-encode", &failures);
}

#[test]
fn hand_made_calls_fail_exactly_where_the_server_refused_them() {
    let index = index();
    let files = by_file(&index);
    let mut seen = Vec::new();
    for entry in index.iter().filter(|e| is_call(e) && e["handmade"] == Value::Bool(true)) {
        let file = text_of(entry, "file");
        let record = record_of(entry);
        let reply_entry = files[text_of(entry, "pair")];
        let reply_status = text_of(reply_entry, "status");
        let reply_record = record_of(reply_entry);
        let (reply, _) = RpcMessage::decode(&reply_record).expect("every reply header decodes");
        let reply = *reply.as_reply().expect("a reply");
        let (message, args) = RpcMessage::decode(&record).expect("the header of every hand-made call decodes");
        let call = message.as_call().expect("a call");
        match reply_status {
            // GETATTR whose nfs_fh3 length word promises 64 bytes that are not there: refused at the
            // handle's first byte, offset 4 of the arguments (RFC 1813 §2.6, RFC 4506 §4.10).
            "GARBAGE_ARGS" => {
                let promised = u32::from_be_bytes(args[..4].try_into().expect("a length word"));
                let err = decode_call(&record).expect_err(file);
                let expected =
                    XdrError::UnexpectedEnd { offset: 4, needed: promised as usize, remaining: args.len() - 4 };
                assert!(
                    matches!(&err, InspectError::Body { source, .. } if *source == expected),
                    "{file}: {err:?}, expected {expected:?}"
                );
            }
            // NFSv3 procedure 22: RFC 1813 defines 0..=21.
            "PROC_UNAVAIL" => {
                assert_eq!(call.proc, 22, "{file}");
                assert!(matches!(decode_call(&record), Err(InspectError::UnknownProcedure(_))), "{file}");
            }
            // rpcvers 3: refused for the RPC version (RFC 5531 §9), which the header keeps as received so
            // a server can answer RPC_MISMATCH; the rest decodes.
            "MSG_DENIED/RPC_MISMATCH" => {
                assert!(!call.is_rpc_version_2(), "{file}: rpcvers {}", call.rpcvers);
                assert!(decode_call(&record).is_ok(), "{file}");
                // knfsd answers exactly what our own servers answer (low = high = 2).
                assert_eq!(reply, ReplyBody::rpc_mismatch(), "{file}: knfsd's answer");
            }
            // Credential flavor 126: unknown to us too, kept opaque for the server to refuse. The call
            // carries no arguments (knfsd refuses the credential before it reads them), so as a
            // GETATTR it ends where the handle should start: offset 0 of the (empty) arguments.
            "MSG_DENIED/AUTH_ERROR/AUTH_BADCRED" => {
                assert_eq!(call.cred.flavor.name(), None, "{file}: flavor {:?}", call.cred.flavor);
                let err = decode_call(&record).expect_err(file);
                let expected = XdrError::UnexpectedEnd { offset: 0, needed: 4, remaining: 0 };
                assert!(args.is_empty(), "{file}: {} bytes of arguments", args.len());
                assert!(
                    matches!(&err, InspectError::Body { source, .. } if *source == expected),
                    "{file}: {err:?}, expected {expected:?}"
                );
                assert_eq!(reply, ReplyBody::auth_error(AuthStat::BadCred), "{file}: knfsd's answer");
            }
            // Everything else the server accepted: so do we.
            _ => assert!(decode_call(&record).is_ok(), "{file} ({reply_status})"),
        }
        seen.push(reply_status.to_owned());
    }
    for status in ["GARBAGE_ARGS", "PROC_UNAVAIL", "MSG_DENIED/RPC_MISMATCH", "MSG_DENIED/AUTH_ERROR/AUTH_BADCRED"] {
        assert!(seen.iter().any(|s| s == status), "no hand-made call answered {status} any more");
    }
}

#[test]
fn decoded_fields_match_tshark_dissection() {
    let index = index();
    let files = by_file(&index);
    let mut failures = Vec::new();
    let mut compared = 0;
    for entry in &index {
        let record = record_of(entry);
        let ours = match fields::extract(entry, &record) {
            Ok(f) => f,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        // Our extra keys are checked only where tshark dissected the whole message.
        let reverse = entry["tshark_dissected"] == Value::Bool(true) && entry["tshark_malformed"] == Value::Bool(false);
        let pair = files.get(text_of(entry, "pair")).map_or(&Value::Null, |p| *p);
        compare_with_tshark(entry, pair, &ours, NOT_COMPARED, reverse, &mut failures);
        compared += entry["tshark"].as_object().map_or(0, |t| t.len());
    }
    report("fields against tshark", &failures);
    assert!(compared > 2000, "only {compared} tshark fields compared: did the index lose its dissection?");
}

#[test]
fn not_compared_entries_are_all_used() {
    let index = index();
    for n in NOT_COMPARED {
        let files = by_file(&index);
        for key in n.keys {
            let used = index.iter().any(|e| {
                let pair = files.get(text_of(e, "pair")).map_or(&Value::Null, |p| *p);
                (n.applies)(e, pair) && e["tshark"].get(key).is_some()
            });
            assert!(used, "not-compared key {key:?} ({}) applies to no record", n.why);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Coverage of the set

#[test]
fn every_nfs3_and_mount3_procedure_is_a_golden_call_and_reply() {
    let index = index();
    let present = |prog: u32, proc: u32, direction: &str, ok: &[&str]| {
        index.iter().any(|e| {
            (word_of(e, "prog"), word_of(e, "vers"), word_of(e, "proc")) == (prog, 3, proc)
                && text_of(e, "direction") == direction
                && (ok.is_empty() || e["status"].as_str().is_some_and(|s| ok.contains(&s)))
        })
    };
    let mut missing = Vec::new();
    for proc in 0..=21 {
        let name = nfs3_proto::nfs3_proc_name(proc);
        let ok: &[&str] = if proc == 0 { &["SUCCESS"] } else { &["NFS3_OK"] };
        if !present(NFS_PROGRAM, proc, "call", &[]) {
            missing.push(format!("NFSv3 {name} call"));
        }
        if !present(NFS_PROGRAM, proc, "reply", ok) {
            missing.push(format!("NFSv3 {name} reply with {ok:?}"));
        }
    }
    for proc in 0..=5 {
        let name = nfs3_proto::mount_proc_name(proc);
        let ok: &[&str] = if proc == 1 { &[MountStat3::Ok.name()] } else { &["SUCCESS"] };
        if !present(MOUNT_PROGRAM, proc, "call", &[]) {
            missing.push(format!("MOUNTv3 {name} call"));
        }
        if !present(MOUNT_PROGRAM, proc, "reply", ok) {
            missing.push(format!("MOUNTv3 {name} reply with {ok:?}"));
        }
    }
    assert!(missing.is_empty(), "golden set lacks: {}", missing.join(", "));
}
