//! What both ends of connection set-up share: checking a configuration, creating this side's shared
//! memory (key table, guard, ring, and the pool when the configuration asks for one: a memfd sealed
//! so that it can never shrink or grow, registered once in the key table), exchanging handshake
//! messages with their descriptors, attaching to the peer's (size, seals, layout, and a probe read of
//! the peer's memory that proves cross-memory attach works; the peer's pool is mapped read-write,
//! since our RDMA Writes land there), and building the queue pair.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::time::Duration;

use rdma::{Access, ConnectionInfo, MemoryRegion, QpConfig, RdmaError, RegBuf};
use tokio::io::unix::AsyncFd;

use crate::channel::ring::{ring_len, Ring};
use crate::channel::seqpacket::SeqpacketChannel;
use crate::channel::shm::ShmChannel;
use crate::channel::spin::spin_window;
use crate::channel::Channel;
use crate::handshake::{Handshake, Offer, MAX_POOL_BYTES, MAX_PRIVATE_DATA, MAX_RECVS, MAX_RECV_SIZE};
use crate::hostile::PoolFault;
use crate::keytable::{guard_len, table_len, LocalTable, RemoteTable, SlotRegistration, OFF_NONCE};
use crate::qp::{Established, SoftQp};
use crate::sys::mem::{page_round, page_size, PoolMem, SharedMem};
use crate::sys::process::{self, CopyError, PeerProcess};
use crate::sys::socket;

/// Environment variable: `socket` makes this side offer no ring, so that its connections carry
/// messages on the socket (for comparisons and tests).
pub(crate) const CHANNEL_ENV: &str = "NFSBENCH_SOFT_CHANNEL";

/// How long either side waits for the other's next handshake message.
pub(crate) const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The connection socket, registered with the tokio reactor.
pub(crate) type Socket = Arc<AsyncFd<OwnedFd>>;

pub(crate) fn check_config(config: &QpConfig, private_data: &[u8]) -> Result<(), RdmaError> {
    if private_data.len() > MAX_PRIVATE_DATA {
        return Err(RdmaError::Invalid(format!("private data of {} bytes (at most 56)", private_data.len())));
    }
    if config.recv_size > MAX_RECV_SIZE || config.max_recv > MAX_RECVS {
        return Err(RdmaError::Invalid(format!(
            "receive size {} / count {} out of range (at most {MAX_RECV_SIZE} / {MAX_RECVS})",
            config.recv_size, config.max_recv
        )));
    }
    if config.pool_bytes as u64 > MAX_POOL_BYTES {
        return Err(RdmaError::Invalid(format!("a pool of {} bytes (at most {MAX_POOL_BYTES})", config.pool_bytes)));
    }
    Ok(())
}

/// Registers `fd` with the current tokio runtime.
pub(crate) fn async_fd(fd: OwnedFd) -> Result<Socket, RdmaError> {
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(RdmaError::Unavailable("the soft provider must be used inside a tokio runtime".into()));
    }
    Ok(Arc::new(socket::register(fd).map_err(|e| RdmaError::io("registering the connection socket", e))?))
}

/// What this side shares with its peer: its key table, the ring it receives on, and its pool.
#[derive(Debug)]
pub(crate) struct LocalSide {
    pub table: Arc<LocalTable>,
    /// `None` when the configuration would need too large a ring (messages then use the socket).
    pub ring: Option<Ring>,
    pub pool: Option<LocalPool>,
}

/// This side's pool: its memfd mapping and the region registered over it.
#[derive(Debug)]
pub(crate) struct LocalPool {
    mem: Arc<PoolMem>,
    pub region: MemoryRegion,
    /// The length the Offer announces (a hostile hook may announce more than the memfd holds).
    announced: u64,
}

