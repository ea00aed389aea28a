//! Shared memory: sealed memfds mapped into both processes of a connection.
//!
//! The creator makes a memfd of a fixed size and seals it against shrinking and growing, so that a peer
//! mapping it can never take a SIGBUS; the receiver of the descriptor checks size and seals before it
//! maps. Everything inside is accessed as atomics (words the two sides publish to each other) or as
//! byte copies bounded by the mapping.
#![allow(unsafe_code)]

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::ptr;
use std::sync::atomic::{AtomicU32, AtomicU64};

use rdma::MemoryRegion;

use super::process::Direction;

/// Why a memfd the peer sent was refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PeerMemError {
    #[error("fstat of the peer's memory: {0}")]
    Fstat(io::Error),
    #[error("the peer's shared memory has {actual} bytes, expected {expected}")]
    Size { actual: i64, expected: usize },
    #[error("the peer's shared memory is not sealed against shrinking")]
    NotSealed,
    #[error("mapping the peer's shared memory: {0}")]
    Map(io::Error),
}

/// One mapping of a memfd, unmapped on drop.
#[derive(Debug)]
pub(crate) struct SharedMem {
    fd: OwnedFd,
    ptr: *mut u8,
    len: usize,
    writable: bool,
}

// SAFETY: the mapping is plain shared memory owned by this value; all access goes through atomics or
// bounds-checked copies, which are sound from any thread.
unsafe impl Send for SharedMem {}
// SAFETY: as above; `&SharedMem` only hands out atomics and bounded copies.
unsafe impl Sync for SharedMem {}

