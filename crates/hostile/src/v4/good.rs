//! The well-behaved NFSv4.1 client the suite measures beside each attack: one session on one connection,
//! 4 KiB READs at random offsets of its own 16 MiB file, one request in flight on each of 8 slots (the
//! v4 twin of the v3 good client's iodepth 8), every reply checked. Its figures — IOPS and p99 latency —
//! are judged against its own undisturbed ones, as the v3 client's are; any error it meets (a status that
//! is not OK, a short READ, a closed connection) fails the measurement.
//!
//! [`new_client_mounts`] is the v4 form of "a client that was not connected can still mount": a fresh
//! client id, session and lookup of the export within 2 s.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use nfs4_proto::{Nfs4Result, NfsArgOp, NfsFh4, NfsResOp, NfsStat4, ReadArgs, Stateid4};

use super::answer::Answer;
use super::conn::Received;
use super::session::{putfh, Session};
use crate::rpc::RpcFailure;

/// The good client's file.
pub const FILE_SIZE: u64 = 16 << 20;
/// Its READ size.
const BLOCK: u32 = 4096;
/// Requests in flight (one per slot).
const DEPTH: u32 = 8;
/// WRITE size while laying the file out.
const LAYOUT_CHUNK: usize = 1 << 20;

/// The good client's figures over one measurement.
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    pub iops: f64,
    pub p99_us: f64,
    /// READs completed.
    pub reads: u64,
}

/// A session with its file laid out, ready to measure.
#[derive(Debug)]
pub struct GoodV4 {
    session: Session,
    fh: NfsFh4,
    stateid: Stateid4,
}

impl GoodV4 {
    /// A new client of `addr` with a file in `export` (e.g. "/export") laid out with data.
    pub fn prepare(addr: SocketAddr, export: &str) -> Result<GoodV4, RpcFailure> {
        let tag = super::random::next_u64();
        let owner = format!("nfsbench-hostile-good-v4-{}-{tag:016x}", std::process::id());
        let mut session = Session::establish(addr, owner.as_bytes())?;
        let dir = session.lookup_path(export)?;
        let (stateid, fh) = session.create(dir, &format!("good-v4-{tag:016x}"), b"good open-owner")?;
        let chunk: Vec<u8> = (0..LAYOUT_CHUNK).map(|i| (i % 251) as u8).collect();
        for offset in (0..FILE_SIZE).step_by(LAYOUT_CHUNK) {
            session.write(fh, stateid, offset, &chunk)?;
        }
        Ok(GoodV4 { session, fh, stateid })
    }

    /// Random 4 KiB READs at depth 8 for `duration`.
    pub fn measure(&mut self, duration: Duration) -> Result<Figures, RpcFailure> {
        let depth = DEPTH.min(self.session.slots());
        let started = Instant::now();
        let deadline = started + duration;
        let mut in_flight: HashMap<u32, (u32, u32, Instant)> = HashMap::new();
        let mut latencies: Vec<Duration> = Vec::with_capacity(1 << 16);
        for slot in 0..depth {
            self.send(slot, &mut in_flight)?;
        }
        while !in_flight.is_empty() {
            let (xid, answer) = match self.session.conn.receive()? {
                Received::Reply { xid, answer } => (xid, answer),
                Received::Call { .. } => continue,
            };
            let Some((slot, seqid, sent)) = in_flight.remove(&xid) else { continue };
            latencies.push(sent.elapsed());
            if !read_in_full(&answer) {
                return Err(RpcFailure::Nfs4 {
                    step: "the good client's READ".into(),
                    outcome: answer.outcome().to_string(),
                });
            }
            self.session.set_seqid(slot, seqid);
            if Instant::now() < deadline {
                self.send(slot, &mut in_flight)?;
            }
        }
        let elapsed = started.elapsed().as_secs_f64();
        latencies.sort_unstable();
        let p99 = latencies.get((latencies.len() * 99).div_ceil(100).saturating_sub(1)).copied().unwrap_or_default();
        let reads = latencies.len() as u64;
        Ok(Figures { iops: reads as f64 / elapsed, p99_us: p99.as_secs_f64() * 1e6, reads })
    }

    fn send(&mut self, slot: u32, in_flight: &mut HashMap<u32, (u32, u32, Instant)>) -> Result<(), RpcFailure> {
        let blocks = FILE_SIZE / u64::from(BLOCK);
        let offset = (super::random::next_u64() % blocks) * u64::from(BLOCK);
        let sequence = self.session.sequence(slot);
        let read = NfsArgOp::Read(ReadArgs { stateid: self.stateid, offset, count: BLOCK });
        let body = Session::body(sequence, &[putfh(self.fh), read]);
        let sent = Instant::now();
        let xid = self.session.conn.send_body(&body)?;
        in_flight.insert(xid, (slot, sequence.sequenceid, sent));
        Ok(())
    }
}

/// True when `answer` is SEQUENCE, PUTFH and a READ of a whole block, all NFS4_OK (decoded once: the
/// client's own cost per READ stays small beside the server's).
fn read_in_full(answer: &Answer) -> bool {
    let Ok(res) = answer.res() else { return false };
    matches!(
        &res.resarray[..],
        [NfsResOp::Sequence(s), NfsResOp::Putfh(p), NfsResOp::Read(Nfs4Result::Ok(ok))]
            if s.is_ok() && p.is_ok() && ok.data.len() == BLOCK as usize
    ) && res.status == NfsStat4::Ok
}

/// A client that was not connected mounts within 2 s: EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE and
/// the export's handle, retried (as the Linux client retries a refused EXCHANGE_ID or CREATE_SESSION)
/// until the time is up. The session is destroyed after.
pub fn new_client_mounts(addr: SocketAddr, export: &str) -> Result<(), String> {
    let started = Instant::now();
    let limit = Duration::from_secs(2);
    let owner = format!("nfsbench-hostile-new-v4-{}-{:016x}", std::process::id(), super::random::next_u64());
    loop {
        let attempt = Session::establish(addr, owner.as_bytes()).and_then(|mut s| {
            s.lookup_path(export)?;
            Ok(s)
        });
        match attempt {
            Ok(session) if started.elapsed() <= limit => {
                session.destroy();
                return Ok(());
            }
            Ok(_) => return Err(format!("mounting over NFSv4.1 took {:?}", started.elapsed())),
            Err(e) if started.elapsed() > limit => return Err(format!("NFSv4.1 mount: {e}")),
            Err(RpcFailure::Nfs4 { .. }) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("NFSv4.1 mount: {e}")),
        }
    }
}
