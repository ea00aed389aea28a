//! The server's persistent state: the secret that tags file handles ([`HandleKey`]), kept in a state
//! directory so that a restarted server accepts the handles of the one before it (a hard mount relies on
//! that; RFC 1813 §2.3.3 handles are only invalidated by the object going away).
//!
//! - Location: the directory given to [`crate::Server::with_state_dir`] (`nfsbench serve --state-dir`),
//!   else [`default_state_dir`]: `/var/lib/nfsbench` for root, `$XDG_STATE_HOME/nfsbench` or
//!   `~/.local/state/nfsbench` for other users. Created 0700 when missing; it must lie outside every
//!   exported directory (clients could otherwise read the key through the export).
//! - The key file `handle-key` holds 16 random bytes, mode 0600. It is created atomically (written and
//!   synced under a temporary name, then hard-linked into place, so two servers starting at once agree
//!   on one key and a crash never leaves half a key). A key file of another size, or readable or writable
//!   by group or others, is refused rather than used or replaced: replacing it would make every handle
//!   clients hold invalid.
//! - Only servers with an export whose files outlive the process (`dir:`) read or create it; a server of
//!   `mem:` exports alone keeps a random key and touches nothing.

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::handle::{random_u64, HandleKey};

/// The key file's name inside the state directory.
pub const KEY_FILE: &str = "handle-key";
const KEY_LEN: usize = 16;

/// Where state goes when no directory is given: `/var/lib/nfsbench` when running as root, else
/// `$XDG_STATE_HOME/nfsbench`, else `$HOME/.local/state/nfsbench`; `None` when none of these can be
/// formed (no HOME for a non-root user).
pub fn default_state_dir() -> Option<PathBuf> {
    if rustix::process::geteuid().is_root() {
        return Some(PathBuf::from("/var/lib/nfsbench"));
    }
    let nonempty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    match (nonempty("XDG_STATE_HOME"), nonempty("HOME")) {
        (Some(state), _) if state.is_absolute() => Some(state.join("nfsbench")),
        (_, Some(home)) if home.is_absolute() => Some(home.join(".local/state/nfsbench")),
        _ => None,
    }
}

/// Reads the handle key from `dir`, creating the directory and the key when missing. `exported` are the
/// host directories of the persistent exports: `dir` may not be inside one. Errors are one line, for the
/// operator.
pub(crate) fn load_or_create_key(dir: &Path, exported: &[PathBuf]) -> Result<HandleKey, String> {
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(|e| format!("cannot create it: {e}"))?;
    let real = dir.canonicalize().map_err(|e| format!("cannot resolve it: {e}"))?;
    for export in exported {
        if let Ok(export_real) = export.canonicalize() {
            if real.starts_with(&export_real) {
                return Err(format!(
                    "it is inside the exported directory {}, where clients could read the handle key; choose a \
                     state directory outside every export",
                    export.display()
                ));
            }
        }
    }
    let path = real.join(KEY_FILE);
    match read_key(&path) {
        Ok(key) => return Ok(key),
        Err(KeyError::Missing) => {}
        Err(KeyError::Bad(why)) => return Err(format!("{}: {why}", path.display())),
    }
    create_key(&real, &path)?;
    read_key(&path).map_err(|e| match e {
        KeyError::Missing => format!("{}: vanished right after it was created", path.display()),
        KeyError::Bad(why) => format!("{}: {why}", path.display()),
    })
}

enum KeyError {
    Missing,
    Bad(String),
}

fn read_key(path: &Path) -> Result<HandleKey, KeyError> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(KeyError::Missing),
        Err(e) => return Err(KeyError::Bad(format!("cannot read it: {e}"))),
    };
    let meta = file.metadata().map_err(|e| KeyError::Bad(format!("cannot stat it: {e}")))?;
    if !meta.is_file() {
        return Err(KeyError::Bad("not a regular file".into()));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(KeyError::Bad(format!(
            "mode {:04o} lets group or others at the secret; it must be 0600 (chmod 600 it)",
            meta.permissions().mode() & 0o7777
        )));
    }
    if meta.uid() != rustix::process::geteuid().as_raw() {
        return Err(KeyError::Bad(format!("owned by uid {}, not by this server's uid", meta.uid())));
    }
    let mut bytes = Vec::with_capacity(KEY_LEN + 1);
    Read::by_ref(&mut file)
        .take(KEY_LEN as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| KeyError::Bad(format!("{e}")))?;
    let key: [u8; KEY_LEN] = bytes.as_slice().try_into().map_err(|_| {
        KeyError::Bad(format!(
            "holds {} bytes, not {KEY_LEN}: not a key this server wrote (remove it only if no client holds \
             handles of the old one)",
            bytes.len()
        ))
    })?;
    Ok(HandleKey(key))
}

/// Writes a fresh key under a temporary name and links it into place (EEXIST: another server won).
fn create_key(dir: &Path, path: &Path) -> Result<(), String> {
    let mut key = [0u8; KEY_LEN];
    match rustix::rand::getrandom(&mut key, rustix::rand::GetRandomFlags::empty()) {
        Ok(n) if n == KEY_LEN => {}
        _ => return Err("the kernel's random generator is unavailable".into()),
    }
    let temp = dir.join(format!(".{KEY_FILE}.{}.{:016x}", std::process::id(), random_u64()));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&temp)?;
        file.write_all(&key)?;
        file.sync_all()?;
        match std::fs::hard_link(&temp, path) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
        std::fs::File::open(dir)?.sync_all()
    })();
    let _ = std::fs::remove_file(&temp);
    written.map_err(|e| format!("cannot create {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("nfsbench-state-{}-{tag}-{:x}", std::process::id(), random_u64()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn the_key_is_created_0600_and_read_back() {
        let base = scratch("create");
        let dir = base.join("a/b");
        let first = load_or_create_key(&dir, &[]).expect("created");
        let meta = std::fs::metadata(dir.join(KEY_FILE)).expect("key file");
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(&dir).map(|m| m.permissions().mode() & 0o777).ok(), Some(0o700));
        assert_eq!(load_or_create_key(&dir, &[]).ok(), Some(first));
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn an_unsafe_or_damaged_key_is_refused() {
        let base = scratch("refuse");
        load_or_create_key(&base, &[]).expect("created");
        let key = base.join(KEY_FILE);
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let err = load_or_create_key(&base, &[]).expect_err("group-readable key");
        assert!(err.contains("0600"), "{err}");
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        std::fs::write(&key, b"short").expect("damage");
        let err = load_or_create_key(&base, &[]).expect_err("short key");
        assert!(err.contains("5 bytes"), "{err}");
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn a_state_directory_inside_an_export_is_refused() {
        let base = scratch("inside");
        std::fs::create_dir_all(&base).expect("base");
        let err = load_or_create_key(&base.join("state"), std::slice::from_ref(&base)).expect_err("inside");
        assert!(err.contains("inside the exported directory"), "{err}");
        assert!(!base.join("state").join(KEY_FILE).exists());
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn an_unusable_state_directory_is_an_error() {
        let base = scratch("file");
        std::fs::create_dir_all(&base).expect("base");
        std::fs::write(base.join("plain"), b"x").expect("file");
        assert!(load_or_create_key(&base.join("plain"), &[]).is_err());
        let _ = std::fs::remove_dir_all(&base);
    }
}
