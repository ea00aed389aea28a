//! Long-distance links, emulated inside nfsbench's own transports (`--wan rtt=20ms,rate=10gbit`).
//!
//! netem cannot delay RDMA; nfsbench can, because both of its transports are its own. One [`Link`] per
//! process models the path to the peer in both directions, and every connection of that process — TCP
//! connections and RDMA queue pairs alike — sends through it:
//!
//! - The `--wan` option string (`rtt=`, or `distance=` in km or miles at 5 µs/km one way; `rate=`,
//!   `jitter=`, `loss=`, `tcp_window=`) is parsed, without I/O, into `mount_options::LinkSpec`, part of
//!   a mount's configuration; this crate runs the link it describes.
//! - [`link`]: the sans-I/O model. A message of N bytes handed to a direction at time t starts when the
//!   direction is free, occupies it for N·8/rate (serialisation, so the rate caps bandwidth and a
//!   bandwidth-delay product builds up), then arrives one propagation delay later (plus jitter, and one
//!   more round trip when it is lost). A [`link::Flow`] keeps one connection's messages in order.
//! - [`tcp`]: a TCP connection through the link, on either side: an in-process relay between the
//!   application and the real socket, with TCP's window per connection and direction.
//! - [`rdma`]: an RDMA provider wrapper whose queue pairs delay Sends, RDMA Reads and Writes as an RC
//!   connection over the link would, including the peer's Reads and Writes of our memory.
//! - [`clock`]: a timer thread with microsecond precision (tokio's timers tick in milliseconds), for
//!   releasing messages at their arrival times.
//!
//! The emulation runs on one side only, client or server: that side delays what it sends and what it
//! receives, so the other side may be any peer (the Linux kernel, NFS-Ganesha, NetApp).

pub mod clock;
pub mod link;
pub mod rdma;
pub mod tcp;

pub use link::{Direction, Flow, Link};
