//! nfsbench: a storage-transport lab that measures NFS over TCP and over RDMA.
//!
//! This library half of the `nfsbench` package holds what the subcommands share and what the
//! integration tests reach:
//! - [`inspect`]: decoding whole ONC RPC messages (header and NFSv3 / MOUNT v3 / port-mapper body) with
//!   the workspace's codecs, and pairing calls with replies in reassembled TCP streams from a capture.
//!
//! The wire formats themselves live in the protocol crates (`xdr`, `onc-rpc`, `nfs3-proto`,
//! `rpcrdma-proto`); this crate adds no protocol rules of its own.

pub mod inspect;
