//! A `dir:` export across a restart of the server: handles stay valid (the root's, files looked up before,
//! files never looked up since), removed files are STALE, forged handles are still BADHANDLE, and the write
//! verifier changes so that clients re-send uncommitted data. `mem:` handles stay STALE.

use std::path::{Path, PathBuf};

use super::*;
use crate::backend::dir::DirBackend;

/// A scratch directory with `export/` (served) and `state/` (the server's state directory), removed on drop.
pub(crate) struct Dirs {
    base: PathBuf,
}

impl Dirs {
    pub(crate) fn new(tag: &str) -> Dirs {
        let base = std::env::temp_dir().join(format!(
            "nfsbench-server-{tag}-{}-{:x}",
            std::process::id(),
            crate::handle::random_u64()
        ));
        std::fs::create_dir_all(base.join("export")).expect("scratch export");
        Dirs { base }
    }

    pub(crate) fn export(&self) -> PathBuf {
        self.base.join("export")
    }

    pub(crate) fn state(&self) -> PathBuf {
        self.base.join("state")
    }

    /// A server of `export/` at "/export" (and a RAM disk at "/mem"), with `state/` as its state directory.
    pub(crate) fn server(&self) -> Server {
        let dir = Arc::new(DirBackend::new(&self.export()).expect("open export"));
        let config = ServerConfig {
            exports: vec![export("/export", dir), export("/mem", mem())],
            max_io_size: MAX_IO,
            drc_entries: 1024,
            tcp_port: PORT,
            rdma_port: None,
        };
        Server::with_state_dir(config, Some(&self.state())).unwrap_or_else(|e| panic!("server: {e}"))
    }
}

impl Drop for Dirs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

fn commit(c: &Client<'_>, file: FileHandle3) -> Result<WriteVerf3, NfsErr3> {
    let reply = c.nfs(&Nfs3Call::Commit(CommitArgs { file, offset: 0, count: 0 }));
    expect_reply!(nfs_reply(Nfs3Proc::Commit, &reply), Commit).into_result().map(|ok| ok.verf).map_err(|(e, _)| e)
}

fn with_bytes(fh: FileHandle3, f: impl FnOnce(&mut Vec<u8>)) -> FileHandle3 {
    let mut bytes = fh.as_bytes().to_vec();
    f(&mut bytes);
    FileHandle3::new(&bytes).unwrap_or_default()
}

#[test]
fn a_restarted_dir_export_accepts_the_handles_of_the_previous_server() {
    let dirs = Dirs::new("restart");
    let first = dirs.server();
    let c = Client::root(&first);
    let root = root_of(&first);
    let d = ok(mkdir(&c, root, b"d", 0o755), "mkdir");
    let e = ok(mkdir(&c, d, b"e", 0o755), "mkdir");
    let looked_up = ok(create(&c, d, b"a", 0o644), "create a");
    let never_again = ok(create(&c, e, b"b", 0o644), "create b");
    let removed = ok(create(&c, root, b"gone", 0o644), "create gone");
    let written = ok(write(&c, looked_up, 0, b"uncommitted"), "write");
    assert_eq!(written.committed, StableHow::Unstable);
    assert_eq!(remove(&c, root, b"gone"), NfsStat3::Ok);
    let mem_root = first.root_handle("/mem").unwrap_or_default();
    let old_verifier = first.write_verifier("/export");
    drop(c);
    drop(first);

    let second = dirs.server();
    let c = Client::root(&second);
    assert_eq!(root_of(&second), root, "the export root's handle is the same");
    assert_eq!(getattr(&c, root).map(|a| a.ftype), Ok(Ftype3::Dir));
    // COMMIT after the restart: accepted, with a new verifier, so the client re-sends what it wrote.
    let new_verifier = ok(commit(&c, looked_up), "COMMIT with a handle of the previous server");
    assert_ne!(Some(new_verifier), old_verifier);
    assert_ne!(new_verifier, written.verf, "the write verifier changes on a restart");
    assert_eq!(second.write_verifier("/export"), Some(new_verifier));
    assert_eq!(read(&c, looked_up, 0, 64).map(|(data, _)| data), Ok(b"uncommitted".to_vec()));
    // A file in a directory this server never looked at, and that directory.
    assert_eq!(getattr(&c, never_again).map(|a| a.ftype), Ok(Ftype3::Reg));
    assert_eq!(lookup(&c, e, b"b"), Ok(never_again), "the same handle as before the restart");
    assert_eq!(lookup(&c, root, b"d"), Ok(d));
    // Removed before the restart: STALE.
    assert_eq!(getattr(&c, removed), Err(NfsErr3::Stale));
    assert_eq!(commit(&c, removed), Err(NfsErr3::Stale));
    // Forged or tampered handles still fail the tag.
    let forged_file = with_bytes(looked_up, |b| b[19] ^= 1);
    assert_eq!(getattr(&c, forged_file), Err(NfsErr3::BadHandle));
    assert_eq!(getattr(&c, with_bytes(root, |b| b[30] ^= 4)), Err(NfsErr3::BadHandle));
    // The RAM disk's handles die with it.
    assert_eq!(getattr(&c, mem_root), Err(NfsErr3::Stale));
    assert_ne!(second.root_handle("/mem"), Some(mem_root));
}

#[test]
fn a_server_that_cannot_keep_its_handle_key_refuses_to_start() {
    let dirs = Dirs::new("nokey");
    std::fs::write(dirs.state(), b"a file, not a directory").expect("block the state directory");
    let dir = Arc::new(DirBackend::new(&dirs.export()).expect("open export"));
    let config = ServerConfig {
        exports: vec![export("/export", dir)],
        max_io_size: MAX_IO,
        drc_entries: 16,
        tcp_port: PORT,
        rdma_port: None,
    };
    let err = Server::with_state_dir(config.clone(), Some(&dirs.state())).expect_err("unusable state directory");
    assert!(matches!(err, crate::ConfigError::StateDir { .. }), "{err}");
    let inside = dirs.export().join(".state");
    let err = Server::with_state_dir(config, Some(&inside)).expect_err("state directory inside the export");
    assert!(err.to_string().contains("inside the exported directory"), "{err}");
}

#[test]
fn a_mem_only_server_needs_no_state_directory() {
    let missing = Path::new("/nonexistent/nfsbench/state");
    let config = ServerConfig {
        exports: vec![export("/export", mem())],
        max_io_size: MAX_IO,
        drc_entries: 16,
        tcp_port: PORT,
        rdma_port: None,
    };
    assert!(Server::with_state_dir(config, Some(missing)).is_ok());
    assert!(!missing.exists());
}
