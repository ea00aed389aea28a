//! Registered memory: owned by its [`MemoryRegion`] so that no RDMA access outlives it.

use std::fmt;
use std::ops::BitOr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use bytes::Bytes;

use crate::types::RemoteSegment;

/// What a registration allows (ibv_access_flags). Local reads are always allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Access(u8);

impl Access {
    pub const NONE: Access = Access(0);
    /// The local side may write into it (a receive, the target of an RDMA Read).
    pub const LOCAL_WRITE: Access = Access(1);
    /// The peer may RDMA-Read it.
    pub const REMOTE_READ: Access = Access(2);
    /// The peer may RDMA-Write it (needs a writable buffer).
    pub const REMOTE_WRITE: Access = Access(4);

    /// True when every right in `other` is in `self`.
    pub fn contains(self, other: Access) -> bool {
        self.0 & other.0 == other.0
    }

    /// The raw bits (1 local write, 2 remote read, 4 remote write).
    pub fn bits(self) -> u8 {
        self.0
    }
}

impl BitOr for Access {
    type Output = Access;
    fn bitor(self, rhs: Access) -> Access {
        Access(self.0 | rhs.0)
    }
}

/// Memory handed over for registration. `ReadOnly` may only be read (a WRITE payload the peer pulls);
/// `Writable` may be written locally or remotely (a READ's destination, an RDMA Read's target);
/// `Pool` is memory a provider allocated itself for [`crate::QueuePair::pool`] (writable).
#[derive(Debug)]
pub enum RegBuf {
    ReadOnly(Bytes),
    Writable(Vec<u8>),
    Pool(Arc<dyn PoolMemory>),
}

/// Memory a provider allocated for a queue pair's pool (a mapping of shared memory, page-aligned
/// memory a NIC registered): writable, never moved, freed when the last handle to it is dropped.
/// Its bytes are reached by copies, since the peer may write them while a window is open, or viewed
/// in place ([`view`](Self::view)) once no window on them is.
pub trait PoolMemory: Send + Sync + fmt::Debug {
    /// The first byte's address in this process (its provenance exposed), for the provider.
    fn start_addr(&self) -> usize;

    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copies `dst.len()` bytes from `offset` into `dst`. The caller has checked the range.
    fn read(&self, offset: usize, dst: &mut [u8]);

    /// Copies `src` to `offset`. The caller has checked the range.
    fn write(&self, offset: usize, src: &[u8]);

    /// The `len` bytes at `offset` in a new vector. Providers fill it with one copy into uninitialised
    /// capacity; this default zeroes it first, a second pass over the bytes (a third of a 1 MiB READ's
    /// client CPU when measured). The caller has checked the range.
    fn read_vec(&self, offset: usize, len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        self.read(offset, &mut out);
        out
    }

    /// The `len` bytes at `offset` in place, for bytes no window is open on any more (see
    /// [`MemoryRegion::pool_bytes`]); `None` from memory that cannot be lent so (the caller copies).
    /// The caller has checked the range.
    fn view(&self, _offset: usize, _len: usize) -> Option<&[u8]> {
        None
    }
}

/// Bytes of a pool lent in place: the region keeps the memory alive, `_keep` the caller's claim on
/// that part of it (dropped with the last [`Bytes`] handle).
struct PoolView<K> {
    region: MemoryRegion,
    offset: usize,
    len: usize,
    _keep: K,
}

impl<K> AsRef<[u8]> for PoolView<K> {
    fn as_ref(&self) -> &[u8] {
        match &self.region.inner.buf {
            RegBuf::Pool(pool) => pool.view(self.offset, self.len).unwrap_or_default(),
            RegBuf::ReadOnly(_) | RegBuf::Writable(_) => &[],
        }
    }
}

