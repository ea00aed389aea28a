//! [`Proto`], the transport under RPC, and how one mount option entry chooses it.

use std::fmt;

use crate::entries::Entry;
use crate::error::{OptionsError, Origin};
use crate::options::{Opt, FAMILY};

const TCP_ONLY: &str = "nfsbench's client speaks TCP and RDMA only";

/// The transport under RPC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Proto {
    /// Linux's default for NFSv3 mounts without `proto=`.
    #[default]
    Tcp,
    Rdma,
}

impl fmt::Display for Proto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Proto::Tcp => "tcp",
            Proto::Rdma => "rdma",
        })
    }
}

impl Proto {
    /// The transport one mount option entry chooses, read as Linux reads it: `proto=tcp|rdma` or the
    /// `tcp` / `rdma` flags. `None` when the entry is not about the transport; an error, worded as
    /// [`crate::MountSpec::parse`] words it, for a transport nfsbench's client does not speak (`udp`,
    /// `proto=tcp6`) or a malformed entry (`proto=sctp`, `tcp=1`).
    ///
    /// ```
    /// use mount_options::{entries, Proto};
    /// let chosen: Vec<_> = entries("rdma,nconnect=2,proto=tcp").filter_map(|e| Proto::from_entry(&e)).collect();
    /// assert_eq!(chosen, [Ok(Proto::Rdma), Ok(Proto::Tcp)]);
    /// ```
    pub fn from_entry(entry: &Entry<'_>) -> Option<Result<Proto, OptionsError>> {
        read(&Opt::new(*entry, Origin::MountOption))
    }
}

/// [`Proto::from_entry`] for an option of any origin; `options::apply` reads the transport here.
pub(crate) fn read(o: &Opt<'_>) -> Option<Result<Proto, OptionsError>> {
    // fs/nfs/fs_context.c: `proto=` takes a netid; `tcp`, `rdma` and `udp` are flags for the same.
    let chosen = match o.key {
        "proto" => o.value().and_then(|v| match v {
            "tcp" => Ok(Proto::Tcp),
            "rdma" => Ok(Proto::Rdma),
            "udp" => Err(o.unsupported(TCP_ONLY)),
            "tcp6" | "rdma6" | "udp6" => Err(o.unsupported(FAMILY)),
            _ => Err(o.bad("proto is tcp or rdma")),
        }),
        "tcp" => o.flag().map(|()| Proto::Tcp),
        "rdma" => o.flag().map(|()| Proto::Rdma),
        "udp" => o.flag().and_then(|()| Err(o.unsupported(TCP_ONLY))),
        _ => return None,
    };
    Some(chosen)
}
