//! The slot table's rules, one test each.

use super::*;

fn ok(target: u32) -> SequenceOutcome {
    SequenceOutcome::Ok { highest_slotid: 1023, target_highest_slotid: target, status_flags: 0 }
}

fn fail(e: NfsErr4) -> SequenceOutcome {
    SequenceOutcome::Failed(e)
}

#[test]
fn calls_take_the_lowest_free_slot_and_never_more_than_the_client_wants() {
    let mut t = SlotTable::new(64, 3);
    let leases: Vec<_> = (0..3).map(|_| t.acquire().expect("free slot")).collect();
    assert_eq!(leases.iter().map(|l| (l.slotid, l.seqid)).collect::<Vec<_>>(), [(0, 1), (1, 1), (2, 1)]);
    assert_eq!(leases[2].highest_slotid, 2);
    assert_eq!(t.acquire(), None, "a fourth call waits");
    assert_eq!(t.on_reply(1, ok(63)), Verdict::Done { status_flags: 0 });
    let again = t.acquire().expect("slot 1 is free");
    assert_eq!((again.slotid, again.seqid, again.highest_slotid), (1, 2, 2));
}

#[test]
fn the_grant_caps_what_the_client_wants() {
    let mut t = SlotTable::new(2, 16);
    assert_eq!(t.usable(), 2);
    assert!(t.acquire().is_some() && t.acquire().is_some());
    assert_eq!(t.acquire(), None);
}

#[test]
fn the_server_target_lowers_and_raises_the_usable_slots() {
    let mut t = SlotTable::new(8, 8);
    let first = t.acquire().expect("slot");
    assert_eq!(t.on_reply(first.slotid, ok(1)), Verdict::Done { status_flags: 0 });
    assert_eq!(t.usable(), 2, "target_highest_slotid 1: slots 0 and 1");
    let (a, b) = (t.acquire().expect("0"), t.acquire().expect("1"));
    assert_eq!((a.slotid, b.slotid), (0, 1));
    assert_eq!(t.acquire(), None);
    t.on_reply(a.slotid, ok(7));
    assert_eq!(t.usable(), 8, "raised again, up to what was granted");
    assert_eq!(t.acquire().map(|l| l.slotid), Some(0));
    assert_eq!(t.acquire().map(|l| l.slotid), Some(2));
    t.on_reply(b.slotid, ok(500));
    assert_eq!(t.usable(), 8, "never beyond the table");
}

#[test]
fn a_slot_whose_call_went_unanswered_moves_on_and_seq_misordered_walks_it_back() {
    let mut t = SlotTable::new(1, 1);
    let first = t.acquire().expect("slot");
    t.on_reply(first.slotid, ok(0));
    let lost = t.acquire().expect("slot");
    assert_eq!(lost.seqid, 2);
    t.abandon(lost.slotid);
    let next = t.acquire().expect("slot");
    assert_eq!(next.seqid, 3, "the server may have seen 2");
    // It had not: 3 is misordered; step back to 2 at once.
    assert_eq!(
        t.on_reply(next.slotid, fail(NfsErr4::SeqMisordered)),
        Verdict::RetrySameSlot { seqid: 2, delay: false }
    );
    assert_eq!(t.lease_again(0).seqid, 2);
    assert_eq!(t.on_reply(0, ok(0)), Verdict::Done { status_flags: 0 });
    assert_eq!(t.acquire().expect("slot").seqid, 3);
}

#[test]
fn seq_misordered_right_after_an_acked_id_retries_from_the_highest_sent_after_a_delay() {
    let mut t = SlotTable::new(1, 1);
    let a = t.acquire().expect("slot");
    t.on_reply(a.slotid, ok(0));
    let b = t.acquire().expect("slot");
    assert_eq!(t.on_reply(b.slotid, fail(NfsErr4::SeqMisordered)), Verdict::RetrySameSlot { seqid: 2, delay: true });
}

