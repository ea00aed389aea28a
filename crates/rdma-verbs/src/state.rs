//! The mutable half of a [`crate::VerbsQueuePair`]: the table of posted requests, the buffer pools,
//! the queue counts, and whether the connection is down. Turning a work completion into the caller's
//! [`Completion`] happens here, and it is where what a request held is released (after completion).
#![allow(unsafe_code)]

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Waker;

use rdma::{Completion, CompletionKind, ConnectionInfo, WcError};
use rdma_sys as sys;

use crate::completion::{wc_error, Limits, Pending, Queue};
use crate::device::c_string;
use crate::pool::SlotPool;
use crate::window::Mw;

#[derive(Debug)]
pub(crate) struct State {
    pub pending: HashMap<u64, Pending>,
    next_wr: u64,
    pub recv_pool: SlotPool,
    /// Made once the peer's private data (hence its receive size) is known.
    pub send_pool: Option<SlotPool>,
    pub recvs_posted: u32,
    pub send_queue: u32,
    /// Window bindings and invalidations posted and not completed.
    pub window_queue: u32,
    /// Windows bound and not closed yet (each will post an invalidation).
    pub windows_open: u32,
    /// Memory windows free for the next binding.
    pub free_mws: Vec<Arc<Mw>>,
    /// Last parts of gather writes whose failure an earlier part already reported.
    swallowed: HashSet<u64>,
    /// The connection is down (disconnect, error, peer gone): requests are refused and the rest flush.
    pub down: bool,
    pub disconnect_sent: bool,
    /// A request failed with a cause of its own (not a flush): every later failure is a flush.
    failed: bool,
    /// Completions made up without the device (device removal).
    pub synthetic: Vec<Completion>,
    pub waker: Option<Waker>,
    pub info: ConnectionInfo,
    pub limits: Limits,
}

impl State {
    pub(crate) fn new(recv_pool: SlotPool, info: ConnectionInfo, recv_size: usize) -> Self {
        State {
            pending: HashMap::new(),
            next_wr: 0,
            recv_pool,
            send_pool: None,
            recvs_posted: 0,
            send_queue: 0,
            window_queue: 0,
            windows_open: 0,
            free_mws: Vec::new(),
            swallowed: HashSet::new(),
            down: false,
            disconnect_sent: false,
            failed: false,
            synthetic: Vec::new(),
            waker: None,
            info,
            limits: Limits { recv_size, peer_recv_size: recv_size },
        }
    }

    pub(crate) fn next_wr_id(&mut self) -> u64 {
        self.next_wr = self.next_wr.wrapping_add(1);
        self.next_wr
    }

    /// Marks the connection down and wakes the poller; true the first time the peer must be told.
    pub(crate) fn mark_down(&mut self) -> bool {
        self.down = true;
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
        !std::mem::replace(&mut self.disconnect_sent, true)
    }

    /// Ends every outstanding request with a flush, for a device that will complete nothing more.
    pub(crate) fn flush_all(&mut self) {
        let mut flushed = Vec::new();
        for (_, pending) in self.pending.drain() {
            match pending {
                Pending::Invalidate { idle, .. } => idle.store(true, Ordering::Release),
                Pending::Bind { .. } | Pending::GatherPart { .. } => {}
                other => flushed.push(Completion { wr_id: other.wr_id(), result: Err(WcError::Flushed) }),
            }
        }
        self.swallowed.clear();
        self.synthetic.extend(flushed);
    }

    /// Turns one work completion into the caller's completion, releasing what the request held. Any
    /// failure marks the connection down (an RC QP in the error state); the caller tells the peer.
    pub(crate) fn complete(&mut self, wc: &sys::ibv_wc) -> Option<Completion> {
        let Some(pending) = self.pending.remove(&wc.wr_id) else {
            tracing::warn!("completion for unknown work request {}", wc.wr_id);
            return None;
        };
        match pending.queue() {
            Queue::Send => self.send_queue = self.send_queue.saturating_sub(1),
            Queue::Recv => self.recvs_posted = self.recvs_posted.saturating_sub(1),
            Queue::Window => self.window_queue = self.window_queue.saturating_sub(1),
        }
        let success = wc.status == sys::ibv_wc_status::IBV_WC_SUCCESS;
        match pending {
            Pending::Bind { .. } => {
                if !success {
                    let error = self.failure(wc, &pending);
                    tracing::warn!("binding a memory window failed: {error}");
                }
                return None;
            }
            Pending::Invalidate { mw, idle } => {
                if success {
                    self.free_mws.push(mw);
                } else {
                    // The QP is in the error state: the key serves no access any more.
                    let error = self.failure(wc, &Pending::Invalidate { mw, idle: idle.clone() });
                    tracing::debug!("invalidating a memory window: {error}");
                }
                idle.store(true, Ordering::Release);
                return None;
            }
            Pending::GatherPart { wr_id, last } => {
                if success {
                    return None;
                }
                let error = self.failure(wc, &pending);
                // The caller hears of the gather once: from its first failed part.
                return self.swallowed.insert(last).then_some(Completion { wr_id, result: Err(error) });
            }
            Pending::Gather { .. } if self.swallowed.remove(&wc.wr_id) => {
                if !success {
                    self.failure(wc, &pending);
                }
                return None;
            }
            _ => {}
        }
        let wr_id = pending.wr_id();
        let result = if wc.status == sys::ibv_wc_status::IBV_WC_SUCCESS {
            Ok(match &pending {
                Pending::Recv { slot } => {
                    // SAFETY: the receive into `slot` has completed; the device is done with it.
                    CompletionKind::Recv(unsafe { self.recv_pool.read(*slot, wc.byte_len as usize) })
                }
                Pending::Send { .. } => CompletionKind::Send,
                Pending::Read { .. } => CompletionKind::Read,
                // A Write or a gather's last part (window requests and earlier parts returned above).
                _ => CompletionKind::Write,
            })
        } else {
            Err(self.failure(wc, &pending))
        };
        match pending {
            Pending::Recv { slot } => self.recv_pool.give(slot),
            Pending::Send { slot, .. } => {
                if let Some(pool) = self.send_pool.as_mut() {
                    pool.give(slot)
                }
            }
            // The region clones are dropped here, after the completion.
            _ => {}
        }
        Some(Completion { wr_id, result })
    }

    fn failure(&mut self, wc: &sys::ibv_wc, pending: &Pending) -> WcError {
        // SAFETY: ibv_wc_status_str returns a static string for every value.
        let name = unsafe { c_string(sys::ibv_wc_status_str(wc.status)) };
        let mut error = wc_error(wc.status, wc.vendor_err, pending, self.limits, &name);
        if error != WcError::Flushed {
            tracing::debug!("work request {} failed: {error}", pending.wr_id());
            // The first failure is the cause; requests after it are flushed, whatever the device says
            // (rxe before Linux 6.2 reports LOC_QP_OP_ERR for requests posted after it).
            if std::mem::replace(&mut self.failed, true) {
                error = WcError::Flushed;
            }
        }
        self.down = true;
        error
    }
}
