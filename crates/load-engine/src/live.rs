//! Counters the workers bump as calls complete, read by the progress line while the run goes on, and
//! the interrupt flag the command line raises on SIGINT (jobs then stop issuing and finish what is in flight).

use report::{Dir, JobPhase};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

/// Bytes and I/Os completed so far, and clones running.
#[derive(Debug, Default)]
pub struct LiveCounters {
    bytes: [AtomicU64; 2],
    ios: [AtomicU64; 2],
    running: AtomicU32,
    interrupted: AtomicBool,
    /// What each clone of the running group is doing (fio's run string).
    phases: Mutex<Vec<JobPhase>>,
}

/// A reading of the counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LiveSnapshot {
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub read_ios: u64,
    pub write_ios: u64,
    pub running: u32,
}

impl LiveCounters {
    /// Count one completed I/O of `bytes`.
    pub fn add(&self, dir: Dir, bytes: u64) {
        let i = match dir {
            Dir::Read => 0,
            Dir::Write => 1,
        };
        self.bytes[i].fetch_add(bytes, Ordering::Relaxed);
        self.ios[i].fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn started(&self) {
        self.running.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn finished(&self) {
        self.running.fetch_sub(1, Ordering::Relaxed);
    }

    /// Ask every job to stop issuing I/O, as fio does on SIGINT; results so far are still reported.
    pub fn interrupt(&self) {
        self.interrupted.store(true, Ordering::Relaxed);
    }

    /// True once [`LiveCounters::interrupt`] was called.
    pub fn is_interrupted(&self) -> bool {
        self.interrupted.load(Ordering::Relaxed)
    }

    /// A group of `clones` starts: all of them are setting up (laying out files).
    pub(crate) fn begin_group(&self, clones: usize) {
        if let Ok(mut phases) = self.phases.lock() {
            *phases = vec![JobPhase::SettingUp; clones];
        }
    }

    /// Clone `slot` of the running group is now in `phase`.
    pub(crate) fn set_phase(&self, slot: usize, phase: JobPhase) {
        if let Some(p) = self.phases.lock().ok().as_mut().and_then(|phases| phases.get_mut(slot)) {
            *p = phase;
        }
    }

    /// What the running group's clones are doing.
    pub fn phases(&self) -> Vec<JobPhase> {
        self.phases.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// The counters now.
    pub fn snapshot(&self) -> LiveSnapshot {
        LiveSnapshot {
            read_bytes: self.bytes[0].load(Ordering::Relaxed),
            write_bytes: self.bytes[1].load(Ordering::Relaxed),
            read_ios: self.ios[0].load(Ordering::Relaxed),
            write_ios: self.ios[1].load(Ordering::Relaxed),
            running: self.running.load(Ordering::Relaxed),
        }
    }
}