impl RegBuf {
    pub fn len(&self) -> usize {
        match self {
            RegBuf::ReadOnly(b) => b.len(),
            RegBuf::Writable(v) => v.len(),
            RegBuf::Pool(p) => p.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes, as frozen [`Bytes`] (a writable buffer is moved, not copied; a pool is copied).
    pub fn into_bytes(self) -> Bytes {
        match self {
            RegBuf::ReadOnly(b) => b,
            RegBuf::Writable(v) => Bytes::from(v),
            RegBuf::Pool(p) => Bytes::from(p.read_vec(0, p.len())),
        }
    }
}

/// The provider's side of one registration (an `ibv_mr`, a slot in a key table).
pub trait Registration: Send + Sync + fmt::Debug {
    /// Ends every access through this registration's handles; called exactly once, before the memory
    /// is given back or freed. Must not block for long: a provider whose peer's accesses may still be
    /// under way afterwards says so through [`is_idle`](Self::is_idle).
    fn deregister(&self);

    /// After [`deregister`](Self::deregister): true when no access through this registration can
    /// still be under way, so that the memory may be given back. A provider that cannot tell yet
    /// returns false, and then receives the memory through [`retire`](Self::retire).
    fn is_idle(&self) -> bool {
        true
    }

    /// Takes the memory of a deregistered region that was dropped while not idle: the provider keeps
    /// it until no access can touch it any more.
    fn retire(&self, buf: RegBuf) {
        drop(buf);
    }
}

/// Registered memory: the buffer, its handles and its address as the peer names it.
///
/// Cheap to clone; providers keep a clone in every posted operation until it completes, so the memory
/// stays valid and registered for as long as any operation may touch it. Dropping the last clone
/// deregisters it.
#[derive(Debug, Clone)]
pub struct MemoryRegion {
    inner: Arc<RegionInner>,
}

struct RegionInner {
    buf: RegBuf,
    /// The buffer's first byte, captured (with its provenance exposed) while the buffer was owned
    /// mutably, for providers whose devices or system calls write into it.
    start: usize,
    access: Access,
    handle: u32,
    local_key: u32,
    addr: u64,
    invalidated: AtomicBool,
    registration: Box<dyn Registration>,
}

impl fmt::Debug for RegionInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryRegion")
            .field("len", &self.buf.len())
            .field("access", &self.access)
            .field("handle", &format_args!("{:#x}", self.handle))
            .field("addr", &format_args!("{:#x}", self.addr))
            .field("invalidated", &self.invalidated.load(Ordering::Relaxed))
            .finish()
    }
}

impl Drop for RegionInner {
    fn drop(&mut self) {
        if !self.invalidated.swap(true, Ordering::AcqRel) {
            self.registration.deregister();
        }
        // A peer's access may still be under way: the provider keeps the memory alive until it ends.
        if !self.registration.is_idle() {
            self.registration.retire(std::mem::replace(&mut self.buf, RegBuf::Writable(Vec::new())));
        }
    }
}

impl MemoryRegion {
    /// For providers: wraps a registration of `buf` made with `access`. `handle` is what the peer uses
    /// (R_key), `local_key` what local work requests use (L_key), and `addr` the address the peer puts
    /// in a segment for the buffer's first byte.
    pub fn new(
        mut buf: RegBuf,
        access: Access,
        handle: u32,
        local_key: u32,
        addr: u64,
        registration: Box<dyn Registration>,
    ) -> MemoryRegion {
        let start = match &mut buf {
            RegBuf::ReadOnly(b) => b.as_ptr().expose_provenance(),
            RegBuf::Writable(v) => v.as_mut_ptr().expose_provenance(),
            RegBuf::Pool(p) => p.start_addr(),
        };
        MemoryRegion {
            inner: Arc::new(RegionInner {
                buf,
                start,
                access,
                handle,
                local_key,
                addr,
                invalidated: AtomicBool::new(false),
                registration,
            }),
        }
    }

    /// Where the memory starts in this process, for the provider that registered it. Writing through it
    /// is allowed only for a `Writable` buffer and only by the provider, while the region is registered.
    pub fn start_addr(&self) -> usize {
        self.inner.start
    }

