//! The hello that opens every baseline connection (ours; big-endian):
//!
//! ```text
//! 0..8   magic "NFSBWIRE"
//! 8      version (2: the RDMA Write bandwidth client ends with "done")
//! 9      mode: 1 stream (TCP stream, RDMA Write bandwidth), 2 ping-pong
//! 10..12 reserved, zero
//! 12..16 message size in bytes (stream: the writes' size; ping-pong: the echoed message's)
//! ```

use crate::error::WireError;

pub const HELLO_LEN: usize = 16;
const MAGIC: &[u8; 8] = b"NFSBWIRE";
const VERSION: u8 = 2;
/// Largest stream message (a responder allocates one of these per connection).
pub const MAX_MESSAGE: u32 = 16 << 20;
/// Largest ping-pong message.
pub const MAX_PING: u32 = 64 << 10;

/// What a connection will do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Stream,
    PingPong,
}

/// The opening message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hello {
    pub mode: Mode,
    pub size: u32,
}

impl Hello {
    pub fn encode(&self) -> [u8; HELLO_LEN] {
        let mut b = [0u8; HELLO_LEN];
        b[..8].copy_from_slice(MAGIC);
        b[8] = VERSION;
        b[9] = match self.mode {
            Mode::Stream => 1,
            Mode::PingPong => 2,
        };
        b[12..16].copy_from_slice(&self.size.to_be_bytes());
        b
    }

    /// Decode and check a hello (extra bytes after it, as RDMA-CM pads private data, are ignored).
    pub fn decode(bytes: &[u8]) -> Result<Hello, WireError> {
        let bad = |why: &str| WireError::Protocol(format!("bad hello: {why}"));
        if bytes.len() < HELLO_LEN {
            return Err(bad(&format!("{} bytes, {HELLO_LEN} needed", bytes.len())));
        }
        if &bytes[..8] != MAGIC {
            return Err(bad("not an nfsbench wire-baseline peer"));
        }
        if bytes[8] != VERSION {
            return Err(bad(&format!("version {} (this side speaks {VERSION})", bytes[8])));
        }
        let mode = match bytes[9] {
            1 => Mode::Stream,
            2 => Mode::PingPong,
            m => return Err(bad(&format!("mode {m}"))),
        };
        if bytes[10..12] != [0, 0] {
            return Err(bad("reserved bytes set"));
        }
        let size = u32::from_be_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
        let max = match mode {
            Mode::Stream => MAX_MESSAGE,
            Mode::PingPong => MAX_PING,
        };
        if size == 0 || size > max {
            return Err(bad(&format!("message size {size} (1..={max})")));
        }
        Ok(Hello { mode, size })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hello_round_trips_and_hostile_ones_are_refused() {
        let h = Hello { mode: Mode::PingPong, size: 64 };
        assert_eq!(Hello::decode(&h.encode()).expect("decodes"), h);
        let mut padded = h.encode().to_vec();
        padded.extend([0u8; 40]);
        assert_eq!(Hello::decode(&padded).expect("padding ignored"), h);
        type Corrupt<'a> = &'a dyn Fn(&mut [u8; HELLO_LEN]);
        let cases: [(Corrupt, &str); 5] = [
            (&|b| b[0] = b'X', "not an nfsbench"),
            (&|b| b[8] = 1, "version 1"),
            (&|b| b[9] = 7, "mode 7"),
            (&|b| b[11] = 1, "reserved"),
            (&|b| b[12..16].copy_from_slice(&u32::MAX.to_be_bytes()), "message size"),
        ];
        for (corrupt, needle) in cases {
            let mut b = h.encode();
            corrupt(&mut b);
            let e = Hello::decode(&b).expect_err("refused").to_string();
            assert!(e.contains(needle), "{e}");
        }
        let whole = h.encode();
        for short in 0..HELLO_LEN {
            assert!(Hello::decode(&whole[..short]).is_err(), "{short} bytes");
        }
        assert!(Hello::decode(&Hello { mode: Mode::Stream, size: 0 }.encode()).is_err());
        assert!(Hello::decode(&Hello { mode: Mode::PingPong, size: MAX_PING + 1 }.encode()).is_err());
        let biggest = Hello { mode: Mode::Stream, size: MAX_MESSAGE };
        assert_eq!(Hello::decode(&biggest.encode()).expect("the cap itself"), biggest);
        assert!(Hello::decode(&Hello { mode: Mode::Stream, size: MAX_MESSAGE + 1 }.encode()).is_err());
    }
}
