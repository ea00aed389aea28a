//! Sparse file contents: fixed-size pages allocated on first write (holes read as zeros), and the
//! export-wide page budget that enforces the capacity cap.
//!
//! Pages are reference-counted (`Arc`) so a READ hands out slices of them without copying
//! ([`FileData::read`]: each page's part is a [`Bytes`] that keeps the page alive). A write into a page
//! that a reply still holds copies the page first (`Arc::make_mut`, copy-on-write): the reply keeps the
//! bytes it was given, the file gets the new ones. The budget counts the file's pages; a page a reply
//! still holds after the file moved on lives until the transport sends that reply (bounded by what the
//! transports hold in flight). Holes read as slices of one static zero page: no allocation.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use nfs3_proto::{CreateVerf3, NfsErr3};

use super::page_table::PageTable;
use crate::backend::BackendResult;
use crate::payload::PayloadData;

/// log2 of the page size: 64 KiB pages keep the page map small for large files while a 4 KiB write into a
/// hole costs one allocation.
pub(super) const PAGE_SHIFT: u32 = 16;
pub(super) const PAGE_SIZE: usize = 1 << PAGE_SHIFT;
const PAGE_BYTES: u64 = PAGE_SIZE as u64;
const PAGE_MASK: u64 = PAGE_BYTES - 1;

/// Largest file size (and end of any write): what a signed 64-bit `off_t` can address, as Linux reports.
pub(super) const MAX_FILE_SIZE: u64 = i64::MAX as u64;

/// Largest single read; a longer request is answered short (RFC 1813 §3.3.6 allows fewer bytes than asked),
/// so a hostile `count` over a huge hole cannot make us zero-fill gigabytes.
pub(super) const MAX_READ: u32 = 4 << 20;

/// One page of a file, shared with the replies that hold slices of it.
type Page = Arc<PageBuf>;

/// A page's bytes in an allocation of exactly [`PAGE_SIZE`] (the `Arc`'s counts live in an allocation
/// of their own: `Arc<[u8]>` would ask for 64 KiB + 16 bytes, which an allocator's size classes round up
/// by as much as a quarter).
#[derive(Clone)]
pub(super) struct PageBuf(Box<[u8]>);

/// The owner of a [`Bytes`] slice of a page: keeps the page alive while a reply holds the slice.
struct Held(Page);

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.0 .0
    }
}

/// What every hole reads as.
static ZERO_PAGE: [u8; PAGE_SIZE] = [0; PAGE_SIZE];

/// The page budget shared by every file of one backend.
#[derive(Debug)]
pub(super) struct Space {
    used_pages: AtomicU64,
    max_pages: u64,
}

impl Space {
    /// A budget of `capacity_bytes` rounded down to whole pages.
    pub(super) fn new(capacity_bytes: u64) -> Space {
        Space { used_pages: AtomicU64::new(0), max_pages: capacity_bytes >> PAGE_SHIFT }
    }

    /// Takes `pages` from the budget, all or nothing.
    pub(super) fn reserve(&self, pages: u64) -> BackendResult<()> {
        if pages == 0 {
            return Ok(());
        }
        self.used_pages
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(pages).filter(|&total| total <= self.max_pages)
            })
            .map(|_| ())
            .map_err(|_| NfsErr3::NoSpc)
    }

    pub(super) fn release(&self, pages: u64) {
        if pages != 0 {
            self.used_pages.fetch_sub(pages, Ordering::AcqRel);
        }
    }

    pub(super) fn total_bytes(&self) -> u64 {
        self.max_pages << PAGE_SHIFT
    }

    pub(super) fn used_bytes(&self) -> u64 {
        self.used_pages.load(Ordering::Acquire) << PAGE_SHIFT
    }
}

/// A regular file's size, pages and exclusive-create verifier. Invariant: every byte at or past `size` in an
/// allocated page is zero, so extending a file never has to clear anything.
pub(super) struct FileData {
    size: u64,
    pages: PageTable<Page>,
    /// RFC 1813 §3.3.8: the EXCLUSIVE create verifier, kept until the first SETATTR (the client's follow-up
    /// that ends the retransmission window, as knfsd's verifier-in-the-times scheme does).
    pub(super) verifier: Option<CreateVerf3>,
}

impl FileData {
    /// A file of `size` bytes that is all hole (no pages, so nothing is taken from the budget).
    pub(super) fn new(size: u64, verifier: Option<CreateVerf3>) -> FileData {
        FileData { size, pages: PageTable::new(), verifier }
    }

