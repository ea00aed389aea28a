//! The reclaim record on disk: the co_ownerids of the clients that may reclaim after a restart
//! ([`super::grace`]), in the server's state directory beside the handle key (`crate::state`).
//!
//! Format: a header line, then one owner per line in lowercase hex; mode 0600. Written atomically: a
//! temporary file is written and synced, renamed over the record, and the directory synced, so a crash
//! leaves the old record or the new one, never a mix. Reading is bounded (a number of owners and their
//! length, from the caller's caps) and refuses anything it did not write.

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::grace::ReclaimRecord;

/// The record's name inside the state directory.
pub const RECLAIM_FILE: &str = "v4-clients";
const HEADER: &str = "nfsbench v4 reclaim record 1";

#[derive(Debug, thiserror::Error)]
pub enum ReclaimFileError {
    #[error("{}: {why}", path.display())]
    Io { path: PathBuf, why: std::io::Error },
    #[error("{}: not a reclaim record this server wrote ({why}); remove it to start without a grace period", path.display())]
    Damaged { path: PathBuf, why: String },
}

/// The record file of one state directory.
#[derive(Debug)]
pub struct ReclaimFile {
    dir: PathBuf,
    /// The version of the last record written, so an older one never replaces it.
    written: Mutex<u64>,
}

impl ReclaimFile {
    pub fn new(dir: &Path) -> Self {
        ReclaimFile { dir: dir.to_path_buf(), written: Mutex::new(0) }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(RECLAIM_FILE)
    }

    /// The owners an earlier instance recorded; `None` when there is no record (nothing to reclaim, no
    /// grace). At most `max_owners` owners of at most `max_owner_len` bytes.
    pub fn load(&self, max_owners: usize, max_owner_len: usize) -> Result<Option<Vec<Vec<u8>>>, ReclaimFileError> {
        let path = self.path();
        let io = |why| ReclaimFileError::Io { path: path.clone(), why };
        let damaged = |why: String| ReclaimFileError::Damaged { path: path.clone(), why };
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e)),
        };
        let limit = HEADER.len() + 1 + max_owners.saturating_mul(2 * max_owner_len + 1);
        let mut bytes = Vec::new();
        file.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() > limit {
            return Err(damaged(format!("longer than {max_owners} owners of {max_owner_len} bytes")));
        }
        let text = std::str::from_utf8(&bytes).map_err(|_| damaged("not text".into()))?;
        let body = text
            .strip_prefix(HEADER)
            .and_then(|rest| rest.strip_prefix('\n'))
            .ok_or_else(|| damaged("no header line".into()))?;
        if body.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let lines = body.strip_suffix('\n').ok_or_else(|| damaged("the last line is cut short".into()))?;
        let owners = lines
            .split('\n')
            .enumerate()
            .map(|(i, line)| match decode_hex(line) {
                Some(owner) if owner.len() <= max_owner_len => Ok(owner),
                Some(_) => Err(damaged(format!("line {} holds an owner longer than {max_owner_len} bytes", i + 2))),
                None => Err(damaged(format!("line {} is not hex", i + 2))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if owners.len() > max_owners {
            return Err(damaged(format!("more than {max_owners} owners")));
        }
        Ok(Some(owners))
    }

    /// Writes `record` unless a newer one has been written already.
    pub fn save(&self, record: &ReclaimRecord) -> Result<(), ReclaimFileError> {
        // A panic while holding the lock leaves only a version number behind.
        let mut written = self.written.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if record.version <= *written {
            return Ok(());
        }
        let path = self.path();
        let io = |why| ReclaimFileError::Io { path: path.clone(), why };
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&self.dir).map_err(io)?;
        let mut text =
            String::with_capacity(HEADER.len() + 1 + record.owners.iter().map(|o| 2 * o.len() + 1).sum::<usize>());
        text.push_str(HEADER);
        text.push('\n');
        for owner in &record.owners {
            for byte in owner {
                text.push_str(&format!("{byte:02x}"));
            }
            text.push('\n');
        }
        let temp = self.dir.join(format!(".{RECLAIM_FILE}.{}.tmp", std::process::id()));
        let result = (|| {
            let mut file =
                std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&temp)?;
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&temp, &path)?;
            std::fs::File::open(&self.dir)?.sync_all()
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        result.map_err(io)?;
        *written = record.version;
        Ok(())
    }
}

fn decode_hex(line: &str) -> Option<Vec<u8>> {
    if !line.len().is_multiple_of(2) || !line.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..line.len()).step_by(2).map(|i| line.get(i..i + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok())).collect()
}
