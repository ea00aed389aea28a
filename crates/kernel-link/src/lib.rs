//! The kernel engine's long-distance link. nfsbench's own client emulates a link inside its transports
//! (`--wan`); the kernel's transports (NFS over TCP or RDMA, SMB, iSCSI, NVMe-oF) cannot be reached
//! that way, so the link is put on the path instead: tc's netem on the network device by which the
//! route to the target's address leaves, for that address only.
//!
//! - [`PathDelay::apply`] finds the device (`ip route get ADDR`), refuses a path that never leaves
//!   the host (`dev lo`: nothing to delay), and adds a `prio` root qdisc of nfsbench's own handle
//!   ([`HANDLE`]) whose fourth band holds `netem delay RTT [rate R] [loss P%]`, with a u32 filter that
//!   sends only packets to ADDR there. Soft-RoCE's packets leave by the same device as TCP's, so the
//!   delay holds for RDMA too.
//! - The whole round trip is put on the way out: replies come back undelayed, and the round trip is
//!   the one asked.
//! - [`PathDelay::remove`], or dropping it, deletes the root qdisc; [`sweep`] deletes one a killed
//!   run left (recognised by its handle).
//! - Only what netem does as the link spec means it is taken: `rtt` (or `distance`), `rate`, `loss`
//!   (real loss here: the kernel's transport recovers it). `jitter` is refused (netem reorders jittered
//!   packets, which the spec rules out) and so is `tcp_window` (the kernel's TCP sets its own), each by
//!   name ([`kernel_link_spec`]).
//!
//! Commands run through a [`Runner`], so tests check the argv without a network.

mod error;
mod path;
mod runner;
#[cfg(test)]
mod tests;

pub use error::LinkError;
pub use path::{kernel_link_spec, netem_args, resolve, sweep, PathDelay, HANDLE};
pub use runner::{Runner, SystemRunner};
