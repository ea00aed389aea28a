//! A closed-form model of NFSv3 throughput over TCP and RPC-over-RDMA at a distance: pure functions of
//! serde-serialisable inputs, no I/O. `nfsbench model` prints it; `nfsbench compare` can draw it next
//! to what it measured and flag where the two disagree.
//!
//! Why: ORNL ran NFS/RDMA over 0.2 to 8,600 miles of InfiniBand and found that large I/O keeps the
//! link's bandwidth while 4 KiB transfers collapse, and that writes suffer from the server's RDMA Read
//! round trip. Both follow from a handful of terms, written down here with where each comes from.
//!
//! # Inputs ([`ModelInput`])
//!
//! - [`Mount`] — from a `mount_options::MountConfig` ([`Mount::from_config`]): `proto` (tcp | rdma),
//!   `nconnect` connections, `rsize`/`wsize` (Linux: 1 MiB), RDMA
//!   credits per connection in force (the smaller of the client's request, Linux 128, and the server's
//!   grant, knfsd and `nfsbench serve` 64), the inline threshold (4 KiB as nfsbench and Linux offer in
//!   RFC 8797 private data; RFC 8166 §3.3.2's 1 KiB without it), and the RDMA Read depth (16).
//! - [`Workload`] — `rw` (read | write: random or sequential is the same to the transport), `bs`, and
//!   outstanding I/Os = iodepth × numjobs × clients.
//! - [`Network`] — `rtt`, `rate` (optional) and the TCP window per connection: `--wan`'s
//!   ([`Network::from_wan`]; 6 MiB by default, Linux's largest autotuned receive buffer). Distance
//!   becomes RTT at 5 µs per km each way ([`rtt_of_distance_km`]).
//! - [`LanBaseline`] — `latency`: the per-operation time measured with no emulated distance (client,
//!   server and loopback together: fio's mean completion latency of the same workload at LAN; 50 µs
//!   when not measured), and optionally `throughput`: the bandwidth measured there.
//!
//! # Terms ([`predict`])
//!
//! 1. **RPCs per I/O** ([`RpcShape`]): k = ⌈bs / rsize⌉ (wsize for writes), all sent at once as the
//!    Linux client splits an O_DIRECT I/O; b = bs / k payload bytes each.
//! 2. **Round trips per RPC**, n ([`Placement::round_trips`]):
//!    - TCP: 1. The data rides the byte stream with the call (write) or the reply (read).
//!    - RDMA read: 1. A reply within the inline threshold is one Send; a larger one has the client
//!      offer a Write chunk (RFC 8166 §3.4.6, RFC 8267 §3), which the server RDMA-Writes and then Sends
//!      the reply on the same reliable connection: in order, together, no extra trip. Reply chunks
//!      (§3.5.4) cost nothing more either.
//!    - RDMA write: 1 when the whole call fits the inline threshold, else 2. The data goes in a Read
//!      chunk (§3.4.5; a Long Call, §3.5.3, likewise): the server learns of it from the call, RDMA-Reads
//!      it from the client — a request out and the data back, one more round trip — and only then
//!      executes the WRITE and replies. Every header counts against the threshold, as the Linux client
//!      and `nfs-client` decide ([`placement`]): the RPC-over-RDMA header (28 bytes), the RPC call
//!      header with AUTH_SYS (~100) and WRITE3args before the data (~88), so with 4 KiB inline even a
//!      4 KiB write is pulled — the studies' 4 KiB writes pay two round trips too.
//! 3. **RPC latency**: L = lan_latency + n × RTT + b_max × 8 / rate, with b_max = min(bs, rsize) the
//!    largest RPC's payload serialised at the link rate (zero without a rate).
//! 4. **In flight**: N = outstanding × k RPCs, at most credits × nconnect over RDMA (RFC 8166 §3.3.1: a
//!    requester never has more calls outstanding than it was granted). Over TCP nothing caps it: Linux's
//!    TCP slot table grows to 65,536.
//! 5. **Little's law**: bandwidth = N × b / L bytes per second ([`Limit::OutstandingIo`], or
//!    [`Limit::RdmaCredits`] when the credits cap N).
//! 6. **Ceilings**, each a [`Limit`]:
//!    - link rate: rate / 8 bytes per second, all of it counted as payload — RPC, NFS and TCP/IP or
//!      RDMA headers are ignored (1–3% at 1 MiB, more at 4 KiB);
//!    - TCP window: window × nconnect / RTT when RTT > 0 — a connection has at most one receive window
//!      unacknowledged, and its acknowledgement takes a round trip (6 MiB over 140 ms: 45 MB/s);
//!    - RDMA Read depth, for writes through a Read chunk: depth × nconnect × b / (RTT + b_max × 8 / rate)
//!      when that time is not zero — a queue pair has at most its negotiated initiator depth of RDMA
//!      Reads outstanding (16 for nfsbench's providers and mlx5 devices), each pulling one payload for a
//!      round trip plus its serialisation. It binds only when more than about twice the depth of writes
//!      are in flight per connection;
//!    - LAN ceiling: the throughput measured at LAN, if given — CPU, copies and the server, which no
//!      distance makes faster.
//! 7. **Result** ([`ModelOutput`]): bandwidth = the smallest of 5 and 6, and that term is the limit;
//!    IOPS = bandwidth / bs; I/O latency = outstanding × bs / bandwidth (Little's law again), which is L
//!    when concurrency binds and L plus queueing when a ceiling or the credits do ([`LatencyBreakdown`]).
//!
//! # What it leaves out
//!
//! TCP slow start and loss recovery (steady state only: `--wan` jitter and loss are not modelled), CPU
//! contention the LAN baseline did not see, headers, the smaller last RPC of an I/O that is not a
//! multiple of rsize, and mixed read/write workloads (model the read and the write parts apart).
//!
//! # Comparing
//!
//! [`sweep`] predicts over a list of round trips (a distance sweep); [`disagreement`] is the factor
//! between a measured and a modelled figure, flagged beyond [`FLAG_RATIO`] (1.25).

mod disagreement;
pub mod format;
mod input;
mod limit;
mod output;
mod placement;
mod predict;
pub mod proto_serde;
mod seconds;

pub use disagreement::{disagreement, is_flagged, FLAG_RATIO};
pub use input::{
    rtt_of_distance_km, LanBaseline, ModelInput, Mount, Network, Rw, Workload, DEFAULT_IO_SIZE, DEFAULT_LAN_LATENCY,
    DEFAULT_RDMA_INLINE, DEFAULT_RDMA_READ_DEPTH,
};
pub use limit::Limit;
pub use output::{LatencyBreakdown, ModelOutput};
pub use placement::{placement, Placement, RpcShape};
pub use predict::{predict, sweep};

#[cfg(test)]
mod tests;
