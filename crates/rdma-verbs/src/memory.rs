//! The queue pair's pool memory ([`rdma::QueuePair::pool`]): page-aligned, zeroed, allocated once
//! per connection and registered once; the caller copies in and out through
//! [`rdma::MemoryRegion::write_at`] / [`rdma::MemoryRegion::read_at`].
#![allow(unsafe_code)]

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::{self, NonNull};
use std::sync::Arc;

use rdma::{PoolMemory, RdmaError};

/// The alignment and granule of a pool: a page.
pub(crate) const PAGE: usize = 4096;
/// The largest pool a queue pair allocates (it is pinned by the registration).
pub(crate) const MAX_POOL_BYTES: usize = 4 << 30;

/// Memory owned by this value, in place until it is dropped.
#[derive(Debug)]
pub(crate) struct PageMem {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: plain heap memory; every access goes through bounded copies (`read`, `write`) or the
// device, which the provider orders with its work requests.
unsafe impl Send for PageMem {}
// SAFETY: as above.
unsafe impl Sync for PageMem {}

impl PageMem {
    /// `len` bytes rounded up to whole pages, zeroed.
    pub(crate) fn new(len: usize) -> Result<Arc<PageMem>, RdmaError> {
        let rounded = len.div_ceil(PAGE).checked_mul(PAGE).filter(|n| *n > 0 && *n <= MAX_POOL_BYTES);
        let layout = rounded
            .and_then(|n| Layout::from_size_align(n, PAGE).ok())
            .ok_or_else(|| RdmaError::Invalid(format!("a pool of {len} bytes (1 byte to {MAX_POOL_BYTES})")))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(layout) })
            .ok_or_else(|| RdmaError::Invalid(format!("cannot allocate a pool of {} bytes", layout.size())))?;
        Ok(Arc::new(PageMem { ptr, layout }))
    }

    fn check(&self, offset: usize, len: usize) {
        assert!(offset.checked_add(len).is_some_and(|end| end <= self.layout.size()), "outside the pool");
    }
}

impl Drop for PageMem {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout; the registration over it (which holds the
        // region that holds this memory) is gone, so the device no longer reaches it.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

impl PoolMemory for PageMem {
    fn start_addr(&self) -> usize {
        self.ptr.as_ptr().expose_provenance()
    }

    fn len(&self) -> usize {
        self.layout.size()
    }

    fn read(&self, offset: usize, dst: &mut [u8]) {
        self.check(offset, dst.len());
        // SAFETY: inside the allocation (checked); `dst` is a distinct Rust slice. The peer may write
        // these bytes through an open window at the same time, which only changes the data read.
        unsafe { ptr::copy_nonoverlapping(self.ptr.as_ptr().add(offset), dst.as_mut_ptr(), dst.len()) };
    }

    fn read_vec(&self, offset: usize, len: usize) -> Vec<u8> {
        self.check(offset, len);
        let mut out = Vec::with_capacity(len);
        // SAFETY: inside the allocation (checked); `out` has room for `len` bytes, every one of which
        // the copy initialises before the length is set.
        unsafe {
            ptr::copy_nonoverlapping(self.ptr.as_ptr().add(offset), out.as_mut_ptr(), len);
            out.set_len(len);
        }
        out
    }

    fn write(&self, offset: usize, src: &[u8]) {
        self.check(offset, src.len());
        // SAFETY: inside the allocation (checked); `src` is a distinct Rust slice.
        unsafe { ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.as_ptr().add(offset), src.len()) };
    }

    fn view(&self, offset: usize, len: usize) -> Option<&[u8]> {
        self.check(offset, len);
        // SAFETY: inside the allocation (checked), which lives as long as `&self`. Lent for bytes no
        // window is open on: the device can no longer write them once the window's key is invalidated.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(offset), len) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_is_whole_aligned_pages_and_copies_stay_inside() {
        let mem = PageMem::new(5000).expect("pool");
        assert_eq!((mem.len(), mem.start_addr() % PAGE), (2 * PAGE, 0));
        mem.write(8189, &[1, 2, 3]);
        let mut back = [0; 4];
        mem.read(8188, &mut back);
        assert_eq!(back, [0, 1, 2, 3]);
        assert_eq!(mem.read_vec(8188, 4), [0, 1, 2, 3]);
        assert!(PageMem::new(0).is_err() && PageMem::new(MAX_POOL_BYTES + 1).is_err());
    }
}
