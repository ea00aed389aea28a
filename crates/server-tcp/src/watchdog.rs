//! A connection's timeouts, checked on a periodic tick rather than re-armed per read or call, so the
//! fast path pays nothing for them: the connection counts bytes and records as it already does, and
//! each tick compares them with the previous tick's.
//!
//! A condition counts a tick only when it held at both ends of the interval with nothing moving in
//! between, so a connection closes once its condition lasted between the timeout and one tick more.

use std::time::Duration;

use server_core::ConnectionLimits;

/// Fewest timer checks per shortest timeout: a connection closes between its timeout and a quarter more.
const CHECKS_PER_TIMEOUT: u32 = 4;
/// The timer never fires more often than this, whatever the timeouts.
const MIN_CHECK_PERIOD: Duration = Duration::from_millis(10);

/// How often each connection checks its timeouts: a quarter of the shortest one set; `None` when none
/// is.
pub(crate) fn check_period(limits: &ConnectionLimits) -> Option<Duration> {
    [limits.idle_timeout, limits.partial_record_timeout, limits.write_stall_timeout]
        .into_iter()
        .filter(|t| !t.is_zero())
        .min()
        .map(|shortest| (shortest / CHECKS_PER_TIMEOUT).max(MIN_CHECK_PERIOD))
}

/// What a connection looked like at one tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Observation {
    /// Nothing in flight, no complete record waiting, and between records.
    pub idle: bool,
    /// Inside a record (RFC 5531 §11: part of a fragment header, a fragment, or a record whose last
    /// fragment has not come), with nothing else waiting on this side.
    pub partial: bool,
    /// Reading was paused by this side (a cap) at some time since the last tick: a record that stays
    /// incomplete is then not the peer's doing.
    pub paused: bool,
    /// Replies waiting to be written.
    pub owed: bool,
    /// Bytes read, bytes written and records completed since the connection opened.
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub records: u64,
}

/// Why a connection is to be closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expired {
    Idle,
    PartialRecord,
    WriteStall,
}

/// The tick counts of one connection.
#[derive(Debug)]
pub(crate) struct Watchdog {
    /// Ticks each timeout needs (`None`: off).
    idle_after: Option<u32>,
    partial_after: Option<u32>,
    stall_after: Option<u32>,
    last: Option<Observation>,
    idle_ticks: u32,
    partial_ticks: u32,
    stall_ticks: u32,
}

fn ticks(timeout: Duration, period: Duration) -> Option<u32> {
    if timeout.is_zero() || period.is_zero() {
        return None;
    }
    let n = timeout.as_nanos().div_ceil(period.as_nanos());
    Some(u32::try_from(n).unwrap_or(u32::MAX).max(1))
}

impl Watchdog {
    pub(crate) fn new(idle: Duration, partial: Duration, stall: Duration, period: Duration) -> Self {
        Watchdog {
            idle_after: ticks(idle, period),
            partial_after: ticks(partial, period),
            stall_after: ticks(stall, period),
            last: None,
            idle_ticks: 0,
            partial_ticks: 0,
            stall_ticks: 0,
        }
    }

    /// Takes one tick's observation; says which timeout, if any, has run out.
    pub(crate) fn tick(&mut self, now: Observation) -> Option<Expired> {
        let last = self.last.replace(now)?; // The first tick sets the baseline.
        let quiet_in = last.bytes_in == now.bytes_in;
        self.idle_ticks = match last.idle && now.idle && quiet_in {
            true => self.idle_ticks.saturating_add(1),
            false => 0,
        };
        // Bytes arriving do not matter here, only whether the same record is still incomplete.
        let same_record = last.records == now.records;
        self.partial_ticks = match last.partial && now.partial && same_record && !now.paused {
            true => self.partial_ticks.saturating_add(1),
            false => 0,
        };
        let stalled = last.owed && now.owed && last.bytes_out == now.bytes_out;
        self.stall_ticks = match stalled {
            true => self.stall_ticks.saturating_add(1),
            false => 0,
        };
        let over = |count: u32, after: Option<u32>| after.is_some_and(|after| count >= after);
        if over(self.stall_ticks, self.stall_after) {
            Some(Expired::WriteStall)
        } else if over(self.partial_ticks, self.partial_after) {
            Some(Expired::PartialRecord)
        } else if over(self.idle_ticks, self.idle_after) {
            Some(Expired::Idle)
        } else {
            None
        }
    }

    /// Whole ticks the connection has been idle or inside one record: how abandoned it looks.
    pub(crate) fn quiet_ticks(&self) -> u32 {
        self.idle_ticks.max(self.partial_ticks)
    }

