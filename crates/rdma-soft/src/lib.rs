//! nfsbench's software RDMA provider: reliable connections with the one-sided semantics of an RDMA NIC
//! between processes of one host (or within one process), for tests and for machines without a device.
//!
//! - Connection management: a SOCK_SEQPACKET Unix socket listening in the Linux abstract namespace
//!   under a name derived from the [`SocketAddr`] (`nfsbench-rdma-soft/127.0.0.1:20049`). Connecting
//!   sends Hello (private data, initiator depth, responder resources, receive size and count) with the
//!   client's shared memory; the server answers Accept (or Reject → [`RdmaError::Refused`]) with its
//!   own; the client confirms with Ready. The peer's pid and uid come from SO_PEERCRED, and each side
//!   proves at connect time that it may read the other's memory.
//! - The address an accepted peer is known by ([`rdma::Incoming::peer_addr`], what exports' client
//!   lists judge) is the address the client says it dialed, as TCP from a local process to a local
//!   address X comes from X, but only when a process of this host could have it: the kernel tells
//!   us the peer is a local process of this network namespace (abstract sockets are per namespace),
//!   so the claim must be an address this listener answers to and an address of this namespace
//!   (any of 127.0.0.0/8 and ::1, or one assigned to an interface: getifaddrs). Any other claim is
//!   refused (Reject with the reason) rather than replaced, so a lying client is never served under
//!   a name it did not ask for. The port is one the listener hands out, unique per connection.
//! - Each side's registrations live in its key table: a sealed memfd its peer maps read-only. A handle
//!   (R_key) names a slot and its generation, so an invalidated or reused slot rejects old handles.
//! - RDMA Read/Write: the initiator raises its busy counter on the slot (in its own guard memfd, which
//!   the peer maps read-only), validates the handle in the peer's table (generation, bounds,
//!   right; failure → [`rdma::WcError::RemoteAccess`] and the connection breaks, as RC does), then
//!   copies once (memcpy into or out of the peer's pool, otherwise process_vm_readv /
//!   process_vm_writev), then checks the generation again. It
//!   then adds the bytes to a counter in its own key table's header, which the peer reads as
//!   [`rdma::QueuePair::peer_one_sided`] (what link emulation on the peer's side charges).
//! - Pools ([`rdma::QueuePair::pool`]): a side that asks for one creates a memfd sealed so that it can
//!   never shrink or grow, registers it once in its key table and hands it over in the handshake with
//!   its address; the peer checks size and seals (a pool that could shrink would SIGBUS its copies:
//!   refused) and maps it read-write. A window ([`rdma::QueuePair::open_window`]) is a key-table slot
//!   of its own over part of a region, closed like a registration (quarantine rules included). An
//!   RDMA Read or Write whose validated segment lies inside the peer's pool is a memcpy through that
//!   mapping, with the same busy counter, validation and generation re-check: no system call
//!   ([`cross_memory_copies`] counts those made). The pool's mapping gives a hostile peer nothing new:
//!   a process that may process_vm_writev our memory can already write any byte of it; the key table
//!   is what holds an honest peer to the window of one RPC, and our side never decides anything on
//!   the bytes of a pool (they are data).
//! - Sends go through a single-producer ring in the receiver's shared memory; the socket carries only
//!   a doorbell (rung when the receiver declared itself asleep) and the connection's end (the
//!   `channel` module; configurations that would need a ring over 64 MiB send on the socket). A
//!   Send meets the peer's published count of posted receives or fails with `ReceiverNotReady` (RC,
//!   `rnr_retry = 0`); a message over the peer's receive size fails with `Length`.
//! - After a disconnect (asked for, a protocol error, the peer closing or dying) every outstanding
//!   request completes `Flushed`, then polling reports [`RdmaError::Disconnected`].
//!
//! Trust: nothing a peer can write holds up this side's progress (the peer may be hostile, and need
//! not even be able to access our memory: a process of another user still receives our memfds).
//! - A peer writes only what it owns: its key table and busy counters are its own memfds, sealed
//!   read-only for us, and ours for it; the one exception is the ring a side receives on, whose
//!   positions and record lengths are checked before use (a bad one breaks that connection).
//! - Deregistration never waits for the peer beyond a spin of a few microseconds: a slot whose busy
//!   counter is still up is quarantined (never reused while it is, its memory kept alive through
//!   [`rdma::Registration::retire`] when the peer could access it), and a peer that holds it past
//!   100 ms loses its connection on the next poll (a timer makes sure there is one). See `keytable`.
//! - Every value decoded from a peer (handshake fields, ring positions and lengths, table words) is
//!   bounded before use; a bad one breaks that connection and never panics or loops.
//!
//! Everything must run inside a tokio runtime. The peer must be ptrace-able by us (same user, Yama
//! `ptrace_scope` 0 or 1); [`SoftProvider::new`] declares any process a permitted tracer of ours.
//!
//! Tuning, read once per process: `NFSBENCH_SOFT_SPIN_US` (default 20; 0 turns it off) is how long
//! a receiver whose ring is empty keeps polling before it sleeps, adaptively (only while polling has
//! been catching messages, and never when both ends share this process and a one-thread runtime);
//! `NFSBENCH_SOFT_CHANNEL=socket` makes this process offer no ring
//! (messages on the socket), for comparisons.

use std::net::SocketAddr;
use std::sync::Once;

use rdma::{BoxFuture, Listener, Provider, QpConfig, QueuePair, RdmaError};

mod channel;
mod connect;
mod establish;
mod handshake;
pub mod hostile;
mod keytable;
mod listen;
mod names;
mod onesided;
pub use onesided::cross_memory_copies;
mod qp;
mod sys;

/// The provider's name in reports and in [`rdma::ConnectionInfo::provider`].
pub(crate) const NAME: &str = "soft (shared memory, one host)";

/// The software provider. Cheap to create and to clone; holds no resources itself.
#[derive(Debug, Clone)]
pub struct SoftProvider {
    _private: (),
}

impl SoftProvider {
    /// The provider. Declares any process a permitted ptracer of this one (PR_SET_PTRACER), so that
    /// with Yama `ptrace_scope` 1 a peer process may copy to and from our registered memory.
    pub fn new() -> Result<SoftProvider, RdmaError> {
        static PTRACER: Once = Once::new();
        PTRACER.call_once(sys::process::allow_any_ptracer);
        Ok(SoftProvider { _private: () })
    }
}

impl Provider for SoftProvider {
    fn name(&self) -> String {
        NAME.to_string()
    }

    fn connect<'a>(
        &'a self,
        addr: SocketAddr,
        config: QpConfig,
        private_data: &'a [u8],
    ) -> BoxFuture<'a, Result<Box<dyn QueuePair>, RdmaError>> {
        Box::pin(async move {
            let qp = connect::connect(addr, config, private_data).await?;
            Ok(Box::new(qp) as Box<dyn QueuePair>)
        })
    }

    fn listen(&self, addr: SocketAddr) -> Result<Box<dyn Listener>, RdmaError> {
        Ok(Box::new(listen::SoftListener::bind(addr)?))
    }
}
