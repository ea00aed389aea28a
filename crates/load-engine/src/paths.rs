//! Where a job's files live on the export. A job file copied from a study names paths on the study's
//! mount (`directory=/mnt/nfs`, or `filename=/mnt/nfs/testfile`); nfsbench mounts nothing, so:
//! - a path inside the export path (`/export/run1/f` on `server:/export`) is taken relative to the export;
//! - a path under one of the job's absolute `directory=` entries is taken relative to that directory,
//!   which stands for the study's mount point of the export;
//! - any other absolute path keeps only its file name, at the export's root (its directory is taken as
//!   the mount point);
//! - a relative path is relative to the export's root.
//!
//! Directories on the way are created when missing.

use crate::error::EngineError;
use nfs_client::{FileHandle, NfsClient};

/// `path` relative to the export root, and a notice when part of it was taken as a mount point.
pub fn export_relative(path: &str, directories: &[String], export: &str) -> (String, Option<String>) {
    if !path.starts_with('/') {
        return (clean(path), None);
    }
    let export = export.trim_end_matches('/');
    if let Some(rest) = path.strip_prefix(export).filter(|rest| rest.starts_with('/')) {
        return (clean(rest), None);
    }
    let mount_point = directories
        .iter()
        .map(|d| d.trim_end_matches('/'))
        .filter(|d| d.starts_with('/'))
        .find(|d| path.strip_prefix(d).is_some_and(|rest| rest.starts_with('/')))
        .map(str::to_string)
        .unwrap_or_else(|| path.rsplit_once('/').map_or("", |(dir, _)| dir).to_string());
    let rest = &path[mount_point.len()..];
    let notice = format!("{mount_point} is taken as the mount point of {export}: its files go to the export's root");
    (clean(rest), Some(notice))
}

fn clean(path: &str) -> String {
    path.split('/').filter(|p| !p.is_empty() && *p != ".").collect::<Vec<_>>().join("/")
}

/// The handle of `dir` (relative to the export root), making missing directories on the way.
pub async fn resolve_directory(client: &NfsClient, dir: &str) -> Result<FileHandle, EngineError> {
    let mut current = client.root().clone();
    for part in dir.split('/').filter(|p| !p.is_empty() && *p != ".") {
        let err = |source| EngineError::Directory { path: dir.to_string(), source };
        current = match client.lookup(&current, part).await.map_err(err)? {
            Some((fh, _)) => fh,
            None => match client.mkdir(&current, part, 0o755).await {
                Ok((fh, _)) => fh,
                // Another client (an MPI rank) made it between our LOOKUP and MKDIR: use theirs.
                Err(e) if e.already_exists() => {
                    client.lookup(&current, part).await.map_err(err)?.ok_or_else(|| err(e))?.0
                }
                Err(e) => return Err(err(e)),
            },
        };
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(path: &str, dirs: &[&str]) -> (String, bool) {
        let dirs: Vec<String> = dirs.iter().map(|d| d.to_string()).collect();
        let (p, notice) = export_relative(path, &dirs, "/export");
        (p, notice.is_some())
    }

    #[test]
    fn a_study_mount_point_directory_maps_to_the_export_root() {
        assert_eq!(rel("/mnt/nfs/seq.0.0", &["/mnt/nfs"]), ("seq.0.0".into(), true));
        assert_eq!(rel("/mnt/nfs/sub/seq.0.0", &["/mnt/nfs/"]), ("sub/seq.0.0".into(), true));
    }

    #[test]
    fn paths_inside_the_export_path_stay_where_they_are() {
        assert_eq!(rel("/export/run1/f", &["/export/run1"]), ("run1/f".into(), false));
        assert_eq!(rel("/exports/f", &[]), ("f".into(), true), "a longer name is not inside /export");
    }

    #[test]
    fn relative_paths_are_under_the_export_root() {
        assert_eq!(rel("run1/./f", &["run1"]), ("run1/f".into(), false));
    }

    #[test]
    fn an_absolute_file_name_without_directory_keeps_its_name() {
        assert_eq!(rel("/mnt/nfs/testfile", &[]), ("testfile".into(), true));
    }
}
