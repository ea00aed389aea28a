use std::time::{Duration, Instant};

use crate::*;

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[test]
fn xids_are_allocated_sequentially_from_the_seed_and_wrap() {
    let t0 = Instant::now();
    let mut tracker = CallTracker::new(u32::MAX - 1, 8);
    let xids: Vec<u32> = (0..4).map(|i| tracker.start(i, t0).unwrap()).collect();
    assert_eq!(xids, [u32::MAX - 1, u32::MAX, 0, 1]);
    assert_eq!(tracker.outstanding(), 4);
}

#[test]
fn allocation_skips_xids_still_outstanding_after_a_wrap() {
    let t0 = Instant::now();
    let mut tracker = CallTracker::new(10, 8);
    assert_eq!(tracker.start("a", t0).unwrap(), 10);
    assert_eq!(tracker.start("b", t0).unwrap(), 11);
    tracker.set_next_xid(10);
    assert_eq!(tracker.start("c", t0).unwrap(), 12);
}

#[test]
fn start_refuses_a_call_when_every_slot_is_taken_and_returns_the_token() {
    let t0 = Instant::now();
    let mut tracker = CallTracker::new(1, 2);
    let a = tracker.start("a", t0).unwrap();
    tracker.start("b", t0).unwrap();
    assert!(!tracker.has_free_slot());
    assert_eq!(tracker.start("c", t0), Err(NoFreeSlot { token: "c" }));
    assert_eq!(tracker.on_reply(a), ReplyMatch::Matched { xid: a, token: "a", retransmits: 0 });
    assert_eq!(tracker.free_slots(), 1);
    assert!(tracker.start("c", t0).is_ok());
}

#[test]
fn lowering_the_slot_limit_keeps_outstanding_calls() {
    let t0 = Instant::now();
    let mut tracker = CallTracker::new(1, 4);
    let xids: Vec<u32> = (0..3).map(|i| tracker.start(i, t0).unwrap()).collect();
    tracker.set_max_outstanding(1);
    assert_eq!(tracker.free_slots(), 0);
    assert!(tracker.start(9, t0).is_err());
    tracker.on_reply(xids[0]);
    tracker.on_reply(xids[1]);
    assert!(tracker.start(9, t0).is_err(), "still one outstanding, limit one");
    tracker.on_reply(xids[2]);
    assert!(tracker.start(9, t0).is_ok());
    assert_eq!(tracker.max_outstanding(), 1);
}

#[test]
fn reply_with_an_unknown_xid_is_reported_not_a_panic() {
    let mut tracker: CallTracker<()> = CallTracker::new(1, 4);
    assert_eq!(tracker.on_reply(12345), ReplyMatch::Unknown { xid: 12345 });
    let xid = tracker.start((), Instant::now()).unwrap();
    assert!(matches!(tracker.on_reply(xid), ReplyMatch::Matched { .. }));
    assert_eq!(tracker.on_reply(xid), ReplyMatch::Unknown { xid }, "a duplicate reply matches nothing");
}

#[test]
fn timed_out_calls_are_reported_earliest_first_and_retransmitted_with_the_same_xid() {
    let t0 = Instant::now();
    let mut tracker = CallTracker::new(100, 8);
    let late = tracker.start("late", t0 + secs(30)).unwrap();
    let early = tracker.start("early", t0 + secs(10)).unwrap();
    let middle = tracker.start("middle", t0 + secs(20)).unwrap();
    assert_eq!(tracker.next_deadline(), Some(t0 + secs(10)));
    assert!(tracker.timed_out(t0 + secs(9)).is_empty());

    let due = tracker.timed_out(t0 + secs(20));
    assert_eq!(
        due,
        vec![
            TimedOut { xid: early, deadline: t0 + secs(10), retransmits: 0 },
            TimedOut { xid: middle, deadline: t0 + secs(20), retransmits: 0 },
        ]
    );
    // Left alone, a timed-out call is reported again.
    assert_eq!(tracker.timed_out(t0 + secs(20)).len(), 2);

    assert_eq!(tracker.retransmitted(early, t0 + secs(40)), Some(1));
    assert_eq!(tracker.cancel(middle), Some("middle"));
    assert_eq!(tracker.next_deadline(), Some(t0 + secs(30)));
    assert_eq!(tracker.timed_out(t0 + secs(35)), vec![TimedOut { xid: late, deadline: t0 + secs(30), retransmits: 0 }]);
    assert_eq!(tracker.retransmitted(early, t0 + secs(50)), Some(2));
    assert_eq!(tracker.get(early), Some(&"early"));
    assert_eq!(tracker.on_reply(early), ReplyMatch::Matched { xid: early, token: "early", retransmits: 2 });
    assert_eq!(tracker.on_reply(middle), ReplyMatch::Unknown { xid: middle }, "cancelled calls are forgotten");
    assert_eq!(tracker.retransmitted(middle, t0), None);
}

#[test]
fn drain_returns_every_outstanding_call_by_deadline_and_empties_the_tracker() {
    let t0 = Instant::now();
    let mut tracker = CallTracker::new(0, 8);
    let b = tracker.start('b', t0 + secs(2)).unwrap();
    let a = tracker.start('a', t0 + secs(1)).unwrap();
    *tracker.get_mut(a).unwrap() = 'A';
    assert_eq!(tracker.drain(), vec![(a, 'A'), (b, 'b')]);
    assert_eq!(tracker.outstanding(), 0);
    assert_eq!(tracker.next_deadline(), None);
}
