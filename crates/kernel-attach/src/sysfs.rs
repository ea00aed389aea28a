//! Kernel state read from a sysfs tree: `/sys` in production, a fixture directory in tests. Files are
//! read bounded, trimmed of their newline, and anything empty, oversized or not text is an error
//! naming the file.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::error::AttachError;

/// A sysfs attribute is at most a page; anything longer is not one.
const FILE_MAX: u64 = 64 * 1024;

/// A sysfs root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sysfs {
    root: PathBuf,
}

impl Sysfs {
    /// `Sysfs::new("/sys")` for the running kernel.
    pub fn new(root: impl Into<PathBuf>) -> Sysfs {
        Sysfs { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The full path of `rel` (`class/nvme/nvme0/state`).
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub(crate) fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    /// The file's text without its trailing newline; a missing, empty or garbled file is an error.
    pub(crate) fn read(&self, rel: &str) -> Result<String, AttachError> {
        read_file(&self.path(rel))
    }

    /// The file's text, `None` when it does not exist (an attribute this kernel or transport lacks).
    pub(crate) fn read_opt(&self, rel: &str) -> Result<Option<String>, AttachError> {
        read_text(&self.path(rel))
    }

    /// The file as a number.
    pub(crate) fn read_num<T: FromStr>(&self, rel: &str) -> Result<T, AttachError> {
        let text = self.read(rel)?;
        parse_num(&self.path(rel), &text)
    }

    /// The file as a number, `None` when it does not exist.
    pub(crate) fn read_num_opt<T: FromStr>(&self, rel: &str) -> Result<Option<T>, AttachError> {
        match self.read_opt(rel)? {
            Some(text) => parse_num(&self.path(rel), &text).map(Some),
            None => Ok(None),
        }
    }

    /// The names in a directory in natural order (`nvme2` before `nvme10`); none when it does not exist.
    pub(crate) fn list(&self, rel: &str) -> Result<Vec<String>, AttachError> {
        let path = self.path(rel);
        let entries = match std::fs::read_dir(&path) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(AttachError::Read { path, source }),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| AttachError::Read { path: path.clone(), source })?;
            if let Ok(name) = entry.file_name().into_string() {
                names.push(name);
            }
        }
        names.sort_by_key(|n| natural_key(n));
        Ok(names)
    }

    /// Where a sysfs symlink leads, resolved (`class/iscsi_session/session3/device` →
    /// `.../platform/host2/session3`); `None` when it does not exist.
    pub(crate) fn resolve(&self, rel: &str) -> Result<Option<PathBuf>, AttachError> {
        let path = self.path(rel);
        match std::fs::canonicalize(&path) {
            Ok(p) => Ok(Some(p)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(AttachError::Read { path, source }),
        }
    }
}

/// A file's text without its trailing newline; a missing, empty or garbled file is an error.
pub(crate) fn read_file(path: &Path) -> Result<String, AttachError> {
    read_text(path)?.ok_or_else(|| AttachError::Read {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
    })
}

/// `None` for a missing file; an error for one that cannot be read or is empty, too long or not UTF-8.
fn read_text(path: &Path) -> Result<Option<String>, AttachError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(AttachError::Read { path: path.to_path_buf(), source }),
    };
    let mut bytes = Vec::new();
    file.take(FILE_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| AttachError::Read { path: path.to_path_buf(), source })?;
    let garbled = |expected: &str, found: String| AttachError::Garbled {
        path: path.to_path_buf(),
        expected: expected.to_string(),
        found,
    };
    if bytes.len() as u64 > FILE_MAX {
        return Err(garbled("a sysfs attribute (at most 64 KiB)", format!("{} bytes or more", FILE_MAX + 1)));
    }
    let text =
        String::from_utf8(bytes).map_err(|e| garbled("text", String::from_utf8_lossy(e.as_bytes()).into_owned()))?;
    let trimmed = text.trim_end_matches(['\n', '\r', ' ', '\t', '\0']);
    if trimmed.trim().is_empty() {
        return Err(garbled("a value", text));
    }
    Ok(Some(trimmed.to_string()))
}

pub(crate) fn parse_num<T: FromStr>(path: &Path, text: &str) -> Result<T, AttachError> {
    text.trim().parse::<T>().map_err(|_| AttachError::Garbled {
        path: path.to_path_buf(),
        expected: "a number".to_string(),
        found: text.to_string(),
    })
}

/// Sorts `nvme2` before `nvme10`: the text before the first digit, then the number, then the rest.
fn natural_key(name: &str) -> (String, u64, String) {
    let start = name.find(|c: char| c.is_ascii_digit()).unwrap_or(name.len());
    let digits_end = name[start..].find(|c: char| !c.is_ascii_digit()).map_or(name.len(), |i| start + i);
    let number = name[start..digits_end].parse::<u64>().unwrap_or(0);
    (name[..start].to_string(), number, name[digits_end..].to_string())
}

/// `PREFIX<n>` → n (`nvme3` with prefix `nvme`, `session12` with `session`).
pub(crate) fn numbered(name: &str, prefix: &str) -> Option<u32> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The online CPUs, from `devices/system/cpu/online` (`0-3,6`); `None` when the file is missing.
pub(crate) fn online_cpus(sysfs: &Sysfs) -> Result<Option<u32>, AttachError> {
    let rel = "devices/system/cpu/online";
    let Some(text) = sysfs.read_opt(rel)? else { return Ok(None) };
    let garbled = || AttachError::Garbled {
        path: sysfs.path(rel),
        expected: "a CPU list (0-3,6)".to_string(),
        found: text.clone(),
    };
    let mut count: u32 = 0;
    for range in text.trim().split(',') {
        let (first, last) = range.split_once('-').unwrap_or((range, range));
        let first: u32 = first.parse().map_err(|_| garbled())?;
        let last: u32 = last.parse().map_err(|_| garbled())?;
        if last < first {
            return Err(garbled());
        }
        count = count.saturating_add(last - first + 1);
    }
    Ok(Some(count))
}
