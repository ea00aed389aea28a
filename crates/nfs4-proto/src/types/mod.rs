//! The basic data types of RFC 8881 §3 and the structures several operations share: stateids (§8.2),
//! file handles, sessions and client identity (§18.35, §18.36), owners (§18.16), addresses (§3.3.9).
//!
//! Opaque and string fields are borrowed from the input (`&'a [u8]` newtypes whose decoders check a
//! bound first); fixed-size items (verifiers, session ids, stateids, file handles) are small owned arrays,
//! so a server can keep them without a lifetime.

mod basic;
mod bitmap;
pub(crate) mod fixed;
mod handle;
mod net;
mod owner;
mod session;
mod stateid;

pub use basic::*;
pub use bitmap::Bitmap4;
pub use handle::NfsFh4;
pub use net::*;
pub use owner::*;
pub use session::*;
pub use stateid::Stateid4;

use xdr::{XdrEncode, XdrWriter};

/// Encodes a counted array `T<>` (RFC 4506 §4.13).
pub(crate) fn encode_array<'p, T: XdrEncode>(items: &'p [T], w: &mut XdrWriter<'p>) {
    w.put_u32(items.len() as u32);
    for item in items {
        item.encode(w);
    }
}
