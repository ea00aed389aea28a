//! The fake server's state: a file tree that outlives restarts (as a `dir:` export), and the NFSv4
//! state a restart forgets — client IDs, sessions with their slots and reply caches, open stateids,
//! the grace period.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use nfs4_proto::{NfsFtype4, SessionId4, Stateid4};

/// One file or directory. Its handle is its id, 8 bytes big-endian.
#[derive(Debug, Clone)]
pub struct Node {
    pub kind: NfsFtype4,
    pub mode: u32,
    pub data: Vec<u8>,
    pub entries: HashMap<String, u64>,
    /// EXCLUSIVE4_1's verifier, kept as a server keeps it in the file's metadata.
    pub verifier: Option<[u8; 8]>,
}

/// A client ID.
#[derive(Debug, Clone)]
pub struct Client {
    pub owner: Vec<u8>,
    pub verifier: [u8; 8],
    /// The `csa_sequence` the next CREATE_SESSION must carry.
    pub cs_sequence: u32,
    pub last_renewal: Instant,
}

/// One slot of a session: the last sequence id and the reply body it got (if cached).
#[derive(Debug, Clone, Default)]
pub struct Slot {
    pub seq: u32,
    pub reply: Option<Vec<u8>>,
    /// A request was done on it (with `seq`).
    pub used: bool,
}

#[derive(Debug, Clone)]
pub struct Session {
    pub clientid: u64,
    pub slots: Vec<Slot>,
}

/// An open: which file, and the stateid's seqid.
#[derive(Debug, Clone, Copy)]
pub struct Open {
    pub clientid: u64,
    pub file: u64,
    pub seqid: u32,
}

/// Everything the fake server keeps.
#[derive(Debug)]
pub struct State {
    /// Counts restarts; ids and verifiers carry it.
    pub boot: u32,
    pub grace: bool,
    pub lease: Duration,
    pub nodes: HashMap<u64, Node>,
    pub next_id: u64,
    pub clients: HashMap<u64, Client>,
    pub sessions: HashMap<SessionId4, Session>,
    pub opens: HashMap<[u8; 12], Open>,
    pub counter: u64,
    /// `sr_target_highest_slotid` the server answers (`None`: the table's top).
    pub target: Option<u32>,
    /// The highest slot a new request came on, since last reset.
    pub max_slot_seen: u32,
    /// Replies are not kept in the slots: a replay is answered as knfsd answers one it did not cache.
    pub uncached: bool,
}

pub const ROOT: u64 = 1;

impl State {
    pub fn new(lease: Duration) -> Self {
        let root =
            Node { kind: NfsFtype4::Dir, mode: 0o755, data: Vec::new(), entries: HashMap::new(), verifier: None };
        State {
            boot: 1,
            grace: false,
            lease,
            nodes: HashMap::from([(ROOT, root)]),
            next_id: 2,
            clients: HashMap::new(),
            sessions: HashMap::new(),
            opens: HashMap::new(),
            counter: 0,
            target: None,
            max_slot_seen: 0,
            uncached: false,
        }
    }

    /// A restart: the file tree stays, every client, session and open is forgotten, grace begins.
    pub fn restart(&mut self) {
        self.boot += 1;
        self.clients.clear();
        self.sessions.clear();
        self.opens.clear();
        self.grace = true;
    }

    pub fn unique(&mut self) -> u64 {
        self.counter += 1;
        (u64::from(self.boot) << 40) | self.counter
    }

    pub fn new_node(&mut self, kind: NfsFtype4, mode: u32) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.nodes.insert(id, Node { kind, mode, data: Vec::new(), entries: HashMap::new(), verifier: None });
        id
    }

    /// A new open stateid of `file` for `clientid`, or the same open again with its seqid bumped.
    pub fn open(&mut self, clientid: u64, file: u64) -> Stateid4 {
        if let Some((other, open)) = self.opens.iter_mut().find(|(_, o)| o.clientid == clientid && o.file == file) {
            open.seqid += 1;
            return Stateid4 { seqid: open.seqid, other: *other };
        }
        let mut other = [0u8; 12];
        other[..8].copy_from_slice(&self.unique().to_be_bytes());
        self.opens.insert(other, Open { clientid, file, seqid: 1 });
        Stateid4 { seqid: 1, other }
    }

    /// The write verifier: changes with every restart, as a server that may lose unstable data.
    pub fn write_verifier(&self) -> [u8; 8] {
        u64::from(self.boot).to_be_bytes()
    }

    /// Drops every client whose lease ran out, with its sessions and opens; returns how many.
    pub fn expire(&mut self, now: Instant) -> usize {
        let lease = self.lease;
        let gone: Vec<u64> = self
            .clients
            .iter()
            .filter(|(_, c)| now.duration_since(c.last_renewal) > lease)
            .map(|(id, _)| *id)
            .collect();
        for id in &gone {
            self.clients.remove(id);
            self.sessions.retain(|_, s| s.clientid != *id);
            self.opens.retain(|_, o| o.clientid != *id);
        }
        gone.len()
    }
}

/// A file handle of node `id`.
pub fn handle(id: u64) -> nfs4_proto::NfsFh4 {
    nfs4_proto::NfsFh4::new(&id.to_be_bytes()).expect("8 bytes fit")
}

/// The node a handle names.
pub fn node_of(fh: &nfs4_proto::NfsFh4) -> Option<u64> {
    fh.as_bytes().try_into().ok().map(u64::from_be_bytes)
}
