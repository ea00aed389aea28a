//! Packet captures to byte streams: the offline half of nfsbench's wire inspection.
//!
//! [`read_tcp_streams`] reads a pcap or pcapng file (Ethernet, Linux cooked v1/v2, BSD loopback or raw IP
//! link types, as tcpdump and tshark write them), keeps the TCP segments, and reassembles each direction
//! of each connection into one ordered byte stream ([`TcpStream`]), dropping retransmitted bytes and
//! placing out-of-order segments by sequence number. Upper layers (ONC RPC record marking) then split the
//! streams into messages. No protocol above TCP is known here.

mod link;
mod reassembly;

use std::net::SocketAddr;
use std::time::Duration;

pub use reassembly::{TcpStream, TcpStreams};

/// One direction of a TCP connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Flow {
    pub src: SocketAddr,
    pub dst: SocketAddr,
}

impl Flow {
    /// The opposite direction of the same connection.
    pub fn reversed(self) -> Flow {
        Flow { src: self.dst, dst: self.src }
    }
}

impl std::fmt::Display for Flow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} > {}", self.src, self.dst)
    }
}

/// A TCP segment as found in a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment<'a> {
    pub timestamp: Duration,
    pub flow: Flow,
    pub seq: u32,
    pub syn: bool,
    pub payload: &'a [u8],
}

#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("cannot read capture {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("not a pcap or pcapng capture: {0}")]
    Format(String),
    #[error("capture link type {0} is not supported (Ethernet, Linux cooked, loopback and raw IP are)")]
    UnsupportedLinkType(u32),
    #[error("packet {index} was truncated by the capture's snap length; capture with -s 0")]
    Truncated { index: usize },
}

/// Reads a capture file and reassembles every TCP stream in it.
pub fn read_tcp_streams(path: &std::path::Path) -> Result<TcpStreams, CaptureError> {
    let bytes = std::fs::read(path).map_err(|source| CaptureError::Io { path: path.display().to_string(), source })?;
    tcp_streams_from_bytes(&bytes)
}

/// Reassembles every TCP stream of a capture held in memory.
pub fn tcp_streams_from_bytes(bytes: &[u8]) -> Result<TcpStreams, CaptureError> {
    let mut streams = TcpStreams::default();
    link::for_each_tcp_segment(bytes, |segment| streams.push(&segment))?;
    Ok(streams)
}

#[cfg(test)]
mod tests;
