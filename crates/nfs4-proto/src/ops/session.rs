//! Session management (RFC 8881 §18.36 CREATE_SESSION, §18.37 DESTROY_SESSION, §18.34
//! BIND_CONN_TO_SESSION, §18.33 BACKCHANNEL_CTL, §18.50 DESTROY_CLIENTID, §18.51 RECLAIM_COMPLETE).

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::{Nfs4Result, Void};
use crate::types::SessionId4;
use crate::types::{decode_cb_sec_parms, encode_array, CallbackSecParms4, ChannelAttrs4, ClientId4, SequenceId4};

/// RFC 8881 §18.36.1: `csa_flags` / `csr_flags` bits.
pub const CREATE_SESSION4_FLAG_PERSIST: u32 = 0x0000_0001;
pub const CREATE_SESSION4_FLAG_CONN_BACK_CHAN: u32 = 0x0000_0002;
pub const CREATE_SESSION4_FLAG_CONN_RDMA: u32 = 0x0000_0004;

/// `CREATE_SESSION4args`. `cb_program` is the callback program number the client chose.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CreateSessionArgs<'a> {
    pub clientid: ClientId4,
    pub sequence: SequenceId4,
    pub flags: u32,
    pub fore_chan_attrs: ChannelAttrs4,
    pub back_chan_attrs: ChannelAttrs4,
    pub cb_program: u32,
    pub sec_parms: Vec<CallbackSecParms4<'a>>,
}

impl XdrEncode for CreateSessionArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u64(self.clientid);
        w.put_u32(self.sequence);
        w.put_u32(self.flags);
        self.fore_chan_attrs.encode(w);
        self.back_chan_attrs.encode(w);
        w.put_u32(self.cb_program);
        encode_array(&self.sec_parms, w);
    }
}

impl<'a> XdrDecode<'a> for CreateSessionArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(CreateSessionArgs {
            clientid: r.get_u64()?,
            sequence: r.get_u32()?,
            flags: r.get_u32()?,
            fore_chan_attrs: ChannelAttrs4::decode(r)?,
            back_chan_attrs: ChannelAttrs4::decode(r)?,
            cb_program: r.get_u32()?,
            sec_parms: decode_cb_sec_parms(r)?,
        })
    }
}

xdr_struct! {
    /// `CREATE_SESSION4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CreateSessionResOk {
        pub sessionid: SessionId4,
        pub sequence: SequenceId4,
        pub flags: u32,
        pub fore_chan_attrs: ChannelAttrs4,
        pub back_chan_attrs: ChannelAttrs4,
    }
}

/// `CREATE_SESSION4res`.
pub type CreateSessionRes = Nfs4Result<CreateSessionResOk>;

xdr_struct! {
    /// `DESTROY_SESSION4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct DestroySessionArgs {
        pub sessionid: SessionId4,
    }
}

/// `DESTROY_SESSION4res`: status only.
pub type DestroySessionRes = Nfs4Result<Void>;

xdr_enum! {
    /// `channel_dir_from_client4` (RFC 8881 §18.34.1).
    pub enum ChannelDirFromClient4 as "channel_dir_from_client4" {
        Fore = 1 => "CDFC4_FORE",
        Back = 2 => "CDFC4_BACK",
        ForeOrBoth = 3 => "CDFC4_FORE_OR_BOTH",
        BackOrBoth = 7 => "CDFC4_BACK_OR_BOTH",
    }
}

xdr_enum! {
    /// `channel_dir_from_server4` (RFC 8881 §18.34.2).
    pub enum ChannelDirFromServer4 as "channel_dir_from_server4" {
        Fore = 1 => "CDFS4_FORE",
        Back = 2 => "CDFS4_BACK",
        Both = 3 => "CDFS4_BOTH",
    }
}

xdr_struct! {
    /// `BIND_CONN_TO_SESSION4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct BindConnToSessionArgs {
        pub sessionid: SessionId4,
        pub dir: ChannelDirFromClient4,
        pub use_conn_in_rdma_mode: bool,
    }
}

xdr_struct! {
    /// `BIND_CONN_TO_SESSION4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct BindConnToSessionResOk {
        pub sessionid: SessionId4,
        pub dir: ChannelDirFromServer4,
        pub use_conn_in_rdma_mode: bool,
    }
}

/// `BIND_CONN_TO_SESSION4res`.
pub type BindConnToSessionRes = Nfs4Result<BindConnToSessionResOk>;

/// `BACKCHANNEL_CTL4args`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BackchannelCtlArgs<'a> {
    pub cb_program: u32,
    pub sec_parms: Vec<CallbackSecParms4<'a>>,
}

impl XdrEncode for BackchannelCtlArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.cb_program);
        encode_array(&self.sec_parms, w);
    }
}

impl<'a> XdrDecode<'a> for BackchannelCtlArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(BackchannelCtlArgs { cb_program: r.get_u32()?, sec_parms: decode_cb_sec_parms(r)? })
    }
}

/// `BACKCHANNEL_CTL4res`: status only.
pub type BackchannelCtlRes = Nfs4Result<Void>;

xdr_struct! {
    /// `DESTROY_CLIENTID4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct DestroyClientidArgs {
        pub clientid: ClientId4,
    }
}

/// `DESTROY_CLIENTID4res`: status only.
pub type DestroyClientidRes = Nfs4Result<Void>;

xdr_struct! {
    /// `RECLAIM_COMPLETE4args`: `rca_one_fs` is TRUE when only the current file system's reclaim is done.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ReclaimCompleteArgs {
        pub one_fs: bool,
    }
}

/// `RECLAIM_COMPLETE4res`: status only.
pub type ReclaimCompleteRes = Nfs4Result<Void>;