    pub fn len(&self) -> usize {
        self.inner.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True for a `Writable` buffer or a pool.
    pub fn is_writable(&self) -> bool {
        matches!(self.inner.buf, RegBuf::Writable(_) | RegBuf::Pool(_))
    }

    /// Copies `dst.len()` bytes of a pool region from `offset` into `dst` (what a peer's RDMA Write
    /// or our RDMA Read left there). Only for pools ([`crate::QueuePair::pool`]): other regions give
    /// their bytes back with [`into_buffer`](Self::into_buffer).
    pub fn read_at(&self, offset: usize, dst: &mut [u8]) -> Result<(), crate::RdmaError> {
        let pool = self.pool_range(offset, dst.len())?;
        pool.read(offset, dst);
        Ok(())
    }

    /// The `len` bytes of a pool region at `offset`, copied once into a new vector (what
    /// [`read_at`](Self::read_at) does into a buffer of the caller's). Only for pools.
    pub fn read_vec_at(&self, offset: usize, len: usize) -> Result<Vec<u8>, crate::RdmaError> {
        Ok(self.pool_range(offset, len)?.read_vec(offset, len))
    }

    /// The `len` bytes of a pool region at `offset` as [`Bytes`] without a copy where the provider
    /// lends its memory in place, else copied as by [`read_vec_at`](Self::read_vec_at). `keep` is what
    /// stops that part of the pool being reused (the caller's lease on it): it is dropped with the
    /// last handle to the bytes, or at once when they were copied. Only for bytes no window is open on
    /// any more (what a peer RDMA-Wrote for a call that has completed) and that the caller treats as
    /// opaque data: a peer that breaks the rules may still write memory it maps (the soft provider's
    /// pool), which can change those bytes but never the caller's decisions.
    pub fn pool_bytes<K: Send + 'static>(&self, offset: usize, len: usize, keep: K) -> Result<Bytes, crate::RdmaError> {
        let pool = self.pool_range(offset, len)?;
        if pool.view(offset, len).is_none() {
            return Ok(Bytes::from(pool.read_vec(offset, len)));
        }
        Ok(Bytes::from_owner(PoolView { region: self.clone(), offset, len, _keep: keep }))
    }

    /// Copies `src` into a pool region at `offset` (a payload the peer will RDMA-Read, or that we
    /// RDMA-Write). Only for pools; the caller must not write bytes it has lent out in an open window.
    pub fn write_at(&self, offset: usize, src: &[u8]) -> Result<(), crate::RdmaError> {
        let pool = self.pool_range(offset, src.len())?;
        pool.write(offset, src);
        Ok(())
    }

    /// The bytes of a region only this side can reach, to read and write in place between operations:
    /// `Some` for a `Writable` buffer registered without remote access, while this is the only handle
    /// to the region (every posted operation holds one until it completes, so none is under way) and
    /// it is not invalidated. What a server reuses across calls as the target of its RDMA Reads: laid
    /// out, pulled into and handed to the handler with no copy and no registration per call.
    pub fn local_bytes_mut(&mut self) -> Option<&mut [u8]> {
        let inner = Arc::get_mut(&mut self.inner)?;
        let remote = inner.access.contains(Access::REMOTE_READ) || inner.access.contains(Access::REMOTE_WRITE);
        if remote || inner.invalidated.load(Ordering::Acquire) {
            return None;
        }
        match &mut inner.buf {
            RegBuf::Writable(v) => Some(v.as_mut_slice()),
            RegBuf::ReadOnly(_) | RegBuf::Pool(_) => None,
        }
    }

    fn pool_range(&self, offset: usize, len: usize) -> Result<&dyn PoolMemory, crate::RdmaError> {
        let RegBuf::Pool(pool) = &self.inner.buf else {
            return Err(crate::RdmaError::Invalid("byte access is only for a queue pair's pool".into()));
        };
        if offset.checked_add(len).is_none_or(|end| end > pool.len()) {
            let size = pool.len();
            return Err(crate::RdmaError::Invalid(format!("{len} bytes at {offset} leave the pool ({size} bytes)")));
        }
        Ok(&**pool)
    }

    pub fn access(&self) -> Access {
        self.inner.access
    }

    /// The handle the peer names this region by (R_key).
    pub fn handle(&self) -> u32 {
        self.inner.handle
    }

    /// The key local work requests use (L_key).
    pub fn local_key(&self) -> u32 {
        self.inner.local_key
    }

    /// The address the peer uses for the first byte.
    pub fn addr(&self) -> u64 {
        self.inner.addr
    }

    /// The peer's view of `length` bytes from `offset`. `None` when the range leaves the region.
    pub fn segment(&self, offset: usize, length: u32) -> Option<RemoteSegment> {
        let end = offset.checked_add(length as usize)?;
        (end <= self.len()).then(|| RemoteSegment {
            handle: self.handle(),
            offset: self.addr() + offset as u64,
            length,
        })
    }

    /// Ends remote access now; later accesses with this region's handle fail. Idempotent.
    pub fn invalidate(&self) {
        if !self.inner.invalidated.swap(true, Ordering::AcqRel) {
            self.inner.registration.deregister();
        }
    }

    pub fn is_invalidated(&self) -> bool {
        self.inner.invalidated.load(Ordering::Acquire)
    }

