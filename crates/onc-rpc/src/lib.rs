//! ONC RPC version 2 (RFC 5531) for nfsbench, sans I/O: message headers, authentication, TCP record
//! marking and the port mapper / rpcbind types (RFC 1833). Built on the [`xdr`] crate; no sockets,
//! clocks, threads or `unsafe` here.
//!
//! # Messages
//!
//! [`RpcMessage`] is the `rpc_msg` header: the xid and either a [`CallHeader`] (program, version,
//! procedure, credential, verifier) or a [`ReplyBody`] (accepted with an [`AcceptStat`], or denied with
//! a [`RejectedReply`]). Procedure arguments and results are *not* part of it:
//!
//! - [`RpcMessage::decode`] returns the header and the rest of the buffer, borrowed, for the program's
//!   own decoder (e.g. NFSv3 arguments).
//! - [`RpcMessage::encode_header`] writes the header into an [`xdr::XdrWriter`] (any lifetime); the
//!   caller appends the arguments or results, including borrowed bulk payloads, and sends the writer's
//!   slices.
//!
//! Statuses (`accept_stat`, `auth_stat`, ...) are plain values, not Rust errors. The call's `rpcvers` is
//! kept as received so that a server can answer anything but 2 with [`ReplyBody::rpc_mismatch`].
//! Encoding is byte-exact: `encode(decode(bytes)) == bytes` for any header that decodes (with zero
//! padding), which golden vectors from the Linux kernel check.
//!
//! # Authentication
//!
//! [`OpaqueAuth`] carries any flavor's body (at most 400 bytes) borrowed; [`AuthFlavor`] names the
//! known flavors (AUTH_NONE, AUTH_SYS, AUTH_SHORT, AUTH_DH, RPCSEC_GSS, ...), unknown ones pass through.
//! [`AuthSysParms`] decodes and encodes AUTH_SYS credentials (machine name ≤ 255 bytes, ≤ 16 groups)
//! without allocating.
//!
//! # Record marking (TCP)
//!
//! [`RecordDecoder`] reassembles records from a byte stream fed in any split (RFC 5531 §11). Every
//! fragment header is checked against [`RecordLimits`] before its payload is buffered, so a hostile
//! 2 GiB fragment costs nothing; each byte is copied once, and a finished record is handed out as the
//! `Vec` it was assembled in. For sending: [`record_marker`], [`fragments`] / [`frame_record`] for
//! deliberate fragmentation, and [`FramedRecord`] to turn an `XdrWriter` into a gather list for a
//! vectored write without copying.
//!
//! # Port mapper and rpcbind
//!
//! [`portmap`] (version 2) and [`rpcbind`] (versions 3 and 4) hold the argument and result types that
//! the Linux kernel's and libtirpc's port lookups use; [`uaddr`] converts universal addresses
//! (`127.0.0.1.8.1`) to and from socket addresses.
//!
//! # Call tracking (clients)
//!
//! Not here: nfsbench's client keeps its outstanding calls (xids, deadlines, retransmission with the
//! same xid) in `nfs-client`'s call table, which both of its transports drive.
//!
//! # Example
//!
//! ```
//! use onc_rpc::{AuthSysParms, CallHeader, FramedRecord, OpaqueAuth, RecordDecoder, RecordLimits, RpcMessage};
//! use onc_rpc::{MAX_FRAGMENT_LEN, NFS_PROGRAM};
//! # fn main() -> Result<(), onc_rpc::RpcError> {
//! // Client: an NFSv3 NULL call under AUTH_SYS, framed as one fragment for a vectored TCP write.
//! let mut cred_buf = Vec::new();
//! let cred = AuthSysParms::new(1, b"client", 1000, 1000, &[1000])?.to_opaque_auth(&mut cred_buf);
//! let call = RpcMessage::call(0x1234, CallHeader::new(NFS_PROGRAM, 3, 0, cred, OpaqueAuth::NONE));
//! let w = call.header_writer(0); // NULL has no arguments; others would be appended here
//! let wire = FramedRecord::from_writer(&w, MAX_FRAGMENT_LEN as usize).to_vec();
//!
//! // Server: bytes arrive in any split; complete records come out; the header is decoded and the
//! // arguments are left, borrowed, for the program's decoder.
//! let mut records = RecordDecoder::new(RecordLimits::default());
//! records.push(&wire[..5])?;
//! records.push(&wire[5..])?;
//! if let Some(record) = records.pop() {
//!     let (msg, args) = RpcMessage::decode(&record)?;
//!     assert_eq!(msg, call);
//!     assert!(args.is_empty());
//!     let who = AuthSysParms::from_opaque_auth(&msg.as_call().map_or(OpaqueAuth::NONE, |c| c.cred))?;
//!     assert_eq!(who.uid(), 1000);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Errors
//!
//! One enum, [`RpcError`]: XDR errors ([`xdr::XdrError`]), record-marking errors (fatal to the
//! connection), and the few rules above XDR. Nothing in this crate panics on any input.

mod auth;
pub mod auth_sys;
pub mod constants;
mod error;
mod message;
pub mod portmap;
mod record_decoder;
mod record_encoder;
mod reply;
pub mod rpcbind;
pub mod uaddr;

pub use auth::{AuthFlavor, OpaqueAuth, MAX_AUTH_BYTES};
pub use auth_sys::AuthSysParms;
pub use constants::*;
pub use error::RpcError;
pub use message::{CallHeader, MessageBody, RpcMessage, CALL_START_LEN};
pub use record_decoder::{
    split_records, RecordDecoder, RecordLimits, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_RECORD, LAST_FRAGMENT_BIT,
    MAX_FRAGMENT_LEN,
};
pub use record_encoder::{fragments, frame_record, record_marker, Fragments, FramedRecord};
pub use reply::{AcceptStat, AcceptedReply, AuthStat, RejectedReply, ReplyBody};

#[cfg(test)]
mod tests;
