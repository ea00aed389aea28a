//! Hostile and careless clients of an NFS server (NFSv3, and NFSv4.1 in [`v4`]), written from raw sockets
//! and the workspace's codecs, for the security suite (`crates/cli/tests/hostile*.rs`) and the soak
//! (`scripts/soak.sh`). Each is something a peer on the network can do without any privilege (the
//! soft-RDMA ones, any process of the server's host); none of them respects the protocol further than it
//! needs to reach the server's weak spot.
//!
//! - [`rpc`]: a blocking raw client — calls framed by hand with any RPC version and any AUTH_SYS
//!   identity, MOUNT, and the few NFS procedures the attacks and checks need.
//! - [`rdma`]: an RPC-over-RDMA requester on the software RDMA provider (`rdma-soft`, processes of
//!   one host), through its `hostile` hooks: it can raise the busy counters the server
//!   consults before freeing a registration, and claim in its Hello an address it does not have.
//! - [`attack`]: the attacks, each run until a stop flag is raised, all through [`attack::Attack`]:
//!   trickling partial records, idle connections, pipelined 1 MiB READs whose replies are never read,
//!   a flood of calls with a bad RPC version, and soft-RDMA peers holding every busy counter while
//!   the server RDMA-Reads a WRITE's data (each reconnecting once the server drops it).
//! - [`checks`]: one-shot checks of the server's rules: set-user-ID and set-group-ID cleared by a
//!   write of an unprivileged owner; a soft-RDMA client claiming an address it does not have is
//!   refused, or at least not served under that address's export rules.
//! - [`proc_stat`]: a process's resident memory, read from `/proc`.
//! - [`v4`]: the NFSv4.1 clients — malformed COMPOUNDs, session, slot and stateid misuse, floods of
//!   opens and locks, back-channel abuse — each answer checked against RFC 8881, and the well-behaved
//!   v4 client measured beside them.
//!
//! The `nfsbench-hostile` binary runs any attack from the command line (the soak rotates the TCP ones).

pub mod attack;
pub mod checks;
pub mod proc_stat;
pub mod rdma;
pub mod rpc;
pub mod v4;

pub use attack::{Attack, AttackReport};
pub use rpc::{RawClient, RpcFailure, Target};
