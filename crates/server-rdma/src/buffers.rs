//! Reuse of large call buffers (the targets of RDMA Reads: WRITE data, long calls) across calls and
//! connections. A 1 MiB buffer allocated and freed per call makes the allocator hand memory back to the
//! kernel and fault it in again (a few hundred page faults per MiB); a reused one is filled in place.
//! Small buffers are not pooled, and the pool holds a bounded number of buffers.

use std::sync::Mutex;

/// Buffers below this size come from the allocator directly.
pub(crate) const POOLED_MIN: usize = 64 * 1024;

#[derive(Debug)]
pub(crate) struct BufferPool {
    free: Mutex<Vec<Vec<u8>>>,
    max_buffers: usize,
    max_len: usize,
}

impl BufferPool {
    /// A pool keeping at most `max_buffers` buffers of at most `max_len` bytes.
    pub fn new(max_buffers: usize, max_len: usize) -> BufferPool {
        BufferPool { free: Mutex::new(Vec::new()), max_buffers, max_len }
    }

    /// A buffer of `len` bytes whose contents are unspecified (the caller overwrites all of them).
    pub fn take(&self, len: usize) -> Vec<u8> {
        let reused = if len >= POOLED_MIN { self.free.lock().ok().and_then(|mut free| free.pop()) } else { None };
        let mut buf = reused.unwrap_or_default();
        // Growing zero-fills only the new part; shrinking keeps the capacity for the next call.
        buf.resize(len, 0);
        buf
    }

    /// Gives a buffer back for reuse (dropped when small, too large, or the pool is full).
    pub fn give(&self, buf: Vec<u8>) {
        if buf.capacity() < POOLED_MIN || buf.capacity() > self.max_len {
            return;
        }
        if let Ok(mut free) = self.free.lock() {
            if free.len() < self.max_buffers {
                free.push(buf);
            }
        }
    }

    #[cfg(test)]
    fn pooled(&self) -> usize {
        self.free.lock().map_or(0, |f| f.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_buffers_are_reused_and_small_ones_are_not_kept() {
        let pool = BufferPool::new(2, 4 << 20);
        let buf = pool.take(1 << 20);
        let at = buf.as_ptr();
        pool.give(buf);
        let again = pool.take(100_000);
        assert_eq!((again.as_ptr(), again.len()), (at, 100_000), "the same memory, resized");
        pool.give(vec![0; 100]);
        assert_eq!(pool.pooled(), 0);
        assert_eq!(pool.take(10).len(), 10);
    }

    #[test]
    fn the_pool_keeps_a_bounded_number_of_bounded_buffers() {
        let pool = BufferPool::new(2, 1 << 20);
        for _ in 0..3 {
            pool.give(vec![0; 1 << 20]);
        }
        pool.give(vec![0; 2 << 20]);
        assert_eq!(pool.pooled(), 2);
    }
}
