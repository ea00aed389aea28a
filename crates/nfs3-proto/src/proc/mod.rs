//! The NFSv3 procedures (RFC 1813 §3.3), one module each in RFC order, and their numbers.

pub mod access;
pub mod commit;
pub mod create;
pub mod fsinfo;
pub mod fsstat;
pub mod getattr;
pub mod link;
pub mod lookup;
pub mod mkdir;
pub mod mknod;
pub mod pathconf;
pub mod read;
pub mod readdir;
pub mod readdirplus;
pub mod readlink;
pub mod remove;
pub mod rename;
pub mod rmdir;
pub mod setattr;
pub mod symlink;
pub mod write;

xdr_enum! {
    /// NFSv3 procedure numbers (RFC 1813 §3.3: `NFSPROC3_NULL = 0` .. `NFSPROC3_COMMIT = 21`).
    pub enum Nfs3Proc as "NFSv3 procedure" {
        Null = 0 => "NULL",
        Getattr = 1 => "GETATTR",
        Setattr = 2 => "SETATTR",
        Lookup = 3 => "LOOKUP",
        Access = 4 => "ACCESS",
        Readlink = 5 => "READLINK",
        Read = 6 => "READ",
        Write = 7 => "WRITE",
        Create = 8 => "CREATE",
        Mkdir = 9 => "MKDIR",
        Symlink = 10 => "SYMLINK",
        Mknod = 11 => "MKNOD",
        Remove = 12 => "REMOVE",
        Rmdir = 13 => "RMDIR",
        Rename = 14 => "RENAME",
        Link = 15 => "LINK",
        Readdir = 16 => "READDIR",
        Readdirplus = 17 => "READDIRPLUS",
        Fsstat = 18 => "FSSTAT",
        Fsinfo = 19 => "FSINFO",
        Pathconf = 20 => "PATHCONF",
        Commit = 21 => "COMMIT",
    }
}

/// The RFC name of NFSv3 procedure `proc` (e.g. `"READDIRPLUS"`), `"UNKNOWN"` when undefined.
pub const fn nfs3_proc_name(proc: u32) -> &'static str {
    match Nfs3Proc::from_u32(proc) {
        Some(p) => p.name(),
        None => "UNKNOWN",
    }
}
