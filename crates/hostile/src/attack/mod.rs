//! The attacks: each holds or floods the server from raw sockets until its stop flag is raised, then
//! says what it did. A connection the server closes is opened again (an attacker keeps its grip), after
//! a pause so that a refusing server is not hammered by the attacker's own loop. The attacks on the
//! RPC-over-RDMA front end (soft provider, processes of one host) also need its listener
//! ([`Attack::run_with_rdma`]). The NFSv4.1 attacks live in [`crate::v4::attack`] and join this list as
//! [`Attack::V4`].

mod bad_version;
mod hold;
mod rdma_busy;
mod unread;

use std::io::{ErrorKind, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use crate::rpc::{RpcFailure, Target};
use crate::v4::V4Attack;

/// One attack and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attack {
    /// Connections that each start a record and then send one more byte of it a second, never finishing.
    Trickle { connections: usize },
    /// Connections opened and left silent.
    Idle { connections: usize },
    /// Connections that each pipeline 1 MiB READs of one file and never read a reply.
    UnreadReplies { connections: usize },
    /// Connections sending calls with RPC version 3 as fast as the server takes them (replies read and
    /// dropped): every call is one the server must refuse, and may want to log.
    BadVersion { connections: usize },
    /// Soft-RDMA peers that each raise every busy counter the server consults before it frees a
    /// registration of its own, then send a WRITE whose 8 bytes the server must RDMA-Read (a Read
    /// chunk); each keeps its connection until the server drops it, then connects again. Needs the
    /// server's RDMA listener.
    RdmaBusyCounters { connections: usize },
    /// An NFSv4.1 attack ([`crate::v4::attack`]); its full report comes from [`V4Attack::run`].
    V4(V4Attack),
}

impl Attack {
    /// The attack's name on the command line and in reports.
    pub fn name(&self) -> &'static str {
        match self {
            Attack::Trickle { .. } => "trickle",
            Attack::Idle { .. } => "idle",
            Attack::UnreadReplies { .. } => "unread-replies",
            Attack::BadVersion { .. } => "bad-version",
            Attack::RdmaBusyCounters { .. } => "rdma-busy-counters",
            Attack::V4(a) => a.name(),
        }
    }

    /// Parses `NAME` with `connections`.
    pub fn parse(name: &str, connections: usize) -> Option<Attack> {
        Some(match name {
            "trickle" => Attack::Trickle { connections },
            "idle" => Attack::Idle { connections },
            "unread-replies" => Attack::UnreadReplies { connections },
            "bad-version" => Attack::BadVersion { connections },
            "rdma-busy-counters" => Attack::RdmaBusyCounters { connections },
            _ => return V4Attack::parse(name, connections).map(Attack::V4),
        })
    }

    /// Every attack's name.
    pub const NAMES: [&'static str; 17] = [
        "trickle",
        "idle",
        "unread-replies",
        "bad-version",
        "rdma-busy-counters",
        V4Attack::NAMES[0],
        V4Attack::NAMES[1],
        V4Attack::NAMES[2],
        V4Attack::NAMES[3],
        V4Attack::NAMES[4],
        V4Attack::NAMES[5],
        V4Attack::NAMES[6],
        V4Attack::NAMES[7],
        V4Attack::NAMES[8],
        V4Attack::NAMES[9],
        V4Attack::NAMES[10],
        V4Attack::NAMES[11],
    ];

    /// True for the attacks on the RPC-over-RDMA listener ([`Attack::run_with_rdma`]).
    pub fn needs_rdma(&self) -> bool {
        matches!(self, Attack::RdmaBusyCounters { .. })
    }

    /// Runs until `stop` is raised; `Err` only when the attack could not start (e.g. its setup calls
    /// failed, or it needs an RDMA listener: see [`Attack::run_with_rdma`]).
    pub fn run(&self, target: &Target, stop: &AtomicBool) -> Result<AttackReport, RpcFailure> {
        self.run_with_rdma(target, None, stop)
    }

    /// As [`Attack::run`], with the server's soft-RDMA listener `rdma` (`nfsbench serve --rdma
    /// --rdma-provider soft`) for the attacks that need one; the others ignore it.
    pub fn run_with_rdma(
        &self,
        target: &Target,
        rdma: Option<SocketAddr>,
        stop: &AtomicBool,
    ) -> Result<AttackReport, RpcFailure> {
        let tally = Tally::default();
        match *self {
            Attack::Trickle { connections } => hold::run(target.addr, connections, true, stop, &tally),
            Attack::Idle { connections } => hold::run(target.addr, connections, false, stop, &tally),
            Attack::UnreadReplies { connections } => unread::run(target, connections, stop, &tally)?,
            Attack::BadVersion { connections } => bad_version::run(target.addr, connections, stop, &tally),
            Attack::RdmaBusyCounters { connections } => {
                let rdma =
                    rdma.ok_or_else(|| RpcFailure::Rdma(format!("{} needs the server's RDMA listener", self.name())))?;
                rdma_busy::run(target, rdma, connections, stop, &tally)?
            }
            Attack::V4(a) => return a.run(target, stop).map(|r| r.attack),
        }
        Ok(tally.report())
    }
}

