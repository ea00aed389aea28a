//! State owners (RFC 8881 §2.4.1, §18.16.1): a client id and an opaque the client chooses.

use super::basic::{ClientId4, Opaque4};

xdr_struct! {
    /// `state_owner4` (RFC 8881 §3.3.8); the owner bytes are at most NFS4_OPAQUE_LIMIT (1024), as knfsd.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct StateOwner4<'a> {
        pub clientid: ClientId4,
        pub owner: Opaque4<'a>,
    }
}

/// `open_owner4` (RFC 8881 §3.3.8).
pub type OpenOwner4<'a> = StateOwner4<'a>;
/// `lock_owner4` (RFC 8881 §3.3.8).
pub type LockOwner4<'a> = StateOwner4<'a>;