    pub(super) fn size(&self) -> u64 {
        self.size
    }

    /// Bytes of allocated pages (`used` in fattr3).
    pub(super) fn used_bytes(&self) -> u64 {
        self.pages.len() << PAGE_SHIFT
    }

    /// Up to `count` bytes at `offset` as slices of the file's pages (holes as slices of the zero page),
    /// nothing copied. Returns true with them when the read reached end-of-file.
    pub(super) fn read(&self, offset: u64, count: u32) -> (PayloadData, bool) {
        let len = self.size.saturating_sub(offset).min(u64::from(count.min(MAX_READ)));
        let end = offset.saturating_add(len);
        let pages = usize::try_from(len.div_ceil(PAGE_BYTES) + 1).unwrap_or(1);
        let mut data = PayloadData::with_capacity(pages);
        let mut pos = offset;
        while pos < end {
            let start = (pos & PAGE_MASK) as usize;
            let chunk = (PAGE_BYTES - (pos & PAGE_MASK)).min(end - pos) as usize;
            // start < PAGE_SIZE and start + chunk <= PAGE_SIZE by construction.
            data.push(match self.pages.get(pos >> PAGE_SHIFT) {
                Some(page) => Bytes::from_owner(Held(Arc::clone(page))).slice(start..start + chunk),
                None => Bytes::from_static(&ZERO_PAGE[..chunk]),
            });
            pos += chunk as u64;
        }
        (data, end >= self.size)
    }

    /// Writes `data` at `offset`, allocating the pages it touches for the first time. Either the whole write
    /// fits in the budget or nothing changes (NOSPC); past [`MAX_FILE_SIZE`] it is FBIG.
    pub(super) fn write(&mut self, offset: u64, data: &[u8], space: &Space) -> BackendResult<()> {
        if data.is_empty() {
            return Ok(());
        }
        let end = offset.checked_add(data.len() as u64).filter(|&end| end <= MAX_FILE_SIZE).ok_or(NfsErr3::FBig)?;
        let (first, last) = (offset >> PAGE_SHIFT, (end - 1) >> PAGE_SHIFT);
        let missing = (first..=last).filter(|&index| !self.pages.contains(index)).count();
        space.reserve(missing as u64)?;
        let mut pos = offset;
        let mut rest = data;
        while !rest.is_empty() {
            let start = (pos & PAGE_MASK) as usize;
            let (head, tail) = rest.split_at((PAGE_SIZE - start).min(rest.len()));
            let page = self.pages.get_or_insert_with(pos >> PAGE_SHIFT, new_page);
            Arc::make_mut(page).0[start..start + head.len()].copy_from_slice(head);
            pos += head.len() as u64;
            rest = tail;
        }
        self.size = self.size.max(end);
        Ok(())
    }

    /// Truncates (returning whole pages past the new end to the budget and zeroing the tail of the last
    /// one) or extends with a hole. The caller checks `size <= MAX_FILE_SIZE`.
    pub(super) fn set_size(&mut self, size: u64, space: &Space) {
        if size < self.size {
            let first_dropped = size.div_ceil(PAGE_BYTES);
            space.release(self.pages.remove(first_dropped..u64::MAX));
            let tail = (size & PAGE_MASK) as usize;
            if tail != 0 {
                if let Some(page) = self.pages.get_mut(size >> PAGE_SHIFT) {
                    Arc::make_mut(page).0[tail..].fill(0);
                }
            }
        }
        self.size = size;
    }

    /// lseek(2)'s SEEK_DATA (`data`) or SEEK_HOLE from `offset`: allocated pages are data, everything else
    /// (and the end of the file) a hole. `None` at or past the end, or when no data follows.
    pub(super) fn seek(&self, offset: u64, data: bool) -> Option<u64> {
        if offset >= self.size {
            return None;
        }
        let mut pages = self.pages.indices(offset >> PAGE_SHIFT..u64::MAX);
        if data {
            let start = pages.next()? << PAGE_SHIFT;
            return (start < self.size).then_some(start.max(offset));
        }
        // The first page at or after `offset` that is not allocated begins the hole.
        let mut expect = offset >> PAGE_SHIFT;
        for index in pages {
            if index != expect {
                break;
            }
            expect += 1;
        }
        Some((expect << PAGE_SHIFT).max(offset).min(self.size))
    }

