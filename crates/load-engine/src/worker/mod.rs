//! One job clone's I/O loop: keep `iodepth` calls in flight, choose each one's direction, size and place
//! as fio would, time it (submission = encoding and queueing the call, completion = the reply reaped),
//! verify what comes back, and stop on the byte budget, `loops`, or `runtime`.
//!
//! Phases: the I/O phase; then, for jobs that wrote with `verify` and `do_verify`, a verify phase that
//! reads back every unit written; then the closing COMMITs (`end_fsync`, or unstable data left behind
//! by buffered writes, which a kernel client would flush on close).

mod completion;
mod issue;
mod split;
mod unit_map;

use crate::layout::PreparedFile;
use crate::live::LiveCounters;
use crate::offsets::{BlockSizer, OffsetPlan, Order};
use crate::verify::Verifier;
use bytes::Bytes;
use fio_job::{JobSpec, Rw};
use futures_util::stream::{FuturesUnordered, StreamExt};
use nfs_client::{ClientError, NfsClient, Pending, ReadReply, WriteReply};
use report::{JobPhase, JobRecorder};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};
use unit_map::UnitMap;

/// Everything one clone needs to run.
#[derive(Debug)]
pub struct WorkerSetup {
    pub client: NfsClient,
    pub spec: Arc<JobSpec>,
    pub files: Vec<PreparedFile>,
    pub verifier: Option<Verifier>,
    pub seed: u64,
    pub live: Arc<LiveCounters>,
    /// This clone's place in the group, for the progress line.
    pub slot: usize,
}

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
pub(crate) enum Op {
    Read { file: usize, offset: u64, len: u64 },
    Write { file: usize, offset: u64, len: u64 },
    Sync { file: usize },
}

/// The calls of one I/O handed to the client (several when it is larger than rsize/wsize), with the
/// bytes each asked for.
enum Submitted {
    Read(Vec<(Pending<ReadReply>, u64)>),
    Write(Vec<(Pending<WriteReply>, u64)>),
    Sync(Pending<[u8; 8]>),
}

/// Its reply.
enum Reply {
    Read(ReadReply),
    Write(WriteReply),
    Sync([u8; 8]),
}

/// A finished call with its timing.
struct Done {
    op: Op,
    slat_ns: u64,
    submitted_at: Instant,
    result: Result<Reply, ClientError>,
}

