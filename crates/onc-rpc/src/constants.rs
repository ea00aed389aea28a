//! Well-known numbers: the RPC protocol version and the program numbers nfsbench deals with
//! (IANA "RPC Program Numbers"; RFC 5531 §7.3 for the program number space).

/// RFC 5531 §9: `rpcvers` MUST be 2.
pub const RPC_VERSION: u32 = 2;

/// Portmapper / rpcbind (RFC 1833), on port 111.
pub const PMAP_PROGRAM: u32 = 100_000;
/// Same program as [`PMAP_PROGRAM`], under its rpcbind name.
pub const RPCBIND_PROGRAM: u32 = PMAP_PROGRAM;
/// NFS (RFC 1813 for version 3).
pub const NFS_PROGRAM: u32 = 100_003;
/// MOUNT (RFC 1813 Appendix I for version 3).
pub const MOUNT_PROGRAM: u32 = 100_005;
/// NLM, the network lock manager.
pub const NLM_PROGRAM: u32 = 100_021;
/// NSM, the status monitor used by NLM.
pub const NSM_PROGRAM: u32 = 100_024;
/// NFS_ACL, the side-band POSIX ACL protocol of Solaris and Linux.
pub const NFS_ACL_PROGRAM: u32 = 100_227;

/// Well-known port of the portmapper / rpcbind (RFC 1833 §2.1, §3.1).
pub const PMAP_PORT: u16 = 111;
/// Well-known port of NFS over TCP/UDP.
pub const NFS_PORT: u16 = 2049;
/// Well-known port of NFS over RPC-over-RDMA (RFC 8267 §6.1 / IANA).
pub const NFS_RDMA_PORT: u16 = 20049;
