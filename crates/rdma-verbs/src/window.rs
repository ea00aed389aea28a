//! Windows ([`rdma::QueuePair::open_window`]) on the verbs provider: type-2 memory windows bound to
//! the pool's registration by an IBV_WR_BIND_MW work request on the queue pair (it executes before
//! any later Send on the same queue pair, so a window is usable by the time the peer reads the call
//! or reply that names it), closed by IBV_WR_LOCAL_INV: once the invalidation completes the peer's
//! operations with the old key fail with a remote access error and the window is idle. Each memory
//! window is allocated once (`ibv_alloc_mw`) and bound again with the next key of its index
//! (`ibv_inc_rkey`), so a closed window's key never names a later one.
//!
//! On a device without type-2B windows, and for a region other than the pool (whose registration is
//! the one allowed to take bindings), a window is a registration of its bytes (counted).
#![allow(unsafe_code)]

use std::io;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use rdma::{Access, MemoryRegion, RdmaError, Registration, Window};
use rdma_sys as sys;

use crate::cm::CmId;
use crate::completion::Pending;
use crate::mr::{access_flags, register_range};
use crate::qp::VerbsQueuePair;
use crate::state::State;
use crate::verbs::{Pd, RawQp};

/// One type-2 memory window, deallocated when dropped.
#[derive(Debug)]
pub(crate) struct Mw {
    raw: NonNull<sys::ibv_mw>,
    /// The key of its latest binding (or of its allocation).
    rkey: AtomicU32,
    _pd: Arc<Pd>,
}

// SAFETY: see Pd: libibverbs objects may be used from any thread.
unsafe impl Send for Mw {}
// SAFETY: as above.
unsafe impl Sync for Mw {}

impl Drop for Mw {
    fn drop(&mut self) {
        // SAFETY: the window is live and no posted work request refers to it: a bind or invalidation
        // holds the Mw itself in its pending entry until its completion.
        unsafe { sys::nfsbench_ibv_dealloc_mw(self.raw.as_ptr()) };
    }
}

impl Mw {
    pub(crate) fn alloc(pd: &Arc<Pd>) -> Result<Mw, RdmaError> {
        // SAFETY: the PD is live (we keep an Arc of it for the window's life).
        let raw = unsafe { sys::nfsbench_ibv_alloc_mw_type2(pd.raw.as_ptr()) };
        let raw = NonNull::new(raw).ok_or_else(|| RdmaError::io("ibv_alloc_mw", io::Error::last_os_error()))?;
        // SAFETY: a live MW returned just now.
        let rkey = unsafe { (*raw.as_ptr()).rkey };
        Ok(Mw { raw, rkey: AtomicU32::new(rkey), _pd: pd.clone() })
    }

    /// Takes the next key of the window's index for a new binding (under the queue pair's lock).
    pub(crate) fn next_key(&self) -> u32 {
        // SAFETY: a pure function of its argument.
        let next = unsafe { sys::nfsbench_ibv_inc_rkey(self.rkey.load(Ordering::Relaxed)) };
        self.rkey.store(next, Ordering::Relaxed);
        next
    }

    pub(crate) fn raw(&self) -> *mut sys::ibv_mw {
        self.raw.as_ptr()
    }
}

/// What closes a bound window: the queue pair to post the invalidation on, and the window.
#[derive(Debug)]
pub(crate) struct MwRegistration {
    pub(crate) qp: Arc<RawQp>,
    pub(crate) state: Arc<Mutex<State>>,
    pub(crate) id: Arc<CmId>,
    pub(crate) mw: Mutex<Option<Arc<Mw>>>,
    pub(crate) rkey: u32,
    /// Set when the invalidation has completed (or the connection is down and the device done).
    pub(crate) idle: Arc<AtomicBool>,
}

