//! What the golden-vector tests share: where the vectors are, reading their indexes, our side of the
//! field comparison with tshark, and the "not compared" table type.
//!
//! Comparison rules (both golden test files):
//! - A key tshark reports is compared with the value our extraction produced under the same key.
//! - `[all]` fields are lists in order of appearance in the message, exactly as tshark walks it (e.g.
//!   every `fattr3` of a reply, in wire order, whatever structure it sits in), so our extraction walks
//!   the decoded structs in wire order and appends.
//! - Booleans compare equal to 0/1: tshark shows some booleans as numbers (`nfs.readdir.eof`).
//! - An empty list on one side equals an absent key on the other: tshark omits an `[all]` field that
//!   never occurs, and shows `[]` for some that do not (AUTH_SYS aux gids).

#![allow(dead_code)] // each test crate uses a different part

use std::collections::BTreeMap;
use std::path::PathBuf;

use nfs3_proto::{MountReply, Nfs3Reply, NfsStat3};
use nfsbench::inspect::{Body, CallKey, Decoded};
use onc_rpc::{AcceptStat, AuthStat, RejectedReply, ReplyBody, NFS_ACL_PROGRAM};
use serde_json::Value;

/// `testdata/golden/` of the repository.
pub fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/golden")
}

/// A JSON index (`index.json`, `rpcrdma/index.json`): a list of objects.
pub fn load_index(relative: &str) -> Vec<Value> {
    let path = golden_dir().join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match serde_json::from_str(&text) {
        Ok(Value::Array(entries)) => entries,
        Ok(_) => panic!("{}: not a JSON list", path.display()),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// The bytes of a file named in an index (`records/...`, `rpcrdma/...`).
pub fn read_vector(file: &str) -> Vec<u8> {
    let path = golden_dir().join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A string field of an index entry.
pub fn text_of<'v>(entry: &'v Value, key: &str) -> &'v str {
    entry[key].as_str().unwrap_or_else(|| panic!("index entry {} has no string {key:?}", entry["file"]))
}

/// An unsigned integer field of an index entry.
pub fn number_of(entry: &Value, key: &str) -> u64 {
    entry[key].as_u64().unwrap_or_else(|| panic!("index entry {} has no number {key:?}", entry["file"]))
}

/// A 32-bit field of an index entry (program, version, procedure, xid, ...).
pub fn word_of(entry: &Value, key: &str) -> u32 {
    u32::try_from(number_of(entry, key)).unwrap_or_else(|_| panic!("{}: {key:?} is not 32-bit", entry["file"]))
}

/// Fields extracted from our decoded structs, keyed as the index's `tshark{}` keys.
#[derive(Debug, Default)]
pub struct Fields(pub BTreeMap<&'static str, Value>);

impl Fields {
    /// Sets a single-valued field (`[first]` in the index: a later occurrence does not replace it).
    pub fn first(&mut self, key: &'static str, value: impl Into<Value>) {
        self.0.entry(key).or_insert_with(|| value.into());
    }

    /// Appends to an `[all]` field.
    pub fn push(&mut self, key: &'static str, value: impl Into<Value>) {
        if let Value::Array(list) = self.0.entry(key).or_insert_with(|| Value::Array(Vec::new())) {
            list.push(value.into());
        }
    }

    /// Declares an `[all]` field that may stay empty (so that `[]` and absent compare equal).
    pub fn list(&mut self, key: &'static str) {
        self.0.entry(key).or_insert_with(|| Value::Array(Vec::new()));
    }
}

/// Bytes as tshark shows an opaque verifier: `0f:fa:f0:86:54:48:e4:58`.
pub fn hex_colon(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// Bytes as tshark shows `bytes` fields without separators.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Names and paths are bytes; every one in the vectors is ASCII.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Keys tshark reports that the test deliberately does not compare, and why.
#[derive(Debug)]
pub struct NotCompared {
    pub keys: &'static [&'static str],
    /// Which entries the exemption covers, given the entry and its pair (the call of a reply, the reply
    /// of a call; `Null` if none).
    pub applies: fn(&Value, &Value) -> bool,
    pub why: &'static str,
}

fn normalize(value: &Value) -> Value {
    match value {
        Value::Bool(b) => Value::from(u64::from(*b)),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        other => other.clone(),
    }
}

fn is_empty_list(value: &Value) -> bool {
    matches!(value, Value::Array(items) if items.is_empty())
}

/// A value for a failure message, cut short when long (READDIR lists, the 1 MiB data lengths are not).
fn shown(value: &Value) -> String {
    let s = value.to_string();
    match s.char_indices().nth(160) {
        Some((cut, _)) => format!("{}... ({} chars)", &s[..cut], s.len()),
        None => s,
    }
}

fn describe_difference(theirs: &Value, ours: &Value) -> String {
    if let (Value::Array(a), Value::Array(b)) = (theirs, ours) {
        let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
        return format!(
            "lists differ at [{at}] (lengths {} vs {}): tshark {} ours {}; tshark {} ours {}",
            a.len(),
            b.len(),
            a.get(at).map_or("(end)".into(), Value::to_string),
            b.get(at).map_or("(end)".into(), Value::to_string),
            shown(theirs),
            shown(ours),
        );
    }
    format!("tshark {} ours {}", shown(theirs), shown(ours))
}

/// Compares `ours` with the entry's `tshark{}` object, appending one line per disagreement to `failures`.
///
/// Every tshark key must be produced by us or exempted by `not_compared`. With `reverse`, every
/// non-empty key we produce must also be in tshark's dissection (we do not invent fields).
pub fn compare_with_tshark(
    entry: &Value,
    pair: &Value,
    ours: &Fields,
    not_compared: &[NotCompared],
    reverse: bool,
    failures: &mut Vec<String>,
) {
    let file = text_of(entry, "file");
    let empty = serde_json::Map::new();
    let tshark = entry["tshark"].as_object().unwrap_or(&empty);
    for (key, theirs) in tshark {
        if not_compared.iter().any(|n| n.keys.contains(&key.as_str()) && (n.applies)(entry, pair)) {
            continue;
        }
        let theirs = normalize(theirs);
        match ours.0.get(key.as_str()).map(normalize) {
            Some(ours) if ours == theirs => {}
            None if is_empty_list(&theirs) => {}
            Some(ours) => failures.push(format!("{file}: {key}: {}", describe_difference(&theirs, &ours))),
            None => failures.push(format!("{file}: {key}: tshark {}, ours: not extracted", shown(&theirs))),
        }
    }
    if reverse {
        for (key, value) in &ours.0 {
            if !tshark.contains_key(*key) && !is_empty_list(value) {
                failures.push(format!("{file}: {key}: tshark has no such field, ours {}", shown(value)));
            }
        }
    }
}

/// Panics with every failure, one per line, if there are any.
pub fn report(what: &str, failures: &[String]) {
    assert!(failures.is_empty(), "{what}: {} disagreement(s):\n{}", failures.len(), failures.join("\n"));
}

/// The RFC name of an `auth_stat`, as `extract.py` writes it in an index `status`.
pub fn auth_stat_name(stat: AuthStat) -> String {
    match stat {
        AuthStat::Ok => "AUTH_OK".into(),
        AuthStat::BadCred => "AUTH_BADCRED".into(),
        AuthStat::RejectedCred => "AUTH_REJECTEDCRED".into(),
        AuthStat::BadVerf => "AUTH_BADVERF".into(),
        AuthStat::RejectedVerf => "AUTH_REJECTEDVERF".into(),
        AuthStat::TooWeak => "AUTH_TOOWEAK".into(),
        other => format!("{other:?}"),
    }
}

/// Our reading of a reply's status, in the words of an index's `status`: the RPC-level status, else
/// the program's (`NFS3_OK`, `NFS3ERR_NOENT`, `MNT3_OK`), else `SUCCESS`.
pub fn our_status(key: CallKey, decoded: &Decoded<'_>) -> String {
    let Some(reply) = decoded.message.as_reply() else { return "not a reply".into() };
    if let Some(status) = rpc_reply_status(reply) {
        return status;
    }
    match &decoded.body {
        Body::Nfs3Reply(Nfs3Reply::Null) => "SUCCESS".into(),
        Body::Nfs3Reply(r) => r.status().name().into(),
        Body::MountReply(MountReply::Mnt(res)) => res.status().name().into(),
        // NFS_ACL results start with an nfsstat3 (GETACL, SETACL); the inspector keeps them opaque.
        Body::Opaque(bytes) if key.prog == NFS_ACL_PROGRAM && key.proc != 0 => xdr::XdrReader::new(bytes)
            .get_u32()
            .ok()
            .and_then(NfsStat3::from_u32)
            .map_or("bad nfsstat3".into(), |s| s.name().into()),
        _ => "SUCCESS".into(),
    }
}

/// The RPC-level status of a reply as the index writes it; `None` for MSG_ACCEPTED / SUCCESS, whose
/// status is the program's (NFS3_OK, MNT3_OK, or plain SUCCESS).
pub fn rpc_reply_status(reply: &ReplyBody<'_>) -> Option<String> {
    Some(match reply {
        ReplyBody::Accepted(a) => match a.stat {
            AcceptStat::Success => return None,
            AcceptStat::ProgUnavail => "PROG_UNAVAIL".into(),
            AcceptStat::ProgMismatch { .. } => "PROG_MISMATCH".into(),
            AcceptStat::ProcUnavail => "PROC_UNAVAIL".into(),
            AcceptStat::GarbageArgs => "GARBAGE_ARGS".into(),
            AcceptStat::SystemErr => "SYSTEM_ERR".into(),
        },
        ReplyBody::Denied(RejectedReply::RpcMismatch { .. }) => "MSG_DENIED/RPC_MISMATCH".into(),
        ReplyBody::Denied(RejectedReply::AuthError(stat)) => format!("MSG_DENIED/AUTH_ERROR/{}", auth_stat_name(*stat)),
    })
}
