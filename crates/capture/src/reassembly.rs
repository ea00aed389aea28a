//! TCP byte-stream reassembly from captured segments.
use crate::{Flow, Segment};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

/// One direction of a connection, reassembled.
#[derive(Debug, Clone, Default)]
pub struct TcpStream {
    /// The in-order bytes seen so far.
    pub data: Vec<u8>,
    /// For each stretch of `data`, the offset where it starts and the capture time of the segment that
    /// carried it, so that messages found in the stream can be given a time.
    pub arrivals: Vec<(usize, Duration)>,
    /// Bytes the capture missed (a gap never filled); the stream stops at the first gap.
    pub missing_bytes: u64,
    next_seq: Option<u32>,
    pending: BTreeMap<u32, (Duration, Vec<u8>)>,
}

impl TcpStream {
    /// The capture time of the byte at `offset`.
    pub fn time_at(&self, offset: usize) -> Option<Duration> {
        let i = self.arrivals.partition_point(|(start, _)| *start <= offset);
        i.checked_sub(1).map(|i| self.arrivals[i].1)
    }

    fn push(&mut self, segment: &Segment<'_>) {
        // The SYN takes one sequence number; data starts after it.
        let seq = if segment.syn { segment.seq.wrapping_add(1) } else { segment.seq };
        let next = *self.next_seq.get_or_insert(seq);
        if segment.payload.is_empty() {
            return;
        }
        // Offset of this segment relative to what we expect next, in wrapping sequence space.
        let ahead = seq.wrapping_sub(next) as i32;
        if ahead > 0 {
            self.pending.insert(seq, (segment.timestamp, segment.payload.to_vec()));
            return;
        }
        let already = ahead.unsigned_abs() as usize;
        if already >= segment.payload.len() {
            return; // a retransmission of bytes we have
        }
        self.append(segment.timestamp, &segment.payload[already..]);
        self.drain_pending();
    }

    fn append(&mut self, timestamp: Duration, bytes: &[u8]) {
        self.arrivals.push((self.data.len(), timestamp));
        self.data.extend_from_slice(bytes);
        self.next_seq = self.next_seq.map(|s| s.wrapping_add(bytes.len() as u32));
    }

    fn drain_pending(&mut self) {
        while let Some(next) = self.next_seq {
            // Segments at or before `next` (wrapping) can be used; anything further still waits.
            let Some((&seq, _)) = self.pending.iter().find(|(&s, _)| (s.wrapping_sub(next) as i32) <= 0) else {
                return;
            };
            let Some((timestamp, bytes)) = self.pending.remove(&seq) else { return };
            let already = next.wrapping_sub(seq) as usize;
            if already < bytes.len() {
                self.append(timestamp, &bytes[already..]);
            }
        }
    }

    /// Ends the stream: whatever still waits behind a gap counts as missing.
    fn close(&mut self) {
        if let (Some(next), Some((&first, _))) = (self.next_seq, self.pending.iter().next()) {
            self.missing_bytes += u64::from(first.wrapping_sub(next));
        }
        self.pending.clear();
    }
}

/// Every TCP stream in a capture, by direction.
#[derive(Debug, Default)]
pub struct TcpStreams {
    streams: HashMap<Flow, TcpStream>,
    order: Vec<Flow>,
    /// Earlier connections whose address pair was reused by a later SYN.
    closed: Vec<(Flow, TcpStream)>,
}

impl TcpStreams {
    pub(crate) fn push(&mut self, segment: &Segment<'_>) {
        if segment.syn {
            // A new connection reusing the address pair starts a new stream; keep the old one's bytes.
            if let Some(old) = self.streams.get(&segment.flow) {
                if !old.data.is_empty() {
                    return self.push_restarted(segment);
                }
            }
        }
        if !self.streams.contains_key(&segment.flow) {
            self.order.push(segment.flow);
        }
        self.streams.entry(segment.flow).or_default().push(segment);
    }

    fn push_restarted(&mut self, segment: &Segment<'_>) {
        let mut fresh = TcpStream::default();
        fresh.push(segment);
        if let Some(mut old) = self.streams.insert(segment.flow, fresh) {
            old.close();
            self.closed.push((segment.flow, old));
        }
    }

    /// The streams in the order their first data arrived, each direction separately.
    pub fn into_streams(mut self) -> Vec<(Flow, TcpStream)> {
        let mut out = std::mem::take(&mut self.closed);
        for flow in self.order {
            if let Some(mut s) = self.streams.remove(&flow) {
                s.close();
                out.push((flow, s));
            }
        }
        out.sort_by_key(|(_, s)| s.arrivals.first().map(|a| a.1));
        out
    }
}
