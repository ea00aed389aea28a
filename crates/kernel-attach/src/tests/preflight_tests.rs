use std::path::Path;

use super::Tree;
use crate::error::AttachError;
use crate::preflight::Host;
use crate::target::Kind;

fn host(tree: &Tree, euid: u32) -> Host {
    tree.file("proc/self/status", &format!("Name:\tnfsbench\nUid:\t1000\t{euid}\t{euid}\t{euid}\n"));
    std::fs::create_dir_all(tree.path("sbin")).expect("sbin");
    Host { proc_root: tree.path("proc"), pid_file: tree.path("run/iscsid.pid"), tool_dirs: vec![tree.path("sbin")] }
}

fn tool(tree: &Tree, name: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = tree.path(&format!("sbin/{name}"));
    std::fs::write(&path, "#!/bin/sh\n").expect("tool");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn root_is_needed() {
    let tree = Tree::new("preflight-root");
    let e = host(&tree, 1000).check(Kind::NvmeRdma).expect_err("not root");
    assert!(matches!(e, AttachError::NeedsRoot { uid: 1000, .. }), "{e:?}");
    assert!(e.to_string().contains("nvme-rdma") && e.to_string().contains("uid 1000"), "{e}");
}

#[test]
fn the_tool_and_its_package_are_named() {
    let tree = Tree::new("preflight-tool");
    let h = host(&tree, 0);
    let e = h.check(Kind::NvmeTcp).expect_err("no nvme");
    assert!(e.to_string().contains("nvme (Debian package nvme-cli)"), "{e}");
    let e = h.check(Kind::Iser).expect_err("no iscsiadm");
    assert!(e.to_string().contains("iscsiadm (Debian package open-iscsi)"), "{e}");
    tool(&tree, "nvme");
    h.check(Kind::NvmeTcp).expect("nvme there");
    // Present but not executable is not there.
    std::fs::write(tree.path("sbin/iscsiadm"), "").expect("file");
    assert!(h.check(Kind::Iscsi).is_err());
}

#[test]
fn iscsid_must_be_running() {
    let tree = Tree::new("preflight-iscsid");
    let h = host(&tree, 0);
    tool(&tree, "iscsiadm");
    let e = h.check(Kind::Iscsi).expect_err("no iscsid");
    assert!(matches!(e, AttachError::IscsidNotRunning { .. }), "{e:?}");
    assert!(e.to_string().contains("systemctl start iscsid") && e.to_string().contains("iscsid.pid"), "{e}");
    // A stale pid file is not a running iscsid.
    tree.file("run/iscsid.pid", "4242\n");
    assert!(h.check(Kind::Iscsi).is_err());
    std::fs::create_dir_all(tree.path("proc/4242")).expect("pid");
    h.check(Kind::Iscsi).expect("pid alive");
    // Socket activation: the abstract socket listens before iscsid runs.
    std::fs::remove_file(tree.path("run/iscsid.pid")).expect("rm");
    tree.file(
        "proc/net/unix",
        "Num       RefCount Protocol Flags    Type St Inode Path\n\
         0000000000000000: 00000002 00000000 00010000 0001 01 17436 @ISCSIADM_ABSTRACT_NAMESPACE\n",
    );
    h.check(Kind::Iser).expect("socket");
    // NVMe needs no iscsid.
    tool(&tree, "nvme");
    std::fs::remove_file(tree.path("proc/net/unix")).expect("rm");
    h.check(Kind::NvmeRdma).expect("nvme");
    assert!(Path::new(&h.pid_file).ends_with("run/iscsid.pid"));
}

#[test]
fn a_garbled_status_file_is_named() {
    let tree = Tree::new("preflight-status");
    let h = host(&tree, 0);
    tree.file("proc/self/status", "Name:\tx\n");
    let e = h.check(Kind::NvmeTcp).expect_err("no Uid line");
    assert!(e.to_string().contains("proc/self/status") && e.to_string().contains("Uid:"), "{e}");
}
