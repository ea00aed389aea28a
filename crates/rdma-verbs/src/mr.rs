//! Memory registration (`ibv_mr`): the registration inside an [`rdma::MemoryRegion`], which holds the
//! protection domain (so a region kept by the caller keeps the PD alive) and deregisters when the region
//! is invalidated or dropped; the memory itself stays owned by the region until then.
#![allow(unsafe_code)]

use std::io;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use rdma::{Access, MemoryRegion, RdmaError, RegBuf, Registration};
use rdma_sys as sys;

use crate::verbs::Pd;

/// The ibv_access_flags for `access`. Verbs require local write wherever remote write is allowed.
pub(crate) fn access_flags(access: Access) -> i32 {
    use sys::ibv_access_flags::*;
    let mut flags = 0;
    if access.contains(Access::LOCAL_WRITE) {
        flags |= IBV_ACCESS_LOCAL_WRITE;
    }
    if access.contains(Access::REMOTE_READ) {
        flags |= IBV_ACCESS_REMOTE_READ;
    }
    if access.contains(Access::REMOTE_WRITE) {
        flags |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
    }
    flags as i32
}

/// One `ibv_mr`; deregistered when dropped.
#[derive(Debug)]
pub(crate) struct Mr {
    raw: NonNull<sys::ibv_mr>,
    _pd: Arc<Pd>,
}

impl Mr {
    /// The MR, for binding memory windows to it while it lives.
    pub(crate) fn raw(&self) -> *mut sys::ibv_mr {
        self.raw.as_ptr()
    }
}

// SAFETY: see Pd.
unsafe impl Send for Mr {}
// SAFETY: see Pd.
unsafe impl Sync for Mr {}

impl Drop for Mr {
    fn drop(&mut self) {
        // SAFETY: the MR is live; after this call its L_key and R_key are refused by the device, and
        // the memory (owned by the MemoryRegion, which outlives its registration) may be freed.
        unsafe { sys::ibv_dereg_mr(self.raw.as_ptr()) };
    }
}

/// The registration inside a [`MemoryRegion`]: deregistering drops the MR.
#[derive(Debug)]
struct VerbsRegistration(Mutex<Option<Mr>>);

impl Registration for VerbsRegistration {
    fn deregister(&self) {
        let mr = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        drop(mr);
    }
}

/// Registers `buf` on `pd` (ibv_reg_mr). The peer addresses it by its virtual address. A pool is the
/// provider's own memory: it is registered by [`register_pool`] only.
pub(crate) fn register(pd: &Arc<Pd>, buf: RegBuf, access: Access) -> Result<MemoryRegion, RdmaError> {
    if matches!(buf, RegBuf::Pool(_)) {
        return Err(RdmaError::Invalid("a pool is the provider's own memory: open windows into it".into()));
    }
    let (buf, mr) = register_flags(pd, buf, access, 0)?;
    let (lkey, rkey, start) = keys(&mr, &buf);
    let registration = VerbsRegistration(Mutex::new(Some(mr)));
    Ok(MemoryRegion::new(buf, access, rkey, lkey, start, Box::new(registration)))
}

/// The pool's registration: local write, and memory windows may be bound to it. Its MR is shared
/// with the queue pair (which binds windows to it) and lives until both let go: the pool itself gives
/// the peer no access, so invalidating the region ends nothing remote.
pub(crate) fn register_pool(pd: &Arc<Pd>, buf: RegBuf) -> Result<(MemoryRegion, Arc<Mr>), RdmaError> {
    let bind = sys::ibv_access_flags::IBV_ACCESS_MW_BIND as i32;
    let (buf, mr) = register_flags(pd, buf, Access::LOCAL_WRITE, bind)?;
    let (lkey, rkey, start) = keys(&mr, &buf);
    let mr = Arc::new(mr);
    let region = MemoryRegion::new(buf, Access::LOCAL_WRITE, rkey, lkey, start, Box::new(PoolRegistration(mr.clone())));
    Ok((region, mr))
}