impl LocalSide {
    pub(crate) fn new(config: &QpConfig, fault: Option<PoolFault>) -> Result<LocalSide, RdmaError> {
        let table = LocalTable::new().map_err(|e| RdmaError::io("creating the key table (memfd)", e))?;
        let rings = std::env::var(CHANNEL_ENV).map_or(true, |v| v != "socket");
        let ring = match ring_len(config.recv_size, config.max_recv).filter(|_| rings) {
            Some(len) => Some(Ring::create(len).map_err(|e| RdmaError::io("creating the message ring (memfd)", e))?),
            None => None,
        };
        let pool = match config.pool_bytes {
            0 => None,
            bytes => Some(LocalPool::new(&table, page_round(bytes), fault)?),
        };
        Ok(LocalSide { table, ring, pool })
    }

    /// Our side's offer.
    pub(crate) fn offer(&self, config: &QpConfig, addr: std::net::SocketAddr, private_data: &[u8]) -> Offer {
        Offer {
            initiator_depth: config.initiator_depth,
            responder_resources: config.responder_resources,
            recv_size: config.recv_size,
            max_recv: config.max_recv,
            table_addr: self.table.table().addr() as u64,
            ring_len: self.ring.as_ref().map_or(0, |r| r.len() as u32),
            pool_addr: self.pool.as_ref().map_or(0, |p| p.region.start_addr() as u64),
            pool_len: self.pool.as_ref().map_or(0, |p| p.announced),
            addr,
            private_data: private_data.to_vec(),
        }
    }
}

/// Sends one handshake message, with our shared memory's descriptors for Hello and Accept.
pub(crate) async fn send(sock: &Socket, message: &Handshake, side: Option<&LocalSide>) -> Result<(), RdmaError> {
    let bytes = message.encode();
    let mut fds = Vec::new();
    if let Some(side) = side {
        fds.extend([side.table.table().fd(), side.table.guard().fd()]);
        fds.extend(side.ring.as_ref().map(|r| r.fd()));
        fds.extend(side.pool.as_ref().map(|p| p.mem.0.fd()));
    }
    loop {
        let mut guard = sock.writable().await.map_err(|e| RdmaError::io("connection socket", e))?;
        match guard.try_io(|fd| socket::send(fd.get_ref().as_fd(), &[&bytes], &fds)) {
            Ok(result) => return result.map(drop).map_err(|e| RdmaError::io("sending a connection message", e)),
            Err(_would_block) => continue,
        }
    }
}

/// Receives the peer's next handshake message: `None` when it closed the socket instead.
pub(crate) async fn recv(sock: &Socket) -> Result<Option<(Handshake, Vec<OwnedFd>)>, RdmaError> {
    let receive = async {
        let mut buf = vec![0u8; 1024];
        loop {
            let mut guard = sock.readable().await?;
            if let Ok(got) = guard.try_io(|fd| socket::recv(fd.get_ref().as_fd(), &mut buf, true)) {
                return got.map(|got| (buf, got));
            }
        }
    };
    let (buf, got) = tokio::time::timeout(HANDSHAKE_TIMEOUT, receive)
        .await
        .map_err(|_| RdmaError::io("connection set-up", io::ErrorKind::TimedOut.into()))?
        .map_err(|e| RdmaError::io("receiving a connection message", e))?;
    if got.len == 0 && !got.truncated {
        return Ok(None);
    }
    let message = if got.truncated {
        Err(RdmaError::Invalid("connection message too long".into()))
    } else {
        Handshake::decode(&buf[..got.len]).map_err(|e| RdmaError::Invalid(e.to_string()))
    };
    message.map(|m| Some((m, got.fds)))
}

/// Why attaching to the peer failed.
#[derive(Debug)]
pub(crate) enum AttachError {
    /// The kernel does not let us read the peer's memory (ptrace rules).
    Permission(i32),
    /// The peer sent something unusable.
    Invalid(String),
}

impl AttachError {
    /// The peer sent something unusable: `why` says what.
    fn invalid(why: impl std::error::Error) -> AttachError {
        AttachError::Invalid(why.to_string())
    }