    /// Invalidates the region and gives its buffer back, or returns the region while a posted operation
    /// (or another clone) still holds it, or while the provider cannot yet tell that no access by the
    /// peer is under way ([`Registration::is_idle`]; dropping the region then hands the memory to the
    /// provider).
    pub fn into_buffer(self) -> Result<RegBuf, MemoryRegion> {
        self.invalidate();
        if !self.inner.registration.is_idle() {
            return Err(self);
        }
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => Ok(std::mem::replace(&mut inner.buf, RegBuf::Writable(Vec::new()))),
            Err(inner) => Err(MemoryRegion { inner }),
        }
    }

    /// True when both name the same registration.
    pub fn same_as(&self, other: &MemoryRegion) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

/// Remote access to part of a registered region for a while (one RPC): the peer names it by the
/// window's own handle, refused once the window is closed. Holds a clone of its region, so the memory
/// stays registered while the window is open. Closing is idempotent; dropping closes.
///
/// After [`close`](Self::close), [`is_idle`](Self::is_idle) says whether an access by the peer may
/// still be under way (a provider that cannot wait for its peer quarantines the handle instead): the
/// owner must not lend those bytes out again until it is idle.
#[derive(Debug)]
pub struct Window {
    // Dropped before `region`: a provider's handle on the window may need the memory until it goes.
    registration: Box<dyn Registration>,
    region: MemoryRegion,
    offset: usize,
    len: usize,
    access: Access,
    handle: u32,
    addr: u64,
    closed: AtomicBool,
}

impl Window {
    /// For providers: `len` bytes of `region` from `offset` opened with `access` under `handle`, the
    /// peer addressing the window's first byte as `addr`; `registration` closes it.
    pub fn new(
        region: MemoryRegion,
        offset: usize,
        len: usize,
        access: Access,
        handle: u32,
        addr: u64,
        registration: Box<dyn Registration>,
    ) -> Window {
        debug_assert!(offset.checked_add(len).is_some_and(|end| end <= region.len()));
        Window { registration, region, offset, len, access, handle, addr, closed: AtomicBool::new(false) }
    }

    /// The region the window opens into.
    pub fn region(&self) -> &MemoryRegion {
        &self.region
    }

