//! Local files before the clock starts, as fio lays them out: the directory must exist (fio makes
//! none; only a many-clients run's `rankN` directory is made); a missing file is created; a file a job reads that is shorter than its region is written out
//! to full size (verify units when the job verifies, the same bytes the NFS engine lays out), then
//! synced (fio's `create_fsync`). A block device is never written to lay it out. Every file's cached
//! pages are dropped before the jobs start (fio's `invalidate=1`), so buffered reads reach the device.

use crate::error::EngineError;
use crate::layout::{fill_start, layout_chunk, LayoutRequest};
use crate::offsets::Region;
use bytes::Bytes;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A local file ready for a job.
#[derive(Debug, Clone)]
pub struct LocalFile {
    pub path: PathBuf,
    pub region: Region,
    /// A block device (opened without O_CREAT, never laid out).
    pub block_device: bool,
    /// The alignment O_DIRECT buffers need: the device's logical block size, at least a page.
    pub align: usize,
}

/// Layout writes this large.
const CHUNK: u64 = 1 << 20;
/// Alignment of buffers when nothing larger is known: a page satisfies every logical block size up to it.
pub const PAGE: usize = 4096;

/// Make `request.name` ready: its directory checked, the file created or the device opened, its region
/// sized, filled when a job reads it, and its cached pages dropped.
pub fn prepare(request: &LayoutRequest, seed: u64, verbose: bool) -> Result<LocalFile, EngineError> {
    let path = PathBuf::from(&request.name);
    let local = |what: String| move |source: io::Error| EngineError::Local { what, source };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let private = dir.file_name().and_then(|n| n.to_str()).is_some_and(crate::peers::is_private_dir);
    if private && !dir.is_dir() && dir.parent().is_some_and(Path::is_dir) {
        // A many-clients run's own directory for this client (peers::private_path).
        if let Err(source) = std::fs::create_dir(dir).or_else(|e| if dir.is_dir() { Ok(()) } else { Err(e) }) {
            return Err(EngineError::Local { what: format!("directory '{}'", dir.display()), source });
        }
    }
    if !dir.is_dir() {
        let source =
            io::Error::new(io::ErrorKind::NotFound, "no such directory (nfsbench creates files, not directories)");
        return Err(EngineError::Local { what: format!("directory '{}'", dir.display()), source });
    }
    let existing = std::fs::metadata(&path).ok();
    let block_device = existing.as_ref().is_some_and(|m| m.file_type().is_block_device());
    let file = if block_device {
        OpenOptions::new().read(true).open(&path)
    } else {
        OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path)
    }
    .map_err(local(format!("file '{}'", request.name)))?;
    let (size, align) = if block_device {
        let size = uring_io::facts::block_device_size(&file).map_err(local(format!("device '{}'", request.name)))?;
        let lbs = uring_io::facts::logical_block_size(&file).map_err(local(format!("device '{}'", request.name)))?;
        (size, (lbs as usize).max(PAGE))
    } else {
        (file.metadata().map_err(local(format!("file '{}'", request.name)))?.len(), PAGE)
    };
    let mut region = request.region;
    if request.sized_by_file {
        if size <= region.start {
            return Err(EngineError::Usage(format!(
                "file '{}': you need to specify size= (or filesize=): the file holds {size} bytes, offset={}",
                request.name, region.start
            )));
        }
        region.len = size - region.start;
    } else if block_device && region.start + region.len > size {
        return Err(EngineError::Usage(format!(
            "device '{}': offset+size ({}) is past the end of the device ({size} bytes)",
            request.name,
            region.start + region.len
        )));
    }
    if request.direct {
        check_direct(&path, block_device)?;
    }
    if request.fill && !block_device && size < region.start + region.len {
        let written = fill(&file, request, region, size, seed)?;
        if verbose && written > 0 {
            eprintln!("{}: Laying out IO file (1 file / {}MiB)", request.name, written >> 20);
        }
    }
    // fio's invalidate=1: what the page cache holds of the file goes, so buffered reads reach the device.
    let _ = uring_io::facts::drop_cached_pages(&file);
    Ok(LocalFile { path, region, block_device, align })
}

/// Write `[from, end)` of the region and sync it; returns the bytes written.
fn fill(file: &File, request: &LayoutRequest, region: Region, size: u64, seed: u64) -> Result<u64, EngineError> {
    let unit = request.verifier.map_or(1, |v| v.interval());
    let end = region.start + region.len;
    let chunk = (CHUNK / unit * unit).max(unit);
    let filler = Bytes::from(crate::buffers::random_bytes(chunk as usize, seed));
    let mut offset = fill_start(size, region, unit);
    let start = offset;
    let failed = |source| EngineError::Local { what: format!("laying out '{}' at {start}", request.name), source };
    while offset < end {
        let len = chunk.min(end - offset);
        file.write_all_at(&layout_chunk(request.verifier, &filler, offset, len, seed), offset).map_err(failed)?;
        offset += len;
    }
    file.sync_all().map_err(failed)?;
    Ok(end - start)
}

/// direct=1 needs a file system that takes O_DIRECT: open the file so once, and say which file system
/// refused it (tmpfs before Linux 6.6, ramfs, some FUSE file systems).
fn check_direct(path: &Path, block_device: bool) -> Result<(), EngineError> {
    let opened = OpenOptions::new().read(true).custom_flags(uring_io::facts::O_DIRECT).open(path);
    match opened {
        Ok(_) => Ok(()),
        Err(e) if e.raw_os_error() == Some(22) && !block_device => {
            let mounts = super::mounts::mounts();
            let fs = super::mounts::mount_of(&mounts, path)
                .map_or_else(|| "unknown".to_string(), |m| format!("{} on {}", m.fstype, m.mountpoint));
            Err(EngineError::DirectRefused { path: path.display().to_string(), fs })
        }
        Err(source) => Err(EngineError::Local { what: format!("opening '{}' with O_DIRECT", path.display()), source }),
    }
}
