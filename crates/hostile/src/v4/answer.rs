//! What the server answered a COMPOUND, kept whole ([`Answer`]) for the results a client reads, and
//! summed up ([`Outcome`]) for the checks: the COMPOUND's status with each result's operation and status
//! in order, an RPC-level refusal, or a dropped connection. A check states the [`Outcome`] it expects and
//! compares; a flood counts the outcomes it saw.

use std::fmt;

use nfs4_proto::{Compound4Res, NfsErr4, NfsResOp, NfsStat4, OpNum4};
use onc_rpc::{AcceptStat, ReplyBody, RpcMessage};
use xdr::XdrError;

use crate::rpc::RpcFailure;

/// A reply to a COMPOUND call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Executed: the `COMPOUND4res` body.
    Compound(Vec<u8>),
    /// Accepted but not executed (GARBAGE_ARGS, PROC_UNAVAIL, ...).
    Refused(AcceptStat),
    /// Denied (RPC_MISMATCH, AUTH_ERROR).
    Denied,
}

impl Answer {
    pub(crate) fn from_reply(msg: &RpcMessage<'_>, body: &[u8]) -> Answer {
        match msg.as_reply() {
            Some(ReplyBody::Accepted(a)) if a.stat == AcceptStat::Success => Answer::Compound(body.to_vec()),
            Some(ReplyBody::Accepted(a)) => Answer::Refused(a.stat),
            _ => Answer::Denied,
        }
    }

    /// The decoded `COMPOUND4res` (not checked against the call: hostile calls are not well formed).
    pub fn res(&self) -> Result<Compound4Res<'_>, RpcFailure> {
        match self {
            Answer::Compound(body) => {
                xdr::decode_exact(body).map_err(|e: XdrError| RpcFailure::Malformed(e.to_string()))
            }
            other => Err(RpcFailure::NotAccepted(format!("{other:?}"))),
        }
    }

    /// The answer summed up.
    pub fn outcome(&self) -> Outcome {
        match self {
            Answer::Compound(_) => match self.res() {
                Ok(res) => Outcome::Compound {
                    status: res.status,
                    results: res.resarray.iter().map(|r| (r.op(), r.status())).collect(),
                },
                Err(e) => Outcome::Malformed(e.to_string()),
            },
            Answer::Refused(stat) => Outcome::Rpc(*stat),
            Answer::Denied => Outcome::RpcDenied,
        }
    }

    /// The status of result `index`, if there is one.
    pub fn status_at(&self, index: usize) -> Option<NfsStat4> {
        match self.outcome() {
            Outcome::Compound { results, .. } => results.get(index).map(|(_, s)| *s),
            _ => None,
        }
    }

    /// The result of operation `op`, decoded, handed to `f`.
    pub fn find<T>(&self, f: impl Fn(&NfsResOp<'_>) -> Option<T>) -> Option<T> {
        self.res().ok()?.resarray.iter().find_map(f)
    }
}

/// An answer summed up: what a check compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A `COMPOUND4res`: its status, and each result's operation and status in order.
    Compound { status: NfsStat4, results: Vec<(OpNum4, NfsStat4)> },
    /// An RPC reply without results (accepted, not executed).
    Rpc(AcceptStat),
    /// An RPC reply denying the call.
    RpcDenied,
    /// A `COMPOUND4res` that does not decode.
    Malformed(String),
    /// The server closed the connection instead of answering.
    Closed,
}

impl Outcome {
    /// Results `results` (operation, status), the COMPOUND's status being the last one's (RFC 8881 §16.2.3).
    pub fn results(results: &[(OpNum4, NfsStat4)]) -> Outcome {
        let status = results.last().map_or(NfsStat4::Ok, |(_, s)| *s);
        Outcome::Compound { status, results: results.to_vec() }
    }

    /// `ok` operations that succeed, then `failed` failing with `err`.
    pub fn fails_at(ok: &[OpNum4], failed: OpNum4, err: NfsErr4) -> Outcome {
        let mut results: Vec<(OpNum4, NfsStat4)> = ok.iter().map(|op| (*op, NfsStat4::Ok)).collect();
        results.push((failed, err.status()));
        Outcome::results(&results)
    }

