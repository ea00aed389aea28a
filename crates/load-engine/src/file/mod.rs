//! The file engine: fio jobs on local paths — any mounted file system (ext4, NFS, SMB, tmpfs) or a
//! block device — through io_uring, as fio's `ioengine=io_uring` runs them. It is a sibling of the NFS
//! engine over the same group logic ([`crate::engine`]) and clone logic ([`crate::clone_core`]): the
//! same offsets, phases, verify units, stop conditions, recorders and CPU accounting.
//!
//! - [`layout`]: files created and laid out before the clock starts when a job reads them (fio's
//!   "Laying out IO file"), then synced and their cached pages dropped (fio's `create_fsync=1`,
//!   `invalidate=1`); a block device is never written to lay out, and a job without `size=` uses the
//!   file's or the device's own size.
//! - [`worker`]: one OS thread per job clone with its own ring of `iodepth` entries (fio's model).
//! - [`mounts`]: which file system a path is on, for the run's description.

pub mod layout;
pub mod mounts;
mod worker;

use crate::clone_core::{CloneSetup, WorkerOutcome};
use crate::engine::{run_groups, Backend, EngineConfig, EngineRun};
use crate::error::EngineError;
use crate::layout::LayoutRequest;
use crate::offsets::Region;
use fio_job::JobSet;
use layout::LocalFile;
use std::collections::BTreeMap;

/// Run every group of `set` on local files through io_uring. `config.export` is not used.
pub async fn run(set: &JobSet, config: &EngineConfig) -> Result<EngineRun, EngineError> {
    run_groups(&FileBackend, set, config).await
}

/// The file engine's side of the group logic.
struct FileBackend;

impl Backend for FileBackend {
    type File = LocalFile;

    /// fio's rule: the name (its `directory=` already joined) is the path, relative to the working
    /// directory when it is relative.
    fn locate(&self, name: &str, _directories: &[String]) -> (String, Option<String>) {
        (name.to_string(), None)
    }

    async fn prepare(
        &self,
        requests: BTreeMap<String, LayoutRequest>,
        verbose: bool,
    ) -> Result<BTreeMap<String, LocalFile>, EngineError> {
        // Laying out is blocking file I/O: off the runtime's thread, one file after another as fio does.
        tokio::task::spawn_blocking(move || {
            requests
                .into_values()
                .enumerate()
                .map(|(i, request)| {
                    let file = layout::prepare(&request, crate::permutation::splitmix64(i as u64), verbose)?;
                    Ok((request.name, file))
                })
                .collect()
        })
        .await
        .map_err(|e| EngineError::Task(format!("laying out files ended abnormally: {e}")))?
    }

    fn region(file: &LocalFile) -> Region {
        file.region
    }

    fn start(&self, files: Vec<LocalFile>, clone: CloneSetup) -> tokio::task::JoinHandle<WorkerOutcome> {
        // fio's model: a thread per clone, blocking in io_uring_enter; the blocking pool gives each its own.
        tokio::task::spawn_blocking(move || worker::run(files, clone))
    }
}

/// What the run measures, for reports: the engine, how it opens files, and the file systems the jobs'
/// files are on — "file (io_uring, O_DIRECT) on /mnt/x, nfs4".
pub fn describe(set: &JobSet) -> String {
    let direct = set.jobs.iter().filter(|j| j.direct).count();
    let mode = match direct {
        0 => "buffered",
        n if n == set.jobs.len() => "O_DIRECT",
        _ => "O_DIRECT and buffered",
    };
    let table = mounts::mounts();
    let mut places: Vec<String> = Vec::new();
    for job in &set.jobs {
        for name in job.file_names(0) {
            let place = mounts::mount_of(&table, std::path::Path::new(&name));
            let place = place
                .map_or_else(|| "an unknown file system".to_string(), |m| format!("{}, {}", m.mountpoint, m.fstype));
            if !places.contains(&place) {
                places.push(place);
            }
        }
    }
    format!("file (io_uring, {mode}) on {}", places.join("; "))
}

#[cfg(test)]
mod tests;
