//! Reply coalescing on a TCP connection, sans I/O: the receive low-water mark (`SO_RCVLOWAT`) the
//! reader keeps on its socket so that, while many calls are outstanding, it is woken once per several
//! replies instead of once per reply.
//!
//! A server that answers calls one at a time (NFS-Ganesha: one `writev` per reply) makes the reader
//! sleep in `epoll_wait` and wake for each reply, and each wake-up costs a context switch, a `recvfrom`,
//! and a `writev` for the one call the engine sends back. Linux wakes a TCP reader only once the bytes
//! queued reach the mark (`tcp_data_ready`), and a lowered mark signals at once if they already do
//! (`tcp_set_rcvlowat`), so raising the mark to the bytes of a fraction of the replies that are due
//! batches the wake-ups, and with them the calls sent back.
//!
//! The mark is a guess (a reply may be dropped, or smaller than the ones before), so:
//! - it waits for the replies of at most half the calls outstanding, and never for so many that the
//!   server would have fewer than [`LEAVE_AT_SERVER`] calls to work on ([`replies_to_wait_for`]), at
//!   the size of the smallest reply of the last [`WINDOW`] or so; under [`MIN_REPLIES`] replies it
//!   stays at 1 (iodepth 1 to 9 keeps waking per reply);
//! - it is at most [`MAX_MARK`] and a quarter of the socket's receive buffer (above half of it Linux
//!   raises the buffer and clamps the receive window to the mark);
//! - the reader waits at most [`BOUND`] on a raised mark; when that runs out the mark goes back to 1 and
//!   stays there for [`COOLDOWN`] reads, so a dropped reply or a run of small replies delays the
//!   others by at most the bound, once.
//!
//! Inside one large reply (a 1 MiB READ arrives in many segments) the mark is also raised to the bytes
//! of that reply still to come (over [`MIN_REST`], at most [`MAX_REST_MARK`] and a quarter of the receive
//! buffer), so the reader wakes once for the rest of it rather than once per burst the sender's writes
//! make; the bytes are useless until the record is whole, so the wait delays nothing. On loopback each
//! wake-up also costs the sending server an inter-processor wake-up in `sock_def_readable`.
//!
//! A mark is only changed when the wanted one is outside half to twice the current one, so the
//! steady state costs no `setsockopt` per read.

use std::time::Duration;

/// Replies sized per window: the smallest of the current and the last window sizes the mark.
pub(crate) const WINDOW: u32 = 256;
/// Fewer replies than this per wake-up are not worth a raised mark.
pub(crate) const MIN_REPLIES: usize = 2;
/// The highest mark set, in bytes.
pub(crate) const MAX_MARK: usize = 64 << 10;
/// The longest wait on a raised mark before it is lowered (Tokio's timer ticks in milliseconds).
pub(crate) const BOUND: Duration = Duration::from_millis(1);
/// Reads at mark 1 after a bounded wait ran out.
pub(crate) const COOLDOWN: u32 = 64;
/// A reply with more than this still to come raises the mark to the rest of it.
pub(crate) const MIN_REST: usize = 64 << 10;
/// The highest mark set for the rest of one reply, in bytes.
pub(crate) const MAX_REST_MARK: usize = 1 << 20;
/// Calls left to the server while the reader waits, where the share allows (a server working on
/// several calls at once, a disk array or a thread pool, keeps its parallelism).
pub(crate) const LEAVE_AT_SERVER: usize = 8;

/// True when `rest` bytes still to come of the reply being read are enough to raise the mark for.
pub(crate) fn inside_large_reply(rest: usize) -> bool {
    rest > MIN_REST
}

/// Replies a wake-up waits for with `outstanding` calls awaiting theirs: all but
/// [`LEAVE_AT_SERVER`], at most half of them.
pub(crate) fn replies_to_wait_for(outstanding: usize) -> usize {
    outstanding.saturating_sub(LEAVE_AT_SERVER).min(outstanding / 2)
}