    pub(crate) fn reason(&self) -> String {
        match self {
            AttachError::Permission(pid) => format!(
                "the kernel refused access to the memory of process {pid} (process_vm_readv: EPERM); both \
                 processes must run as the same user and be allowed to ptrace each other \
                 (Yama kernel.yama.ptrace_scope 0 or 1)"
            ),
            AttachError::Invalid(why) => why.clone(),
        }
    }
}

/// The peer's shared memory, mapped, and its pid.
#[derive(Debug)]
pub(crate) struct PeerSide {
    pub remote: RemoteTable,
    /// The peer's busy counters on our slots, read-only.
    pub guard: SharedMem,
    pub ring: Option<Ring>,
    pub pool: Option<PeerPool>,
    pub pid: i32,
}

/// The peer's pool, mapped read-write here, and where the peer has it in its own process.
#[derive(Debug)]
pub(crate) struct PeerPool {
    pub mem: SharedMem,
    addr: usize,
}

impl PeerPool {
    /// Where `len` bytes at the peer's address `addr` are in our mapping, when they lie entirely in
    /// the pool.
    pub(crate) fn offset_of(&self, addr: usize, len: usize) -> Option<usize> {
        let skip = addr.checked_sub(self.addr)?;
        skip.checked_add(len).filter(|end| *end <= self.mem.len()).map(|_| skip)
    }
}

impl LocalPool {
    /// A pool of `len` bytes (whole pages), registered once in `table` for local writes.
    fn new(table: &Arc<LocalTable>, len: usize, fault: Option<PoolFault>) -> Result<LocalPool, RdmaError> {
        let name = c"nfsbench-rdma-soft-pool";
        let created = match fault {
            Some(PoolFault::Unsealed) => SharedMem::create_unsealed(name, len),
            _ => SharedMem::create(name, len, false),
        };
        let mem = Arc::new(PoolMem(created.map_err(|e| RdmaError::io("creating the pool (memfd)", e))?));
        let announced = if fault == Some(PoolFault::Short) { len + page_size() } else { len } as u64;
        let start = mem.0.addr();
        let handle = table.register(start, len, Access::LOCAL_WRITE)?;
        let registration = Box::new(SlotRegistration { table: table.clone(), handle, remote: false });
        let buf = RegBuf::Pool(mem.clone());
        let region = MemoryRegion::new(buf, Access::LOCAL_WRITE, handle, handle, start as u64, registration);
        Ok(LocalPool { mem, region, announced })
    }
}

/// Maps the peer's key table and guard (read-only: a peer writes only what it owns) and its ring,
/// learns its pid from the kernel and proves that we can read its memory (the probe reads its
/// table's nonce where it says it mapped the table).
pub(crate) fn attach(
    sock: &Socket,
    offer: &Offer,
    fds: Vec<OwnedFd>,
    local: &LocalSide,
) -> Result<PeerSide, AttachError> {
    let expected = 2 + usize::from(offer.ring_len > 0) + usize::from(offer.pool_len > 0);
    if fds.len() != expected {
        return Err(AttachError::Invalid(format!("expected {expected} shared-memory descriptors from the peer")));
    }
    let mut fds = fds.into_iter();
    let (Some(table_fd), Some(guard_fd)) = (fds.next(), fds.next()) else {
        return Err(AttachError::Invalid("missing shared-memory descriptors".into()));
    };
    let ring = match offer.ring_len {
        0 => None,
        len => match fds.next() {
            Some(fd) => Some(Ring::map_peer(fd, len as usize).map_err(AttachError::invalid)?),
            None => return Err(AttachError::Invalid("missing the ring's descriptor".into())),
        },
    };
    let pool = match fds.next() {
        Some(fd) => Some(map_pool(fd, offer)?),
        None => None,
    };
    let table = SharedMem::map_peer(table_fd, table_len(), false).map_err(AttachError::invalid)?;
    let guard = SharedMem::map_peer(guard_fd, guard_len(), false).map_err(AttachError::invalid)?;
    let remote = RemoteTable::new(table, Arc::clone(local.table.guard())).map_err(AttachError::invalid)?;
    let pid =
        socket::peer_pid(sock.get_ref().as_fd()).map_err(|e| AttachError::Invalid(format!("SO_PEERCRED: {e}")))?;
    let addr = usize::try_from(offer.table_addr)
        .ok()
        .and_then(|a| a.checked_add(OFF_NONCE))
        .ok_or_else(|| AttachError::Invalid("bad table address".into()))?;
    match process::probe(pid, addr) {
        Ok(word) if remote.is_same_table(u64::from_ne_bytes(word)) => Ok(PeerSide { remote, guard, ring, pool, pid }),
        Ok(_) | Err(CopyError::Fault) => {
            Err(AttachError::Invalid(format!("process {pid} does not have the key table it announced")))
        }
        Err(CopyError::Permission) => Err(AttachError::Permission(pid)),
        Err(CopyError::PeerGone) => Err(AttachError::Invalid(format!("process {pid} exited"))),
        Err(CopyError::Other(e)) => Err(AttachError::Invalid(format!("probing process {pid}: {e}"))),
    }
}

