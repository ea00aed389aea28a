//! Single-producer / single-consumer byte rings in shared memory: each side creates the ring it
//! receives on and its peer maps it read-write.
//!
//! Layout: producer position `head` (bytes ever written, at 0), consumer position `tail` (at 64),
//! the consumer's `sleeping` word (at 128), a `closed` word (at 192), then the data area of
//! `capacity` bytes (a power of two) from [`DATA`]. A record is an 8-byte header (length, then
//! zero) and the message, padded to 8 bytes; a record never wraps: a [`PAD`] header fills the rest
//! of the area instead. Positions only grow; every value read from the peer is checked before use.

use std::io;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::sys::mem::{page_round, PeerMemError, SharedMem};

const HEAD: usize = 0;
const TAIL: usize = 64;
const SLEEPING: usize = 128;
const CLOSED: usize = 192;
/// Where the data area starts.
const DATA: usize = 4096;
/// The header length that marks padding up to the end of the data area.
const PAD: u32 = u32::MAX;
/// The largest ring a connection may ask for; larger configurations use the socket channel.
const MAX_CAPACITY: usize = 64 << 20;

fn record_len(message: usize) -> usize {
    8 + message.div_ceil(8) * 8
}

/// The memfd size of a ring that holds `max_recv` messages of `recv_size` bytes (plus the padding a
/// wrap may waste), or `None` when that is too large.
pub(crate) fn ring_len(recv_size: u32, max_recv: u32) -> Option<usize> {
    let bytes = record_len(recv_size as usize).checked_mul(max_recv as usize + 1)?;
    let capacity = bytes.checked_next_power_of_two()?.max(4096);
    (capacity <= MAX_CAPACITY).then(|| page_round(DATA + capacity))
}

/// How the peer's ring broke the rules (every value read from it is checked).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RingError {
    #[error("the peer's ring has an impossible size")]
    ImpossibleSize,
    #[error(transparent)]
    Memory(#[from] PeerMemError),
    #[error("the peer's ring positions are corrupt")]
    CorruptPositions,
    #[error("the peer's ring is full: it does not take the messages its receives allow")]
    Full,
    #[error("the peer's ring records are corrupt")]
    CorruptRecords,
}

/// One mapped ring.
#[derive(Debug)]
pub(crate) struct Ring {
    mem: SharedMem,
    capacity: usize,
}

impl Ring {
    /// A new ring of `len` bytes (from [`ring_len`]) for this side to receive on.
    pub(crate) fn create(len: usize) -> io::Result<Ring> {
        let mem = SharedMem::create(c"nfsbench-rdma-soft-ring", len, false)?;
        Ok(Ring { capacity: capacity_of(len).ok_or(io::ErrorKind::InvalidInput)?, mem })
    }

    /// Maps the peer's ring of `len` bytes (as its offer said) for this side to send on.
    pub(crate) fn map_peer(fd: OwnedFd, len: usize) -> Result<Ring, RingError> {
        let capacity = capacity_of(len).ok_or(RingError::ImpossibleSize)?;
        Ok(Ring { mem: SharedMem::map_peer(fd, len, true)?, capacity })
    }

