//! Sample values for every operation's arguments and every arm of every result, forechannel and
//! callback, used by the round-trip, truncation and corruption tests: the shared pieces here, the
//! arguments in [`args`], the results in [`results`], the callback program in [`callback`].

mod args;
mod callback;
mod results;

pub use args::args;
pub use callback::{cb_args, cb_results};
pub use results::results;

use std::borrow::Cow;

use crate::*;

pub fn fh(seed: u8, len: usize) -> NfsFh4 {
    let bytes: Vec<u8> = (0..len).map(|i| seed.wrapping_add(i as u8)).collect();
    NfsFh4::new(&bytes).unwrap_or_default()
}

pub fn sid(seed: u8) -> Stateid4 {
    Stateid4::new(u32::from(seed) + 1, [seed; 12])
}

pub fn cinfo() -> ChangeInfo4 {
    ChangeInfo4 { atomic: true, before: 10, after: 11 }
}

pub fn bitmap(bits: &[u32]) -> Bitmap4 {
    Bitmap4::from_bits(bits.iter().copied())
}

pub fn owner() -> StateOwner4<'static> {
    StateOwner4 { clientid: 0xabcd, owner: Opaque4(b"open id:\x00\x01\x02") }
}

/// Attributes a client sets on create: mode and owner, as wire bytes.
pub fn create_attrs() -> RawFattr4<'static> {
    Fattr4 { mode: Some(0o644), owner: Some(Utf8Str(b"1000")), ..Fattr4::default() }.to_raw()
}

/// Attributes a server answers GETATTR with.
pub fn getattr_attrs() -> RawFattr4<'static> {
    Fattr4 {
        ftype: Some(NfsFtype4::Reg),
        change: Some(7),
        size: Some(1 << 33),
        fileid: Some(42),
        time_modify: Some(NfsTime4 { seconds: -1, nseconds: 999_999_999 }),
        ..Fattr4::default()
    }
    .to_raw()
}

pub fn attrs_with_unknown_bit() -> RawFattr4<'static> {
    RawFattr4 { attrmask: bitmap(&[12]), attr_vals: Cow::Borrowed(&[0, 0, 0, 0]) }
}

pub fn verifier(seed: u8) -> Verifier4 {
    Verifier4([seed; 8])
}

pub fn impl_id() -> NfsImplId4<'static> {
    NfsImplId4 { domain: Utf8Str(b"kernel.org"), name: Utf8Str(b"Linux 6.1"), date: NfsTime4::default() }
}

pub fn channel(ird: Option<u32>) -> ChannelAttrs4 {
    ChannelAttrs4 {
        headerpadsize: 0,
        maxrequestsize: 1_049_620,
        maxresponsesize: 1_049_480,
        maxresponsesize_cached: 7584,
        maxoperations: 16,
        maxrequests: 64,
        rdma_ird: ird,
    }
}

pub static DATA: [u8; 13] = *b"hello, world!";

pub fn sp_ops() -> StateProtectOps4 {
    StateProtectOps4 { must_enforce: bitmap(&[42, 43]), must_allow: bitmap(&[3]) }
}

pub fn write_response() -> WriteResponse4 {
    WriteResponse4 { callback_id: Some(sid(8)), count: 4096, committed: StableHow4::FileSync, writeverf: verifier(3) }
}

pub fn netaddr() -> NetAddr4<'static> {
    NetAddr4 { netid: Utf8Str(b"tcp"), addr: Utf8Str(b"10.0.0.1.8.1") }
}
