//! MOUNT protocol version 3 (RFC 1813 Appendix I): how a client gets the root file handle of an export.

mod dispatch;
mod types;

pub use dispatch::{MountCall, MountReply};
pub use types::{
    DirPath, ExportNode, Exports, MntName, MountBody, MountErr3, MountList, MountRes3, MountRes3Ok, MountStat3,
};

/// RFC 1813 Appendix I: the MOUNT program number.
pub const MOUNT_PROGRAM: u32 = 100005;
/// The MOUNT version that goes with NFSv3.
pub const MOUNT_V3: u32 = 3;
/// RFC 1813 §5.1.4 (Appendix I): maximum bytes in a path name (`dirpath`).
pub const MNTPATHLEN: u32 = 1024;
/// RFC 1813 §5.1.4 (Appendix I): maximum bytes in a name (`name`: host names, group names).
pub const MNTNAMLEN: u32 = 255;
/// RFC 1813 §5.1.4 (Appendix I): maximum bytes in a V3 file handle (`fhandle3`).
pub const FHSIZE3: usize = 64;

xdr_enum! {
    /// MOUNT v3 procedure numbers (RFC 1813 §5.2, Appendix I).
    pub enum MountProc as "MOUNTv3 procedure" {
        Null = 0 => "NULL",
        Mnt = 1 => "MNT",
        Dump = 2 => "DUMP",
        Umnt = 3 => "UMNT",
        Umntall = 4 => "UMNTALL",
        Export = 5 => "EXPORT",
    }
}

/// The RFC name of MOUNT v3 procedure `proc` (e.g. `"MNT"`), `"UNKNOWN"` when undefined.
pub const fn mount_proc_name(proc: u32) -> &'static str {
    match MountProc::from_u32(proc) {
        Some(p) => p.name(),
        None => "UNKNOWN",
    }
}
