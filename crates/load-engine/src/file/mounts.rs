//! Which mount a path is on, from `/proc/self/mountinfo` (proc(5)): the longest mount point that
//! contains the path's nearest existing ancestor, resolved through symbolic links; the last such entry
//! when mounts are stacked on one point.

use std::path::{Path, PathBuf};

/// One mount: where it is and its file system type as the kernel names it ("ext4", "nfs4", "tmpfs").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub point: String,
    pub fstype: String,
}

/// The mounts this process sees.
#[derive(Debug, Clone, Default)]
pub struct MountTable(Vec<Mount>);

impl MountTable {
    /// The table of `/proc/self/mountinfo`, or `None` when it cannot be read.
    pub fn read() -> Option<MountTable> {
        std::fs::read_to_string("/proc/self/mountinfo").ok().map(|text| MountTable::parse(&text))
    }

    /// The mounts of a mountinfo text; malformed lines are skipped.
    pub fn parse(text: &str) -> MountTable {
        let mounts = text
            .lines()
            .filter_map(|line| {
                let (before, after) = line.split_once(" - ")?;
                let point = before.split(' ').nth(4)?;
                let fstype = after.split(' ').next()?;
                Some(Mount { point: unescape(point), fstype: fstype.to_string() })
            })
            .collect();
        MountTable(mounts)
    }

    /// Every mount, in the kernel's order.
    pub fn mounts(&self) -> &[Mount] {
        &self.0
    }

    /// The mount `path` is on (a path that does not exist yet: its nearest existing ancestor's).
    pub fn mount_of(&self, path: &Path) -> Option<&Mount> {
        let path = existing_ancestor(path)?;
        self.0
            .iter()
            .enumerate()
            .filter(|(_, m)| path.starts_with(&m.point))
            .max_by_key(|(i, m)| (m.point.len(), *i))
            .map(|(_, m)| m)
    }
}

/// `path` made absolute and resolved, or its nearest ancestor that exists.
fn existing_ancestor(path: &Path) -> Option<PathBuf> {
    let absolute = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir().ok()?.join(path) };
    absolute.ancestors().find_map(|p| p.canonicalize().ok())
}

/// mountinfo escapes space, tab, newline and backslash as `\ooo` octal.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal =
            bytes.get(i + 1..i + 4).filter(|d| bytes[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
