//! Malformed COMPOUNDs, each with the answer RFC 8881 requires of the server (§16.2.3, §15.2, §2.6.3.1.1.9,
//! §2.10.6.4) and knfsd gives: the right `nfsstat4` at the right operation index, GARBAGE_ARGS for a body
//! that is no COMPOUND at all, or the connection dropped for a record no server should read.
//!
//! [`sessionless`] probes need no session and change no slot, so a flood can pipeline them; [`in_session`]
//! probes start with a real SEQUENCE on a slot, and say what they do to it ([`SlotEffect`]).

use nfs4_proto::{
    Component4, Compound4Args, DataContent4, LookupArgs, NfsArgOp, NfsErr4, OpNum4, RenewArgs, SeekArgs, SequenceArgs,
    SessionId4, StableHow4, Stateid4, WriteArgs, NFS4_FHSIZE,
};
use onc_rpc::AcceptStat;
use xdr::XdrWriter;

use super::answer::Outcome;
use crate::rpc::xdr_bytes;

/// Operations a session probe piles up to pass the session's ca_maxoperations (the server grants at most
/// 64, nfs-server's default).
const PAST_MAX_OPS: usize = 70;

/// What a probe does to the slot its SEQUENCE names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotEffect {
    /// The server never reaches SEQUENCE (GARBAGE_ARGS): the slot is untouched.
    Untouched,
    /// SEQUENCE succeeds: the slot moves on.
    Advances,
    /// SEQUENCE itself fails (NFS4ERR_TOO_MANY_OPS, NFS4ERR_REQ_TOO_BIG): RFC 8881 §18.46.3 and knfsd leave
    /// the slot as it was; the runner finds out with `Session::resync`.
    Refused,
}

/// One malformed COMPOUND and the answer it must get.
#[derive(Debug, Clone)]
pub struct Probe {
    pub name: &'static str,
    pub body: Vec<u8>,
    pub expected: Outcome,
    pub slot: SlotEffect,
}

/// A COMPOUND body by hand: `tag`, `minor`, the operation count `declared`, then `ops` as raw bytes.
pub fn raw_body(tag: &[u8], minor: u32, declared: u32, ops: &[Vec<u8>]) -> Vec<u8> {
    let mut w = XdrWriter::new();
    w.put_opaque(tag);
    w.put_u32(minor);
    w.put_u32(declared);
    for op in ops {
        w.put_raw(op);
    }
    w.into_vec()
}

fn op(op: &NfsArgOp<'_>) -> Vec<u8> {
    xdr_bytes(op)
}

fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

