//! The table of open connections, shared by every listener: it enforces `max_connections` and, at the
//! cap, picks the connection to close so that a new client can still connect.
//!
//! knfsd does the same: past its connection limit it closes the oldest connection
//! (`svc_check_conn_limits`: "Always select the oldest connection. It's not fair, but so is life"), and
//! newer kernels pick first among connections that have not yet shown they may use the server. Here a
//! connection with calls in flight is never picked (its client is being served), and among the others
//! the one that never completed a call goes first, then the one quiet (idle, or stuck inside one record)
//! the longest, then the oldest.
//!
//! Each connection publishes its state in a few atomics of its own, written only when the state changes
//! and read only here, when the cap is reached: nothing is locked per call.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;

/// A connection's state as the table sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum State {
    /// Calls in flight or complete records waiting: never evicted.
    Busy = 0,
    /// Nothing in flight, between records.
    Idle = 1,
    /// Nothing in flight, inside a record.
    Partial = 2,
}

/// What a connection publishes about itself.
#[derive(Debug)]
pub(crate) struct Slot {
    state: AtomicU8,
    /// True once the connection completed a record (an RPC call), i.e. its peer speaks RPC.
    served: AtomicBool,
    /// Timer ticks it has been idle or inside one record.
    quiet_ticks: AtomicU32,
}

impl Slot {
    fn new() -> Self {
        // A new connection has sent nothing: idle, and first in line until it completes a call.
        Slot { state: AtomicU8::new(State::Idle as u8), served: AtomicBool::new(false), quiet_ticks: AtomicU32::new(0) }
    }

    pub(crate) fn set_state(&self, state: State) {
        self.state.store(state as u8, Relaxed);
    }

    pub(crate) fn set_served(&self) {
        self.served.store(true, Relaxed);
    }

    pub(crate) fn set_quiet_ticks(&self, ticks: u32) {
        self.quiet_ticks.store(ticks, Relaxed);
    }

    /// The eviction order, smallest first; `None` while busy.
    fn eviction_rank(&self, id: u64) -> Option<(bool, Reverse<u32>, u64)> {
        if self.state.load(Relaxed) == State::Busy as u8 {
            return None;
        }
        Some((self.served.load(Relaxed), Reverse(self.quiet_ticks.load(Relaxed)), id))
    }
}

struct Entry {
    slot: Arc<Slot>,
    /// Tells the connection it is evicted.
    evict: oneshot::Sender<()>,
}

#[derive(Default)]
struct Table {
    next_id: u64,
    entries: BTreeMap<u64, Entry>,
}

/// The open connections of one server.
#[derive(Default)]
pub(crate) struct Registry {
    table: Mutex<Table>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").field("open", &self.lock().entries.len()).finish()
    }
}

/// A connection's place in the table, released when dropped.
#[derive(Debug)]
pub(crate) struct Registration {
    registry: Arc<Registry>,
    id: u64,
    pub slot: Arc<Slot>,
    /// Completes when the connection is evicted.
    pub evicted: oneshot::Receiver<()>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.registry.lock().entries.remove(&self.id);
    }
}

/// What became of a new connection.
#[derive(Debug)]
pub(crate) enum Admission {
    /// Under the cap.
    Admitted(Registration),
    /// At the cap: an idle connection was told to close to make room.
    Evicting(Registration),
    /// At the cap with every connection busy.
    Refused,
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        // The table stays consistent whatever panicked while holding the lock.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes room for one more connection under `max` if it can.
    pub(crate) fn admit(self: &Arc<Self>, max: usize) -> Admission {
        let mut table = self.lock();
        let mut evicting = false;
        if table.entries.len() >= max {
            let victim = table.entries.iter().filter_map(|(&id, e)| e.slot.eviction_rank(id)).min().map(|(.., id)| id);
            let Some(victim) = victim else {
                return Admission::Refused;
            };
            if let Some(entry) = table.entries.remove(&victim) {
                // The connection may have ended meanwhile: its slot is free either way.
                let _ = entry.evict.send(());
            }
            evicting = true;
        }
        let id = table.next_id;
        table.next_id += 1;
        let slot = Arc::new(Slot::new());
        let (evict, evicted) = oneshot::channel();
        table.entries.insert(id, Entry { slot: Arc::clone(&slot), evict });
        let registration = Registration { registry: Arc::clone(self), id, slot, evicted };
        match evicting {
            true => Admission::Evicting(registration),
            false => Admission::Admitted(registration),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admitted(admission: Admission) -> Registration {
        match admission {
            Admission::Admitted(r) | Admission::Evicting(r) => r,
            Admission::Refused => panic!("refused"),
        }
    }

    #[test]
    fn at_the_cap_a_never_served_connection_goes_before_an_older_served_one() {
        let registry = Arc::new(Registry::default());
        let mut old = admitted(registry.admit(2));
        old.slot.set_served();
        let mut silent = admitted(registry.admit(2));
        let _new = match registry.admit(2) {
            Admission::Evicting(r) => r,
            other => panic!("{other:?}"),
        };
        assert_eq!(silent.evicted.try_recv(), Ok(()), "the connection that never completed a call");
        assert!(old.evicted.try_recv().is_err());
    }

    #[test]
    fn among_served_connections_the_quietest_then_the_oldest_goes() {
        let registry = Arc::new(Registry::default());
        let mut conns: Vec<Registration> = (0..3).map(|_| admitted(registry.admit(3))).collect();
        for c in &conns {
            c.slot.set_served();
        }
        conns[2].slot.set_quiet_ticks(5);
        let a = admitted(registry.admit(3));
        a.slot.set_served();
        assert_eq!(conns[2].evicted.try_recv(), Ok(()), "quiet the longest");
        let _b = admitted(registry.admit(3));
        assert_eq!(conns[0].evicted.try_recv(), Ok(()), "then the oldest");
        assert!(conns[1].evicted.try_recv().is_err());
    }

    #[test]
    fn busy_connections_are_never_evicted_so_the_new_one_is_refused() {
        let registry = Arc::new(Registry::default());
        let a = admitted(registry.admit(2));
        let b = admitted(registry.admit(2));
        a.slot.set_state(State::Busy);
        b.slot.set_state(State::Busy);
        assert!(matches!(registry.admit(2), Admission::Refused));
        b.slot.set_state(State::Partial);
        assert!(matches!(registry.admit(2), Admission::Evicting(_)));
    }

    #[test]
    fn a_closed_connection_frees_its_place() {
        let registry = Arc::new(Registry::default());
        let a = admitted(registry.admit(1));
        a.slot.set_state(State::Busy);
        assert!(matches!(registry.admit(1), Admission::Refused));
        drop(a);
        assert!(matches!(registry.admit(1), Admission::Admitted(_)));
    }
}
