//! Buffers aligned for O_DIRECT: the address, and so every offset into it that is a multiple of the
//! alignment, satisfies the device's logical block size.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// An owned, zero-initialised byte buffer whose address is a multiple of its alignment.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY (for the two impls below, no unsafe block of their own): the buffer owns its allocation
// exclusively, as a Vec<u8> does, so it may move to and be shared between threads like one.
#[allow(unsafe_code)]
unsafe impl Send for AlignedBuf {}
#[allow(unsafe_code)]
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// `len` zero bytes aligned to `align` (a power of two; at least 1 byte is allocated).
    ///
    /// # Panics
    /// When `align` is not a power of two or the size overflows, as [`Layout`] does; when the
    /// allocation fails, as `Vec` does.
    pub fn new(len: usize, align: usize) -> Self {
        let layout = match Layout::from_size_align(len.max(1), align.max(1)) {
            Ok(layout) => layout,
            Err(e) => panic!("aligned buffer of {len} bytes at {align}: {e}"),
        };
        // SAFETY: the layout's size is at least 1, as alloc_zeroed requires.
        #[allow(unsafe_code)]
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw) else { alloc::handle_alloc_error(layout) };
        AlignedBuf { ptr, layout }
    }

    /// The buffer's length.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// Never true: a buffer holds at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The alignment of its address.
    pub fn align(&self) -> usize {
        self.layout.align()
    }

    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // SAFETY: ptr is a live, initialised (zeroed at allocation) block of layout.size() bytes owned by
        // self; the shared borrow of self keeps it alive and unaliased by any &mut for the slice's life.
        #[allow(unsafe_code)]
        unsafe {
            std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size())
        }
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref; the exclusive borrow of self makes this the only reference.
        #[allow(unsafe_code)]
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size())
        }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: ptr came from alloc_zeroed with this very layout and is freed once, here.
        #[allow(unsafe_code)]
        unsafe {
            alloc::dealloc(self.ptr.as_ptr(), self.layout)
        }
    }
}

impl std::fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlignedBuf").field("len", &self.len()).field("align", &self.align()).finish()
    }
}
