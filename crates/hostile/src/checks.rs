//! One-shot checks of rules the server must keep whatever its clients do.

use std::net::{IpAddr, SocketAddr};

use nfs3_proto::{FileHandle3, NfsStat3, Sattr3};

use crate::rdma::RdmaRequester;
use crate::rpc::{RawClient, RpcFailure, Target};

/// An unprivileged owner of this uid/gid writes to its own privileged file.
pub const OWNER: (u32, u32) = (4242, 4242);

/// The modes around one unprivileged write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeChange {
    pub before: u32,
    pub after: u32,
}

impl ModeChange {
    /// What a local file system (and knfsd) leaves after a write by a process without CAP_FSETID:
    /// set-user-ID gone, set-group-ID gone when group-execute is set (without it, the bit marks
    /// mandatory locking and stays) — the kernel's should_remove_suid().
    pub fn expected_after(before: u32) -> u32 {
        let mut mode = before & !0o4000;
        if mode & 0o010 != 0 {
            mode &= !0o2000;
        }
        mode
    }
}

/// As root: creates `name` owned by [`OWNER`] with `mode` (e.g. 0o6755 or 0o6745); as the owner:
/// writes 4 KiB; returns the file's mode before and after the write.
pub fn write_by_owner_of_setid_file(target: &Target, name: &str, mode: u32) -> Result<ModeChange, RpcFailure> {
    let mut root = RawClient::connect(target.addr)?;
    let dir = root.mount(&target.export)?;
    let fh = root.create(&dir, name, 0o644)?;
    // Owner first, mode second: changing the owner may itself clear the set-ID bits.
    root.setattr(&fh, Sattr3 { uid: Some(OWNER.0), gid: Some(OWNER.1), ..Sattr3::default() })?;
    root.setattr(&fh, Sattr3 { mode: Some(mode), ..Sattr3::default() })?;
    let before = root.getattr(&fh)?.mode & 0o7777;
    let mut owner = RawClient::connect(target.addr)?;
    owner.identity(OWNER.0, OWNER.1);
    owner.write(&fh, 0, &[0x5a; 4096])?;
    let after = root.getattr(&fh)?.mode & 0o7777;
    Ok(ModeChange { before, after })
}

/// What a soft-RDMA listener did with a client claiming an address it does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// The connection was refused, with the listener's reason when it gave one.
    Refused { reason: Option<String> },
    /// The connection was accepted; the status of a GETATTR of the handle asked about.
    Accepted { getattr: NfsStat3 },
}

/// Connects to the soft-RDMA listener `rdma` claiming in the Hello to have dialed `claimed` (say
/// 10.9.9.9, an address no process of this host has), and, when accepted, asks GETATTR of `fh` (an
/// export's root handle, e.g. from MOUNT): an export whose `clients` admit only `claimed` must not
/// answer NFS3_OK.
pub fn claimed_address(rdma: SocketAddr, claimed: IpAddr, fh: &FileHandle3) -> Result<ClaimOutcome, RpcFailure> {
    rdma_runtime()?.block_on(async {
        match RdmaRequester::connect_claiming(rdma, claimed).await {
            Err(RpcFailure::RdmaRefused { reason, .. }) => Ok(ClaimOutcome::Refused { reason }),
            Err(err) => Err(err),
            Ok(mut liar) => Ok(ClaimOutcome::Accepted { getattr: liar.getattr_status(fh).await? }),
        }
    })
}

/// The status of a GETATTR of `fh` asked over RPC-over-RDMA by an honest local client of the soft-RDMA
/// listener `rdma` (known by the address it dialed, e.g. 127.0.0.1).
pub fn getattr_over_rdma(rdma: SocketAddr, fh: &FileHandle3) -> Result<NfsStat3, RpcFailure> {
    rdma_runtime()?.block_on(async { RdmaRequester::connect(rdma).await?.getattr_status(fh).await })
}

fn rdma_runtime() -> Result<tokio::runtime::Runtime, RpcFailure> {
    Ok(tokio::runtime::Builder::new_current_thread().enable_all().build()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_mode_follows_the_kernels_rule() {
        assert_eq!(ModeChange::expected_after(0o6755), 0o0755);
        assert_eq!(ModeChange::expected_after(0o6745), 0o2745, "set-group-ID without group execute stays");
        assert_eq!(ModeChange::expected_after(0o0644), 0o0644);
    }
}
