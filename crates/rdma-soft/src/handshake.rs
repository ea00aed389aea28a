//! The connection-management messages, sans I/O: what RDMA-CM's REQ / REP / REJ / RTU carry, encoded
//! for the provider's own socket.
//!
//! `Hello` (connecting side) and `Accept` (listening side) each carry an [`Offer`] plus, as SCM_RIGHTS,
//! the sender's key-table and guard memfds (then its inbound ring when it offers one, then its pool
//! when it has one); `Reject` carries a
//! reason; `Ready` tells the listening side that the connecting one has mapped everything and is
//! established. Every field is bounded on decode.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Longest private data a connect or accept carries (the RDMA-CM limit for RC).
pub(crate) const MAX_PRIVATE_DATA: usize = 56;
/// Longest receive buffer a side may declare.
pub(crate) const MAX_RECV_SIZE: u32 = 16 << 20;
/// Most receives a side may declare.
pub(crate) const MAX_RECVS: u32 = 1 << 16;
/// Largest pool a side may announce (what the peer maps of it).
pub(crate) const MAX_POOL_BYTES: u64 = 4 << 30;
const MAX_REASON: usize = 512;
const MAGIC: [u8; 4] = *b"NBSR";
/// 2: each side's guard holds its own busy counters and is read-only for the peer.
/// 3: each side may announce a pool (address and length) that its peer maps.
const VERSION: u8 = 3;

/// A malformed or unexpected handshake message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed connection message: {0}")]
pub(crate) struct HandshakeError(pub(crate) &'static str);

/// What each side declares about itself when connecting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Offer {
    pub initiator_depth: u8,
    pub responder_resources: u8,
    /// Bytes of each of the sender's receive buffers.
    pub recv_size: u32,
    /// Receives the sender may have posted at once.
    pub max_recv: u32,
    /// Where the sender's key table is mapped in its own process (probed by the peer).
    pub table_addr: u64,
    /// Bytes of the sender's inbound message ring (0: messages travel on the socket).
    pub ring_len: u32,
    /// Where the sender's pool is mapped in its own process (what its windows address).
    pub pool_addr: u64,
    /// Bytes of the sender's pool, a multiple of the page size (0: none, no descriptor for it).
    pub pool_len: u64,
    /// Hello: the address the client dialed. Accept: the address the server gives the client.
    pub addr: SocketAddr,
    pub private_data: Vec<u8>,
}

/// One connection-management message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Handshake {
    Hello(Offer),
    Accept(Offer),
    Reject(String),
    Ready,
}

impl Handshake {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.push(VERSION);
        match self {
            Handshake::Hello(offer) | Handshake::Accept(offer) => {
                out.push(if matches!(self, Handshake::Hello(_)) { 1 } else { 2 });
                encode_offer(offer, &mut out);
            }
            Handshake::Reject(reason) => {
                out.push(3);
                let reason = truncate(reason, MAX_REASON);
                out.extend_from_slice(&(reason.len() as u16).to_be_bytes());
                out.extend_from_slice(reason.as_bytes());
            }
            Handshake::Ready => out.push(4),
        }
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Handshake, HandshakeError> {
        let mut r = Reader(bytes);
        if r.take(4)? != MAGIC {
            return Err(HandshakeError("not an nfsbench soft-RDMA peer"));
        }
        if r.u8()? != VERSION {
            return Err(HandshakeError("unsupported protocol version"));
        }
        let message = match r.u8()? {
            1 => Handshake::Hello(decode_offer(&mut r)?),
            2 => Handshake::Accept(decode_offer(&mut r)?),
            3 => {
                let len = usize::from(r.u16()?);
                if len > MAX_REASON {
                    return Err(HandshakeError("reject reason too long"));
                }
                Handshake::Reject(String::from_utf8_lossy(r.take(len)?).into_owned())
            }
            4 => Handshake::Ready,
            _ => return Err(HandshakeError("unknown message kind")),
        };
        if !r.0.is_empty() {
            return Err(HandshakeError("trailing bytes"));
        }
        Ok(message)
    }
}

