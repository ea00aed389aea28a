//! What O_DIRECT and a report need to know of an open file: a block device's size and logical block
//! size, and dropping a file's cached pages before a buffered read job (fio's default `invalidate=1`).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// linux/fs.h: `_IOR(0x12, 114, size_t)`, the device size in bytes.
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
/// linux/fs.h: `_IO(0x12, 104)`, the logical block size (an int).
const BLKSSZGET: libc::c_ulong = 0x1268;

/// The size in bytes of the block device open as `file` (BLKGETSIZE64).
pub fn block_device_size(file: &File) -> io::Result<u64> {
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which points at `size`, alive for the call;
    // the fd is open for as long as `file` is borrowed.
    #[allow(unsafe_code)]
    let r = unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64 as _, &mut size as *mut u64) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(size)
}

/// The logical block size of the block device open as `file` (BLKSSZGET): the unit of O_DIRECT
/// offsets and lengths on it.
pub fn logical_block_size(file: &File) -> io::Result<u32> {
    let mut size: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int through the pointer, which points at `size`, alive for the call.
    #[allow(unsafe_code)]
    let r = unsafe { libc::ioctl(file.as_raw_fd(), BLKSSZGET as _, &mut size as *mut libc::c_int) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    u32::try_from(size).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "negative logical block size"))
}

/// Drop `file`'s clean cached pages (posix_fadvise POSIX_FADV_DONTNEED over the whole file), so a
/// buffered read job reads the device rather than memory, as fio's `invalidate=1` does.
pub fn drop_cached_pages(file: &File) -> io::Result<()> {
    // SAFETY: posix_fadvise reads only its integer arguments; the fd is open while `file` is borrowed.
    #[allow(unsafe_code)]
    let r = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(())
}

/// `O_DIRECT`, for `OpenOptionsExt::custom_flags`.
pub const O_DIRECT: i32 = libc::O_DIRECT;
