//! RDMA-CM connection private data for RPC-over-RDMA v1 (RFC 8797), and the inline thresholds it yields.
//!
//! The rule: each side sends inline (RDMA Send) messages no larger than the peer's receive size, and
//! expects none larger than the peer's send size. A peer that sent no valid private data is taken to use
//! the RFC 8166 §3.3.2 default of 1024 bytes each way.

/// RFC 8797 §4: the format identifier in the first four bytes (big-endian).
pub const CONNECT_PRIVATE_MAGIC: u32 = 0xF6AB_0E18;
/// RFC 8797 §4: the only version of the message defined.
pub const CONNECT_PRIVATE_VERSION: u8 = 1;
/// Bytes of the message.
pub const CONNECT_PRIVATE_LEN: usize = 8;
/// RFC 8797 §4: flag bit set when the sender can receive Send With Invalidate.
pub const FLAG_REMOTE_INVALIDATION: u8 = 0x01;
/// RFC 8166 §3.3.2: the inline threshold every implementation supports, and the one assumed without
/// private data.
pub const DEFAULT_INLINE_SIZE: u32 = 1024;
/// The largest size the one-byte encoding can express: 256 × 1024.
pub const MAX_INLINE_SIZE: u32 = 256 * 1024;

/// The 8-byte private data message. Sizes are kept in their wire form (units of 1024 bytes, minus one),
/// so every value round-trips; the constructor rounds byte counts down to what can be expressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConnectPrivate {
    flags: u8,
    send_code: u8,
    recv_code: u8,
}

/// RFC 8797 §4: size = (code + 1) × 1024. Below 1024 there is nothing to round down to, so it becomes
/// 1024 (the RFC 8166 minimum); above 256 KiB it becomes 256 KiB.
fn size_to_code(bytes: u32) -> u8 {
    let kib = (bytes / 1024).clamp(1, 256);
    (kib - 1) as u8
}

fn code_to_size(code: u8) -> u32 {
    (u32::from(code) + 1) * 1024
}

impl ConnectPrivate {
    /// A message advertising `send_size` and `recv_size` bytes, each rounded down to a multiple of 1024
    /// and clamped to 1024..=256 KiB.
    pub fn new(send_size: u32, recv_size: u32, remote_invalidation: bool) -> Self {
        let flags = if remote_invalidation { FLAG_REMOTE_INVALIDATION } else { 0 };
        ConnectPrivate { flags, send_code: size_to_code(send_size), recv_code: size_to_code(recv_size) }
    }

    /// Largest message the sender of this message will send inline.
    pub fn send_size(&self) -> u32 {
        code_to_size(self.send_code)
    }

    /// Largest message the sender of this message can receive inline.
    pub fn recv_size(&self) -> u32 {
        code_to_size(self.recv_code)
    }

    pub fn remote_invalidation(&self) -> bool {
        self.flags & FLAG_REMOTE_INVALIDATION != 0
    }

    /// The raw flags byte (reserved bits are kept as received).
    pub fn flags(&self) -> u8 {
        self.flags
    }

    pub fn encode(&self) -> [u8; CONNECT_PRIVATE_LEN] {
        let m = CONNECT_PRIVATE_MAGIC.to_be_bytes();
        [m[0], m[1], m[2], m[3], CONNECT_PRIVATE_VERSION, self.flags, self.send_code, self.recv_code]
    }

    /// Parses a peer's private data. `None` means "the peer sent none we understand": too short, another
    /// format identifier, or another version. Bytes past the eighth are ignored: RDMA-CM hands up the
    /// whole private data area, which InfiniBand pads with zeros (the Linux kernel does not check the
    /// length either), and RFC 8797 §6 extends the message only by appending fields.
    pub fn decode(private_data: &[u8]) -> Option<Self> {
        let bytes: &[u8; CONNECT_PRIVATE_LEN] = private_data.get(..CONNECT_PRIVATE_LEN)?.try_into().ok()?;
        let [m0, m1, m2, m3, version, flags, send_code, recv_code] = *bytes;
        if u32::from_be_bytes([m0, m1, m2, m3]) != CONNECT_PRIVATE_MAGIC || version != CONNECT_PRIVATE_VERSION {
            return None;
        }
        Some(ConnectPrivate { flags, send_code, recv_code })
    }
}

/// The largest inline messages one side of a connection sends and receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InlineThresholds {
    pub send: u32,
    pub recv: u32,
}

impl InlineThresholds {
    /// RFC 8166 §3.3.2: 1024 bytes each way.
    pub const DEFAULT: InlineThresholds = InlineThresholds { send: DEFAULT_INLINE_SIZE, recv: DEFAULT_INLINE_SIZE };

    /// The private data advertising these thresholds.
    pub fn to_private(self, remote_invalidation: bool) -> ConnectPrivate {
        ConnectPrivate::new(self.send, self.recv, remote_invalidation)
    }

    /// The thresholds in force once the peer's private data (if any) is known: ours, clamped so we never
    /// send more than the peer can receive nor expect more than the peer will send. Without a peer
    /// message the peer is taken to use [`InlineThresholds::DEFAULT`].
    pub fn negotiate(self, peer: Option<&ConnectPrivate>) -> InlineThresholds {
        let (peer_send, peer_recv) =
            peer.map_or((DEFAULT_INLINE_SIZE, DEFAULT_INLINE_SIZE), |p| (p.send_size(), p.recv_size()));
        InlineThresholds { send: self.send.min(peer_recv), recv: self.recv.min(peer_send) }
    }
}

impl Default for InlineThresholds {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Turns the raw private data a peer sent (or none) into the thresholds in force for us.
pub fn effective_thresholds(local: InlineThresholds, peer_private_data: Option<&[u8]>) -> InlineThresholds {
    local.negotiate(peer_private_data.and_then(ConnectPrivate::decode).as_ref())
}
