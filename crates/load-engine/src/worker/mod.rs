//! The NFS engine's job clone: the clone's choices and bookkeeping are [`crate::clone_core`]'s; this
//! worker keeps `iodepth` calls in flight through the userspace client, times them (submission =
//! encoding and queueing the call, completion = the reply reaped), and adds what only NFS has: I/Os
//! split at rsize/wsize, UNSTABLE writes and the write verifier, COMMITs for fsync and close (buffered
//! writes leave unstable data behind, which a kernel client would flush on close).

mod completion;
mod issue;
mod split;

use crate::clone_core::{start_delay, CloneCore, CloneSetup, Op, Phase, WorkerOutcome};
use crate::layout::PreparedFile;
use futures_util::stream::{FuturesUnordered, StreamExt};
use nfs_client::{ClientError, NfsClient, Pending, ReadReply, WriteReply};
use std::time::Instant;

/// Everything one NFS clone needs to run.
#[derive(Debug)]
pub struct WorkerSetup {
    pub client: NfsClient,
    pub files: Vec<PreparedFile>,
    pub clone: CloneSetup,
}

/// The calls of one I/O handed to the client.
enum Submitted {
    Read(Calls<ReadReply>),
    Write(Calls<WriteReply>),
    Sync(Pending<[u8; 8]>),
}

/// One call, or several when the I/O is larger than rsize/wsize, with the bytes each asked for. The
/// single call, nearly every I/O, costs no allocation of its own.
enum Calls<T> {
    One(Pending<T>, u64),
    Split(Vec<(Pending<T>, u64)>),
}

impl<T> FromIterator<(Pending<T>, u64)> for Calls<T> {
    fn from_iter<I: IntoIterator<Item = (Pending<T>, u64)>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        match (iter.next(), iter.next()) {
            (Some((only, len)), None) => Calls::One(only, len),
            (first, second) => Calls::Split(first.into_iter().chain(second).chain(iter).collect()),
        }
    }
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
    /// The error boxed: every in-flight future holds a `Done`, and errors are rare.
    result: Result<Reply, Box<ClientError>>,
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
        Submitted::Read(Calls::One(p, _)) => p.await.map(Reply::Read),
        Submitted::Read(Calls::Split(calls)) => {
            Box::pin(await_all(calls)).await.map(|(replies, asked)| Reply::Read(split::merge_reads(replies, &asked)))
        }
        Submitted::Write(Calls::One(p, sent)) => p.await.map(|w| Reply::Write(split::merge_write(w, sent))),
        Submitted::Write(Calls::Split(calls)) => {
            Box::pin(await_all(calls)).await.map(|(replies, sent)| Reply::Write(split::merge_writes(replies, &sent)))
        }
        Submitted::Sync(p) => p.await.map(Reply::Sync),
    };
    Done { op, slat_ns, submitted_at, result: result.map_err(Box::new) }
}

pub(crate) struct Worker {
    core: CloneCore,
    client: NfsClient,
    files: Vec<PreparedFile>,
    /// Per file: the write verifier of unstable writes not yet committed.
    unstable: Vec<Option<[u8; 8]>>,
}

/// Run one clone to the end.
pub async fn run(setup: WorkerSetup) -> WorkerOutcome {
    tokio::time::sleep(start_delay(&setup.clone.spec, setup.clone.seed)).await;
    let mut clone = setup.clone;
    clone.max_read = u64::from(setup.client.rsize());
    let mut worker = Worker {
        core: CloneCore::new(clone, Instant::now()),
        client: setup.client,
        unstable: vec![None; setup.files.len()],
        files: setup.files,
    };
    worker.core.begin();
    let mut phase = Some(Phase::Io);
    while let Some(current) = phase {
        worker.run_phase().await;
        phase = worker.core.next_phase(current);
    }
    worker.core.finish()
}

impl Worker {
    /// Keep up to iodepth calls in flight until the phase has nothing more to issue.
    async fn run_phase(&mut self) {
        let depth = self.core.spec.iodepth.max(1) as usize;
        let mut in_flight = FuturesUnordered::new();
        loop {
            while in_flight.len() < depth {
                let Some(op) = self.core.next_op() else { break };
                let (submitted, slat_ns, submitted_at) = self.submit(op);
                self.core.submitted(op, in_flight.len() as u32 + 1);
                in_flight.push(track(op, submitted, slat_ns, submitted_at));
            }
            let Some(done) = in_flight.next().await else { break };
            let now = Instant::now();
            self.core.on_clock(now);
            self.complete(done, now);
        }
    }
}