impl Registration for MwRegistration {
    fn deregister(&self) {
        let mw = self.mw.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some(mw) = mw else { return };
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.windows_open = st.windows_open.saturating_sub(1);
        if st.down {
            // The QP is in the error state (or being torn down): it serves no remote access any more.
            self.idle.store(true, Ordering::Release);
            return;
        }
        let internal = st.next_wr_id();
        st.pending.insert(internal, Pending::Invalidate { mw, idle: self.idle.clone() });
        // SAFETY: the rkey is the window's current binding on this QP; the MW is kept in the pending
        // entry until the invalidation's completion.
        match unsafe { self.qp.post_local_inv(internal, self.rkey) } {
            Ok(()) => st.window_queue += 1,
            Err(e) => {
                // The key must not stay usable: break the connection (the QP goes to the error state).
                tracing::warn!("posting the invalidation of a memory window failed ({e}): disconnecting");
                st.pending.remove(&internal);
                if st.mark_down() {
                    let _ = self.id.disconnect();
                }
                self.idle.store(true, Ordering::Release);
            }
        }
    }

    fn is_idle(&self) -> bool {
        self.idle.load(Ordering::Acquire)
    }
}

impl VerbsQueuePair {
    /// Opens a window: a memory window bound over the pool's bytes when the device has them, a
    /// registration of the bytes otherwise (or for a region other than the pool).
    pub(crate) fn open_window(
        &self,
        region: &MemoryRegion,
        offset: usize,
        len: usize,
        access: Access,
    ) -> Result<Window, RdmaError> {
        let remote = Access::REMOTE_READ.bits() | Access::REMOTE_WRITE.bits();
        if access.bits() & remote == 0 || access.bits() & !(remote | Access::LOCAL_WRITE.bits()) != 0 {
            return Err(RdmaError::Invalid(format!("a window gives remote read or write, not {access:?}")));
        }
        if len == 0 || offset.checked_add(len).is_none_or(|end| end > region.len()) || region.is_invalidated() {
            return Err(RdmaError::Invalid(format!(
                "a window of {len} bytes at {offset} of a {}-byte region",
                region.len()
            )));
        }
        let addr = (region.start_addr() + offset) as u64;
        let pool_mr = self.pool.as_ref().filter(|(pool, _)| pool.same_as(region)).map(|(_, mr)| mr);
        let Some(mr) = pool_mr.filter(|_| self.window_room > 0) else {
            let (rkey, registration) = register_range(&self.pd, region, offset, len, access)?;
            self.registrations.fetch_add(1, Ordering::Relaxed);
            return Ok(Window::new(region.clone(), offset, len, access, rkey, addr, registration));
        };
        let mut st = self.lock();
        if st.down {
            return Err(RdmaError::Disconnected);
        }
        // Each open window will post its invalidation: room for it is kept from the binding on.
        if st.window_queue + st.windows_open >= self.window_room {
            return Err(RdmaError::QueueFull { queue: "memory window", depth: self.window_room });
        }
        let mw = match st.free_mws.pop() {
            Some(mw) => mw,
            None => Arc::new(Mw::alloc(&self.pd)?),
        };
        let rkey = mw.next_key();
        let internal = st.next_wr_id();
        st.pending.insert(internal, Pending::Bind { _mw: mw.clone() });
        let flags = access_flags(access) as u32;
        // SAFETY: the pool's MR is live (held by this queue pair, which outlives the binding's use:
        // the window holds the QP and the region), registered with MW_BIND on this PD, and covers the
        // range (checked against the region, which is the pool); the MW is held by the pending entry.
        let posted = unsafe { self.qp.post_bind_mw(internal, mw.raw(), rkey, mr.raw(), addr, len as u64, flags) };
        if let Err(e) = posted {
            st.pending.remove(&internal);
            st.free_mws.push(mw);
            return Err(e);
        }
        st.window_queue += 1;
        st.windows_open += 1;
        let registration = MwRegistration {
            qp: self.qp.clone(),
            state: self.state.clone(),
            id: self.id().clone(),
            mw: Mutex::new(Some(mw)),
            rkey,
            idle: Arc::new(AtomicBool::new(false)),
        };
        Ok(Window::new(region.clone(), offset, len, access, rkey, addr, Box::new(registration)))
    }
}
