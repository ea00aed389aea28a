//! The RDMA Write bandwidth connection's control messages, the Sends after the hello (ours; big-endian),
//! as pure functions:
//!
//! ```text
//! client → responder  "ready"    its receive for the segment is posted
//! responder → client  segment    0..4 handle (R_key), 4..12 offset, 12..16 length: the writable buffer
//! client → responder  "done"     every Write completed (RC places them before this Send is delivered)
//! responder → client  "done"     the responder saw it; the client disconnects
//! ```

use crate::error::WireError;
use rdma::RemoteSegment;

pub(crate) const READY: &[u8] = b"ready";
pub(crate) const DONE: &[u8] = b"done";
pub(crate) const SEGMENT_LEN: usize = 16;

/// The segment message.
pub(crate) fn encode_segment(seg: RemoteSegment) -> [u8; SEGMENT_LEN] {
    let mut msg = [0u8; SEGMENT_LEN];
    msg[..4].copy_from_slice(&seg.handle.to_be_bytes());
    msg[4..12].copy_from_slice(&seg.offset.to_be_bytes());
    msg[12..].copy_from_slice(&seg.length.to_be_bytes());
    msg
}

/// A segment message, which must offer exactly `length` bytes.
pub(crate) fn decode_segment(msg: &[u8], length: u32) -> Result<RemoteSegment, WireError> {
    let Ok(msg) = <&[u8; SEGMENT_LEN]>::try_from(msg) else {
        return Err(WireError::Protocol(format!("a {}-byte segment message ({SEGMENT_LEN} expected)", msg.len())));
    };
    let [h0, h1, h2, h3, o0, o1, o2, o3, o4, o5, o6, o7, l0, l1, l2, l3] = *msg;
    let seg = RemoteSegment {
        handle: u32::from_be_bytes([h0, h1, h2, h3]),
        offset: u64::from_be_bytes([o0, o1, o2, o3, o4, o5, o6, o7]),
        length: u32::from_be_bytes([l0, l1, l2, l3]),
    };
    if seg.length != length {
        return Err(WireError::Protocol(format!("the responder offered {} bytes, not {length}", seg.length)));
    }
    Ok(seg)
}

/// Checks that `msg` is the control message `what`.
pub(crate) fn expect(msg: &[u8], what: &[u8]) -> Result<(), WireError> {
    if msg == what {
        return Ok(());
    }
    let shown = String::from_utf8_lossy(&msg[..msg.len().min(32)]).into_owned();
    Err(WireError::Protocol(format!("{shown:?} where {:?} belongs", String::from_utf8_lossy(what))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_round_trips_and_wrong_ones_are_refused() {
        let seg = RemoteSegment { handle: 0xdead_beef, offset: 0x0102_0304_0506_0708, length: 1 << 20 };
        let msg = encode_segment(seg);
        assert_eq!(decode_segment(&msg, 1 << 20).expect("decodes"), seg);
        let e = decode_segment(&msg, 4096).expect_err("another length").to_string();
        assert!(e.contains("offered 1048576 bytes"), "{e}");
        assert!(decode_segment(&msg[..15], 1 << 20).is_err());
        assert!(decode_segment(&[msg.as_slice(), &[0]].concat(), 1 << 20).is_err());
        assert!(decode_segment(&[], 1 << 20).is_err());
    }

    #[test]
    fn control_words_match_exactly() {
        assert!(expect(b"ready", READY).is_ok());
        assert!(expect(b"done", DONE).is_ok());
        assert!(expect(b"ready!", READY).is_err());
        assert!(expect(b"", DONE).is_err());
        let e = expect(&[0xff; 4096], READY).expect_err("garbage").to_string();
        assert!(e.contains("where \"ready\" belongs") && e.len() < 200, "{e}");
    }
}
