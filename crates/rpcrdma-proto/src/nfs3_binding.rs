//! The NFS upper-layer binding for NFS version 3 and its auxiliary protocols (RFC 8267 §3): which data
//! items may move by direct data placement (DDP), how large each reply can be, and from that whether a
//! call or reply goes inline, with a Read/Write chunk, or whole in a chunk.
//!
//! Program and procedure numbers are repeated here (RFC 1813) so the crate stands alone.

use crate::header::RdmaHeader;

pub const NFS_PROGRAM: u32 = 100_003;
pub const NFS_V3: u32 = 3;
pub const MOUNT_PROGRAM: u32 = 100_005;
pub const NLM_PROGRAM: u32 = 100_021;
pub const NSM_PROGRAM: u32 = 100_024;
pub const NFSACL_PROGRAM: u32 = 100_227;

/// NFSv3 procedure numbers (RFC 1813 §3.3).
pub mod nfs3_proc {
    pub const NULL: u32 = 0;
    pub const GETATTR: u32 = 1;
    pub const SETATTR: u32 = 2;
    pub const LOOKUP: u32 = 3;
    pub const ACCESS: u32 = 4;
    pub const READLINK: u32 = 5;
    pub const READ: u32 = 6;
    pub const WRITE: u32 = 7;
    pub const CREATE: u32 = 8;
    pub const MKDIR: u32 = 9;
    pub const SYMLINK: u32 = 10;
    pub const MKNOD: u32 = 11;
    pub const REMOVE: u32 = 12;
    pub const RMDIR: u32 = 13;
    pub const RENAME: u32 = 14;
    pub const LINK: u32 = 15;
    pub const READDIR: u32 = 16;
    pub const READDIRPLUS: u32 = 17;
    pub const FSSTAT: u32 = 18;
    pub const FSINFO: u32 = 19;
    pub const PATHCONF: u32 = 20;
    pub const COMMIT: u32 = 21;
}

/// The longest symlink target we size replies for: Linux's `NFS3_MAXPATHLEN` (PATH_MAX). NFSv3's
/// `nfspath3` has no declared bound.
pub const NFS3_MAX_PATH_LEN: u32 = 4096;

/// The DDP-eligible data items of NFS versions 2 and 3 (RFC 8267 §3); nothing else is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DdpItem {
    /// WRITE's opaque file data argument: moved in a Read chunk.
    WriteData,
    /// SYMLINK's pathname argument: moved in a Read chunk.
    SymlinkPath,
    /// READ's opaque file data result: placed through a Write chunk.
    ReadData,
    /// READLINK's pathname result: placed through a Write chunk.
    ReadlinkPath,
}

/// Which way a DDP-eligible item travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DdpDirection {
    /// A call argument; the requester exposes it in a Read chunk and the responder pulls it.
    Call,
    /// A reply result; the requester offers a Write chunk and the responder pushes into it.
    Reply,
}

impl DdpItem {
    pub fn direction(self) -> DdpDirection {
        match self {
            DdpItem::WriteData | DdpItem::SymlinkPath => DdpDirection::Call,
            DdpItem::ReadData | DdpItem::ReadlinkPath => DdpDirection::Reply,
        }
    }
}

/// The DDP-eligible item of a procedure, if any. Only NFS version 3 has any here; MOUNT, NLM, NSM and
/// NFSACL have none (RFC 8267 §3), nor does any program this crate does not know.
pub fn ddp_eligible_item(program: u32, version: u32, procedure: u32) -> Option<DdpItem> {
    if program != NFS_PROGRAM || version != NFS_V3 {
        return None;
    }
    match procedure {
        nfs3_proc::WRITE => Some(DdpItem::WriteData),
        nfs3_proc::SYMLINK => Some(DdpItem::SymlinkPath),
        nfs3_proc::READ => Some(DdpItem::ReadData),
        nfs3_proc::READLINK => Some(DdpItem::ReadlinkPath),
        _ => None,
    }
}

// XDR sizes of RFC 1813 §2.6 types, in bytes.
const STATUS: u64 = 4;
const FATTR3: u64 = 84;
const POST_OP_ATTR: u64 = 4 + FATTR3;
const WCC_DATA: u64 = (4 + 24) + POST_OP_ATTR;
const NFS_FH3: u64 = 4 + 64;
const POST_OP_FH3: u64 = 4 + NFS_FH3;

fn xdr_round_up(len: u64) -> u64 {
    len.div_ceil(4) * 4
}

