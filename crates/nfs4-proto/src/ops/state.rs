//! Stateid and SSV housekeeping: FREE_STATEID (RFC 8881 §18.38), TEST_STATEID (§18.48), SET_SSV (§18.47).

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::{Nfs4Result, NfsStat4, Void};
use crate::types::{encode_array, OpaqueBody, Stateid4};

/// The most stateids one TEST_STATEID decodes: the Linux client tests one at a time, and 1024 × 16
/// bytes stays well within any session's request size.
pub const TEST_STATEID_MAX: u32 = 1024;

xdr_struct! {
    /// `FREE_STATEID4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct FreeStateidArgs {
        pub stateid: Stateid4,
    }
}

/// `FREE_STATEID4res`: status only.
pub type FreeStateidRes = Nfs4Result<Void>;

/// `TEST_STATEID4args`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TestStateidArgs {
    pub stateids: Vec<Stateid4>,
}

impl XdrEncode for TestStateidArgs {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_array(&self.stateids, w);
    }
}

impl<'a> XdrDecode<'a> for TestStateidArgs {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(TestStateidArgs { stateids: r.get_vec("ts_stateids", TEST_STATEID_MAX, 16, Stateid4::decode)? })
    }
}

/// `TEST_STATEID4resok`: one status per stateid tested, in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TestStateidResOk {
    pub status_codes: Vec<NfsStat4>,
}

impl XdrEncode for TestStateidResOk {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_array(&self.status_codes, w);
    }
}

impl<'a> XdrDecode<'a> for TestStateidResOk {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(TestStateidResOk { status_codes: r.get_vec("tsr_status_codes", TEST_STATEID_MAX, 4, NfsStat4::decode)? })
    }
}

/// `TEST_STATEID4res`.
pub type TestStateidRes = Nfs4Result<TestStateidResOk>;

xdr_struct! {
    /// `SET_SSV4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SetSsvArgs<'a> {
        pub ssv: OpaqueBody<'a>,
        pub digest: OpaqueBody<'a>,
    }
}

xdr_struct! {
    /// `SET_SSV4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SetSsvResOk<'a> {
        pub digest: OpaqueBody<'a>,
    }
}

/// `SET_SSV4res`.
pub type SetSsvRes<'a> = Nfs4Result<SetSsvResOk<'a>>;