    /// Zeros `length` bytes at `offset` within the file, giving whole pages back to the budget (a hole).
    pub(super) fn punch(&mut self, offset: u64, length: u64, space: &Space) {
        let end = offset.saturating_add(length).min(self.size);
        if offset >= end {
            return;
        }
        let first_whole = offset.div_ceil(PAGE_BYTES);
        let after_whole = end >> PAGE_SHIFT;
        if first_whole < after_whole {
            space.release(self.pages.remove(first_whole..after_whole));
        }
        // The partial pages at either edge keep their other bytes.
        let mut pos = offset;
        while pos < end {
            let page_end = ((pos >> PAGE_SHIFT) + 1) << PAGE_SHIFT;
            let stop = page_end.min(end);
            if let Some(page) = self.pages.get_mut(pos >> PAGE_SHIFT) {
                Arc::make_mut(page).0[(pos & PAGE_MASK) as usize..=((stop - 1) & PAGE_MASK) as usize].fill(0);
            }
            pos = stop;
        }
    }

    /// Allocates the pages of `length` bytes at `offset` (zeros), extending the file when the range ends
    /// past it; all or nothing (NOSPC), FBIG past [`MAX_FILE_SIZE`].
    pub(super) fn allocate(&mut self, offset: u64, length: u64, space: &Space) -> BackendResult<()> {
        let end = offset.checked_add(length).filter(|&end| end <= MAX_FILE_SIZE).ok_or(NfsErr3::FBig)?;
        if length == 0 {
            return Ok(());
        }
        let (first, last) = (offset >> PAGE_SHIFT, (end - 1) >> PAGE_SHIFT);
        let present = self.pages.indices(first..last + 1).count() as u64;
        space.reserve(last - first + 1 - present)?;
        for index in first..=last {
            self.pages.get_or_insert_with(index, new_page);
        }
        self.size = self.size.max(end);
        Ok(())
    }

    /// Frees every page (the file's last link is gone).
    pub(super) fn release_all(&mut self, space: &Space) {
        space.release(self.pages.len());
        self.pages.clear();
    }
}

/// A zeroed page (asked of the allocator zeroed, in one allocation of exactly [`PAGE_SIZE`]).
fn new_page() -> Page {
    Arc::new(PageBuf(vec![0; PAGE_SIZE].into_boxed_slice()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_shares_the_page_and_a_later_write_leaves_it_alone() {
        let space = Space::new(1 << 20);
        let mut file = FileData::new(0, None);
        file.write(0, b"before", &space).expect("write");
        let (held, eof) = file.read(0, 6);
        assert!(eof);
        let page = file.pages.get(0).expect("page 0");
        assert_eq!(held.slices()[0].as_ptr(), page.0.as_ptr(), "the reply points into the page");
        file.write(0, b"AFTER!", &space).expect("write");
        assert_eq!(held.to_vec(), b"before", "the held slice keeps its bytes");
        assert_eq!(file.read(0, 6).0.to_vec(), b"AFTER!");
        assert_ne!(file.pages.get(0).expect("page 0").0.as_ptr(), held.slices()[0].as_ptr(), "copied on write");
        assert_eq!(space.used_bytes(), PAGE_BYTES, "the copy takes no second page of the budget");
    }

    #[test]
    fn an_unshared_page_is_written_in_place() {
        let space = Space::new(1 << 20);
        let mut file = FileData::new(0, None);
        file.write(0, b"one", &space).expect("write");
        let before = file.pages.get(0).expect("page").0.as_ptr();
        drop(file.read(0, 3));
        file.write(0, b"two", &space).expect("write");
        assert_eq!(file.pages.get(0).expect("page").0.as_ptr(), before);
    }

    #[test]
    fn holes_read_as_the_static_zero_page_and_reads_span_pages() {
        let space = Space::new(1 << 20);
        let mut file = FileData::new(3 * PAGE_BYTES, None);
        file.write(PAGE_BYTES - 2, b"abcd", &space).expect("write");
        let (data, eof) = file.read(0, u32::MAX);
        assert!(eof);
        assert_eq!(data.len(), 3 * PAGE_SIZE);
        assert_eq!(data.slices().len(), 3);
        assert_eq!(data.slices()[2].as_ptr(), ZERO_PAGE.as_ptr(), "a hole is the zero page");
        let (mid, _) = file.read(PAGE_BYTES - 2, 4);
        assert_eq!((mid.to_vec(), mid.slices().len()), (b"abcd".to_vec(), 2));
    }
}
