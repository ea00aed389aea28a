//! Network locations (RFC 8881 §3.3.9 `netaddr4`, RFC 7862 §12.2 `netloc4`).

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::basic::Utf8Str;

xdr_struct! {
    /// `netaddr4` / `clientaddr4` (RFC 8881 §3.3.9): a netid ("tcp", "rdma", ...) and a universal address.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct NetAddr4<'a> {
        pub netid: Utf8Str<'a>,
        pub addr: Utf8Str<'a>,
    }
}

/// `clientaddr4` (RFC 7530 §16.33): the same structure as `netaddr4`.
pub type ClientAddr4<'a> = NetAddr4<'a>;

xdr_enum! {
    /// `netloc_type4` (RFC 7862 §12.2).
    pub enum NetlocType4 as "netloc_type4" {
        Name = 1 => "NL4_NAME",
        Url = 2 => "NL4_URL",
        NetAddr = 3 => "NL4_NETADDR",
    }
}

/// `netloc4` (RFC 7862 §12.2): where a COPY source or destination is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NetLoc4<'a> {
    Name(Utf8Str<'a>),
    Url(Utf8Str<'a>),
    NetAddr(NetAddr4<'a>),
}

impl XdrEncode for NetLoc4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            NetLoc4::Name(s) => {
                NetlocType4::Name.encode(w);
                s.encode(w);
            }
            NetLoc4::Url(s) => {
                NetlocType4::Url.encode(w);
                s.encode(w);
            }
            NetLoc4::NetAddr(a) => {
                NetlocType4::NetAddr.encode(w);
                a.encode(w);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for NetLoc4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match NetlocType4::decode(r)? {
            NetlocType4::Name => NetLoc4::Name(Utf8Str::decode(r)?),
            NetlocType4::Url => NetLoc4::Url(Utf8Str::decode(r)?),
            NetlocType4::NetAddr => NetLoc4::NetAddr(NetAddr4::decode(r)?),
        })
    }
}