fn body(minor: u32, ops: &[NfsArgOp<'_>]) -> Vec<u8> {
    xdr_bytes(&Compound4Args { tag: b"hostile", minorversion: minor, argarray: ops.to_vec() })
}

/// LOOKUP whose name claims 100 bytes and has 4.
fn truncated_lookup() -> Vec<u8> {
    let mut bytes = words(&[OpNum4::Lookup.as_u32(), 100]);
    bytes.extend_from_slice(b"abc\0");
    bytes
}

fn garbage() -> Outcome {
    Outcome::Rpc(AcceptStat::GarbageArgs)
}

/// Probes that need no session; none changes any state of the server.
pub fn sessionless() -> Vec<Probe> {
    use NfsErr4::*;
    let putrootfh = op(&NfsArgOp::Putrootfh);
    let random_sequence = NfsArgOp::Sequence(SequenceArgs {
        sessionid: SessionId4(super::random::bytes()),
        sequenceid: 1,
        slotid: 0,
        highest_slotid: 0,
        cachethis: false,
    });
    let probe = |name, body, expected| Probe { name, body, expected, slot: SlotEffect::Untouched };
    vec![
        // RFC 8881 §16.2.3: a minor version the server does not speak, the status alone.
        probe("minor version 0", body(0, &[NfsArgOp::Putrootfh]), Outcome::status_only(MinorVersMismatch)),
        probe("minor version 3", body(3, &[NfsArgOp::Putrootfh]), Outcome::status_only(MinorVersMismatch)),
        probe("minor version 2^32-1", body(u32::MAX, &[NfsArgOp::Putrootfh]), Outcome::status_only(MinorVersMismatch)),
        // A tag past NFS4_OPAQUE_LIMIT, or claiming more bytes than the message holds: no COMPOUND at all
        // (knfsd's nfsd4_decode_compound fails, GARBAGE_ARGS).
        probe("tag of 2000 bytes", raw_body(&[b't'; 2000], 1, 1, std::slice::from_ref(&putrootfh)), garbage()),
        probe("tag claiming 2^32-1 bytes", words(&[u32::MAX, 1, 0]), garbage()),
        // The array claims 2^32-1 operations and the message ends after one.
        probe(
            "2^32-1 operations declared, 1 sent",
            raw_body(b"", 1, u32::MAX, std::slice::from_ref(&putrootfh)),
            garbage(),
        ),
        // 70 sent of 2^32-1 declared: the server decodes no more than its limit, and PUTROOTFH may not
        // start a COMPOUND outside a session (RFC 8881 §2.6.3.1.1.9).
        probe(
            "2^32-1 operations declared, 70 sent",
            raw_body(b"", 1, u32::MAX, &vec![putrootfh.clone(); PAST_MAX_OPS]),
            Outcome::fails_at(&[], OpNum4::Putrootfh, OpNotInSession),
        ),
        probe("bytes after the last operation", raw_body(b"", 1, 0, std::slice::from_ref(&putrootfh)), garbage()),
        probe("no operations", body(1, &[]), Outcome::results(&[])),
        // RFC 8881 §15.2: an unknown operation is OP_ILLEGAL at its index.
        probe(
            "unknown operation 9999",
            raw_body(b"", 1, 1, &[words(&[9999])]),
            Outcome::fails_at(&[], OpNum4::Illegal, OpIllegal),
        ),
        probe(
            "operation number 0",
            raw_body(b"", 1, 1, &[words(&[0])]),
            Outcome::fails_at(&[], OpNum4::Illegal, OpIllegal),
        ),
        probe(
            "OP_ILLEGAL itself",
            raw_body(b"", 1, 1, &[words(&[10044])]),
            Outcome::fails_at(&[], OpNum4::Illegal, OpIllegal),
        ),
        probe(
            "truncated LOOKUP first",
            raw_body(b"", 1, 1, &[truncated_lookup()]),
            Outcome::fails_at(&[], OpNum4::Lookup, BadXdr),
        ),
        // RFC 8881 §2.6.3.1.1.9 (knfsd's nfs41_check_op_ordering).
        probe(
            "SEQUENCE second",
            body(1, &[NfsArgOp::Putrootfh, random_sequence.clone()]),
            Outcome::fails_at(&[], OpNum4::Putrootfh, OpNotInSession),
        ),
        probe(
            "EXCHANGE_ID with company",
            raw_body(b"", 1, 2, &[op(&super::session::exchange_id_op(b"hostile", [1; 8])), putrootfh]),
            Outcome::fails_at(&[], OpNum4::ExchangeId, NotOnlyOp),
        ),
        probe(
            "SEQUENCE of a random session",
            body(1, &[random_sequence]),
            Outcome::fails_at(&[], OpNum4::Sequence, BadSession),
        ),
    ]
}

/// Probes sent in the session whose next SEQUENCE on a slot is `sequence`; `max_ops` is the session's
/// granted ca_maxoperations, `max_request` its ca_maxrequestsize — with it, the probe past it (a WRITE of
/// about 1 MiB, which a flood leaves out: building and sending it measures bandwidth, not the server).
pub fn in_session(sequence: SequenceArgs, max_ops: u32, max_request: Option<u32>) -> Vec<Probe> {
    use NfsErr4::*;
    use OpNum4::{Illegal, Putfh, Putrootfh, Sequence};
    let seq = op(&NfsArgOp::Sequence(sequence));
    let putrootfh = op(&NfsArgOp::Putrootfh);
    let mut long_fh = words(&[OpNum4::Putfh.as_u32(), NFS4_FHSIZE as u32 + 72]);
    long_fh.extend_from_slice(&[0xab; NFS4_FHSIZE + 72]);
    let seek = op(&NfsArgOp::Seek(SeekArgs { stateid: Stateid4::ANONYMOUS, offset: 0, what: DataContent4::Data }));
    let lookup = NfsArgOp::Lookup(LookupArgs { objname: Component4(b"x") });
    let renew = op(&NfsArgOp::Renew(RenewArgs { clientid: 1 }));
    let past_max = vec![putrootfh.clone(); max_ops as usize];
    let mut too_many = vec![seq.clone()];
    too_many.extend(past_max);
    let mut declared_max = vec![seq.clone()];
    declared_max.extend(vec![putrootfh.clone(); PAST_MAX_OPS]);
    // A WRITE whose record passes ca_maxrequestsize by 8 KiB but stays under the transport's record limit.
    let write = max_request.map(|max| {
        let data = vec![0x5a; (max as usize + 8192).min((1 << 20) + 32768)];
        op(&NfsArgOp::Write(WriteArgs {
            stateid: Stateid4::ANONYMOUS,
            offset: 0,
            stable: StableHow4::Unstable,
            data: &data,
        }))
    });
    let ok = |name, ops: Vec<Vec<u8>>, expected| Probe {
        name,
        body: raw_body(b"hostile", 1, ops.len() as u32, &ops),
        expected,
        slot: SlotEffect::Advances,
    };
    let refused = |name, body, err| Probe {
        name,
        body,
        expected: Outcome::fails_at(&[], Sequence, err),
        slot: SlotEffect::Refused,
    };
    let garbage_probe = |name, body| Probe { name, body, expected: garbage(), slot: SlotEffect::Untouched };
    let mut probes = vec![
        ok(
            "unknown operation mid-COMPOUND",
            vec![seq.clone(), putrootfh.clone(), words(&[9999]), op(&NfsArgOp::Getfh)],
            Outcome::fails_at(&[Sequence, Putrootfh], Illegal, OpIllegal),
        ),
        ok(
            "operation number 2 mid-COMPOUND",
            vec![seq.clone(), putrootfh.clone(), words(&[2])],
            Outcome::fails_at(&[Sequence, Putrootfh], Illegal, OpIllegal),
        ),
        // As knfsd's nfsd4_opnum_in_range: an operation of a later minor version is illegal.
        ok("SEEK in a v4.1 COMPOUND", vec![seq.clone(), seek], Outcome::fails_at(&[Sequence], Illegal, OpIllegal)),
        ok(
            "truncated LOOKUP mid-COMPOUND",
            vec![seq.clone(), putrootfh.clone(), truncated_lookup()],
            Outcome::fails_at(&[Sequence, Putrootfh], OpNum4::Lookup, BadXdr),
        ),
        ok("PUTFH of 200 bytes", vec![seq.clone(), long_fh], Outcome::fails_at(&[Sequence], Putfh, BadXdr)),
        ok("SEQUENCE twice", vec![seq.clone(), seq.clone()], Outcome::fails_at(&[Sequence], Sequence, SequencePos)),
        // RFC 8881 §18.2 (MNI operations): a v4.0-only operation is NOTSUPP in a v4.1 COMPOUND.
        ok("RENEW in a session", vec![seq.clone(), renew], Outcome::fails_at(&[Sequence], OpNum4::Renew, NotSupp)),
        ok(
            "LOOKUP without a current handle",
            vec![seq.clone(), op(&lookup)],
            Outcome::fails_at(&[Sequence], OpNum4::Lookup, NoFileHandle),
        ),
        // RFC 8881 §2.10.6.4: the session's limits, in SEQUENCE's own result.
        refused("one operation past ca_maxoperations", raw_body(b"", 1, too_many.len() as u32, &too_many), TooManyOps),
        refused("2^32-1 operations declared, 71 sent", raw_body(b"", 1, u32::MAX, &declared_max), TooManyOps),
        garbage_probe(
            "2^32-1 declared after a SEQUENCE, 2 sent",
            raw_body(b"", 1, u32::MAX, &[seq.clone(), putrootfh]),
        ),
        garbage_probe("huge tag before a SEQUENCE", raw_body(&[b't'; 1025], 1, 1, std::slice::from_ref(&seq))),
    ];
    if let Some(write) = write {
        probes.push(refused("a request past ca_maxrequestsize", raw_body(b"", 1, 2, &[seq, write]), ReqTooBig));
    }
    probes
}

#[cfg(test)]
mod tests {
    use nfs4_proto::{CompoundDecoder, NfsErr4, OpErrorKind, SequenceArgs};
    use onc_rpc::AcceptStat;

    use super::{in_session, sessionless, Probe};
    use crate::v4::answer::Outcome;

    /// What the server's own decoder (nfs4-proto's, with nfs-server's 64 operations) finds in `probe`: the
    /// minor version and either the operations' count or the error that ends them.
    fn decode(probe: &Probe) -> Result<(u32, Result<usize, OpErrorKind>), ()> {
        let decoder = CompoundDecoder::new(&probe.body, 64).map_err(drop)?;
        let minor = decoder.minorversion();
        let mut count = 0;
        for item in decoder {
            match item {
                Ok(_) => count += 1,
                Err(e) => return Ok((minor, Err(e.kind))),
            }
        }
        Ok((minor, Ok(count)))
    }

    /// Every probe is malformed the way its expected answer says, as the decoder sees it.
    fn check(probe: &Probe) {
        let name = probe.name;
        match (&probe.expected, decode(probe)) {
            (Outcome::Rpc(AcceptStat::GarbageArgs), Err(())) => {}
            (Outcome::Rpc(AcceptStat::GarbageArgs), Ok((_, Err(OpErrorKind::Garbage(_))))) => {}
            (Outcome::Compound { results, .. }, Ok((minor, _))) if results.is_empty() => {
                assert!(minor != 1 && minor != 2 || name == "no operations", "{name}: minor version {minor}");
            }
            (Outcome::Compound { status, results }, Ok((_, decoded))) => {
                let index = results.len() - 1;
                match (status.error(), decoded) {
                    (Some(NfsErr4::OpIllegal), Err(OpErrorKind::Illegal { .. })) => {}
                    (Some(NfsErr4::BadXdr), Err(OpErrorKind::BadXdr { op, .. })) => {
                        assert_eq!(op, results[index].0, "{name}")
                    }
                    (Some(NfsErr4::TooManyOps), Err(OpErrorKind::TooManyOps { .. })) => {}
                    (_, Ok(count)) => assert!(count > index, "{name}: {count} operations decoded"),
                    (_, Err(OpErrorKind::TooManyOps { .. })) => {}
                    (expected, got) => panic!("{name}: expected {expected:?}, the decoder found {got:?}"),
                }
            }
            (expected, got) => panic!("{name}: expected {expected:?}, the decoder found {got:?}"),
        }
    }

    #[test]
    fn each_sessionless_probe_is_malformed_as_its_answer_says() {
        for probe in sessionless() {
            check(&probe);
        }
    }

    #[test]
    fn each_session_probe_is_malformed_as_its_answer_says() {
        let sequence = SequenceArgs { sequenceid: 2, ..SequenceArgs::default() };
        let probes = in_session(sequence, 16, Some(1 << 20));
        assert!(probes.iter().any(|p| p.name == "a request past ca_maxrequestsize"));
        for probe in &probes {
            check(probe);
        }
        assert!(in_session(sequence, 16, None).iter().all(|p| p.body.len() < 4096), "a flood's probes are small");
    }
}
