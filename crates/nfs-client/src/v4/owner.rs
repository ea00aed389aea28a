//! Who the client is to an NFSv4 server (RFC 8881 §2.4): the `co_ownerid` of EXCHANGE_ID and its boot
//! verifier, and the open-owner of OPEN.
//!
//! The owner names the host, the process and the mount (`nfsbench/HOST/pid/N`): two nfsbench processes
//! on one host (MPI ranks) and two mounts in one process are distinct clients, so one never expires the
//! other's state, and each mount's DESTROY_CLIENTID at unmount touches only its own. The verifier is the
//! process's start time: stable for the life of the mount, so after a server restart the server knows
//! the same client is reclaiming (RFC 8881 §2.4.1), and new with every run, so a new run never inherits
//! an old one's state.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use nfs4_proto::Verifier4;

/// The open-owner of every OPEN of a mount (RFC 8881 §18.16: any opaque the client chooses, scoped by
/// the client ID): one owner is enough, since NFSv4.1 sessions already order the calls.
pub(crate) const OPEN_OWNER: &[u8] = b"nfsbench open owner";

/// The longest `co_ownerid` sent (RFC 8881 §2.4: at most NFS4_OPAQUE_LIMIT bytes).
const MAX_OWNER: usize = 1024;

/// The identity of one mount to its server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClientIdentity {
    pub(crate) owner_id: Vec<u8>,
    pub(crate) verifier: Verifier4,
}

impl ClientIdentity {
    /// A new identity for a mount from this process on `host`.
    pub(crate) fn for_mount(host: &[u8]) -> Self {
        static MOUNTS: AtomicU32 = AtomicU32::new(0);
        let n = MOUNTS.fetch_add(1, Relaxed);
        let mut owner_id =
            format!("nfsbench/{}/{}/{n}", String::from_utf8_lossy(host), std::process::id()).into_bytes();
        owner_id.truncate(MAX_OWNER);
        ClientIdentity { owner_id, verifier: Verifier4(process_boot_verifier()) }
    }
}

/// The process's start time in nanoseconds, the same for every mount of the process.
fn process_boot_verifier() -> [u8; 8] {
    static BOOT: OnceLock<[u8; 8]> = OnceLock::new();
    *BOOT.get_or_init(|| {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        nanos.to_be_bytes()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mount_is_its_own_client_of_one_process_incarnation() {
        let a = ClientIdentity::for_mount(b"host-a");
        let b = ClientIdentity::for_mount(b"host-a");
        assert_ne!(a.owner_id, b.owner_id);
        assert_eq!(a.verifier, b.verifier, "one boot verifier per process");
        let text = String::from_utf8(a.owner_id).expect("utf-8");
        assert!(text.starts_with(&format!("nfsbench/host-a/{}/", std::process::id())), "{text}");
    }
}