/// The registration of a window's bytes on a device without memory windows: `len` bytes of
/// `region` from `offset` with `access`. Returns the R_key and the registration that drops the MR.
pub(crate) fn register_range(
    pd: &Arc<Pd>,
    region: &MemoryRegion,
    offset: usize,
    len: usize,
    access: Access,
) -> Result<(u32, Box<dyn Registration>), RdmaError> {
    let inside = offset.checked_add(len).is_some_and(|end| end <= region.len()) && len > 0;
    let writes = access.contains(Access::LOCAL_WRITE) || access.contains(Access::REMOTE_WRITE);
    if !inside || region.is_invalidated() || (writes && !region.is_writable()) {
        return Err(RdmaError::Invalid(format!("cannot open {len} bytes at {offset} of this region with {access:?}")));
    }
    let start = std::ptr::with_exposed_provenance_mut::<libc::c_void>(region.start_addr() + offset);
    // SAFETY: the range lies in the region's memory (checked), which the window registered here holds
    // (a clone of the region) for longer than this MR lives; the device writes it only when the region
    // is writable (checked).
    let raw = unsafe { sys::nfsbench_ibv_reg_mr(pd.raw.as_ptr(), start, len, access_flags(access)) };
    let raw = NonNull::new(raw).ok_or_else(|| RdmaError::io("ibv_reg_mr", io::Error::last_os_error()))?;
    // SAFETY: a live MR returned just now.
    let rkey = unsafe { (*raw.as_ptr()).rkey };
    Ok((rkey, Box::new(VerbsRegistration(Mutex::new(Some(Mr { raw, _pd: pd.clone() }))))))
}

fn keys(mr: &Mr, buf: &RegBuf) -> (u32, u32, u64) {
    // SAFETY: a live MR.
    let (lkey, rkey) = unsafe { ((*mr.raw.as_ptr()).lkey, (*mr.raw.as_ptr()).rkey) };
    let start = match buf {
        RegBuf::Writable(v) => v.as_ptr() as u64,
        RegBuf::ReadOnly(b) => b.as_ptr() as u64,
        RegBuf::Pool(p) => p.start_addr() as u64,
    };
    (lkey, rkey, start)
}

fn register_flags(pd: &Arc<Pd>, mut buf: RegBuf, access: Access, extra: i32) -> Result<(RegBuf, Mr), RdmaError> {
    if buf.is_empty() {
        return Err(RdmaError::Invalid("cannot register an empty buffer".into()));
    }
    let writes = access.contains(Access::LOCAL_WRITE) || access.contains(Access::REMOTE_WRITE);
    let start: *mut libc::c_void = match &mut buf {
        RegBuf::Writable(v) => v.as_mut_ptr().cast(),
        RegBuf::ReadOnly(_) if writes => {
            return Err(RdmaError::Invalid(format!("a read-only buffer cannot be registered for writing ({access:?})")))
        }
        RegBuf::ReadOnly(b) => b.as_ptr().cast_mut().cast(),
        RegBuf::Pool(p) => std::ptr::with_exposed_provenance_mut(p.start_addr()),
    };
    // SAFETY: `start..start+len` is the buffer's memory (heap, or the provider's own pool), which the
    // MemoryRegion built by the caller owns and keeps in place until the registration is dropped; the
    // device writes into it only when it is Writable or a pool (checked above).
    let raw = unsafe { sys::nfsbench_ibv_reg_mr(pd.raw.as_ptr(), start, buf.len(), access_flags(access) | extra) };
    let raw = NonNull::new(raw).ok_or_else(|| RdmaError::io("ibv_reg_mr", io::Error::last_os_error()))?;
    Ok((buf, Mr { raw, _pd: pd.clone() }))
}

/// The pool's registration: the MR stays until the queue pair and every clone of the region let go.
#[derive(Debug)]
struct PoolRegistration(#[allow(dead_code)] Arc<Mr>);

impl Registration for PoolRegistration {
    fn deregister(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use sys::ibv_access_flags::*;

    #[test]
    fn remote_write_brings_local_write_with_it() {
        assert_eq!(access_flags(Access::REMOTE_WRITE), (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE) as i32);
        assert_eq!(access_flags(Access::REMOTE_READ), IBV_ACCESS_REMOTE_READ as i32);
        assert_eq!(access_flags(Access::LOCAL_WRITE), IBV_ACCESS_LOCAL_WRITE as i32);
        assert_eq!(access_flags(Access::NONE), 0);
    }
}
