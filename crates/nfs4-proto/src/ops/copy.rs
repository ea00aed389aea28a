//! Server-side copy and WRITE_SAME (RFC 7862 §15.2 COPY, §15.3 COPY_NOTIFY, §15.8 OFFLOAD_CANCEL, §15.9
//! OFFLOAD_STATUS, §15.12 WRITE_SAME). A server here answers them NFS4ERR_NOTSUPP; the codecs are whole so
//! a client or a test can speak them too.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::{ErrorBody, Nfs4Result, Nfs4ResultOr, NfsErr4, NfsStat4, Void};
use crate::types::{encode_array, Count4, Length4, NetLoc4, NfsTime4, Offset4, OpaqueBody, StableHow4, Stateid4};
use crate::types::{Verifier4, SMALL_ARRAY_MAX};

/// Decodes `netloc4<>`: at most [`SMALL_ARRAY_MAX`] locations.
fn decode_netlocs<'a>(r: &mut XdrReader<'a>, what: &'static str) -> Result<Vec<NetLoc4<'a>>, XdrError> {
    r.get_vec(what, SMALL_ARRAY_MAX, 8, NetLoc4::decode)
}

/// `COPY4args`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CopyArgs<'a> {
    pub src_stateid: Stateid4,
    pub dst_stateid: Stateid4,
    pub src_offset: Offset4,
    pub dst_offset: Offset4,
    pub count: Length4,
    pub consecutive: bool,
    pub synchronous: bool,
    pub src_servers: Vec<NetLoc4<'a>>,
}

impl XdrEncode for CopyArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.src_stateid.encode(w);
        self.dst_stateid.encode(w);
        w.put_u64(self.src_offset);
        w.put_u64(self.dst_offset);
        w.put_u64(self.count);
        w.put_bool(self.consecutive);
        w.put_bool(self.synchronous);
        encode_array(&self.src_servers, w);
    }
}

impl<'a> XdrDecode<'a> for CopyArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(CopyArgs {
            src_stateid: Stateid4::decode(r)?,
            dst_stateid: Stateid4::decode(r)?,
            src_offset: r.get_u64()?,
            dst_offset: r.get_u64()?,
            count: r.get_u64()?,
            consecutive: r.get_bool()?,
            synchronous: r.get_bool()?,
            src_servers: decode_netlocs(r, "ca_source_server")?,
        })
    }
}

xdr_struct! {
    /// `write_response4` (RFC 7862 §15.2.1). `callback_id` is `stateid4<1>`, encoded as optional data.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct WriteResponse4 {
        pub callback_id: Option<Stateid4>,
        pub count: Length4,
        pub committed: StableHow4,
        pub writeverf: Verifier4,
    }
}

xdr_struct! {
    /// `copy_requirements4` (RFC 7862 §15.2.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CopyRequirements4 {
        pub consecutive: bool,
        pub synchronous: bool,
    }
}

impl ErrorBody for CopyRequirements4 {
    const STATUS: NfsErr4 = NfsErr4::OffloadNoReqs;
    fn empty() -> Self {
        CopyRequirements4::default()
    }
}

xdr_struct! {
    /// `COPY4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct CopyResOk {
        pub response: WriteResponse4,
        pub requirements: CopyRequirements4,
    }
}

/// `COPY4res`: NFS4ERR_OFFLOAD_NO_REQS carries the requirements the server could meet.
pub type CopyRes = Nfs4ResultOr<CopyResOk, CopyRequirements4>;

xdr_struct! {
    /// `COPY_NOTIFY4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct CopyNotifyArgs<'a> {
        pub src_stateid: Stateid4,
        pub destination: NetLoc4<'a>,
    }
}

/// `COPY_NOTIFY4resok`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CopyNotifyResOk<'a> {
    pub lease_time: NfsTime4,
    pub stateid: Stateid4,
    pub source_server: Vec<NetLoc4<'a>>,
}

impl XdrEncode for CopyNotifyResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.lease_time.encode(w);
        self.stateid.encode(w);
        encode_array(&self.source_server, w);
    }
}

impl<'a> XdrDecode<'a> for CopyNotifyResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(CopyNotifyResOk {
            lease_time: NfsTime4::decode(r)?,
            stateid: Stateid4::decode(r)?,
            source_server: decode_netlocs(r, "cnr_source_server")?,
        })
    }
}

/// `COPY_NOTIFY4res`.
pub type CopyNotifyRes<'a> = Nfs4Result<CopyNotifyResOk<'a>>;

xdr_struct! {
    /// `OFFLOAD_CANCEL4args` and `OFFLOAD_STATUS4args`: the copy's stateid.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OffloadArgs {
        pub stateid: Stateid4,
    }
}

/// `OFFLOAD_CANCEL4args`.
pub type OffloadCancelArgs = OffloadArgs;
/// `OFFLOAD_CANCEL4res`: status only.
pub type OffloadCancelRes = Nfs4Result<Void>;
/// `OFFLOAD_STATUS4args`.
pub type OffloadStatusArgs = OffloadArgs;

xdr_struct! {
    /// `OFFLOAD_STATUS4resok`: bytes copied so far, and the copy's status once complete (`nfsstat4<1>`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OffloadStatusResOk {
        pub count: Length4,
        pub complete: Option<NfsStat4>,
    }
}

/// `OFFLOAD_STATUS4res`.
pub type OffloadStatusRes = Nfs4Result<OffloadStatusResOk>;

xdr_struct! {
    /// `app_data_block4` (RFC 7862 §8.1.1): a pattern WRITE_SAME repeats.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct AppDataBlock4<'a> {
        pub offset: Offset4,
        pub block_size: Length4,
        pub block_count: Length4,
        pub reloff_blocknum: Length4,
        pub block_num: Count4,
        pub reloff_pattern: Length4,
        pub pattern: OpaqueBody<'a>,
    }
}

xdr_struct! {
    /// `WRITE_SAME4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct WriteSameArgs<'a> {
        pub stateid: Stateid4,
        pub stable: StableHow4,
        pub adb: AppDataBlock4<'a>,
    }
}

/// `WRITE_SAME4res`.
pub type WriteSameRes = Nfs4Result<WriteResponse4>;