impl SharedMem {
    /// A new zeroed memfd of `len` bytes (a multiple of the page size), mapped read-write and sealed
    /// against resizing. With `peer_read_only`, later writable mappings are refused too
    /// (F_SEAL_FUTURE_WRITE), so the peer can only ever read it.
    pub(crate) fn create(name: &CStr, len: usize, peer_read_only: bool) -> io::Result<SharedMem> {
        let fd = memfd(name, libc::MFD_ALLOW_SEALING, len)?;
        let mem = SharedMem::map(fd, len, true)?;
        let mut seals = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW;
        if peer_read_only {
            seals |= libc::F_SEAL_FUTURE_WRITE;
        }
        // SAFETY: plain system call on a descriptor we own; our own mapping was made before the seal.
        if unsafe { libc::fcntl(mem.fd.as_raw_fd(), libc::F_ADD_SEALS, seals | libc::F_SEAL_SEAL) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(mem)
    }

    /// A memfd of `len` bytes like [`create`](Self::create) but with no seals at all: only for the
    /// `hostile` hooks, to offer a peer memory that could shrink under its mapping.
    pub(crate) fn create_unsealed(name: &CStr, len: usize) -> io::Result<SharedMem> {
        SharedMem::map(memfd(name, 0, len)?, len, true)
    }

    /// Maps a memfd the peer sent after checking that it is exactly `len` bytes and sealed against
    /// shrinking (so no access can fault later).
    pub(crate) fn map_peer(fd: OwnedFd, len: usize, writable: bool) -> Result<SharedMem, PeerMemError> {
        // SAFETY: an all-zero `stat` is a valid value for fstat to fill in.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `st` is a valid out-pointer for the duration of the call.
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
            return Err(PeerMemError::Fstat(io::Error::last_os_error()));
        }
        if usize::try_from(st.st_size).ok() != Some(len) {
            return Err(PeerMemError::Size { actual: st.st_size, expected: len });
        }
        // SAFETY: plain system call on a descriptor we own.
        let seals = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS) };
        if seals < 0 || seals & libc::F_SEAL_SHRINK == 0 {
            return Err(PeerMemError::NotSealed);
        }
        SharedMem::map(fd, len, writable).map_err(PeerMemError::Map)
    }

    fn map(fd: OwnedFd, len: usize, writable: bool) -> io::Result<SharedMem> {
        if len == 0 || !len.is_multiple_of(page_size()) {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        }
        let prot = if writable { libc::PROT_READ | libc::PROT_WRITE } else { libc::PROT_READ };
        // SAFETY: a fresh shared mapping of `len` bytes of a file that is at least (and, sealed,
        // always) `len` bytes long; it stays mapped until `Drop` unmaps it.
        let ptr = unsafe { libc::mmap(ptr::null_mut(), len, prot, libc::MAP_SHARED, fd.as_raw_fd(), 0) };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(SharedMem { fd, ptr: ptr.cast(), len, writable })
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The mapping's address in this process.
    pub(crate) fn addr(&self) -> usize {
        self.ptr as usize
    }

    fn check(&self, offset: usize, size: usize) {
        assert!(
            offset.is_multiple_of(size) && offset.checked_add(size).is_some_and(|end| end <= self.len),
            "offset {offset}"
        );
    }

    /// The 64-bit word at `offset` (8-aligned, inside the mapping). Only for writable mappings: a
    /// store to a read-only one would fault.
    pub(crate) fn u64_at(&self, offset: usize) -> &AtomicU64 {
        assert!(self.writable, "store access to a read-only mapping");
        self.check(offset, 8);
        // SAFETY: aligned, inside the mapping, which lives as long as `&self`; the memory is shared
        // with the peer only through atomic accesses.
        unsafe { &*self.ptr.add(offset).cast::<AtomicU64>() }
    }

    /// The 32-bit word at `offset` (4-aligned, inside the mapping), for writable mappings.
    pub(crate) fn u32_at(&self, offset: usize) -> &AtomicU32 {
        assert!(self.writable, "store access to a read-only mapping");
        self.check(offset, 4);
        // SAFETY: as for `u64_at`.
        unsafe { &*self.ptr.add(offset).cast::<AtomicU32>() }
    }

    /// Loads the 64-bit word at `offset`; works on read-only mappings (atomic loads do not write).
    pub(crate) fn load_u64(&self, offset: usize, order: std::sync::atomic::Ordering) -> u64 {
        self.check(offset, 8);
        // SAFETY: aligned and inside the mapping; an atomic load of a naturally aligned word is a
        // plain read, allowed on read-only memory.
        unsafe { (*self.ptr.add(offset).cast::<AtomicU64>()).load(order) }
    }

    /// Loads the 32-bit word at `offset`; works on read-only mappings (atomic loads do not write).
    pub(crate) fn load_u32(&self, offset: usize, order: std::sync::atomic::Ordering) -> u32 {
        self.check(offset, 4);
        // SAFETY: as for `load_u64`.
        unsafe { (*self.ptr.add(offset).cast::<AtomicU32>()).load(order) }
    }

    /// Copies `src` into the mapping at `offset` (writable mappings; the range must fit).
    pub(crate) fn write_bytes(&self, offset: usize, src: &[u8]) {
        assert!(self.writable && offset.checked_add(src.len()).is_some_and(|end| end <= self.len));
        // SAFETY: the range is inside the mapping, which lives as long as `&self`, and `src` is a
        // separate Rust slice. The bytes are data to both sides (ring records are published by a
        // later release store; pool bytes are the payload of a one-sided operation): a peer writing
        // the same bytes at once can only change what it reads, never our memory outside the mapping.
        unsafe { ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.add(offset), src.len()) }
    }

    /// Copies bytes out of the mapping at `offset` into `dst` (the range must fit).
    pub(crate) fn read_bytes(&self, offset: usize, dst: &mut [u8]) {
        assert!(offset.checked_add(dst.len()).is_some_and(|end| end <= self.len));
        // SAFETY: the range is inside the mapping; a misbehaving peer overwriting it concurrently can
        // only change the bytes we get (nothing is decided on them without validation).
        unsafe { ptr::copy_nonoverlapping(self.ptr.add(offset), dst.as_mut_ptr(), dst.len()) }
    }

    /// The `len` bytes of the mapping at `offset` in a new vector, copied once (never zeroed first).
    pub(crate) fn read_vec(&self, offset: usize, len: usize) -> Vec<u8> {
        assert!(offset.checked_add(len).is_some_and(|end| end <= self.len));
        let mut out = Vec::with_capacity(len);
        // SAFETY: the range is inside the mapping (as for `read_bytes`) and `out` has room for `len`
        // bytes, every one of which the copy initialises before the length is set.
        unsafe {
            ptr::copy_nonoverlapping(self.ptr.add(offset), out.as_mut_ptr(), len);
            out.set_len(len);
        }
        out
    }

    /// The `len` bytes of the mapping at `offset`, in place (the range must fit).
    pub(crate) fn view(&self, offset: usize, len: usize) -> &[u8] {
        assert!(offset.checked_add(len).is_some_and(|end| end <= self.len));
        // SAFETY: the range is inside the mapping, which lives as long as `&self`. Used for pool bytes
        // no window is open on: an honest peer no longer writes them; one that breaks the rules and
        // writes its mapping anyway changes only the bytes seen, which callers treat as opaque data.
        unsafe { std::slice::from_raw_parts(self.ptr.add(offset), len) }
    }

    /// An RDMA Read or Write between `region` (registered here) at `region_offset` and this mapping
    /// of the peer's pool at `offset`, `len` bytes, by memcpy: `ToPeer` copies the region into the
    /// mapping, `FromPeer` the mapping into the region (which must then be writable). False, and
    /// nothing copied, when a range leaves its memory or the region may not be written.
    pub(crate) fn copy_region(
        &self,
        offset: usize,
        region: &MemoryRegion,
        region_offset: usize,
        len: usize,
        direction: Direction,
    ) -> bool {
        let fits = |at: usize, size: usize| at.checked_add(len).is_some_and(|end| end <= size);
        let to_peer = matches!(direction, Direction::ToPeer);
        if !fits(offset, self.len) || !fits(region_offset, region.len()) || !(to_peer || region.is_writable()) {
            return false;
        }
        if to_peer && !self.writable {
            return false;
        }
        let local = ptr::with_exposed_provenance_mut::<u8>(region.start_addr()).wrapping_add(region_offset);
        // SAFETY: both ranges were checked above. `region`'s memory (its buffer, a pool mapping) stays
        // allocated and in place while `region` is borrowed; it is written only when it is writable,
        // which the provider alone does. The mapping is the peer's memfd, sealed against shrinking
        // (checked when it was mapped), so no access faults; the peer writing the same bytes at once
        // only changes the data moved, as on a NIC. The two never overlap: the region is ours
        // (a Vec, Bytes, or our own pool), the mapping is of the peer's memfd.
        unsafe {
            if to_peer {
                ptr::copy_nonoverlapping(local.cast_const(), self.ptr.add(offset), len);
            } else {
                ptr::copy_nonoverlapping(self.ptr.add(offset).cast_const(), local, len);
            }
        }
        true
    }
}

