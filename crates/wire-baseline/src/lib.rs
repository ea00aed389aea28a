//! Wire baselines: what the transports themselves do on a path, measured beside the storage results so
//! that each can be shown as a fraction of its wire — the figures iperf (TCP stream), netperf TCP_RR /
//! qperf tcp_lat (TCP ping-pong), ib_write_bw (RDMA Write bandwidth) and ib_send_lat (RDMA Send
//! ping-pong) report.
//!
//! Both ends are here: [`serve_tcp`] and [`serve_rdma`] answer (run by `nfsbench serve
//! --baseline-listen`); [`tcp_stream`], [`tcp_ping_pong`], [`rdma_write_bandwidth`] and
//! [`rdma_ping_pong`] measure, giving a [`Stream`] (bytes that arrived, seconds) or a [`PingPong`]
//! (round-trip median, mean, p99). Every connection opens with a 16-byte [`Hello`] (in the TCP stream,
//! or as RDMA-CM private data) saying what it will do; a responder drops (TCP) or refuses (RDMA) a
//! connection whose hello is wrong and keeps serving the others, and a peer that goes silent
//! mid-exchange is dropped after a grace period. The exchanges themselves are described in the `tcp`,
//! `rdma_serve` and `control` modules.

mod control;
mod error;
mod hello;
mod rdma_measure;
mod rdma_serve;
mod stats;
mod tcp;

pub use error::WireError;
pub use hello::{Hello, Mode, HELLO_LEN, MAX_MESSAGE, MAX_PING};
pub use rdma_measure::{rdma_ping_pong, rdma_write_bandwidth, WRITE_DEPTH, WRITE_SIZE};
pub use rdma_serve::serve_rdma;
pub use stats::{PingPong, Stream};
pub use tcp::{serve_tcp, serve_tcp_over, tcp_ping_pong, tcp_ping_pong_over, tcp_stream, tcp_stream_over};
