//! What one job clone does regardless of the engine that moves its bytes (NFS calls or io_uring on a
//! local file): choose each I/O's direction, size and place as fio would ([`crate::offsets`]), keep the
//! fsync and verify bookkeeping, run the phases, stop on the byte budget, `loops` or `runtime`, and turn
//! completions into [`report`] records. An engine's worker submits the [`Op`]s it is handed and reports
//! each one's outcome back ([`CloneCore::complete`]).
//!
//! Phases: the I/O phase; then, for jobs that wrote with `verify` and `do_verify`, a verify phase that
//! reads back every unit written; then the closing syncs (`end_fsync`, or data an engine marked dirty).

mod choose;
mod outcome;
mod unit_map;

pub use outcome::Outcome;

use crate::live::LiveCounters;
use crate::offsets::{BlockSizer, OffsetPlan, Order, Region};
use crate::verify::Verifier;
use bytes::Bytes;
use fio_job::{JobSpec, Rw};
use report::{JobPhase, JobRecorder};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};
use unit_map::UnitMap;

/// Sets the `refill_buffers` generator's seed apart from the clone's offset generator.
const REFILL_STREAM: u64 = 0x7265_6669_6c6c_6275;

/// What one clone did.
#[derive(Debug)]
pub struct WorkerOutcome {
    pub recorder: JobRecorder,
    /// fio's `error`: 0, or the errno-like code of the first failure.
    pub errno: i32,
    /// The first failure, in words.
    pub error: Option<String>,
    pub verify_errors: u64,
    /// From the end of ramp_time to the last completion.
    pub runtime: Duration,
}

/// One I/O as planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read { file: usize, offset: u64, len: u64 },
    Write { file: usize, offset: u64, len: u64 },
    Sync { file: usize },
}

/// The phases of a clone, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Io,
    Verify,
    Close,
}

/// Per-file state the loop keeps.
#[derive(Debug, Default)]
struct FileState {
    writes_since_sync: u32,
    /// Writes submitted and not yet completed (a sync waits for them).
    writes_in_flight: u32,
    /// Written data an engine says a closing sync must make durable (NFS: unstable WRITEs).
    dirty: bool,
    /// Units written (kept only when verifying).
    written: Option<UnitMap>,
}

/// One clone's files and settings, whatever the engine.
#[derive(Debug)]
pub struct CloneSetup {
    pub spec: Arc<JobSpec>,
    /// Each file's name (for messages) and the region the job uses.
    pub files: Vec<(String, Region)>,
    pub verifier: Option<Verifier>,
    pub seed: u64,
    pub live: Arc<LiveCounters>,
    /// This clone's place in the group, for the progress line.
    pub slot: usize,
    /// The largest read the engine issues in one piece (verify reads are cut to it).
    pub max_read: u64,
}

/// The engine-independent state of one clone.
#[derive(Debug)]
pub struct CloneCore {
    pub(crate) spec: Arc<JobSpec>,
    names: Vec<String>,
    regions: Vec<Region>,
    state: Vec<FileState>,
    pub(crate) verifier: Option<Verifier>,
    pub(crate) live: Arc<LiveCounters>,
    pub(crate) rng: fastrand::Rng,
    plan: OffsetPlan,
    sizers: [BlockSizer; 2],
    /// Random bytes, as large as the largest write, for writes without verify (fio fills its buffers
    /// once and reuses them).
    pub(crate) filler: Bytes,
    /// `refill_buffers` on a job that writes without verify: the generator of each write's fresh bytes
    /// ([`crate::buffers::refill`]); None when writes reuse `filler` (or carry verify units).
    refill: Option<fastrand::Rng>,
    pub(crate) recorder: JobRecorder,
    phase: Phase,
    queue: VecDeque<Op>,
    stopping: bool,
    pass_bytes: u64,
    issued_in_pass: u64,
    passes_left: u32,
    measure_start: Instant,
    ramp_end: Option<Instant>,
    deadline: Option<Instant>,
    last_completion: Instant,
    wrote: bool,
    errno: i32,
    error: Option<String>,
    verify_errors: u64,
    slot: usize,
    running_phase: JobPhase,
    max_read: u64,
}

