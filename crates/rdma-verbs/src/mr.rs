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
struct Mr {
    raw: NonNull<sys::ibv_mr>,
    _pd: Arc<Pd>,
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

/// Registers `buf` on `pd` (ibv_reg_mr). The peer addresses it by its virtual address.
pub(crate) fn register(pd: &Arc<Pd>, mut buf: RegBuf, access: Access) -> Result<MemoryRegion, RdmaError> {
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
    };
    // SAFETY: `start..start+len` is the buffer's heap memory, which the MemoryRegion built below owns
    // and keeps (without moving it) until the registration is dropped; the device writes into it only
    // when it is Writable (checked above).
    let raw = unsafe { sys::nfsbench_ibv_reg_mr(pd.raw.as_ptr(), start, buf.len(), access_flags(access)) };
    let raw = NonNull::new(raw).ok_or_else(|| RdmaError::io("ibv_reg_mr", io::Error::last_os_error()))?;
    // SAFETY: a live MR returned just now.
    let (lkey, rkey) = unsafe { ((*raw.as_ptr()).lkey, (*raw.as_ptr()).rkey) };
    let registration = VerbsRegistration(Mutex::new(Some(Mr { raw, _pd: pd.clone() })));
    Ok(MemoryRegion::new(buf, access, rkey, lkey, start as u64, Box::new(registration)))
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
