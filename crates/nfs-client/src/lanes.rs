//! The connection slots a transport spreads its calls over (`nconnect`), shared by TCP and RPC-over-RDMA:
//! round-robin submission as the Linux client does, per-slot [`Counters`] summed into [`ClientStats`],
//! and the stop of every slot's tasks. A transport supplies the slot type ([`Lane`]) and the tasks.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::error::ClientError;
use crate::responsiveness::Responsiveness;
use crate::transport::{ReplySender, RpcCall};
use crate::types::{ClientStats, ConnectionInfo};

/// Counters of one slot, read without its lock.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) calls: AtomicU64,
    pub(crate) retransmissions: AtomicU64,
    pub(crate) reconnects: AtomicU64,
    pub(crate) unknown_replies: AtomicU64,
    pub(crate) soft_timeouts: AtomicU64,
    pub(crate) major_timeouts: AtomicU64,
    /// Memory registrations the connection's queue pairs made (RDMA only).
    pub(crate) registrations: AtomicU64,
    /// Bytes the transport copied between a call's buffers and registered memory (RDMA only).
    pub(crate) bytes_copied: AtomicU64,
}

impl Counters {
    /// Counts `major` major timeouts (retrans retransmissions without a reply) and says once, until a
    /// reply comes, that the server is not responding, as the Linux client does.
    pub(crate) fn major_timeouts(&self, major: u64, server: &Responsiveness, hard: bool, addr: SocketAddr) {
        if major == 0 {
            return;
        }
        self.major_timeouts.fetch_add(major, Relaxed);
        if let Some(notice) = server.major_timeouts(major, addr, hard) {
            tracing::warn!(server = %addr, "{notice}");
        }
    }

    fn add_to(&self, s: &mut ClientStats) {
        *s += ClientStats {
            calls: self.calls.load(Relaxed),
            retransmissions: self.retransmissions.load(Relaxed),
            reconnects: self.reconnects.load(Relaxed),
            soft_timeouts: self.soft_timeouts.load(Relaxed),
            major_timeouts: self.major_timeouts.load(Relaxed),
            unknown_replies: self.unknown_replies.load(Relaxed),
            registrations: self.registrations.load(Relaxed),
            bytes_copied: self.bytes_copied.load(Relaxed),
        };
    }
}

/// One connection slot of a transport: it outlives the connections it makes.
pub(crate) trait Lane: Send + Sync + 'static {
    /// Registers and queues a call; completes `reply` exactly once.
    fn submit(&self, call: RpcCall, reply: ReplySender);
    fn info(&self) -> ConnectionInfo;
    fn counters(&self) -> &Counters;
    /// Fails every outstanding and later call with `Closed`.
    fn close(&self);
}

/// The slots of one mount and their tasks.
#[derive(Debug)]
pub(crate) struct Lanes<L> {
    lanes: Vec<Arc<L>>,
    next: AtomicUsize,
    shutdown: watch::Sender<bool>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl<L: Lane> Lanes<L> {
    /// Makes a slot of each item with `start`, which gets the stop signal and returns the slot and the
    /// tasks it spawned.
    pub(crate) fn start<T>(
        items: Vec<T>,
        start: impl Fn(T, watch::Receiver<bool>) -> (Arc<L>, Vec<JoinHandle<()>>),
    ) -> Self {
        let (shutdown, stopped) = watch::channel(false);
        let mut lanes = Vec::with_capacity(items.len());
        let mut tasks = Vec::new();
        for item in items {
            let (lane, spawned) = start(item, stopped.clone());
            lanes.push(lane);
            tasks.extend(spawned);
        }
        Lanes { lanes, next: AtomicUsize::new(0), shutdown, tasks: Mutex::new(tasks) }
    }

    pub(crate) fn submit(&self, call: RpcCall, reply: ReplySender) {
        let n = self.lanes.len();
        let i = if n == 1 { 0 } else { self.next.fetch_add(1, Relaxed) % n };
        match self.lanes.get(i) {
            Some(lane) => lane.submit(call, reply),
            None => reply.send(Err(ClientError::Closed { proc: call.proc })),
        }
    }

    pub(crate) fn connections(&self) -> Vec<ConnectionInfo> {
        self.lanes.iter().map(|l| l.info()).collect()
    }

    pub(crate) fn stats(&self) -> ClientStats {
        let mut s = ClientStats::default();
        for lane in &self.lanes {
            lane.counters().add_to(&mut s);
        }
        s
    }

    /// Signals every slot's tasks to stop now; the future waits for them, then fails what is left.
    pub(crate) fn shutdown(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        self.shutdown.send_replace(true);
        let tasks = std::mem::take(&mut *self.tasks.lock().unwrap_or_else(PoisonError::into_inner));
        Box::pin(async move {
            for task in tasks {
                let _ = task.await;
            }
            // Calls submitted after the drivers ended.
            for lane in &self.lanes {
                lane.close();
            }
        })
    }
}

impl<L> Drop for Lanes<L> {
    fn drop(&mut self) {
        self.shutdown.send_replace(true);
    }
}

/// Implements [`crate::RpcTransport`] for a transport struct whose `lanes` field is a `Lanes<$lane>` and
/// whose `callbacks` field is its `Arc<transport::Callbacks>`, and [`Lane`] for `$lane` from its inherent
/// `submit`, `info`, `close` and its `counters` field.
macro_rules! transport_over_lanes {
    ($transport:ty, $lane:ty) => {
        impl $crate::lanes::Lane for $lane {
            fn submit(&self, call: $crate::transport::RpcCall, reply: $crate::transport::ReplySender) {
                <$lane>::submit(self, call, reply)
            }
            fn info(&self) -> $crate::types::ConnectionInfo {
                <$lane>::info(self)
            }
            fn counters(&self) -> &$crate::lanes::Counters {
                &self.counters
            }
            fn close(&self) {
                <$lane>::close(self)
            }
        }

        impl $crate::transport::RpcTransport for $transport {
            fn submit(&self, call: $crate::transport::RpcCall, reply: $crate::transport::ReplySender) {
                self.lanes.submit(call, reply)
            }
            fn connections(&self) -> Vec<$crate::types::ConnectionInfo> {
                self.lanes.connections()
            }
            fn stats(&self) -> $crate::types::ClientStats {
                self.lanes.stats()
            }
            fn shutdown(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
                self.lanes.shutdown()
            }
            fn set_callback_handler(&self, handler: std::sync::Arc<dyn $crate::transport::CallbackHandler>) {
                self.callbacks.set(handler)
            }
            fn callback_stats(&self) -> $crate::transport::CallbackStats {
                self.callbacks.stats()
            }
        }
    };
}
pub(crate) use transport_over_lanes;
