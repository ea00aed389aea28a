//! A stand-in for the `nfsbench` binary that `compare` starts for every cell: a shell script in a fresh
//! directory of its own.

use std::path::PathBuf;

/// `script` written as `DIR/nfsbench` (executable) in a new directory named after `name` and this
/// process; returns (DIR, the script's path).
pub fn stand_in(name: &str, script: &str) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("compare-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("test directory");
    let exe = dir.join("nfsbench");
    std::fs::write(&exe, script).expect("write the stand-in");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    (dir, exe)
}
