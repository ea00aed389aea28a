use nfs3_proto::{MountCall, MountReply, Nfs3Call, Nfs3Reply, MOUNT_PROGRAM, MOUNT_V3, NFS_PROGRAM, NFS_V3};
use nfs4_proto::callback::{CB_COMPOUND, NFS4_CALLBACK_VERSION};
use nfs4_proto::{CbCompound4Args, CbCompound4Res, Compound4Args, Compound4Res, NFS_V4};
use onc_rpc::portmap::{Mapping, PmapList, PMAP_VERSION};
use onc_rpc::rpcbind::{Rpcb, RpcbEntryList, RpcbList, RpcbString, RPCBIND_V3, RPCBIND_V4};
use onc_rpc::{AcceptStat, MessageBody, ReplyBody, RpcError, RpcMessage};
use xdr::{decode_exact, XdrEncode, XdrError, XdrWriter};

/// What identifies the procedure a message belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallKey {
    pub prog: u32,
    pub vers: u32,
    pub proc: u32,
}

/// The decoded arguments or results of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body<'a> {
    Nfs3Call(Nfs3Call<'a>),
    Nfs3Reply(Nfs3Reply<'a>),
    MountCall(MountCall<'a>),
    MountReply(MountReply<'a>),
    /// NFSv4 COMPOUND arguments (procedure 1).
    Nfs4Call(Box<Compound4Args<'a>>),
    /// NFSv4 COMPOUND results.
    Nfs4Reply(Box<Compound4Res<'a>>),
    /// NFSv4.1 CB_COMPOUND arguments, sent by a server on the client's connection.
    CbCall(Box<CbCompound4Args<'a>>),
    /// NFSv4.1 CB_COMPOUND results.
    CbReply(Box<CbCompound4Res<'a>>),
    /// Port mapper v2 SET/UNSET/GETPORT arguments.
    PortmapMapping(Mapping),
    /// Port mapper v2 DUMP results.
    PortmapList(PmapList),
    /// rpcbind v3/v4 SET/UNSET/GETADDR/GETVERSADDR arguments.
    Rpcbind(Rpcb<'a>),
    /// rpcbind v3/v4 GETADDR/GETVERSADDR results (a universal address).
    RpcbindAddress(RpcbString<'a>),
    /// rpcbind v3/v4 DUMP results.
    RpcbindList(RpcbList<'a>),
    /// rpcbind v4 GETADDRLIST results.
    RpcbindEntries(RpcbEntryList<'a>),
    /// A single unsigned int: port mapper GETPORT results, SET/UNSET booleans.
    Word(u32),
    /// No body: void arguments/results, or a reply that carries no results (rejected, or not SUCCESS).
    Empty,
    /// A body this inspector does not decode (another program or procedure), kept as bytes.
    Opaque(&'a [u8]),
}

/// A decoded RPC message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded<'a> {
    pub message: RpcMessage<'a>,
    pub body: Body<'a>,
}

#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    #[error("RPC header: {0}")]
    Header(#[from] RpcError),
    #[error("{what}: {source}")]
    Body { what: String, source: XdrError },
    #[error("{0} is not a procedure of its program")]
    UnknownProcedure(String),
    #[error("expected a {expected}, found a {found}")]
    WrongDirection { expected: &'static str, found: &'static str },
}

impl Decoded<'_> {
    /// Re-encodes header and body; byte-identical to the input for anything decoded from real peers.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = XdrWriter::new();
        self.message.encode_header(&mut w);
        match &self.body {
            Body::Nfs3Call(b) => b.encode(&mut w),
            Body::Nfs3Reply(b) => b.encode(&mut w),
            Body::MountCall(b) => b.encode(&mut w),
            Body::MountReply(b) => b.encode(&mut w),
            Body::Nfs4Call(b) => b.encode(&mut w),
            Body::Nfs4Reply(b) => b.encode(&mut w),
            Body::CbCall(b) => b.encode(&mut w),
            Body::CbReply(b) => b.encode(&mut w),
            Body::PortmapMapping(b) => b.encode(&mut w),
            Body::PortmapList(b) => b.encode(&mut w),
            Body::Rpcbind(b) => b.encode(&mut w),
            Body::RpcbindAddress(b) => b.encode(&mut w),
            Body::RpcbindList(b) => b.encode(&mut w),
            Body::RpcbindEntries(b) => b.encode(&mut w),
            Body::Word(v) => w.put_u32(*v),
            Body::Empty => {}
            Body::Opaque(bytes) => w.put_raw(bytes),
        }
        w.into_vec()
    }
}

fn body_error(key: CallKey, direction: &str) -> impl FnOnce(XdrError) -> InspectError + '_ {
    move |source| InspectError::Body { what: format!("{} {direction}", procedure_name(key)), source }
}

fn nfs3_error(key: CallKey, direction: &str) -> impl FnOnce(nfs3_proto::DecodeError) -> InspectError + '_ {
    move |e| match e {
        nfs3_proto::DecodeError::UnknownProcedure(_) => InspectError::UnknownProcedure(procedure_name(key)),
        nfs3_proto::DecodeError::Xdr(x) => body_error(key, direction)(x),
    }
}

/// The callback program number the Linux client puts in CREATE_SESSION (`NFS4_CALLBACK`, 0x40000000).
/// The number is the client's choice (RFC 8881 §18.36): a capture of another client's callbacks decodes
/// them as opaque bodies.
pub const LINUX_CALLBACK_PROGRAM: u32 = 0x4000_0000;

/// A readable name for a procedure: "NFS3 READ", "NFS4 COMPOUND", "MOUNT3 MNT", "PORTMAP2 proc 3".
pub fn procedure_name(key: CallKey) -> String {
    match (key.prog, key.vers) {
        (NFS_PROGRAM, NFS_V3) => format!("NFS3 {}", nfs3_proto::nfs3_proc_name(key.proc)),
        (NFS_PROGRAM, NFS_V4) => format!("NFS4 {}", if key.proc == 0 { "NULL" } else { "COMPOUND" }),
        (LINUX_CALLBACK_PROGRAM, NFS4_CALLBACK_VERSION) => {
            format!("NFS4 callback {}", if key.proc == 0 { "CB_NULL" } else { "CB_COMPOUND" })
        }
        (MOUNT_PROGRAM, MOUNT_V3) => format!("MOUNT3 {}", nfs3_proto::mount_proc_name(key.proc)),
        (100000, v) => format!("PORTMAP{v} proc {}", key.proc),
        (p, v) => format!("program {p} v{v} proc {}", key.proc),
    }
}

/// Decodes an RPC call record (header and arguments).
pub fn decode_call(record: &[u8]) -> Result<Decoded<'_>, InspectError> {
    let (message, args) = RpcMessage::decode(record)?;
    let MessageBody::Call(call) = message.body else {
        return Err(InspectError::WrongDirection { expected: "call", found: "reply" });
    };
    let key = CallKey { prog: call.prog, vers: call.vers, proc: call.proc };
    let body = match (key.prog, key.vers) {
        (NFS_PROGRAM, NFS_V3) => Body::Nfs3Call(Nfs3Call::decode(key.proc, args).map_err(nfs3_error(key, "call"))?),
        (MOUNT_PROGRAM, MOUNT_V3) => {
            Body::MountCall(MountCall::decode(key.proc, args).map_err(nfs3_error(key, "call"))?)
        }
        (NFS_PROGRAM, NFS_V4) => match key.proc {
            0 => empty_or_error(args, key)?,
            1 => Body::Nfs4Call(Box::new(decode_exact(args).map_err(body_error(key, "call"))?)),
            _ => return Err(InspectError::UnknownProcedure(procedure_name(key))),
        },
        (LINUX_CALLBACK_PROGRAM, NFS4_CALLBACK_VERSION) => match key.proc {
            0 => empty_or_error(args, key)?,
            CB_COMPOUND => Body::CbCall(Box::new(decode_exact(args).map_err(body_error(key, "call"))?)),
            _ => return Err(InspectError::UnknownProcedure(procedure_name(key))),
        },
        (100000, PMAP_VERSION) => match key.proc {
            0 | 4 => empty_or_error(args, key)?,
            1..=3 => Body::PortmapMapping(decode_exact(args).map_err(body_error(key, "call"))?),
            _ => Body::Opaque(args),
        },
        (100000, RPCBIND_V3 | RPCBIND_V4) => match key.proc {
            0 | 4 | 6 => empty_or_error(args, key)?,
            1..=3 | 9 => Body::Rpcbind(decode_exact(args).map_err(body_error(key, "call"))?),
            11 if key.vers == RPCBIND_V4 => Body::Rpcbind(decode_exact(args).map_err(body_error(key, "call"))?),
            _ => Body::Opaque(args),
        },
        _ => Body::Opaque(args),
    };
    Ok(Decoded { message, body })
}

fn empty_or_error(bytes: &[u8], key: CallKey) -> Result<Body<'_>, InspectError> {
    match bytes.len() {
        0 => Ok(Body::Empty),
        count => Err(body_error(key, "body")(XdrError::TrailingBytes { count })),
    }
}

/// Decodes an RPC reply record, given the call it answers.
pub fn decode_reply(record: &[u8], key: CallKey) -> Result<Decoded<'_>, InspectError> {
    let (message, results) = RpcMessage::decode(record)?;
    let MessageBody::Reply(reply) = message.body else {
        return Err(InspectError::WrongDirection { expected: "reply", found: "call" });
    };
    let success = matches!(reply, ReplyBody::Accepted(ref a) if a.stat == AcceptStat::Success);
    if !success {
        return Ok(Decoded { message, body: empty_or_error(results, key)? });
    }
    let body = match (key.prog, key.vers) {
        (NFS_PROGRAM, NFS_V3) => {
            Body::Nfs3Reply(Nfs3Reply::decode(key.proc, results).map_err(nfs3_error(key, "reply"))?)
        }
        (MOUNT_PROGRAM, MOUNT_V3) => {
            Body::MountReply(MountReply::decode(key.proc, results).map_err(nfs3_error(key, "reply"))?)
        }
        (NFS_PROGRAM, NFS_V4) => match key.proc {
            0 => empty_or_error(results, key)?,
            _ => Body::Nfs4Reply(Box::new(decode_exact(results).map_err(body_error(key, "reply"))?)),
        },
        (LINUX_CALLBACK_PROGRAM, NFS4_CALLBACK_VERSION) => match key.proc {
            0 => empty_or_error(results, key)?,
            _ => Body::CbReply(Box::new(decode_exact(results).map_err(body_error(key, "reply"))?)),
        },
        (100000, PMAP_VERSION) => match key.proc {
            0 => empty_or_error(results, key)?,
            1..=3 => Body::Word(decode_exact(results).map_err(body_error(key, "reply"))?),
            4 => Body::PortmapList(decode_exact(results).map_err(body_error(key, "reply"))?),
            _ => Body::Opaque(results),
        },
        (100000, RPCBIND_V3 | RPCBIND_V4) => match key.proc {
            0 => empty_or_error(results, key)?,
            1 | 2 => Body::Word(decode_exact(results).map_err(body_error(key, "reply"))?),
            3 | 9 => Body::RpcbindAddress(decode_exact(results).map_err(body_error(key, "reply"))?),
            4 => Body::RpcbindList(decode_exact(results).map_err(body_error(key, "reply"))?),
            11 if key.vers == RPCBIND_V4 => {
                Body::RpcbindEntries(decode_exact(results).map_err(body_error(key, "reply"))?)
            }
            _ => Body::Opaque(results),
        },
        _ => Body::Opaque(results),
    };
    Ok(Decoded { message, body })
}
