//! Where a job's files live on the export. A job file copied from a study names the study's mount point
//! in `directory=` (e.g. `/mnt/nfs`); nfsbench mounts nothing, so an absolute directory outside the
//! export path is taken as that mount point and the files go to the export's root. A directory inside
//! the export path (`/export/run1` on `server:/export`), or a relative one, is a subdirectory, created
//! when missing.

use crate::error::EngineError;
use fio_job::JobSpec;
use nfs_client::{FileHandle, NfsClient};

/// The job's directory relative to the export root ("" for the root), and a notice when an absolute
/// directory was taken as the study's mount point.
pub fn job_directory(spec: &JobSpec, export: &str) -> (String, Option<String>) {
    let Some(dir) = spec.directory.as_deref() else { return (String::new(), None) };
    let trimmed = dir.trim_end_matches('/');
    if !dir.starts_with('/') {
        return (trimmed.trim_start_matches("./").to_string(), None);
    }
    let export = export.trim_end_matches('/');
    if let Some(inside) = trimmed.strip_prefix(export).filter(|rest| rest.is_empty() || rest.starts_with('/')) {
        return (inside.trim_start_matches('/').to_string(), None);
    }
    let notice = format!(
        "job '{}': directory={dir} is taken as the mount point of the export; its files go to the export's root",
        spec.name
    );
    (String::new(), Some(notice))
}

/// The handle of `dir` (relative to the export root), making missing directories on the way.
pub async fn resolve_directory(client: &NfsClient, dir: &str) -> Result<FileHandle, EngineError> {
    let mut current = client.root().clone();
    for part in dir.split('/').filter(|p| !p.is_empty() && *p != ".") {
        let err = |source| EngineError::Directory { path: dir.to_string(), source };
        current = match client.lookup(&current, part).await.map_err(err)? {
            Some((fh, _)) => fh,
            None => client.mkdir(&current, part, 0o755).await.map_err(err)?.0,
        };
    }
    Ok(current)
}