fn truncate(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn encode_offer(offer: &Offer, out: &mut Vec<u8>) {
    out.push(offer.initiator_depth);
    out.push(offer.responder_resources);
    out.extend_from_slice(&offer.recv_size.to_be_bytes());
    out.extend_from_slice(&offer.max_recv.to_be_bytes());
    out.extend_from_slice(&offer.table_addr.to_be_bytes());
    out.extend_from_slice(&offer.ring_len.to_be_bytes());
    out.extend_from_slice(&offer.pool_addr.to_be_bytes());
    out.extend_from_slice(&offer.pool_len.to_be_bytes());
    match offer.addr.ip() {
        IpAddr::V4(ip) => {
            out.push(4);
            out.extend_from_slice(&ip.octets());
        }
        IpAddr::V6(ip) => {
            out.push(6);
            out.extend_from_slice(&ip.octets());
        }
    }
    out.extend_from_slice(&offer.addr.port().to_be_bytes());
    let data = &offer.private_data[..offer.private_data.len().min(MAX_PRIVATE_DATA)];
    out.push(data.len() as u8);
    out.extend_from_slice(data);
}

fn decode_offer(r: &mut Reader<'_>) -> Result<Offer, HandshakeError> {
    let initiator_depth = r.u8()?;
    let responder_resources = r.u8()?;
    let recv_size = r.u32()?;
    let max_recv = r.u32()?;
    if recv_size > MAX_RECV_SIZE || max_recv > MAX_RECVS {
        return Err(HandshakeError("receive size or count out of range"));
    }
    let table_addr = r.u64()?;
    let ring_len = r.u32()?;
    let pool_addr = r.u64()?;
    let pool_len = r.u64()?;
    if pool_len > MAX_POOL_BYTES {
        return Err(HandshakeError("pool larger than 4 GiB"));
    }
    let ip = match r.u8()? {
        4 => IpAddr::V4(Ipv4Addr::from(<[u8; 4]>::try_from(r.take(4)?).map_err(|_| HandshakeError("short"))?)),
        6 => IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(r.take(16)?).map_err(|_| HandshakeError("short"))?)),
        _ => return Err(HandshakeError("unknown address family")),
    };
    let addr = SocketAddr::new(ip, r.u16()?);
    let len = usize::from(r.u8()?);
    if len > MAX_PRIVATE_DATA {
        return Err(HandshakeError("private data longer than 56 bytes"));
    }
    let private_data = r.take(len)?.to_vec();
    Ok(Offer {
        initiator_depth,
        responder_resources,
        recv_size,
        max_recv,
        table_addr,
        ring_len,
        pool_addr,
        pool_len,
        addr,
        private_data,
    })
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], HandshakeError> {
        if self.0.len() < n {
            return Err(HandshakeError("message too short"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, HandshakeError> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, HandshakeError> {
        Ok(u16::from_be_bytes([self.u8()?, self.u8()?]))
    }

    fn u32(&mut self) -> Result<u32, HandshakeError> {
        Ok(u32::from_be_bytes([self.u8()?, self.u8()?, self.u8()?, self.u8()?]))
    }

    fn u64(&mut self) -> Result<u64, HandshakeError> {
        Ok(u64::from(self.u32()?) << 32 | u64::from(self.u32()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer() -> Offer {
        Offer {
            initiator_depth: 16,
            responder_resources: 8,
            recv_size: 4096,
            max_recv: 128,
            table_addr: 0x7f00_0000_1000,
            ring_len: 1 << 20,
            pool_addr: 0x7f00_1000_0000,
            pool_len: 1 << 24,
            addr: "[::1]:20049".parse().expect("addr"),
            private_data: vec![0xf6, 0xab, 0x0e, 0x18, 1, 0, 3, 3],
        }
    }

    #[test]
    fn every_message_round_trips() {
        for message in [
            Handshake::Hello(offer()),
            Handshake::Accept(Offer { addr: "127.0.0.1:40000".parse().expect("addr"), ..offer() }),
            Handshake::Reject("no".into()),
            Handshake::Ready,
        ] {
            assert_eq!(Handshake::decode(&message.encode()), Ok(message));
        }
    }

    #[test]
    fn rejects_truncated_trailing_and_foreign_messages() {
        let bytes = Handshake::Hello(offer()).encode();
        for cut in 0..bytes.len() {
            assert!(Handshake::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(Handshake::decode(&long), Err(HandshakeError("trailing bytes")));
        assert!(Handshake::decode(b"GET / HTTP/1.1\r\n").is_err());
    }

    #[test]
    fn rejects_private_data_over_56_bytes_and_absurd_receive_sizes() {
        let mut bytes = Handshake::Hello(Offer { private_data: vec![1; 56], ..offer() }).encode();
        let len_at = bytes.len() - 57;
        bytes[len_at] = 57;
        bytes.push(1);
        assert!(Handshake::decode(&bytes).is_err());
        let huge = Handshake::Accept(Offer { recv_size: MAX_RECV_SIZE + 1, ..offer() }).encode();
        assert_eq!(Handshake::decode(&huge), Err(HandshakeError("receive size or count out of range")));
        let pool = Handshake::Accept(Offer { pool_len: MAX_POOL_BYTES + 1, ..offer() }).encode();
        assert_eq!(Handshake::decode(&pool), Err(HandshakeError("pool larger than 4 GiB")));
    }

    #[test]
    fn a_long_reject_reason_is_cut_on_a_character_boundary() {
        let reason = "é".repeat(400);
        let Ok(Handshake::Reject(got)) = Handshake::decode(&Handshake::Reject(reason).encode()) else {
            panic!("not a reject");
        };
        assert_eq!(got.len(), 512);
    }
}