/// Maps the peer's pool read-write after checking that it is exactly as long as announced, whole
/// pages, and sealed against shrinking: a pool that could shrink under our mapping would turn our next
/// copy into a SIGBUS, so a peer offering one is refused.
fn map_pool(fd: OwnedFd, offer: &Offer) -> Result<PeerPool, AttachError> {
    let len = usize::try_from(offer.pool_len).ok().filter(|len| len.is_multiple_of(page_size()));
    let addr = usize::try_from(offer.pool_addr).ok();
    let (Some(len), Some(addr)) = (len, addr.filter(|a| len.is_some_and(|len| a.checked_add(len).is_some()))) else {
        return Err(AttachError::Invalid(format!(
            "the peer announced a pool of {} bytes at {:#x}",
            offer.pool_len, offer.pool_addr
        )));
    };
    let mem = SharedMem::map_peer(fd, len, true).map_err(|e| AttachError::Invalid(format!("the peer's pool: {e}")))?;
    Ok(PeerPool { mem, addr })
}

/// The parts of a queue pair that set-up produced.
#[derive(Debug)]
pub(crate) struct Parts {
    pub sock: Socket,
    pub local: LocalSide,
    pub peer_side: PeerSide,
    pub config: QpConfig,
    pub peer: Offer,
    pub info: ConnectionInfo,
    pub posted: u64,
}

/// The spin window for a connection to `peer_pid`: none when both ends are in this process and this
/// runtime has one thread (they take turns on it, so polling only delays the peer).
fn spin_for(peer_pid: i32) -> std::time::Duration {
    let one_thread = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread);
    if one_thread && peer_pid == std::process::id() as i32 {
        std::time::Duration::ZERO
    } else {
        spin_window()
    }
}

/// Builds the established queue pair: messages through the rings when both sides have one.
pub(crate) fn build(parts: Parts) -> SoftQp {
    let Parts { sock, local, peer_side, config, .. } = parts;
    local.table.set_peer(PeerProcess::new(peer_side.pid), peer_side.guard);
    let channel: Box<dyn Channel> = match (local.ring, peer_side.ring) {
        (Some(inbound), Some(outbound)) => {
            Box::new(ShmChannel::new(sock, inbound, outbound, config.recv_size, spin_for(peer_side.pid)))
        }
        _ => Box::new(SeqpacketChannel::new(sock, config.recv_size, parts.peer.max_recv)),
    };
    SoftQp::new(Established {
        channel,
        local: local.table,
        pool: local.pool.map(|p| p.region),
        peer_pool: peer_side.pool,
        remote: peer_side.remote,
        peer_pid: peer_side.pid,
        info: parts.info,
        config: parts.config,
        peer_recv_size: parts.peer.recv_size,
        posted: parts.posted,
    })
}