    /// A COMPOUND status with no results (NFS4ERR_MINOR_VERS_MISMATCH, RFC 8881 §16.2.3).
    pub fn status_only(err: NfsErr4) -> Outcome {
        Outcome::Compound { status: err.status(), results: Vec::new() }
    }

    /// The status of the last result, when this is a COMPOUND reply.
    pub fn last_status(&self) -> Option<NfsStat4> {
        match self {
            Outcome::Compound { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// A short name for tallies: the COMPOUND's status, or the RPC-level answer.
    pub fn label(&self) -> String {
        match self {
            Outcome::Compound { status, .. } => status.name().to_string(),
            Outcome::Rpc(stat) => format!("RPC {stat:?}"),
            Outcome::RpcDenied => "RPC denied".into(),
            Outcome::Malformed(_) => "malformed reply".into(),
            Outcome::Closed => "connection closed".into(),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Compound { status, results } => {
                write!(f, "{} [", status.name())?;
                for (i, (op, s)) in results.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{} {}", op.name(), s.name())?;
                }
                write!(f, "]")
            }
            Outcome::Malformed(why) => write!(f, "malformed reply: {why}"),
            other => write!(f, "{}", other.label()),
        }
    }
}

/// The outcome of a call that may have ended the connection.
pub fn outcome_of(result: Result<Answer, RpcFailure>) -> Result<Outcome, RpcFailure> {
    match result {
        Ok(answer) => Ok(answer.outcome()),
        Err(RpcFailure::Closed) => Ok(Outcome::Closed),
        Err(RpcFailure::Io(e)) if e.kind() == std::io::ErrorKind::ConnectionReset => Ok(Outcome::Closed),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use nfs4_proto::{Compound4Res, NfsErr4, NfsResOp, NfsStat4, OpNum4};
    use onc_rpc::AcceptStat;

    use super::{Answer, Outcome};
    use crate::rpc::xdr_bytes;

    fn answer(results: Vec<NfsResOp<'static>>) -> Answer {
        Answer::Compound(xdr_bytes(&Compound4Res::new(b"t", results)))
    }

    #[test]
    fn an_answer_sums_up_as_each_results_operation_and_status() {
        let got = answer(vec![NfsResOp::error(OpNum4::Sequence, NfsErr4::BadSession)]).outcome();
        assert_eq!(got, Outcome::fails_at(&[], OpNum4::Sequence, NfsErr4::BadSession));
        assert_eq!(got.to_string(), "NFS4ERR_BADSESSION [SEQUENCE NFS4ERR_BADSESSION]");
        assert_eq!(got.label(), "NFS4ERR_BADSESSION");
    }

    #[test]
    fn a_failure_after_successes_is_the_compounds_status() {
        let expected = Outcome::fails_at(&[OpNum4::Sequence], OpNum4::Illegal, NfsErr4::OpIllegal);
        let Outcome::Compound { status, results } = &expected else { panic!("{expected:?}") };
        assert_eq!(*status, NfsErr4::OpIllegal.status());
        assert_eq!(results[0], (OpNum4::Sequence, NfsStat4::Ok));
        assert_eq!(Outcome::results(&[]).last_status(), Some(NfsStat4::Ok));
        assert_eq!(Outcome::status_only(NfsErr4::MinorVersMismatch).to_string(), "NFS4ERR_MINOR_VERS_MISMATCH []");
    }

    #[test]
    fn refusals_and_undecodable_bodies_are_outcomes_of_their_own() {
        assert_eq!(Answer::Refused(AcceptStat::GarbageArgs).outcome(), Outcome::Rpc(AcceptStat::GarbageArgs));
        assert!(matches!(Answer::Compound(vec![0, 0, 0]).outcome(), Outcome::Malformed(_)));
        assert_eq!(Answer::Denied.outcome().label(), "RPC denied");
    }
}