    /// Whole ticks the connection has been idle.
    pub(crate) fn idle_ticks(&self) -> u32 {
        self.idle_ticks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn timeouts_are_checked_four_times_per_shortest_one_and_zero_turns_one_off() {
        let limits = ConnectionLimits::default();
        assert_eq!(check_period(&limits), Some(server_core::DEFAULT_PARTIAL_RECORD_TIMEOUT / 4));
        let off = ConnectionLimits {
            idle_timeout: Duration::ZERO,
            partial_record_timeout: Duration::ZERO,
            write_stall_timeout: Duration::from_millis(400),
            ..limits
        };
        assert_eq!(check_period(&off), Some(Duration::from_millis(100)));
        let none = ConnectionLimits { write_stall_timeout: Duration::ZERO, ..off };
        assert_eq!(check_period(&none), None);
        let tiny = ConnectionLimits { idle_timeout: Duration::from_millis(1), ..limits };
        assert_eq!(check_period(&tiny), Some(MIN_CHECK_PERIOD));
    }

    fn dog() -> Watchdog {
        // Idle after 4 ticks, a partial record after 2, a stall after 3.
        Watchdog::new(400 * MS, 200 * MS, 250 * MS, 100 * MS)
    }

    fn idle() -> Observation {
        Observation { idle: true, ..Observation::default() }
    }

    #[test]
    fn an_idle_connection_expires_after_its_ticks_and_a_byte_starts_over() {
        let mut dog = dog();
        assert_eq!(dog.tick(idle()), None, "the first tick only sets the baseline");
        for _ in 0..3 {
            assert_eq!(dog.tick(idle()), None);
        }
        assert_eq!(dog.tick(Observation { bytes_in: 1, ..idle() }), None, "a byte arrived");
        for _ in 0..3 {
            assert_eq!(dog.tick(Observation { bytes_in: 1, ..idle() }), None);
        }
        assert_eq!(dog.tick(Observation { bytes_in: 1, ..idle() }), Some(Expired::Idle));
    }

    #[test]
    fn a_record_trickled_in_expires_although_bytes_keep_arriving() {
        let mut dog = dog();
        let partial = |bytes_in| Observation { partial: true, bytes_in, records: 7, ..Observation::default() };
        assert_eq!(dog.tick(partial(10)), None);
        assert_eq!(dog.tick(partial(11)), None);
        assert_eq!(dog.tick(partial(12)), Some(Expired::PartialRecord));
    }

    #[test]
    fn a_new_record_or_a_pause_on_this_side_starts_the_partial_count_over() {
        let mut dog = dog();
        let partial = |records, paused| Observation { partial: true, records, paused, ..Observation::default() };
        assert_eq!(dog.tick(partial(1, false)), None);
        assert_eq!(dog.tick(partial(1, false)), None);
        assert_eq!(dog.tick(partial(2, false)), None, "another record");
        assert_eq!(dog.tick(partial(2, false)), None);
        assert_eq!(dog.tick(partial(2, true)), None, "this side stopped reading");
        assert_eq!(dog.tick(partial(2, false)), None);
        assert_eq!(dog.tick(partial(2, false)), Some(Expired::PartialRecord));
    }

    #[test]
    fn replies_owed_and_not_taken_expire_and_any_progress_starts_over() {
        let mut dog = dog();
        let owed = |bytes_out| Observation { owed: true, bytes_out, ..Observation::default() };
        assert_eq!(dog.tick(owed(0)), None);
        assert_eq!(dog.tick(owed(0)), None);
        assert_eq!(dog.tick(owed(5)), None, "the peer took some");
        assert_eq!(dog.tick(owed(5)), None);
        assert_eq!(dog.tick(owed(5)), None);
        assert_eq!(dog.tick(owed(5)), Some(Expired::WriteStall));
    }

    #[test]
    fn a_busy_connection_never_expires_and_zero_turns_a_timeout_off() {
        let mut dog = Watchdog::new(Duration::ZERO, Duration::ZERO, Duration::ZERO, 100 * MS);
        for _ in 0..100 {
            assert_eq!(dog.tick(idle()), None);
        }
        assert!(dog.quiet_ticks() > 50, "still counted for eviction");
        let mut dog = self::dog();
        for i in 0..100 {
            let busy = Observation { owed: true, bytes_out: i, bytes_in: i, ..Observation::default() };
            assert_eq!(dog.tick(busy), None);
        }
        assert_eq!(dog.quiet_ticks(), 0);
    }
}