/// What an attack did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AttackReport {
    /// Connections the server accepted (including re-openings).
    pub connected: u64,
    /// Connect attempts that failed (refused, reset, timed out).
    pub refused: u64,
    /// Connections the server closed under the attack.
    pub closed_by_server: u64,
    /// Calls sent (whole or started).
    pub calls: u64,
    pub bytes_sent: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Tally {
    connected: AtomicU64,
    refused: AtomicU64,
    closed_by_server: AtomicU64,
    calls: AtomicU64,
    bytes_sent: AtomicU64,
}

impl Tally {
    pub(crate) fn connected(&self) {
        self.connected.fetch_add(1, Relaxed);
    }
    pub(crate) fn refused(&self) {
        self.refused.fetch_add(1, Relaxed);
    }
    pub(crate) fn closed(&self) {
        self.closed_by_server.fetch_add(1, Relaxed);
    }
    pub(crate) fn sent(&self, calls: u64, bytes: u64) {
        self.calls.fetch_add(calls, Relaxed);
        self.bytes_sent.fetch_add(bytes, Relaxed);
    }

    pub(crate) fn report(&self) -> AttackReport {
        AttackReport {
            connected: self.connected.load(Relaxed),
            refused: self.refused.load(Relaxed),
            closed_by_server: self.closed_by_server.load(Relaxed),
            calls: self.calls.load(Relaxed),
            bytes_sent: self.bytes_sent.load(Relaxed),
        }
    }
}

/// Pause before opening again a connection the server closed or refused.
pub(crate) const REOPEN_PAUSE: Duration = Duration::from_millis(200);

/// A connection to `addr`, counted either way.
pub(crate) fn open(addr: SocketAddr, tally: &Tally) -> Option<TcpStream> {
    match TcpStream::connect_timeout(&addr, Duration::from_secs(2)) {
        Ok(stream) => {
            tally.connected();
            Some(stream)
        }
        Err(_) => {
            tally.refused();
            None
        }
    }
}

/// Sleeps `total` in small steps, returning early once `stop` is raised; true when stopped.
pub(crate) fn sleep_unless_stopped(total: Duration, stop: &AtomicBool) -> bool {
    let step = Duration::from_millis(20);
    let mut left = total;
    while !left.is_zero() {
        if stop.load(Relaxed) {
            return true;
        }
        let now = left.min(step);
        std::thread::sleep(now);
        left -= now;
    }
    stop.load(Relaxed)
}

/// Writes all of `bytes`, waiting out a server that is not reading: `Ok(false)` when stopped first,
/// `Err` when the connection is gone.
pub(crate) fn write_all_unless_stopped(
    stream: &mut TcpStream,
    mut bytes: &[u8],
    stop: &AtomicBool,
) -> Result<bool, ()> {
    while !bytes.is_empty() {
        if stop.load(Relaxed) {
            return Ok(false);
        }
        match stream.write(bytes) {
            Ok(0) => return Err(()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {}
            Err(_) => return Err(()),
        }
    }
    Ok(true)
}
