//! Whole-message decoding for inspection: an RPC record to its header and typed body.
//!
//! A call is decoded from its own bytes; a reply needs the call it answers (program, version and
//! procedure are not on the wire in a reply), which [`rpc_records`] finds by xid on the reverse stream.

mod body;
mod describe;
mod records;

pub use body::procedure_name;
pub use body::{decode_call, decode_reply, Body, CallKey, Decoded, InspectError};
pub use describe::{describe, nfs3_status_name, reply_status};
pub use records::{rpc_records, Direction, RecordInCapture, RpcRecords};

#[cfg(test)]
mod tests;
