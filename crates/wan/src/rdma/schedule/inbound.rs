//! The receive side of the timeline: the peer's messages, held until they arrive over the inbound
//! direction, each charged first with what the peer did to our memory by its own RDMA Reads and Writes
//! since its previous message. The peer's Reads go through as many slots as our responder resources
//! (RC caps the Reads in flight towards a responder), each taking a request one way and the data back.
//!
//! The peer's counters are cumulative and read once per batch of inner completions, so the whole
//! delta is charged to the batch's first message: a later message of the same batch comes right
//! behind it. That errs on the late side (never before the data it depends on could have crossed).

use std::time::Instant;

use ::rdma::{Completion, CompletionKind, PeerOneSided, WcError};

use super::{Action, Kind, State};

#[derive(Debug)]
pub(super) struct HeldRecv {
    completion: Completion,
    /// Bytes on the wire; `None` for an error completion (nothing crossed the link).
    len: Option<u64>,
    /// When the peer sends it in emulated time; `None` while it waits for the data the peer pulled.
    start: Option<Instant>,
    /// Its arrival here, once handed to the inbound direction.
    release: Option<Instant>,
    /// The peer's RDMA Reads of our memory it waits for, and when the last one's data got in so far.
    reads_pending: u64,
    pulled_until: Option<Instant>,
}

impl HeldRecv {
    pub(super) fn start(&self) -> Option<Instant> {
        self.start
    }

    pub(super) fn release(&self) -> Option<Instant> {
        self.release
    }
}

impl State {
    pub(super) fn on_inner_recv(&mut self, now: Instant, completion: Completion, counters: Option<PeerOneSided>) {
        let len = match &completion.result {
            Ok(CompletionKind::Recv(bytes)) => Some(bytes.len() as u64),
            _ => None,
        };
        let recv = self.recv_first + self.recvs.len() as u64;
        let mut held =
            HeldRecv { completion, len, start: Some(now), release: None, reads_pending: 0, pulled_until: None };
        if let (Some(_), Some(total)) = (len, counters) {
            // What the peer did to our memory since its previous message happened before this one
            // (RC: its Writes are placed, its Reads done, before the Send it posts after them).
            let seen = self.peer_seen;
            let pulled = total.read_bytes.saturating_sub(seen.read_bytes);
            let pushed = total.written_bytes.saturating_sub(seen.written_bytes);
            let reads = total.reads.saturating_sub(seen.reads).max(u64::from(pulled > 0));
            self.peer_seen = PeerOneSided {
                read_bytes: total.read_bytes.max(seen.read_bytes),
                written_bytes: total.written_bytes.max(seen.written_bytes),
                reads: total.reads.max(seen.reads),
            };
            if pushed > 0 {
                // The peer's RDMA Writes come in ahead of its message, on the same inbound direction.
                self.flow_in.arrival(&self.link.inbound, now, pushed);
            }
            if pulled > 0 {
                held.start = None;
                held.reads_pending = reads;
                // The bytes shared evenly over the Reads (counted together, so sizes are not known apart).
                for k in 0..reads {
                    let bytes = pulled / reads + u64::from(k < pulled % reads);
                    self.peer_reads_waiting.push_back((recv, bytes, now));
                }
            }
        }
        self.recvs.push_back(held);
        self.issue_peer_reads();
    }

    /// The peer issues its waiting RDMA Reads of our memory as Read slots free: RC lets at most our
    /// responder resources be in flight towards us, each until its data is in (the peer's initiator
    /// depth is negotiated down to them). Each request then takes one-way to reach us.
    fn issue_peer_reads(&mut self) {
        while !self.peer_reads_waiting.is_empty() && !self.peer_read_slots.is_empty() {
            let Some((recv, bytes, ready)) = self.peer_reads_waiting.pop_front() else { break };
            let earliest = self.peer_read_slots.iter().enumerate().min_by_key(|(_, free)| **free).map_or(0, |(i, _)| i);
            let issued = self.peer_read_slots.swap_remove(earliest).max(ready);
            self.schedule(issued + self.link.inbound.one_way(), Action::PeerRead { recv, bytes });
        }
    }

    /// The peer's RDMA Read request for held message `recv` reached us at `at`: our responder's data
    /// goes out serialised on the outbound direction, and the peer sends its message once the data is
    /// in (RFC 8166 §3.4.5: the responder pulls a Read chunk before it processes the call). The data's
    /// arrival frees the peer's Read slot.
    pub(super) fn peer_read_arrives(&mut self, at: Instant, recv: u64, bytes: u64) {
        let pulled = self.link.outbound.transmit(at, bytes);
        let index = recv.checked_sub(self.recv_first).and_then(|i| usize::try_from(i).ok());
        if let Some(held) = index.and_then(|i| self.recvs.get_mut(i)) {
            held.pulled_until = Some(held.pulled_until.map_or(pulled, |p| p.max(pulled)));
            held.reads_pending = held.reads_pending.saturating_sub(1);
            if held.reads_pending == 0 {
                held.start = held.pulled_until;
            }
        }
        self.peer_read_slots.push(pulled);
        self.issue_peer_reads();
    }

    /// The caller disconnected: every held message completes flushed, at once.
    pub(super) fn flush_recvs(&mut self, now: Instant) {
        for held in &mut self.recvs {
            held.completion.result = Err(WcError::Flushed);
            held.start.get_or_insert(now);
        }
    }

    /// Hands each message whose sending time has come to the inbound direction (in order: the peer's
    /// Sends do not overtake each other), then moves those that have arrived to the caller's queue.
    pub(super) fn release_recvs(&mut self, now: Instant) {
        while let Some(held) = self.recvs.get_mut(self.handed) {
            let Some(start) = held.start.filter(|s| *s <= now || self.closing) else { break };
            let arrival = match held.len {
                Some(len) if !self.closing => self.flow_in.arrival(&self.link.inbound, start, len),
                _ => self.last_recv.map_or(start, |last| last.max(start)),
            };
            held.release = Some(arrival);
            self.last_recv = Some(arrival);
            self.handed += 1;
        }
        while let Some(held) = self.recvs.front() {
            if self.handed == 0 || held.release.is_some_and(|r| r > now) && !self.closing {
                break;
            }
            if let Some(held) = self.recvs.pop_front() {
                self.ready.push_back((held.completion, Kind::Recv));
            }
            self.recv_first += 1;
            self.handed -= 1;
        }
    }
}