    pub(crate) fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.mem.fd()
    }

    pub(crate) fn len(&self) -> usize {
        self.mem.len()
    }

    fn word(&self, offset: usize) -> &AtomicU64 {
        self.mem.u64_at(offset)
    }

    pub(crate) fn sleeping(&self) -> &AtomicU32 {
        self.mem.u32_at(SLEEPING)
    }

    pub(crate) fn close(&self) {
        self.word(CLOSED).store(1, Ordering::SeqCst);
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.word(CLOSED).load(Ordering::SeqCst) != 0
    }

    /// The producer position as the consumer sees it.
    pub(crate) fn head(&self) -> u64 {
        self.word(HEAD).load(Ordering::SeqCst)
    }

    /// Appends one record at `head` (the producer's own count); returns the new head, published.
    pub(crate) fn push(&self, head: u64, parts: &[&[u8]]) -> Result<u64, RingError> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let tail = self.word(TAIL).load(Ordering::Acquire);
        let used = head.checked_sub(tail).filter(|used| *used <= self.capacity as u64);
        let used = used.ok_or(RingError::CorruptPositions)? as usize;
        let record = record_len(len);
        let pos = (head % self.capacity as u64) as usize;
        let to_end = self.capacity - pos;
        let need = if record <= to_end { record } else { to_end + record };
        if need > self.capacity - used {
            return Err(RingError::Full);
        }
        let (mut head, mut pos) = (head, pos);
        if record > to_end {
            self.mem.write_bytes(DATA + pos, &PAD.to_le_bytes());
            head += to_end as u64;
            pos = 0;
        }
        let mut at = DATA + pos;
        let header = (len as u64).to_le_bytes();
        self.mem.write_bytes(at, &header);
        at += 8;
        for part in parts {
            self.mem.write_bytes(at, part);
            at += part.len();
        }
        head += record as u64;
        // Publishes the record; sequentially consistent against the consumer's `sleeping` store.
        self.word(HEAD).store(head, Ordering::SeqCst);
        Ok(head)
    }

    /// Takes the record at `tail` (the consumer's own count) if one is there: `Ok(None)` when the
    /// ring is empty, else the message and the new tail (published).
    pub(crate) fn pop(&self, tail: u64, max_len: usize) -> Result<Option<(Vec<u8>, u64)>, RingError> {
        let mut tail = tail;
        let head = self.word(HEAD).load(Ordering::Acquire);
        if head.checked_sub(tail).is_none_or(|n| n > self.capacity as u64) {
            return Err(RingError::CorruptRecords);
        }
        while tail != head {
            let available = head.checked_sub(tail).ok_or(RingError::CorruptRecords)?;
            let pos = (tail % self.capacity as u64) as usize;
            let mut header = [0u8; 8];
            self.mem.read_bytes(DATA + pos, &mut header);
            let len = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
            if len == PAD {
                // The padding runs to the end of the area, which the producer must have written past.
                let pad = (self.capacity - pos) as u64;
                if pad > available {
                    return Err(RingError::CorruptRecords);
                }
                tail += pad;
                continue;
            }
            let record = record_len(len as usize);
            if len as usize > max_len || record > self.capacity - pos || record as u64 > available {
                return Err(RingError::CorruptRecords);
            }
            let message = self.mem.read_vec(DATA + pos + 8, len as usize);
            tail += record as u64;
            self.word(TAIL).store(tail, Ordering::Release);
            return Ok(Some((message, tail)));
        }
        self.word(TAIL).store(tail, Ordering::Release);
        Ok(None)
    }
}

fn capacity_of(len: usize) -> Option<usize> {
    let capacity = len.checked_sub(DATA)?;
    (capacity.is_power_of_two() && capacity <= MAX_CAPACITY).then_some(capacity)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(recv_size: u32, max_recv: u32) -> (Ring, Ring) {
        let len = ring_len(recv_size, max_recv).expect("size");
        let consumer = Ring::create(len).expect("ring");
        let fd = consumer.fd().try_clone_to_owned().expect("dup");
        (consumer, Ring::map_peer(fd, len).expect("map"))
    }

    #[test]
    fn records_come_out_in_order_across_many_wraps() {
        let (consumer, producer) = pair(100, 3);
        let (mut head, mut tail) = (0, 0);
        for i in 0..1000usize {
            let message: Vec<u8> = (0..i % 101).map(|b| (b + i) as u8).collect();
            head = producer.push(head, &[&message[..message.len() / 2], &message[message.len() / 2..]]).expect("push");
            let (got, next) = consumer.pop(tail, 100).expect("pop").expect("a record");
            assert_eq!(got, message);
            tail = next;
        }
        assert_eq!(consumer.pop(tail, 100).expect("pop"), None);
    }

    #[test]
    fn a_ring_holds_every_message_the_receives_allow() {
        let (_consumer, producer) = pair(4096, 8);
        let mut head = 0;
        for _ in 0..8 {
            head = producer.push(head, &[&[1u8; 4096]]).expect("room for each posted receive");
        }
    }

    #[test]
    fn rejects_oversized_records_and_corrupt_positions() {
        let (consumer, producer) = pair(64, 4);
        producer.push(0, &[&[0u8; 100]]).expect("push");
        let oversized = consumer.pop(0, 64).unwrap_err();
        assert!(matches!(oversized, RingError::CorruptRecords) && oversized.to_string().contains("corrupt"));
        producer.word(HEAD).store(1 << 40, Ordering::SeqCst);
        assert!(matches!(consumer.pop(0, 64), Err(RingError::CorruptRecords)));
        consumer.word(TAIL).store(1 << 40, Ordering::SeqCst);
        assert!(matches!(producer.push(0, &[b"x"]), Err(RingError::CorruptPositions)));
    }

    #[test]
    fn ring_sizes_are_bounded() {
        assert_eq!(ring_len(4096, 128), Some(4096 + (1 << 20)));
        assert_eq!(ring_len(16 << 20, 1 << 16), None);
        let fd = Ring::create(8192).expect("ring").mem.fd().try_clone_to_owned().expect("fd");
        // A valid ring length that is not the memfd's own size.
        assert!(matches!(Ring::map_peer(fd, 12288), Err(RingError::Memory(PeerMemError::Size { .. }))));
        let fd = Ring::create(8192).expect("ring").mem.fd().try_clone_to_owned().expect("fd");
        // A data area that is no power of two.
        assert!(matches!(Ring::map_peer(fd, 4096 + 3000), Err(RingError::ImpossibleSize)));
    }
}
