//! The reply half of an RPC message (RFC 5531 §9): `reply_body`, `accepted_reply`, `rejected_reply`
//! and their status enums. Statuses are wire values, not Rust errors.

use xdr::{XdrError, XdrReader, XdrWriter};

use crate::auth::OpaqueAuth;
use crate::constants::RPC_VERSION;

/// `union reply_body switch (reply_stat stat)` (RFC 5531 §9): MSG_ACCEPTED = 0, MSG_DENIED = 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyBody<'a> {
    Accepted(AcceptedReply<'a>),
    Denied(RejectedReply),
}

/// `struct accepted_reply { opaque_auth verf; union switch (accept_stat stat) {...} reply_data; }`.
/// For [`AcceptStat::Success`] the procedure results follow the header on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcceptedReply<'a> {
    pub verf: OpaqueAuth<'a>,
    pub stat: AcceptStat,
}

/// `accept_stat` with the arms of `reply_data` folded in (RFC 5531 §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AcceptStat {
    /// 0: the call executed; results follow.
    Success,
    /// 1: the program is not exported here.
    ProgUnavail,
    /// 2: the program does not support the requested version; `low..=high` are supported.
    ProgMismatch { low: u32, high: u32 },
    /// 3: the program cannot support the requested procedure.
    ProcUnavail,
    /// 4: the procedure cannot decode its arguments.
    GarbageArgs,
    /// 5: e.g. a memory allocation failure.
    SystemErr,
}

/// `union rejected_reply switch (reject_stat stat)` (RFC 5531 §9): RPC_MISMATCH = 0, AUTH_ERROR = 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectedReply {
    /// The RPC version of the call was not 2; `low..=high` are supported.
    RpcMismatch { low: u32, high: u32 },
    /// The server refused the credential or verifier.
    AuthError(AuthStat),
}

/// `enum auth_stat` (RFC 5531 §9), all the values the RFC lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum AuthStat {
    /// Success.
    Ok = 0,
    /// Bad credential (seal broken).
    BadCred = 1,
    /// Client must begin a new session.
    RejectedCred = 2,
    /// Bad verifier (seal broken).
    BadVerf = 3,
    /// Verifier expired or replayed.
    RejectedVerf = 4,
    /// Rejected for security reasons.
    TooWeak = 5,
    /// Bogus response verifier.
    InvalidResp = 6,
    /// Reason unknown.
    Failed = 7,
    /// Kerberos generic error.
    KerbGeneric = 8,
    /// Time of credential expired.
    TimeExpire = 9,
    /// Problem with ticket file.
    TktFile = 10,
    /// Can't decode authenticator.
    Decode = 11,
    /// Wrong net address in ticket.
    NetAddr = 12,
    /// RPCSEC_GSS: no credentials for user.
    RpcsecGssCredProblem = 13,
    /// RPCSEC_GSS: problem with context.
    RpcsecGssCtxProblem = 14,
}

impl AuthStat {
    pub fn from_u32(v: u32) -> Option<Self> {
        use AuthStat::*;
        Some(match v {
            0 => Ok,
            1 => BadCred,
            2 => RejectedCred,
            3 => BadVerf,
            4 => RejectedVerf,
            5 => TooWeak,
            6 => InvalidResp,
            7 => Failed,
            8 => KerbGeneric,
            9 => TimeExpire,
            10 => TktFile,
            11 => Decode,
            12 => NetAddr,
            13 => RpcsecGssCredProblem,
            14 => RpcsecGssCtxProblem,
            _ => return None,
        })
    }
}

impl AcceptStat {
    /// The `accept_stat` discriminant.
    pub fn code(self) -> u32 {
        match self {
            AcceptStat::Success => 0,
            AcceptStat::ProgUnavail => 1,
            AcceptStat::ProgMismatch { .. } => 2,
            AcceptStat::ProcUnavail => 3,
            AcceptStat::GarbageArgs => 4,
            AcceptStat::SystemErr => 5,
        }
    }
}

impl<'a> ReplyBody<'a> {
    /// MSG_ACCEPTED / SUCCESS with the given verifier: the results are to follow.
    pub fn success(verf: OpaqueAuth<'a>) -> Self {
        ReplyBody::Accepted(AcceptedReply { verf, stat: AcceptStat::Success })
    }

