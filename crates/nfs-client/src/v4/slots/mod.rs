//! The fore channel's slot table (RFC 8881 §2.10.6), sans I/O: which slot and sequence id a COMPOUND
//! goes out with, and what the SEQUENCE result it comes back with means for that slot.
//!
//! - There are as many slots as the client wants in flight (the engine's iodepth), capped by what
//!   CREATE_SESSION granted (`ca_maxrequests`) and by what the server asks now
//!   (`sr_target_highest_slotid`, lowered and raised with every reply, and `sr_highest_slotid`).
//! - A call takes the lowest free slot under that limit or waits ([`SlotTable::acquire`] says `None`);
//!   never more calls than usable slots are out.
//! - Each slot counts its sequence id: a reply moves it on; a call that got no answer (its connection
//!   went, it was abandoned) leaves the slot's next id one higher, and the server's answer of
//!   NFS4ERR_SEQ_MISORDERED then walks it back, as Linux's `nfs41_sequence_process` does.
//! - While a session is recovered the table drains: no new slot is handed out.

use std::time::Duration;

use nfs4_proto::NfsErr4;

/// Linux's cap on a session's slot table (`NFS4_MAX_SLOT_TABLE`).
pub(crate) const MAX_SLOTS: u32 = 1024;

/// One slot as the client keeps it.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// The sequence id the next call on this slot carries.
    seq_nr: u32,
    /// The last sequence id the server answered on this slot (`None` before the first reply).
    last_acked: Option<u32>,
    /// The highest sequence id sent on this slot, answered or not.
    highest_sent: Option<u32>,
    in_use: bool,
}

/// A slot handed to one call: what its SEQUENCE carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SlotLease {
    pub(crate) slotid: u32,
    pub(crate) seqid: u32,
    /// `sa_highest_slotid`: the highest slot id the client has a call outstanding on, this one included.
    pub(crate) highest_slotid: u32,
}

/// What the SEQUENCE operation of a reply said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SequenceOutcome {
    /// SEQUENCE succeeded (whatever the later operations did).
    Ok { highest_slotid: u32, target_highest_slotid: u32, status_flags: u32 },
    /// SEQUENCE failed with this status.
    Failed(NfsErr4),
}

/// What to do with a call once its reply's SEQUENCE was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The slot is free again; the call's own results stand. `status_flags` is `sr_status_flags`.
    Done { status_flags: u32 },
    /// Send the call again on the same slot (still held) with `seqid`, after `delay` when given.
    RetrySameSlot { seqid: u32, delay: bool },
    /// The slot is free again; send the call again on a new one.
    RetryNewSlot,
    /// The session is unusable (BADSESSION, DEADSESSION, a retired slot): recover it, then send the
    /// call again on the new session. The slot is given up.
    RecoverSession(NfsErr4),
    /// The slot is free again; the SEQUENCE error is the call's result.
    Failed(NfsErr4),
}

/// The fore channel's slots.
#[derive(Debug)]
pub(crate) struct SlotTable {
    slots: Vec<Slot>,
    /// Slots the client wants (its calls in flight), at most `slots.len()`.
    wanted: u32,
    /// `sr_target_highest_slotid` / `sr_highest_slotid` as last read: slots above are not used.
    server_highest: u32,
    /// Slots below this index have been handed out at some time; none above is in use, so the
    /// highest slot in use is looked for below it, not through the whole grant.
    high_water: usize,
    draining: bool,
}

impl SlotTable {
    /// A table of `granted` slots (`ca_maxrequests` from CREATE_SESSION, at most [`MAX_SLOTS`]) of which
    /// the client uses `wanted`. Sequence ids start at 1 (RFC 8881 §2.10.6.1).
    pub(crate) fn new(granted: u32, wanted: u32) -> Self {
        let granted = granted.clamp(1, MAX_SLOTS);
        let slot = Slot { seq_nr: 1, ..Slot::default() };
        SlotTable {
            slots: vec![slot; granted as usize],
            wanted: wanted.clamp(1, granted),
            server_highest: granted - 1,
            high_water: 0,
            draining: false,
        }
    }

    /// Slots a call may take now: the lowest of what the client wants, the table and the server's target.
    pub(crate) fn usable(&self) -> u32 {
        self.wanted.min(self.server_highest + 1)
    }

    /// Calls outstanding.
    #[cfg(test)]
    pub(crate) fn in_use(&self) -> usize {
        self.slots.iter().filter(|s| s.in_use).count()
    }

    /// Stops (true) or resumes handing out slots, for session recovery.
    pub(crate) fn set_draining(&mut self, draining: bool) {
        self.draining = draining;
    }

    pub(crate) fn is_draining(&self) -> bool {
        self.draining
    }

    /// The lowest free usable slot, now taken; `None` when the call must wait (all usable slots busy,
    /// or the table drains).
    pub(crate) fn acquire(&mut self) -> Option<SlotLease> {
        if self.draining {
            return None;
        }
        self.acquire_privileged()
    }

    /// [`acquire`](Self::acquire) for the recovery's own calls, which go out while the table drains.
    pub(crate) fn acquire_privileged(&mut self) -> Option<SlotLease> {
        let usable = self.usable() as usize;
        let slotid = self.slots.iter().take(usable).position(|s| !s.in_use)?;
        self.slots[slotid].in_use = true;
        self.high_water = self.high_water.max(slotid + 1);
        Some(self.lease(slotid as u32))
    }