/// The largest NFSv3 result (status plus `resok` or `resfail`, without the RPC reply header) for
/// `procedure`. `count` is the call's READ `count`, READDIR `count` or READDIRPLUS `maxcount`, ignored
/// by other procedures. `None` for an unknown procedure.
pub fn nfs3_max_result_len(procedure: u32, count: u32) -> Option<u64> {
    use nfs3_proc::*;
    let count = u64::from(count);
    Some(match procedure {
        NULL => 0,
        GETATTR => STATUS + FATTR3,
        SETATTR | REMOVE | RMDIR => STATUS + WCC_DATA,
        LOOKUP => STATUS + NFS_FH3 + 2 * POST_OP_ATTR,
        ACCESS => STATUS + POST_OP_ATTR + 4,
        READLINK => nfs3_inline_result_len(READLINK).unwrap_or(0) + xdr_round_up(NFS3_MAX_PATH_LEN.into()),
        READ => nfs3_inline_result_len(READ).unwrap_or(0) + xdr_round_up(count),
        WRITE => STATUS + WCC_DATA + 4 + 4 + 8,
        CREATE | MKDIR | SYMLINK | MKNOD => STATUS + POST_OP_FH3 + POST_OP_ATTR + WCC_DATA,
        RENAME => STATUS + 2 * WCC_DATA,
        LINK => STATUS + POST_OP_ATTR + WCC_DATA,
        // RFC 1813 §3.3.16, §3.3.17: count / maxcount bound the whole resok, XDR overhead included.
        READDIR | READDIRPLUS => STATUS + count.max(POST_OP_ATTR),
        FSSTAT => STATUS + POST_OP_ATTR + 6 * 8 + 4,
        FSINFO => STATUS + POST_OP_ATTR + 7 * 4 + 8 + 8 + 4,
        PATHCONF => STATUS + POST_OP_ATTR + 6 * 4,
        COMMIT => STATUS + WCC_DATA + 8,
        _ => return None,
    })
}

/// For a procedure with a DDP-eligible result, the bytes left inline when the item is placed through a
/// Write chunk: the item's length word stays in the reduced message, its data and padding move.
pub fn nfs3_inline_result_len(procedure: u32) -> Option<u64> {
    match procedure {
        nfs3_proc::READ => Some(STATUS + POST_OP_ATTR + 4 + 4 + 4),
        nfs3_proc::READLINK => Some(STATUS + POST_OP_ATTR + 4),
        _ => None,
    }
}

/// How a requester arranges for a reply (RFC 8166 §3.5, RFC 8267 §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyPlan {
    /// The largest reply fits the receive buffer: no chunk.
    Inline,
    /// Offer a Write chunk of `len` bytes for the DDP-eligible result; the rest comes inline.
    WriteChunk { len: u64 },
    /// Offer a Reply chunk of `len` bytes for the whole reply (READDIR, READDIRPLUS, other large replies).
    ReplyChunk { len: u64 },
}

/// Decides how to receive the reply to an NFSv3 call. `rpc_reply_header_len` is the RPC reply header the
/// requester sizes for (24 bytes with an AUTH_NONE or AUTH_SYS verifier); `inline_recv` is the negotiated
/// receive threshold, from which the smallest transport header is reserved. `None` for an unknown procedure.
///
/// Follows RFC 8267 for READLINK (its path is placed through a Write chunk); the Linux client instead
/// asks for a Reply chunk when a READLINK reply may not fit inline.
pub fn nfs3_reply_plan(procedure: u32, count: u32, rpc_reply_header_len: u32, inline_recv: u32) -> Option<ReplyPlan> {
    let budget = u64::from(inline_recv).saturating_sub(RdmaHeader::MIN_LEN as u64);
    let header = u64::from(rpc_reply_header_len);
    let whole = header + nfs3_max_result_len(procedure, count)?;
    if whole <= budget {
        return Some(ReplyPlan::Inline);
    }
    if let Some(inline) = nfs3_inline_result_len(procedure) {
        if header + inline <= budget {
            let len = if procedure == nfs3_proc::READ { u64::from(count) } else { u64::from(NFS3_MAX_PATH_LEN) };
            return Some(ReplyPlan::WriteChunk { len });
        }
    }
    Some(ReplyPlan::ReplyChunk { len: whole })
}

/// How a requester sends a call (RFC 8166 §3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallPlan {
    /// RDMA_MSG with the whole call inline.
    Inline,
    /// RDMA_MSG with the DDP-eligible argument in a Read chunk at its XDR position (WRITE, SYMLINK).
    ReadChunk,
    /// RDMA_NOMSG with the whole call in a position-zero Read chunk.
    LongCall,
}

/// Decides how to send a call of `call_len` bytes when `send_budget` bytes remain of the inline send
/// threshold after the transport header. `ddp_item_len` is the length of the call's DDP-eligible
/// argument (WRITE data, SYMLINK path), if it has one.
pub fn call_plan(call_len: u64, ddp_item_len: Option<u64>, send_budget: u64) -> CallPlan {
    if call_len <= send_budget {
        return CallPlan::Inline;
    }
    match ddp_item_len {
        Some(item) if call_len.saturating_sub(xdr_round_up(item)) <= send_budget => CallPlan::ReadChunk,
        _ => CallPlan::LongCall,
    }
}