impl Drop for SharedMem {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `map`; no reference into it outlives `&self`.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// This side's pool as [`rdma::PoolMemory`]: a writable mapping of our own sealed memfd, which the
/// peer maps too.
#[derive(Debug)]
pub(crate) struct PoolMem(pub(crate) SharedMem);

impl rdma::PoolMemory for PoolMem {
    fn start_addr(&self) -> usize {
        self.0.ptr.expose_provenance()
    }

    fn len(&self) -> usize {
        self.0.len
    }

    fn read(&self, offset: usize, dst: &mut [u8]) {
        self.0.read_bytes(offset, dst);
    }

    fn read_vec(&self, offset: usize, len: usize) -> Vec<u8> {
        self.0.read_vec(offset, len)
    }

    fn write(&self, offset: usize, src: &[u8]) {
        self.0.write_bytes(offset, src);
    }

    fn view(&self, offset: usize, len: usize) -> Option<&[u8]> {
        Some(self.0.view(offset, len))
    }
}

/// The system page size.
pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

/// Rounds `len` up to whole pages.
pub(crate) fn page_round(len: usize) -> usize {
    let page = page_size();
    len.div_ceil(page) * page
}

/// A close-on-exec memfd of `len` bytes, with `flags` besides (`MFD_ALLOW_SEALING`).
fn memfd(name: &CStr, flags: libc::c_uint, len: usize) -> io::Result<OwnedFd> {
    // SAFETY: `name` is a valid C string that outlives the call.
    let raw = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | flags) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: memfd_create returned a fresh descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let size = libc::off_t::try_from(len).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: plain system call on a descriptor we own.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), size) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn a_peer_mapping_sees_the_creators_stores() {
        let mem = SharedMem::create(c"test", page_size(), true).expect("memfd");
        let fd = mem.fd().try_clone_to_owned().expect("dup");
        let peer = SharedMem::map_peer(fd, page_size(), false).expect("map");
        mem.u64_at(8).store(42, Ordering::Release);
        assert_eq!(peer.load_u64(8, Ordering::Acquire), 42);
    }

    #[test]
    fn refuses_a_peer_memfd_of_the_wrong_size_or_without_seals() {
        let mem = SharedMem::create(c"test", page_size(), false).expect("memfd");
        let fd = mem.fd().try_clone_to_owned().expect("dup");
        let wrong_size = SharedMem::map_peer(fd, 2 * page_size(), true).unwrap_err();
        assert!(matches!(wrong_size, PeerMemError::Size { .. }) && wrong_size.to_string().contains("expected"));
        // SAFETY: a valid C string.
        let raw = unsafe { libc::memfd_create(c"unsealed".as_ptr(), libc::MFD_CLOEXEC) };
        // SAFETY: a fresh descriptor.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: plain system call.
        assert_eq!(unsafe { libc::ftruncate(fd.as_raw_fd(), page_size() as libc::off_t) }, 0);
        let unsealed = SharedMem::map_peer(fd, page_size(), true).unwrap_err();
        assert!(matches!(unsealed, PeerMemError::NotSealed) && unsealed.to_string().contains("sealed"));
    }

    #[test]
    fn a_read_only_sealed_memfd_cannot_be_mapped_writable_by_the_peer() {
        let mem = SharedMem::create(c"test", page_size(), true).expect("memfd");
        let fd = mem.fd().try_clone_to_owned().expect("dup");
        assert!(SharedMem::map_peer(fd, page_size(), true).is_err());
    }
}
