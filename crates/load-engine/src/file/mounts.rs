//! Which mount a path is on: the longest mount point that contains the path's nearest existing
//! ancestor (resolved through symbolic links), the last such mount when several are stacked on one
//! point, among the mounts `/proc/self/mountstats` lists (every mount, with its file system type; the
//! `mountstats` crate reads it).

use mountstats::Mount;
use std::path::{Path, PathBuf};

/// The mounts this process sees (none when /proc/self/mountstats cannot be read).
pub fn mounts() -> Vec<Mount> {
    mountstats::read_self().unwrap_or_default()
}

/// The mount of `mounts` that `path` is on (a path that does not exist yet: its nearest existing
/// ancestor's).
pub fn mount_of<'a>(mounts: &'a [Mount], path: &Path) -> Option<&'a Mount> {
    let path = existing_ancestor(path)?;
    mounts
        .iter()
        .enumerate()
        .filter(|(_, m)| path.starts_with(&m.mountpoint))
        .max_by_key(|(i, m)| (m.mountpoint.len(), *i))
        .map(|(_, m)| m)
}

/// `path` made absolute and resolved, or its nearest ancestor that exists.
fn existing_ancestor(path: &Path) -> Option<PathBuf> {
    let absolute = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir().ok()?.join(path) };
    absolute.ancestors().find_map(|p| p.canonicalize().ok())
}
