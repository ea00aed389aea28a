//! Sleeps with microsecond precision for async tasks. tokio's timer wheel ticks in milliseconds, too
//! coarse for a 100 µs round trip, so one thread per process keeps the deadlines in a heap, sleeps with a
//! timer slack of 1 ns (prctl PR_SET_TIMERSLACK; Linux's default slack is 50 µs), wakes a little early
//! and spins to the deadline, then wakes every task whose deadline has passed. A sleep never ends
//! before its deadline.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::future::Future;
use std::num::NonZeroU64;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// How long before a deadline the timer thread stops sleeping and spins.
const SPIN: Duration = Duration::from_micros(20);

/// A future that completes at `deadline` (at once when it has passed).
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep { deadline, registered: None }
}

/// See [`sleep_until`].
#[derive(Debug)]
pub struct Sleep {
    deadline: Instant,
    registered: Option<Waker>,
}

impl Sleep {
    pub fn deadline(&self) -> Instant {
        self.deadline
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.deadline {
            return Poll::Ready(());
        }
        if !self.registered.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            timer().add(self.deadline, cx.waker().clone());
            self.registered = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

struct Entry {
    deadline: Instant,
    waker: Waker,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.deadline == other.deadline
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Earliest first in BinaryHeap's max-heap.
    fn cmp(&self, other: &Self) -> Ordering {
        other.deadline.cmp(&self.deadline)
    }
}

struct Timer {
    heap: Mutex<BinaryHeap<Entry>>,
    changed: Condvar,
}

fn timer() -> &'static Timer {
    static TIMER: OnceLock<&'static Timer> = OnceLock::new();
    TIMER.get_or_init(|| {
        let timer: &'static Timer =
            Box::leak(Box::new(Timer { heap: Mutex::new(BinaryHeap::new()), changed: Condvar::new() }));
        std::thread::Builder::new()
            .name("nfsbench-wan-clock".into())
            .spawn(move || timer.run())
            .expect("starting the link emulation's timer thread");
        timer
    })
}

impl Timer {
    fn add(&self, deadline: Instant, waker: Waker) {
        let mut heap = self.heap.lock().unwrap_or_else(PoisonError::into_inner);
        let earliest = heap.peek().is_none_or(|e| deadline < e.deadline);
        heap.push(Entry { deadline, waker });
        if earliest {
            self.changed.notify_one();
        }
    }

    fn run(&self) {
        // Without a slack of our own, the kernel may defer each wake-up by 50 µs.
        let _ = rustix::thread::set_current_timer_slack(NonZeroU64::new(1));
        let mut heap = self.heap.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let Some(next) = heap.peek().map(|e| e.deadline) else {
                heap = self.changed.wait(heap).unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            let now = Instant::now();
            if next > now + SPIN {
                heap = self.changed.wait_timeout(heap, next - now - SPIN).unwrap_or_else(PoisonError::into_inner).0;
                continue;
            }
            if next > now {
                drop(heap);
                while Instant::now() < next {
                    std::hint::spin_loop();
                }
                heap = self.heap.lock().unwrap_or_else(PoisonError::into_inner);
            }
            let now = Instant::now();
            let mut due = Vec::new();
            while heap.peek().is_some_and(|e| e.deadline <= now) {
                if let Some(e) = heap.pop() {
                    due.push(e.waker);
                }
            }
            drop(heap);
            due.into_iter().for_each(Waker::wake);
            heap = self.heap.lock().unwrap_or_else(PoisonError::into_inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::task::Wake;

    struct Flag(Mutex<bool>, Condvar);
    impl Wake for Flag {
        fn wake(self: Arc<Self>) {
            *self.0.lock().expect("lock") = true;
            self.1.notify_all();
        }
    }

    /// Polls `sleep` to completion on this thread, blocking between wake-ups.
    fn block_on(mut sleep: Sleep) -> Instant {
        let flag = Arc::new(Flag(Mutex::new(false), Condvar::new()));
        let waker = Waker::from(flag.clone());
        let mut cx = Context::from_waker(&waker);
        loop {
            if Pin::new(&mut sleep).poll(&mut cx).is_ready() {
                return Instant::now();
            }
            let mut woken = flag.0.lock().expect("lock");
            while !*woken {
                woken = flag.1.wait(woken).expect("wait");
            }
            *woken = false;
        }
    }

    #[test]
    fn a_sleep_never_ends_early_and_mostly_ends_within_a_few_hundred_microseconds() {
        let (mut late, mut plain) = (Vec::new(), Vec::new());
        for us in [50u64, 200, 1000, 3000, 150, 700, 80, 400, 1500] {
            let deadline = Instant::now() + Duration::from_micros(us);
            let woke = block_on(sleep_until(deadline));
            assert!(woke >= deadline);
            late.push(woke - deadline);
            // The same wait on a plain kernel timer, in the same breath: what the machine's load adds.
            let deadline = Instant::now() + Duration::from_micros(us);
            std::thread::sleep(Duration::from_micros(us));
            plain.push(deadline.elapsed());
        }
        // Medians, since a loaded machine may deschedule a thread now and then. The point is
        // microseconds, where tokio's timers would be a millisecond late: 300 µs, plus twice what the
        // plain timer was late (two threads wake here: the timer's and the sleeper's).
        late.sort();
        plain.sort();
        let allowed = Duration::from_micros(300) + 2 * plain[plain.len() / 2];
        assert!(late[late.len() / 2] < allowed, "late by {late:?}; a plain timer by {plain:?}");
    }

    #[test]
    fn a_passed_deadline_is_ready_at_once() {
        let woke = block_on(sleep_until(Instant::now() - Duration::from_millis(1)));
        assert!(woke.elapsed() < Duration::from_secs(1));
    }
}