/// The reader's low-water mark policy.
#[derive(Debug)]
pub(crate) struct Coalescer {
    /// False: the mark is never raised.
    enabled: bool,
    /// Smallest reply (record marker included) in the current window, and replies left in it.
    window_min: usize,
    window_left: u32,
    /// Smallest reply of the last full window (`usize::MAX` before one was seen).
    last_min: usize,
    /// The mark on the socket now.
    mark: usize,
    /// Reads left before the mark may be raised again.
    cooldown: u32,
}

impl Coalescer {
    /// A policy raising the mark when `enabled`.
    pub(crate) fn new(enabled: bool) -> Self {
        Coalescer { enabled, window_min: usize::MAX, window_left: WINDOW, last_min: usize::MAX, mark: 1, cooldown: 0 }
    }

    /// The mark on the socket now (1: every byte wakes the reader).
    pub(crate) fn mark(&self) -> usize {
        self.mark
    }

    /// True while the mark is raised: the reader's wait is then bounded by [`BOUND`].
    pub(crate) fn raised(&self) -> bool {
        self.mark > 1
    }

    /// Notes a reply of `record_len` bytes (without its 4-byte marker).
    pub(crate) fn observe(&mut self, record_len: usize) {
        self.window_min = self.window_min.min(record_len.saturating_add(4));
        self.window_left -= 1;
        if self.window_left == 0 {
            self.last_min = self.window_min;
            self.window_min = usize::MAX;
            self.window_left = WINDOW;
        }
    }

    /// The mark wanted with `outstanding` calls awaiting replies, `rest` bytes of the reply being read
    /// still to come (0 between replies) and a receive buffer of `rcvbuf` bytes.
    pub(crate) fn wanted(&self, outstanding: usize, rest: usize, rcvbuf: usize) -> usize {
        if !self.enabled || self.cooldown > 0 {
            return 1;
        }
        self.between_replies(outstanding, rcvbuf).max(Self::within_reply(rest, rcvbuf))
    }

    /// The mark for the rest of one large reply: 1 unless more than [`MIN_REST`] is still to come
    /// and fits it.
    fn within_reply(rest: usize, rcvbuf: usize) -> usize {
        let mark = rest.min(MAX_REST_MARK).min(rcvbuf / 4);
        if inside_large_reply(mark) {
            mark
        } else {
            1
        }
    }

    /// The mark for several replies to come.
    fn between_replies(&self, outstanding: usize, rcvbuf: usize) -> usize {
        let smallest = self.window_min.min(self.last_min);
        if smallest == usize::MAX {
            return 1;
        }
        let replies = replies_to_wait_for(outstanding);
        if replies < MIN_REPLIES {
            return 1;
        }
        let cap = MAX_MARK.min(rcvbuf / 4);
        let mark = replies.saturating_mul(smallest).min(cap);
        // A mark under two replies' bytes (a small receive buffer, large replies) waits for one.
        if mark < MIN_REPLIES.saturating_mul(smallest) {
            1
        } else {
            mark
        }
    }

    /// After a read that emptied the socket: the mark to set on it, when it should change. Lowered at
    /// once to the wanted mark when that is half the current one or less (or 1), raised when it is
    /// twice or more; `rcvbuf` (the receive buffer's size) is only asked for before a raise. `rest`:
    /// bytes of the reply being read still to come (0 between replies).
    pub(crate) fn after_read(
        &mut self,
        outstanding: usize,
        rest: usize,
        rcvbuf: impl FnOnce() -> usize,
    ) -> Option<usize> {
        let mut want = self.wanted(outstanding, rest, usize::MAX);
        self.cooldown = self.cooldown.saturating_sub(1);
        if want >= self.mark.saturating_mul(2) {
            want = self.wanted(outstanding, rest, rcvbuf());
            if want < self.mark.saturating_mul(2) {
                return None;
            }
        } else if !(want == 1 && self.mark > 1) && want.saturating_mul(2) > self.mark {
            return None;
        }
        self.mark = want;
        Some(want)
    }