    fn lease(&self, slotid: u32) -> SlotLease {
        let in_use = self.slots.get(..self.high_water).unwrap_or(&self.slots);
        let highest = in_use.iter().rposition(|s| s.in_use).unwrap_or(slotid as usize) as u32;
        SlotLease { slotid, seqid: self.slots[slotid as usize].seq_nr, highest_slotid: highest.max(slotid) }
    }

    /// The reply to the call on `slotid` came back with this SEQUENCE outcome.
    pub(crate) fn on_reply(&mut self, slotid: u32, outcome: SequenceOutcome) -> Verdict {
        let Some(slot) = self.slots.get_mut(slotid as usize) else {
            return Verdict::Failed(NfsErr4::BadSlot);
        };
        let seq = slot.seq_nr;
        slot.highest_sent = Some(slot.highest_sent.map_or(seq, |h| later(h, seq)));
        match outcome {
            SequenceOutcome::Ok { highest_slotid, target_highest_slotid, status_flags } => {
                slot.last_acked = Some(seq);
                slot.seq_nr = seq.wrapping_add(1);
                slot.in_use = false;
                self.update_target(highest_slotid, target_highest_slotid);
                Verdict::Done { status_flags }
            }
            // RFC 8881 §2.10.6.2: the server still works on a retry of this request; ask again later.
            SequenceOutcome::Failed(NfsErr4::Delay) => {
                slot.last_acked = Some(seq);
                Verdict::RetrySameSlot { seqid: seq, delay: true }
            }
            // The server takes this for a replay of another request: move on to a new sequence id.
            SequenceOutcome::Failed(NfsErr4::RetryUncachedRep | NfsErr4::SeqFalseRetry) => {
                slot.last_acked = Some(seq);
                slot.seq_nr = seq.wrapping_add(1);
                Verdict::RetrySameSlot { seqid: slot.seq_nr, delay: false }
            }
            // A retired slot: recover the session when it lies below the target, else use another one.
            SequenceOutcome::Failed(NfsErr4::BadSlot) => {
                slot.in_use = false;
                if slotid < self.server_highest {
                    Verdict::RecoverSession(NfsErr4::BadSlot)
                } else {
                    self.server_highest = slotid.saturating_sub(1);
                    Verdict::RetryNewSlot
                }
            }
            SequenceOutcome::Failed(NfsErr4::SeqMisordered) => {
                // Calls on this slot went unanswered, so our id may run ahead of the server's: step back
                // once (Linux: seq_nr - seq_nr_last_acked > 1); otherwise retry from the highest sent.
                let ahead = slot.last_acked.map_or(seq != 1, |acked| seq.wrapping_sub(acked) > 1);
                if ahead {
                    slot.seq_nr = seq.wrapping_sub(1);
                    Verdict::RetrySameSlot { seqid: slot.seq_nr, delay: false }
                } else {
                    slot.seq_nr = slot.highest_sent.unwrap_or(seq);
                    Verdict::RetrySameSlot { seqid: slot.seq_nr, delay: true }
                }
            }
            SequenceOutcome::Failed(
                e @ (NfsErr4::BadSession | NfsErr4::DeadSession | NfsErr4::ConnNotBoundToSession),
            ) => {
                slot.in_use = false;
                Verdict::RecoverSession(e)
            }
            SequenceOutcome::Failed(e) => {
                // Linux's default: the sequence id was consumed; the error goes to the caller.
                slot.seq_nr = seq.wrapping_add(1);
                slot.in_use = false;
                Verdict::Failed(e)
            }
        }
    }

    /// The call on `slotid` ended without a reply (a soft timeout, an unmount, a caller that stopped
    /// waiting): the server may or may not have seen it, so the next call on the slot uses the next id.
    pub(crate) fn abandon(&mut self, slotid: u32) {
        if let Some(slot) = self.slots.get_mut(slotid as usize) {
            let seq = slot.seq_nr;
            slot.highest_sent = Some(slot.highest_sent.map_or(seq, |h| later(h, seq)));
            slot.seq_nr = seq.wrapping_add(1);
            slot.in_use = false;
        }
    }

    /// The lease for a retry on a slot the call still holds, with the seqid [`Verdict::RetrySameSlot`] gave.
    pub(crate) fn lease_again(&self, slotid: u32) -> SlotLease {
        self.lease(slotid)
    }

    /// RFC 8881 §2.10.6.1 (and Linux's `nfs41_update_target_slotid`): slots above the server's target,
    /// or above the highest it still accepts, are not used; the target may rise again up to the table.
    fn update_target(&mut self, highest_slotid: u32, target_highest_slotid: u32) {
        let last = self.slots.len() as u32 - 1;
        self.server_highest = target_highest_slotid.min(highest_slotid).min(last);
    }
}

/// The later of two sequence ids, with wraparound (RFC 8881 §2.10.6.1: ids wrap at 2^32).
fn later(a: u32, b: u32) -> u32 {
    if b.wrapping_sub(a) as i32 > 0 {
        b
    } else {
        a
    }
}

/// Linux's `nfs4_delay`-like backoff for NFS4ERR_DELAY and NFS4ERR_GRACE: 100 ms doubling to 15 s
/// (`NFS4_POLL_RETRY_MIN` .. `NFS4_POLL_RETRY_MAX`).
pub(crate) fn retry_delay(attempt: u32) -> Duration {
    const MIN: Duration = Duration::from_millis(100);
    const MAX: Duration = Duration::from_secs(15);
    MIN.saturating_mul(1 << attempt.min(8)).min(MAX)
}

#[cfg(test)]
mod tests;