impl CloneCore {
    /// The clone at the start of its I/O phase, its clock started at `start` (after `startdelay`).
    pub fn new(setup: CloneSetup, start: Instant) -> Self {
        let spec = setup.spec;
        let sizers = [BlockSizer::new(&spec.bs[0]), BlockSizer::new(&spec.bs[1])];
        let unit = sizers[0].min().min(sizers[1].min());
        let order = match (spec.rw, spec.norandommap) {
            (Rw::Read | Rw::Write | Rw::ReadWrite, _) => Order::Sequential,
            (_, false) => Order::RandomMap,
            (_, true) => Order::RandomUniform,
        };
        let regions: Vec<Region> = setup.files.iter().map(|(_, r)| *r).collect();
        let plan = OffsetPlan::new(regions.clone(), order, unit, setup.seed);
        let regions_bytes: u64 = regions.iter().map(|r| r.len).sum();
        let pass_bytes = match spec.io_size() {
            0 => regions_bytes,
            n => n,
        };
        let state = regions
            .iter()
            .map(|r| FileState {
                written: setup.verifier.map(|v| UnitMap::new(r.len.div_ceil(v.interval()))),
                ..FileState::default()
            })
            .collect();
        let ramp_end = (!spec.ramp_time.is_zero()).then(|| start + spec.ramp_time);
        let deadline = spec.runtime.map(|r| start + spec.ramp_time + r);
        let running_phase =
            JobPhase::Running { read: spec.rw.reads(), write: spec.rw.writes(), random: spec.rw.is_random() };
        // Verify units are generated afresh for every write already and are what fio writes under verify
        // (its verify fill overwrites the refilled buffer), so refill_buffers only changes plain writes.
        let refill = (spec.refill_buffers && spec.rw.writes() && setup.verifier.is_none())
            .then(|| fastrand::Rng::with_seed(crate::permutation::splitmix64(setup.seed ^ REFILL_STREAM)));
        CloneCore {
            filler: Bytes::from(crate::buffers::random_bytes(sizers[1].max() as usize, setup.seed)),
            refill,
            names: setup.files.into_iter().map(|(name, _)| name).collect(),
            regions,
            state,
            verifier: setup.verifier,
            live: setup.live,
            rng: fastrand::Rng::with_seed(setup.seed),
            plan,
            sizers,
            recorder: JobRecorder::new(start),
            phase: Phase::Io,
            queue: VecDeque::new(),
            stopping: false,
            pass_bytes,
            issued_in_pass: 0,
            passes_left: spec.loops.max(1),
            measure_start: start,
            ramp_end,
            deadline,
            last_completion: start,
            wrote: false,
            errno: 0,
            error: None,
            verify_errors: 0,
            slot: setup.slot,
            running_phase,
            max_read: setup.max_read.max(1),
            spec,
        }
    }

    /// The clone starts its I/O phase (counted as running, shown ramping or running).
    pub fn begin(&mut self) {
        self.live.started();
        let phase = if self.ramp_end.is_some() { JobPhase::Ramp } else { self.running_phase };
        self.live.set_phase(self.slot, phase);
    }

    /// The phase after `done`, with its I/Os queued, or `None` when the clone is over.
    pub fn next_phase(&mut self, done: Phase) -> Option<Phase> {
        let next = match done {
            Phase::Io if self.verify_after_writes() => {
                self.live.set_phase(self.slot, JobPhase::Verifying);
                self.queue_verify_reads();
                Phase::Verify
            }
            Phase::Io | Phase::Verify => {
                self.live.set_phase(self.slot, JobPhase::Fsyncing);
                self.queue_closing_syncs();
                Phase::Close
            }
            Phase::Close => {
                self.live.finished();
                let error = self.errno != 0 || self.verify_errors > 0;
                self.live.set_phase(self.slot, JobPhase::Done { error });
                return None;
            }
        };
        self.phase = next;
        Some(next)
    }

    /// The largest I/O of either direction (an engine's buffers hold one).
    pub fn largest_io(&self) -> u64 {
        self.sizers[0].max().max(self.sizers[1].max())
    }

    /// The name of file `file`, for messages.
    pub fn name(&self, file: usize) -> &str {
        &self.names[file]
    }

    /// Ramp and deadline bookkeeping at each completion.
    pub fn on_clock(&mut self, now: Instant) {
        if let Some(ramp_end) = self.ramp_end.filter(|r| now >= *r) {
            self.recorder.reset(ramp_end);
            self.measure_start = ramp_end;
            self.ramp_end = None;
            self.live.set_phase(self.slot, self.running_phase);
        }
        if self.phase == Phase::Io && (self.deadline.is_some_and(|d| now >= d) || self.live.is_interrupted()) {
            self.stopping = true;
        }
        self.last_completion = now;
    }

    /// An engine's data for file `file` is not durable yet: the closing phase syncs it.
    pub fn mark_dirty(&mut self, file: usize) {
        self.state[file].dirty = true;
    }

    fn verify_after_writes(&self) -> bool {
        self.verifier.is_some() && self.spec.do_verify && self.wrote && self.errno == 0 && !self.live.is_interrupted()
    }

    /// Stop the clone with its first failure.
    pub fn fail(&mut self, errno: i32, message: String) {
        if self.error.is_none() {
            tracing::error!("job '{}': {message}", self.spec.name);
            self.errno = errno;
            self.error = Some(message);
        }
        self.stopping = true;
    }

    /// What the clone did.
    pub fn finish(self) -> WorkerOutcome {
        let mut errno = self.errno;
        let mut error = self.error;
        if self.verify_errors > 0 {
            if errno == 0 {
                errno = crate::error::EILSEQ;
            }
            let first = error.take().unwrap_or_default();
            error = Some(format!("{} verify errors; the first: {first}", self.verify_errors));
        }
        WorkerOutcome {
            recorder: self.recorder,
            errno,
            error,
            verify_errors: self.verify_errors,
            runtime: self.last_completion.saturating_duration_since(self.measure_start),
        }
    }
}

/// `startdelay`, or a delay drawn from its range (`startdelay=1-5`).
pub fn start_delay(spec: &JobSpec, seed: u64) -> Duration {
    match spec.startdelay_max {
        Some(max) if max > spec.startdelay => {
            let span = (max - spec.startdelay).as_nanos() as u64;
            spec.startdelay + Duration::from_nanos(fastrand::Rng::with_seed(seed).u64(0..=span))
        }
        _ => spec.startdelay,
    }
}

/// A duration in nanoseconds, saturating.
pub fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