    /// The bounded wait on a raised mark ran out: the mark to set (1), with the raise paused.
    pub(crate) fn expired(&mut self) -> usize {
        self.mark = 1;
        self.cooldown = COOLDOWN;
        1
    }

    /// The mark failed to be set: the socket keeps (or goes back to) the default.
    pub(crate) fn unset(&mut self) {
        self.mark = 1;
        self.enabled = false;
    }
}

/// Whether readers coalesce replies: yes unless `NFSBENCH_TCP_COALESCE=0` (for measuring without).
/// Read once per process.
pub(crate) fn enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("NFSBENCH_TCP_COALESCE").map_or(true, |v| v.trim() != "0"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPLY: usize = 4196; // a 4 KiB READ reply's record
    const BIG_BUFFER: usize = 1 << 20;

    /// A policy that has seen `n` replies of `len` bytes.
    fn seen(n: usize, len: usize) -> Coalescer {
        let mut c = Coalescer::new(true);
        for _ in 0..n {
            c.observe(len);
        }
        c
    }

    #[test]
    fn few_outstanding_calls_keep_the_mark_at_one() {
        let mut c = seen(10, REPLY);
        for outstanding in 0..10 {
            assert_eq!(c.after_read(outstanding, 0, || BIG_BUFFER), None, "{outstanding} outstanding");
        }
        assert_eq!(c.mark(), 1);
        assert!(!c.raised());
    }

    #[test]
    fn the_mark_waits_for_up_to_half_the_replies_leaving_the_server_eight_calls() {
        assert_eq!(replies_to_wait_for(32), 16);
        assert_eq!(replies_to_wait_for(20), 10);
        assert_eq!(replies_to_wait_for(12), 4);
        assert_eq!(replies_to_wait_for(10), 2);
        assert_eq!(replies_to_wait_for(8), 0, "the server keeps all eight");
        assert_eq!(replies_to_wait_for(7), 0);
        let mut c = seen(10, REPLY);
        assert_eq!(c.after_read(12, 0, || BIG_BUFFER), Some(4 * (REPLY + 4)));
        assert!(c.raised());
    }

    #[test]
    fn nothing_is_raised_before_a_reply_was_seen_or_when_disabled() {
        assert_eq!(Coalescer::new(true).after_read(32, 0, || BIG_BUFFER), None);
        let mut off = Coalescer::new(false);
        off.observe(REPLY);
        assert_eq!(off.after_read(32, 0, || BIG_BUFFER), None);
    }

    #[test]
    fn the_mark_falls_to_one_as_soon_as_few_calls_remain() {
        let mut c = seen(10, REPLY);
        assert!(c.after_read(32, 0, || BIG_BUFFER).is_some());
        assert_eq!(c.after_read(3, 0, || BIG_BUFFER), Some(1));
        assert!(!c.raised());
    }

    #[test]
    fn small_swings_in_outstanding_calls_leave_the_mark_alone() {
        let mut c = seen(10, REPLY);
        let mark = c.after_read(24, 0, || BIG_BUFFER).expect("raised");
        for outstanding in [20, 28, 17, 31, 24] {
            assert_eq!(c.after_read(outstanding, 0, || BIG_BUFFER), None, "{outstanding} outstanding");
        }
        assert_eq!(c.mark(), mark);
        // Half as many replies wanted: lowered.
        assert!(c.after_read(12, 0, || BIG_BUFFER).is_some_and(|m| m < mark));
    }

    #[test]
    fn a_smaller_reply_shrinks_the_mark_to_its_size() {
        let mut c = seen(10, REPLY);
        assert_eq!(c.after_read(32, 0, || BIG_BUFFER), Some(MAX_MARK.min(16 * (REPLY + 4))));
        c.observe(100); // a WRITE reply, or an error
        assert_eq!(c.after_read(32, 0, || BIG_BUFFER), Some(16 * 104));
    }

    #[test]
    fn the_mark_stays_under_a_quarter_of_the_receive_buffer_and_the_cap() {
        let mut c = seen(10, 1000);
        assert_eq!(c.after_read(32, 0, || 40_000), Some(10_000));
        let mut c = seen(10, 8000);
        assert_eq!(c.after_read(64, 0, || BIG_BUFFER), Some(MAX_MARK));
        // A buffer too small for two replies: no mark at all.
        let mut c = seen(10, REPLY);
        assert_eq!(c.after_read(32, 0, || 4 * REPLY), None);
        assert!(!c.raised());
    }

    #[test]
    fn large_replies_are_never_waited_for_together() {
        let mut c = seen(10, 1 << 20);
        assert_eq!(c.after_read(32, 0, || BIG_BUFFER), None);
    }

    #[test]
    fn the_rest_of_a_large_reply_is_waited_for_at_once_then_the_mark_falls_back() {
        const AUTOTUNED: usize = 16 << 20;
        let mut c = Coalescer::new(true);
        // Before any reply was seen, from its first bytes: the rest of a 1 MiB READ.
        assert_eq!(c.after_read(8, 900_000, || AUTOTUNED), Some(900_000));
        // Its last bytes, then its end: back to one reply per wake-up (8 calls keep the mark at 1).
        assert_eq!(c.after_read(8, 40_000, || AUTOTUNED), Some(1));
        c.observe(1 << 20);
        assert_eq!(c.after_read(8, 0, || AUTOTUNED), None);
        // A rest over the cap waits for the cap; small rests and small buffers do not raise it.
        assert_eq!(c.after_read(8, 8 << 20, || AUTOTUNED), Some(MAX_REST_MARK));
        let mut c = Coalescer::new(true);
        assert_eq!(c.after_read(8, MIN_REST, || AUTOTUNED), None);
        assert_eq!(c.after_read(8, 900_000, || 1 << 20), Some(256 << 10));
        assert_eq!(c.after_read(8, 900_000, || 0), None, "a quarter of the buffer is the limit");
    }

    #[test]
    fn the_rest_of_a_reply_is_not_waited_for_when_disabled_or_cooling_down() {
        assert_eq!(Coalescer::new(false).after_read(8, 900_000, || BIG_BUFFER), None);
        let mut c = Coalescer::new(true);
        assert!(c.after_read(8, 900_000, || BIG_BUFFER).is_some());
        assert_eq!(c.expired(), 1);
        assert_eq!(c.after_read(8, 900_000, || BIG_BUFFER), None);
    }

    #[test]
    fn a_bounded_wait_that_ran_out_drops_the_mark_and_pauses_raising() {
        let mut c = seen(10, REPLY);
        assert!(c.after_read(32, 0, || BIG_BUFFER).is_some());
        assert_eq!(c.expired(), 1);
        assert!(!c.raised());
        for _ in 0..COOLDOWN {
            assert_eq!(c.after_read(32, 0, || BIG_BUFFER), None);
        }
        assert!(c.after_read(32, 0, || BIG_BUFFER).is_some());
    }

    #[test]
    fn the_size_estimate_forgets_small_replies_after_two_windows() {
        let mut c = seen(1, 100);
        for _ in 0..2 * WINDOW {
            c.observe(REPLY);
        }
        assert_eq!(c.after_read(32, 0, || BIG_BUFFER), Some(MAX_MARK.min(16 * (REPLY + 4))));
    }

    #[test]
    fn a_socket_refusing_the_option_turns_coalescing_off() {
        let mut c = seen(10, REPLY);
        assert!(c.after_read(32, 0, || BIG_BUFFER).is_some());
        c.unset();
        assert!(!c.raised());
        assert_eq!(c.after_read(32, 0, || BIG_BUFFER), None);
    }
}
