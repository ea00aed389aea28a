//! The kernel engine's block transports: a remote block device attached with the operating system's
//! own initiator, what the kernel negotiated read back, and nothing left behind.
//!
//! Four kinds ([`Kind`]): `nvme-tcp` and `nvme-rdma` through nvme-cli (`nvme connect`), `iscsi` and
//! `iser` through open-iscsi (`iscsiadm`).
//!
//! - [`Target::parse`] reads `KIND://HOST[:PORT]/NAME` (an NQN or an iSCSI name);
//!   [`AttachOptions::parse`] a kind's `-o` style options (`nr_io_queues=4,queue_size=128`,
//!   `header_digest=CRC32C,max_burst=262144`), refusing unknown ones by name.
//! - [`Attachment::attach`] runs the tool through a [`Runner`] ([`SystemRunner`] in production, a
//!   recording one in tests), finds what the kernel made of it under a [`Sysfs`] root — the new
//!   controller and its namespace's disk (both NVMe multipath layouts), or the session, its SCSI host's
//!   driver and its first LUN's disk — and reads the negotiated state: [`Attachment::negotiated`],
//!   [`Attachment::checks`] (one `mountstats` [`OptionCheck`] per asked option, so reports treat NFS
//!   mounts and block devices alike), [`Attachment::transport`] and [`Attachment::proof`].
//!   [`Attachment::stats`] reads the disk's [`DiskStats`]; [`Attachment::detach`], or dropping it,
//!   disconnects or logs out and deletes the node record.
//! - [`sweep`] undoes what a killed run left for a target; [`can_attach`] says before anything runs
//!   whether root, the tool and iscsid are there.
//!
//! A refused connect or login is [`AttachError::Refused`] with the tool's own last words. Sysfs files
//! that are empty, oversized or garbled give an error naming the file, never a panic.

mod attachment;
mod checks;
mod diskstats;
mod error;
mod iscsi;
mod nvme;
mod options;
mod preflight;
mod runner;
mod sysfs;
mod target;
#[cfg(test)]
mod tests;

pub use attachment::{sweep, Attachment};
pub use diskstats::{DiskStats, SECTOR_BYTES};
pub use error::AttachError;
pub use mountstats::{OptionCheck, Verdict};
pub use options::AttachOptions;
pub use preflight::can_attach;
pub use runner::{CommandOutput, Runner, SystemRunner};
pub use sysfs::Sysfs;
pub use target::{Kind, Target};
