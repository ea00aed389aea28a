//! [`Compound`]: what a call on a session is to the machinery that sends and retries it — its name,
//! whether the server should cache its reply, how it is encoded after a given SEQUENCE, how its reply is
//! read, and the open whose stateid it carries — and [`decode_with`], the reading of a reply made of the
//! codec's results.

use std::sync::Arc;

use nfs4_proto::{NfsErr4, NfsResOp, OpNum4, SequenceArgs};

use super::opens::OpenState;
use super::session::Session;
use super::slots::SequenceOutcome;
use super::wire::{self, Encoded};
use crate::error::ClientError;
use crate::transport::RpcReply;

/// A COMPOUND carried on a session: SEQUENCE first, then the request's operations.
pub(crate) trait Compound: Send + Sync + 'static {
    type Output: Send + 'static;
    /// The name of the call in errors and logs ("READ", "OPEN").
    fn name(&self) -> &'static str;
    /// RFC 8881 §2.10.6.1.3 `sa_cachethis`: keep the reply for a retry (the calls that are not
    /// idempotent, as Linux asks for OPEN, CLOSE, CREATE, REMOVE and SETATTR).
    fn cache_this(&self) -> bool {
        false
    }
    /// The whole COMPOUND, `seq` first.
    fn encode(&self, session: &Session, seq: SequenceArgs) -> Encoded;
    /// What the reply's SEQUENCE said and the request's result, or the operation and status that ended it.
    fn decode(&self, session: &Session, reply: &RpcReply, ops: &[OpNum4])
        -> Result<Decoded<Self::Output>, ClientError>;
    /// The open whose stateid the request carries: revoked state is opened again and the call resent.
    fn open(&self) -> Option<&Arc<OpenState>> {
        None
    }
}

/// A decoded reply.
#[derive(Debug)]
pub(crate) struct Decoded<T> {
    pub(crate) sequence: Option<SequenceOutcome>,
    /// The result, or the failed operation and its status (`None`: the COMPOUND ended before any).
    pub(crate) outcome: Result<T, Option<(OpNum4, NfsErr4)>>,
}

/// Decodes a reply with [`wire::decode`]; `read` gets the results after SEQUENCE when all succeeded.
pub(crate) fn decode_with<T>(
    proc: &'static str,
    reply: &RpcReply,
    ops: &[OpNum4],
    read: impl FnOnce(&[NfsResOp<'_>]) -> Result<T, ClientError>,
) -> Result<Decoded<T>, ClientError> {
    let res = wire::decode(proc, &reply.record, ops)?;
    let sequence = wire::sequence_outcome(&res.resarray);
    let outcome = match wire::failure(&res) {
        Some(failed) => Err(Some(failed)),
        None if res.resarray.len() < ops.len() => Err(None),
        None => Ok(read(res.resarray.get(1..).unwrap_or(&[]))?),
    };
    Ok(Decoded { sequence, outcome })
}
