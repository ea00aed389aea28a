//! Golden NFSv4.1/4.2 wire vectors (`testdata/golden/v4/`, indexed by `v4/index.json`): real records of
//! the Linux 6.1 client and knfsd over TCP — forechannel COMPOUNDs, the backchannel's CB_COMPOUNDs and
//! a few hand-made calls the server refused (see tools/golden/README.md).
//!
//! For every record:
//! - it is one record-marking fragment whose length is the index's, and the record decodes with
//!   `nfsbench::inspect` (calls from their own bytes, replies with the program, version and procedure
//!   of their call) and re-encodes byte for byte;
//! - the operations (and for replies each operation's status and the COMPOUND's status) are the ones
//!   the capture's extraction listed from tshark's dissection;
//! - a hand-made call whose operation no minor version defines fails to decode, as the server refused
//!   it with OP_ILLEGAL (and the reply's ILLEGAL result decodes).
//!
//! And the set itself: every operation the issue names for the server appears in a call and in a
//! successful reply (LOCKT: a denial), so a new capture cannot silently lose coverage.

mod golden_support;

use std::collections::BTreeSet;

use golden_support::{load_index, read_vector, report, text_of, word_of};
use nfsbench::inspect::{decode_call, decode_reply, Body, CallKey};
use serde_json::Value;

fn index() -> Vec<Value> {
    load_index("v4/index.json")
}

fn names(entry: &Value, key: &str) -> Vec<String> {
    entry[key].as_array().into_iter().flatten().filter_map(|v| v.as_str().map(str::to_owned)).collect()
}

/// The record without its one record mark (RFC 5531 §11), checked against the index.
fn record(entry: &Value) -> Result<Vec<u8>, String> {
    let file = text_of(entry, "file");
    let bin = read_vector(&format!("v4/{file}"));
    let mark = bin.get(..4).ok_or(format!("{file}: no record mark"))?;
    let mark = u32::from_be_bytes([mark[0], mark[1], mark[2], mark[3]]);
    let len = (mark & onc_rpc::MAX_FRAGMENT_LEN) as usize;
    if mark & onc_rpc::LAST_FRAGMENT_BIT == 0 || len + 4 != bin.len() || entry["fragments"] != 1 {
        return Err(format!("{file}: mark {mark:#x} for {} bytes; index: {} fragments", bin.len(), entry["fragments"]));
    }
    Ok(bin[4..].to_vec())
}

/// Our names for a decoded body's operations, and for replies their statuses and the COMPOUND's.
fn ops_of(body: &Body<'_>) -> (Vec<String>, Vec<String>, Option<String>) {
    match body {
        Body::Nfs4Call(c) => (c.argarray.iter().map(|o| o.name().to_owned()).collect(), Vec::new(), None),
        Body::Nfs4Reply(r) => (
            r.resarray.iter().map(|o| o.name().to_owned()).collect(),
            r.resarray.iter().map(|o| o.status().to_string()).collect(),
            Some(r.status.to_string()),
        ),
        Body::CbCall(c) => (c.argarray.iter().map(|o| o.name().to_owned()).collect(), Vec::new(), None),
        Body::CbReply(r) => (
            r.resarray.iter().map(|o| o.name().to_owned()).collect(),
            r.resarray.iter().map(|o| o.status().to_string()).collect(),
            Some(r.status.to_string()),
        ),
        _ => (Vec::new(), Vec::new(), None),
    }
}

fn check(entry: &Value) -> Result<(), String> {
    let file = text_of(entry, "file");
    let bytes = record(entry)?;
    let key = CallKey { prog: word_of(entry, "prog"), vers: word_of(entry, "vers"), proc: word_of(entry, "proc") };
    let call = text_of(entry, "direction") == "call";
    let decoded = if call { decode_call(&bytes) } else { decode_reply(&bytes, key) };
    let decoded = match decoded {
        Ok(d) => d,
        // A hand-made call naming an operation no minor version has: refused with OP_ILLEGAL.
        Err(e) if call && entry["handmade"] == true && names(entry, "ops").iter().any(|o| o.starts_with("OP")) => {
            return if e.to_string().contains("discriminant 99 for nfs_opnum4") {
                Ok(())
            } else {
                Err(format!("{file}: refused for another reason: {e}"))
            };
        }
        Err(e) => return Err(format!("{file}: {e}")),
    };
    if decoded.encode() != bytes {
        return Err(format!("{file}: re-encoded differently"));
    }
    let (ops, statuses, status) = ops_of(&decoded.body);
    let want_ops = names(entry, "ops");
    if key.proc == 1 && ops != want_ops {
        return Err(format!("{file}: operations {ops:?}, index {want_ops:?}"));
    }
    if !call && key.proc == 1 {
        let want: Vec<String> = names(entry, "op_statuses");
        if statuses != want {
            return Err(format!("{file}: statuses {statuses:?}, index {want:?}"));
        }
        if status.as_deref() != entry["status"].as_str() {
            return Err(format!("{file}: COMPOUND status {status:?}, index {}", entry["status"]));
        }
    }
    Ok(())
}

#[test]
fn every_v4_record_decodes_reencodes_byte_for_byte_and_lists_tsharks_operations() {
    let index = index();
    assert!(index.len() > 400, "{} records", index.len());
    let failures: Vec<String> = index.iter().filter_map(|e| check(e).err()).collect();
    report("NFSv4 golden records", &failures);
}

#[test]
fn the_capture_holds_every_operation_the_server_answers_in_a_call_and_a_successful_reply() {
    let index = index();
    let mut called = BTreeSet::new();
    let mut answered = BTreeSet::new();
    for e in &index {
        let ops = names(e, "ops");
        if text_of(e, "direction") == "call" {
            called.extend(ops);
        } else {
            for (op, status) in ops.iter().zip(names(e, "op_statuses")) {
                // LOCKT's answer worth having is the denial: it carries the conflicting lock (LOCK4denied).
                if status == "NFS4_OK" || (op == "LOCKT" && status == "NFS4ERR_DENIED") {
                    answered.insert(op.clone());
                }
            }
        }
    }
    let wanted = [
        "EXCHANGE_ID",
        "CREATE_SESSION",
        "DESTROY_SESSION",
        "SEQUENCE",
        "RECLAIM_COMPLETE",
        "DESTROY_CLIENTID",
        "SECINFO_NO_NAME",
        "PUTFH",
        "PUTROOTFH",
        "GETFH",
        "SAVEFH",
        "RESTOREFH",
        "LOOKUP",
        "LOOKUPP",
        "GETATTR",
        "SETATTR",
        "ACCESS",
        "OPEN",
        "OPEN_DOWNGRADE",
        "CLOSE",
        "READ",
        "WRITE",
        "COMMIT",
        "CREATE",
        "REMOVE",
        "RENAME",
        "LINK",
        "READLINK",
        "READDIR",
        "LOCK",
        "LOCKT",
        "LOCKU",
        "TEST_STATEID",
        "SEEK",
        "ALLOCATE",
        "DEALLOCATE",
        "CB_SEQUENCE",
    ];
    let missing: Vec<String> = wanted
        .iter()
        .filter(|op| !called.contains(**op) || !answered.contains(**op))
        .map(|op| format!("{op}: call {}, successful reply {}", called.contains(*op), answered.contains(*op)))
        .collect();
    report("operations the capture must hold", &missing);
}
