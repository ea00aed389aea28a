use crate::{CreditState, GrantPolicy, INITIAL_CREDITS};

#[test]
fn a_new_connection_allows_one_call_until_the_first_reply() {
    let mut c = CreditState::new(128);
    assert_eq!((c.granted(), c.request()), (INITIAL_CREDITS, 128));
    assert!(c.try_acquire());
    assert!(!c.try_acquire(), "a second call before the first reply would exceed the initial credit");
    c.on_reply(64);
    assert_eq!((c.granted(), c.outstanding(), c.available()), (64, 0, 64));
}

#[test]
fn calls_outstanding_never_exceed_the_grant() {
    let mut c = CreditState::new(128);
    assert!(c.try_acquire());
    c.on_reply(32);
    for _ in 0..32 {
        assert!(c.try_acquire());
    }
    assert!(!c.try_acquire());
    assert_eq!(c.outstanding(), 32);
}

#[test]
fn a_zero_grant_is_read_as_one() {
    let mut c = CreditState::new(8);
    assert!(c.try_acquire());
    c.on_reply(0);
    assert_eq!(c.granted(), 1);
    assert!(c.try_acquire());
    assert!(!c.try_acquire());
}

#[test]
fn a_grant_above_our_own_slots_is_clamped() {
    let mut c = CreditState::new(16);
    assert!(c.try_acquire());
    c.on_reply(1000);
    assert_eq!((c.granted(), c.limit()), (16, 16));
    assert_eq!(CreditState::new(0).request(), 1, "at least one slot");
}

#[test]
fn a_shrinking_grant_blocks_new_calls_until_enough_replies_drain() {
    let mut c = CreditState::new(64);
    assert!(c.try_acquire());
    c.on_reply(8);
    for _ in 0..8 {
        assert!(c.try_acquire());
    }
    c.on_reply(2);
    assert_eq!((c.outstanding(), c.available()), (7, 0));
    for _ in 0..5 {
        c.on_reply(2);
    }
    assert_eq!((c.outstanding(), c.available()), (2, 0));
    c.on_reply(2);
    assert!(c.try_acquire());
}

#[test]
fn an_unsent_call_returns_its_credit_and_reset_starts_over() {
    let mut c = CreditState::new(4);
    assert!(c.try_acquire());
    c.release_unsent();
    assert_eq!(c.outstanding(), 0);
    c.release_unsent();
    c.on_reply(3);
    assert_eq!(c.outstanding(), 0, "a stray reply never underflows");
    assert!(c.try_acquire());
    c.reset();
    assert_eq!((c.granted(), c.outstanding()), (1, 0));
}

#[test]
fn under_random_grants_and_replies_a_call_is_only_sent_within_the_grant() {
    let mut c = CreditState::new(128);
    let mut state = 0x1234_5678_u32;
    for _ in 0..100_000 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        if state % 3 == 1 && c.outstanding() > 0 {
            c.on_reply(state % 200);
        } else if c.try_acquire() {
            assert!(c.outstanding() <= c.granted() && c.granted() <= 128);
        }
    }
}

#[test]
fn responder_never_grants_zero_nor_more_than_posted_receives() {
    let fixed = GrantPolicy::default();
    assert_eq!(fixed, GrantPolicy::Fixed(64));
    assert_eq!(fixed.grant(128, 256), 64);
    assert_eq!(fixed.grant(128, 10), 10);
    assert_eq!(fixed.grant(128, 0), 1);
    assert_eq!(GrantPolicy::Fixed(0).grant(128, 256), 1);
    let echo = GrantPolicy::UpToRequested { max: 100 };
    assert_eq!(echo.grant(32, 256), 32);
    assert_eq!(echo.grant(128, 256), 100);
    assert_eq!(echo.grant(0, 256), 1);
    for requested in [0, 1, 7, 64, u32::MAX] {
        for posted in [1, 3, 64, 1000] {
            for policy in [GrantPolicy::Fixed(requested), GrantPolicy::UpToRequested { max: 50 }] {
                let g = policy.grant(requested, posted);
                assert!((1..=posted).contains(&g), "{policy:?} {requested} {posted} -> {g}");
            }
        }
    }
}
