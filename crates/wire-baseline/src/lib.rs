//! Wire baselines: what the transports themselves do on a path, measured beside the storage results so
//! that each can be shown as a fraction of its wire — the figures iperf (TCP stream), netperf TCP_RR
//! (TCP ping-pong), ib_write_bw (RDMA Write bandwidth) and ib_send_lat (RDMA Send ping-pong) report.
//!
//! Both ends are here: [`serve_tcp`] and [`serve_rdma`] answer (run by `nfsbench serve
//! --baseline-listen`), [`tcp_stream`], [`tcp_ping_pong`], [`rdma_write_bandwidth`] and [`rdma_ping_pong`]
//! measure. Every connection opens with a 16-byte [`Hello`] (in the TCP stream, or as RDMA-CM private
//! data) saying what it will do; a responder drops a connection whose hello is wrong, and keeps serving
//! the others.

mod error;
mod hello;
mod rdma_side;
mod stats;
mod tcp;

pub use error::WireError;
pub use hello::{Hello, Mode, HELLO_LEN, MAX_MESSAGE, MAX_PING};
pub use rdma_side::{rdma_ping_pong, rdma_write_bandwidth, serve_rdma};
pub use stats::{PingPong, Stream};
pub use tcp::{serve_tcp, tcp_ping_pong, tcp_stream};