#[test]
fn delay_keeps_the_slot_and_its_sequence_id() {
    let mut t = SlotTable::new(2, 2);
    let a = t.acquire().expect("slot");
    assert_eq!(t.on_reply(a.slotid, fail(NfsErr4::Delay)), Verdict::RetrySameSlot { seqid: 1, delay: true });
    assert_eq!(t.acquire().map(|l| l.slotid), Some(1), "slot 0 is still held by the retried call");
}

#[test]
fn a_false_retry_moves_to_the_next_sequence_id_on_the_same_slot() {
    let mut t = SlotTable::new(1, 1);
    let a = t.acquire().expect("slot");
    for e in [NfsErr4::RetryUncachedRep, NfsErr4::SeqFalseRetry] {
        let Verdict::RetrySameSlot { seqid, delay: false } = t.on_reply(a.slotid, fail(e)) else { panic!("{e}") };
        assert_eq!(t.lease_again(a.slotid).seqid, seqid);
    }
    assert_eq!(t.lease_again(a.slotid).seqid, 3);
}

#[test]
fn a_retired_slot_below_the_target_recovers_the_session_above_it_takes_another() {
    let mut t = SlotTable::new(4, 4);
    let a = t.acquire().expect("slot 0");
    assert_eq!(t.on_reply(a.slotid, fail(NfsErr4::BadSlot)), Verdict::RecoverSession(NfsErr4::BadSlot));
    let mut t = SlotTable::new(4, 4);
    let leases: Vec<_> = (0..3).map(|_| t.acquire().expect("slot")).collect();
    t.on_reply(leases[0].slotid, ok(1));
    assert_eq!(t.on_reply(leases[2].slotid, fail(NfsErr4::BadSlot)), Verdict::RetryNewSlot, "slot 2 > target 1");
    assert_eq!(t.usable(), 2);
    assert_eq!(t.acquire().map(|l| l.slotid), Some(0));
}

#[test]
fn session_errors_give_the_slot_up_for_recovery() {
    for e in [NfsErr4::BadSession, NfsErr4::DeadSession, NfsErr4::ConnNotBoundToSession] {
        let mut t = SlotTable::new(1, 1);
        let a = t.acquire().expect("slot");
        assert_eq!(t.on_reply(a.slotid, fail(e)), Verdict::RecoverSession(e));
        assert_eq!(t.in_use(), 0);
    }
}

#[test]
fn other_sequence_errors_consume_the_id_and_fail_the_call() {
    let mut t = SlotTable::new(1, 1);
    let a = t.acquire().expect("slot");
    assert_eq!(t.on_reply(a.slotid, fail(NfsErr4::StaleClientId)), Verdict::Failed(NfsErr4::StaleClientId));
    assert_eq!(t.acquire().expect("slot").seqid, 2);
}

#[test]
fn a_draining_table_hands_out_nothing_until_resumed() {
    let mut t = SlotTable::new(4, 4);
    t.set_draining(true);
    assert_eq!(t.acquire(), None);
    let reclaim = t.acquire_privileged().expect("the recovery's calls still go");
    t.on_reply(reclaim.slotid, ok(3));
    t.set_draining(false);
    assert!(t.acquire().is_some());
}

#[test]
fn sequence_ids_wrap_around_at_two_to_the_32() {
    let mut t = SlotTable::new(1, 1);
    t.slots[0].seq_nr = u32::MAX;
    let a = t.acquire().expect("slot");
    assert_eq!(a.seqid, u32::MAX);
    t.on_reply(0, ok(0));
    assert_eq!(t.acquire().expect("slot").seqid, 0);
    assert_eq!(later(u32::MAX, 0), 0);
}

#[test]
fn retries_back_off_from_100_ms_to_15_s() {
    let ms: Vec<u128> = (0..10).map(|n| retry_delay(n).as_millis()).collect();
    assert_eq!(ms, [100, 200, 400, 800, 1600, 3200, 6400, 12800, 15000, 15000]);
}