    /// MSG_ACCEPTED with any status and an AUTH_NONE verifier.
    pub fn accepted(stat: AcceptStat) -> Self {
        ReplyBody::Accepted(AcceptedReply { verf: OpaqueAuth::NONE, stat })
    }

    /// MSG_DENIED / RPC_MISMATCH announcing that only RPC version 2 is supported.
    pub fn rpc_mismatch() -> Self {
        ReplyBody::Denied(RejectedReply::RpcMismatch { low: RPC_VERSION, high: RPC_VERSION })
    }

    /// MSG_DENIED / AUTH_ERROR.
    pub fn auth_error(stat: AuthStat) -> Self {
        ReplyBody::Denied(RejectedReply::AuthError(stat))
    }

    /// True when procedure results follow the header (MSG_ACCEPTED with SUCCESS).
    pub fn has_results(&self) -> bool {
        matches!(self, ReplyBody::Accepted(AcceptedReply { stat: AcceptStat::Success, .. }))
    }

    /// Bytes of the encoded reply body (after xid and msg_type).
    pub fn encoded_len(&self) -> usize {
        match self {
            ReplyBody::Accepted(a) => {
                let mismatch = if matches!(a.stat, AcceptStat::ProgMismatch { .. }) { 8 } else { 0 };
                4 + a.verf.encoded_len() + 4 + mismatch
            }
            ReplyBody::Denied(RejectedReply::RpcMismatch { .. }) => 4 + 4 + 8,
            ReplyBody::Denied(RejectedReply::AuthError(_)) => 4 + 4 + 4,
        }
    }

    pub(crate) fn encode_into(&self, w: &mut XdrWriter<'_>) {
        match self {
            ReplyBody::Accepted(a) => {
                w.put_u32(0); // MSG_ACCEPTED
                a.verf.encode_into(w);
                w.put_u32(a.stat.code());
                if let AcceptStat::ProgMismatch { low, high } = a.stat {
                    w.put_u32(low);
                    w.put_u32(high);
                }
            }
            ReplyBody::Denied(RejectedReply::RpcMismatch { low, high }) => {
                w.put_u32(1); // MSG_DENIED
                w.put_u32(0); // RPC_MISMATCH
                w.put_u32(*low);
                w.put_u32(*high);
            }
            ReplyBody::Denied(RejectedReply::AuthError(stat)) => {
                w.put_u32(1); // MSG_DENIED
                w.put_u32(1); // AUTH_ERROR
                w.put_u32(*stat as u32);
            }
        }
    }

    pub(crate) fn decode_from(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        // RFC 5531 §9: enum reply_stat { MSG_ACCEPTED = 0, MSG_DENIED = 1 }.
        let accepted = r.get_enum("reply_stat", |v| match v {
            0 => Some(true),
            1 => Some(false),
            _ => None,
        })?;
        if accepted {
            let verf = xdr::XdrDecode::decode(r)?;
            let stat = decode_accept_stat(r)?;
            return Ok(ReplyBody::Accepted(AcceptedReply { verf, stat }));
        }
        // RFC 5531 §9: enum reject_stat { RPC_MISMATCH = 0, AUTH_ERROR = 1 }.
        let rejected = match r.get_enum("reject_stat", |v| (v <= 1).then_some(v))? {
            0 => RejectedReply::RpcMismatch { low: r.get_u32()?, high: r.get_u32()? },
            _ => RejectedReply::AuthError(r.get_enum("auth_stat", AuthStat::from_u32)?),
        };
        Ok(ReplyBody::Denied(rejected))
    }
}

/// RFC 5531 §9: `enum accept_stat` 0..=5; PROG_MISMATCH carries `mismatch_info { low, high }`.
fn decode_accept_stat(r: &mut XdrReader<'_>) -> Result<AcceptStat, XdrError> {
    let code = r.get_enum("accept_stat", |v| (v <= 5).then_some(v))?;
    Ok(match code {
        0 => AcceptStat::Success,
        1 => AcceptStat::ProgUnavail,
        2 => AcceptStat::ProgMismatch { low: r.get_u32()?, high: r.get_u32()? },
        3 => AcceptStat::ProcUnavail,
        4 => AcceptStat::GarbageArgs,
        _ => AcceptStat::SystemErr,
    })
}