/// Every call of one I/O answered: the replies with the bytes each asked for, or the first error.
async fn await_all<T>(calls: Vec<(Pending<T>, u64)>) -> Result<(Vec<T>, Vec<u64>), ClientError> {
    let (mut replies, mut lens) = (Vec::with_capacity(calls.len()), Vec::with_capacity(calls.len()));
    let mut first_error = None;
    for (pending, len) in calls {
        // Each call is awaited even after an error, so none is left behind unanswered.
        match pending.await {
            Ok(reply) => {
                replies.push(reply);
                lens.push(len);
            }
            Err(e) => first_error = first_error.or(Some(e)),
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok((replies, lens)),
    }
}

/// Await a submitted call; one function so that every in-flight future has the same type.
async fn track(op: Op, submitted: Submitted, slat_ns: u64, submitted_at: Instant) -> Done {
    let result = match submitted {
        Submitted::Read(calls) => {
            await_all(calls).await.map(|(replies, asked)| Reply::Read(split::merge_reads(replies, &asked)))
        }
        Submitted::Write(calls) => {
            await_all(calls).await.map(|(replies, sent)| Reply::Write(split::merge_writes(replies, &sent)))
        }
        Submitted::Sync(p) => p.await.map(Reply::Sync),
    };
    Done { op, slat_ns, submitted_at, result }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Io,
    Verify,
    Close,
}

/// Per-file state the loop keeps.
#[derive(Debug, Default)]
struct FileState {
    writes_since_sync: u32,
    /// WRITEs sent and not yet answered (a COMMIT waits for them).
    writes_in_flight: u32,
    /// Verifier of unstable writes not yet committed.
    unstable: Option<[u8; 8]>,
    /// Units written (kept only when verifying).
    written: Option<UnitMap>,
}

pub(crate) struct Worker {
    client: NfsClient,
    spec: Arc<JobSpec>,
    files: Vec<PreparedFile>,
    state: Vec<FileState>,
    verifier: Option<Verifier>,
    live: Arc<LiveCounters>,
    rng: fastrand::Rng,
    plan: OffsetPlan,
    sizers: [BlockSizer; 2],
    filler: Bytes,
    recorder: JobRecorder,
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
}

/// Run one clone to the end.
pub async fn run(setup: WorkerSetup) -> WorkerOutcome {
    tokio::time::sleep(start_delay(&setup.spec, setup.seed)).await;
    let slot = setup.slot;
    let mut worker = Worker::new(setup, Instant::now());
    worker.live.started();
    let running = JobPhase::Running {
        read: worker.spec.rw.reads(),
        write: worker.spec.rw.writes(),
        random: worker.spec.rw.is_random(),
    };
    worker.live.set_phase(slot, if worker.ramp_end.is_some() { JobPhase::Ramp } else { running });
    worker.running_phase = running;
    worker.slot = slot;
    worker.run_phase(Phase::Io).await;
    if worker.verify_after_writes() {
        worker.live.set_phase(slot, JobPhase::Verifying);
        worker.queue_verify_reads();
        worker.run_phase(Phase::Verify).await;
    }
    worker.live.set_phase(slot, JobPhase::Fsyncing);
    worker.queue_closing_syncs();
    worker.run_phase(Phase::Close).await;
    worker.live.finished();
    worker.live.set_phase(slot, JobPhase::Done { error: worker.errno != 0 || worker.verify_errors > 0 });
    worker.finish()
}

impl Worker {
    fn new(setup: WorkerSetup, start: Instant) -> Self {
        let spec = setup.spec;
        let sizers = [BlockSizer::new(&spec.bs[0]), BlockSizer::new(&spec.bs[1])];
        let unit = sizers[0].min().min(sizers[1].min());
        let order = match (spec.rw, spec.norandommap) {
            (Rw::Read | Rw::Write | Rw::ReadWrite, _) => Order::Sequential,
            (_, false) => Order::RandomMap,
            (_, true) => Order::RandomUniform,
        };
        let plan = OffsetPlan::new(setup.files.iter().map(|f| f.region).collect(), order, unit, setup.seed);
        let regions_bytes: u64 = setup.files.iter().map(|f| f.region.len).sum();
        let pass_bytes = match spec.io_size() {
            0 => regions_bytes,
            n => n,
        };
        let state = setup
            .files
            .iter()
            .map(|f| FileState {
                written: setup.verifier.map(|v| UnitMap::new(f.region.len.div_ceil(v.interval()))),
                ..FileState::default()
            })
            .collect();
        let ramp_end = (!spec.ramp_time.is_zero()).then(|| start + spec.ramp_time);
        let deadline = spec.runtime.map(|r| start + spec.ramp_time + r);
        Worker {
            filler: Bytes::from(crate::buffers::random_bytes(sizers[1].max() as usize, setup.seed)),
            client: setup.client,
            files: setup.files,
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
            slot: 0,
            running_phase: JobPhase::Pending,
            spec,
        }
    }

    /// Keep up to iodepth calls in flight until the phase has nothing more to issue.
    async fn run_phase(&mut self, phase: Phase) {
        self.phase = phase;
        let depth = self.spec.iodepth.max(1) as usize;
        let mut in_flight = FuturesUnordered::new();
        loop {
            while in_flight.len() < depth {
                let Some(op) = self.next_op() else { break };
                let (submitted, slat_ns, submitted_at) = self.submit(op);
                self.recorder.record_depth(in_flight.len() as u32 + 1);
                in_flight.push(track(op, submitted, slat_ns, submitted_at));
            }
            let Some(done) = in_flight.next().await else { break };
            let now = Instant::now();
            self.on_clock(now);
            self.complete(done, now);
        }
    }

    /// Ramp and deadline bookkeeping at each completion.
    fn on_clock(&mut self, now: Instant) {
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

    fn verify_after_writes(&self) -> bool {
        self.verifier.is_some() && self.spec.do_verify && self.wrote && self.errno == 0 && !self.live.is_interrupted()
    }

    fn fail(&mut self, errno: i32, message: String) {
        if self.error.is_none() {
            tracing::error!("job '{}': {message}", self.spec.name);
            self.errno = errno;
            self.error = Some(message);
        }
        self.stopping = true;
    }

    fn finish(self) -> WorkerOutcome {
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
fn start_delay(spec: &JobSpec, seed: u64) -> Duration {
    match spec.startdelay_max {
        Some(max) if max > spec.startdelay => {
            let span = (max - spec.startdelay).as_nanos() as u64;
            spec.startdelay + Duration::from_nanos(fastrand::Rng::with_seed(seed).u64(0..=span))
        }
        _ => spec.startdelay,
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