    /// Where the window starts in its region.
    pub fn offset(&self) -> usize {
        self.offset
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn access(&self) -> Access {
        self.access
    }

    /// The handle the peer names the window by (R_key).
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// The peer's view of `length` bytes from `offset` into the window. `None` when the range leaves it.
    pub fn segment(&self, offset: usize, length: u32) -> Option<RemoteSegment> {
        let end = offset.checked_add(length as usize)?;
        (end <= self.len).then(|| RemoteSegment { handle: self.handle, offset: self.addr + offset as u64, length })
    }

    /// Ends the peer's access through this window's handle now. Idempotent.
    pub fn close(&self) {
        if !self.closed.swap(true, Ordering::AcqRel) {
            self.registration.deregister();
        }
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// After [`close`](Self::close): true when no access by the peer through this window can still be
    /// under way, so its bytes may be lent out again. A provider may learn it from its completion
    /// queue (the verbs provider's invalidation completes there): keep polling the queue pair.
    pub fn is_idle(&self) -> bool {
        self.is_closed() && self.registration.is_idle()
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[derive(Debug, Default)]
    struct Counting(Arc<AtomicUsize>);
    impl Registration for Counting {
        fn deregister(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn region(buf: RegBuf) -> (MemoryRegion, Arc<AtomicUsize>) {
        let count = Arc::new(AtomicUsize::new(0));
        let mr = MemoryRegion::new(buf, Access::REMOTE_WRITE, 7, 8, 0x1000, Box::new(Counting(count.clone())));
        (mr, count)
    }

    #[test]
    fn deregisters_exactly_once_whether_invalidated_or_dropped() {
        let (mr, count) = region(RegBuf::Writable(vec![0; 16]));
        mr.invalidate();
        mr.invalidate();
        drop(mr);
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let (mr, count) = region(RegBuf::Writable(vec![0; 16]));
        drop(mr);
        assert_eq!(count.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn buffer_comes_back_only_when_no_clone_holds_it() {
        let (mr, _) = region(RegBuf::Writable(vec![5; 16]));
        let held = mr.clone();
        let mr = mr.into_buffer().expect_err("a clone still holds it");
        assert!(held.is_invalidated());
        drop(held);
        let buf = mr.into_buffer().expect("sole owner");
        assert_eq!(buf.into_bytes().as_ref(), &[5; 16]);
    }

    /// A registration whose peer is still busy until `idle` is set; keeps what it is given.
    #[derive(Debug, Default)]
    struct Busy {
        idle: Arc<AtomicBool>,
        kept: Arc<std::sync::Mutex<Vec<RegBuf>>>,
    }
    impl Registration for Busy {
        fn deregister(&self) {}
        fn is_idle(&self) -> bool {
            self.idle.load(Ordering::SeqCst)
        }
        fn retire(&self, buf: RegBuf) {
            self.kept.lock().unwrap_or_else(|e| e.into_inner()).push(buf);
        }
    }

    #[test]
    fn memory_a_peer_may_still_access_goes_to_the_provider_not_back_to_the_caller() {
        let busy = Busy::default();
        let kept = busy.kept.clone();
        let mr = MemoryRegion::new(RegBuf::Writable(vec![3; 16]), Access::REMOTE_WRITE, 1, 1, 0, Box::new(busy));
        let mr = mr.into_buffer().expect_err("the peer may still write into it");
        assert!(mr.is_invalidated());
        drop(mr);
        let kept = std::mem::take(&mut *kept.lock().unwrap_or_else(|e| e.into_inner()));
        assert!(matches!(&kept[..], [RegBuf::Writable(v)] if v == &[3; 16]), "{kept:?}");
        let busy = Busy::default();
        busy.idle.store(true, Ordering::SeqCst);
        let mr = MemoryRegion::new(RegBuf::Writable(vec![4; 16]), Access::REMOTE_WRITE, 1, 1, 0, Box::new(busy));
        assert_eq!(mr.into_buffer().expect("idle").len(), 16);
    }

    #[test]
    fn local_bytes_are_reached_only_without_remote_access_and_while_no_one_else_holds_the_region() {
        let count = Arc::new(AtomicUsize::new(0));
        let mut mr = MemoryRegion::new(
            RegBuf::Writable(vec![1; 8]),
            Access::LOCAL_WRITE,
            1,
            1,
            0,
            Box::new(Counting(count.clone())),
        );
        mr.local_bytes_mut().expect("ours alone")[0] = 9;
        let posted = mr.clone();
        assert!(mr.local_bytes_mut().is_none(), "an operation still holds it");
        drop(posted);
        assert_eq!(mr.local_bytes_mut().expect("ours again")[..2], [9, 1]);
        let (mut remote, _) = region(RegBuf::Writable(vec![0; 8]));
        assert!(remote.local_bytes_mut().is_none(), "the peer may write it");
        let mut frozen = MemoryRegion::new(
            RegBuf::ReadOnly(Bytes::from_static(b"x")),
            Access::NONE,
            1,
            1,
            0,
            Box::new(Counting(count)),
        );
        assert!(frozen.local_bytes_mut().is_none(), "read-only memory");
        mr.invalidate();
        assert!(mr.local_bytes_mut().is_none(), "deregistered");
    }

    #[test]
    fn a_window_closes_once_and_names_only_its_own_bytes() {
        let (mr, _) = region(RegBuf::Writable(vec![0; 100]));
        let count = Arc::new(AtomicUsize::new(0));
        let window =
            Window::new(mr.clone(), 20, 30, Access::REMOTE_WRITE, 9, 0x5000, Box::new(Counting(count.clone())));
        assert_eq!(window.segment(0, 30), Some(RemoteSegment { handle: 9, offset: 0x5000, length: 30 }));
        assert_eq!(window.segment(1, 30), None, "past the window, though inside the region");
        assert!(!window.is_idle(), "open");
        window.close();
        window.close();
        assert!(window.is_idle());
        drop(window);
        assert_eq!(count.load(Ordering::SeqCst), 1);
        assert!(!mr.is_invalidated(), "closing a window leaves its region registered");
    }

    #[test]
    fn segments_stay_inside_the_region() {
        let (mr, _) = region(RegBuf::ReadOnly(Bytes::from_static(&[1; 100])));
        assert_eq!(mr.segment(10, 90), Some(RemoteSegment { handle: 7, offset: 0x100a, length: 90 }));
        assert_eq!(mr.segment(10, 91), None);
        assert_eq!(mr.segment(usize::MAX, 1), None);
        assert!(Access::REMOTE_READ.bitor(Access::LOCAL_WRITE).contains(Access::LOCAL_WRITE));
        assert!(!Access::REMOTE_READ.contains(Access::REMOTE_WRITE));
    }
}
