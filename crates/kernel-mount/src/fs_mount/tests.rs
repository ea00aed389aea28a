use super::*;

#[test]
fn targets_as_mount_nfs_takes_them() {
    assert_eq!(mount_target("10.99.0.1:/srv/nfs").ok(), Some("10.99.0.1:/srv/nfs"));
    assert_eq!(mount_target("[fe80::1]:/").ok(), Some("[fe80::1]:/"));
    assert_eq!(mount_target("filer:/vol/a").ok(), Some("filer:/vol/a"));
    for bad in ["nfs://filer/vol", "filer", ":/x", "filer:vol", "[::1]/x", "filer:/a b", ""] {
        let e = mount_target(bad).expect_err(bad);
        assert!(e.to_string().contains("HOST:/EXPORT"), "{bad}: {e}");
    }
}

#[test]
fn shares_as_mount_cifs_takes_them() {
    assert_eq!(FileSystem::of_target("//10.99.0.1/bench"), FileSystem::Cifs);
    assert_eq!(FileSystem::of_target("10.99.0.1:/srv"), FileSystem::Nfs);
    assert_eq!(share_target("//10.99.0.1/bench").ok(), Some("//10.99.0.1/bench"));
    assert_eq!(share_target("//filer/bench/sub/dir").ok(), Some("//filer/bench/sub/dir"));
    for bad in ["//filer", "//filer/", "///bench", "//filer/a b", "filer/bench"] {
        let e = share_target(bad).expect_err(bad);
        assert!(e.to_string().contains("//HOST/SHARE"), "{bad}: {e}");
    }
}

#[test]
fn a_refused_mount_keeps_mount_nfs_words_and_leaves_no_directory() {
    if FileSystem::Nfs.helper_path().is_none() {
        eprintln!("skipped: mount.nfs is not installed");
        return;
    }
    let parent = std::env::temp_dir().join(format!("kernel-mount-test-{}", std::process::id()));
    std::fs::create_dir_all(&parent).expect("test directory");
    // An option mount.nfs refuses before any network traffic.
    let e = FsMount::mount("127.0.0.1:/nothing", "vers=3,proto=carrier-pigeon", &parent).expect_err("must fail");
    let text = e.to_string();
    assert!(text.contains("mount.nfs 127.0.0.1:/nothing -o vers=3,proto=carrier-pigeon failed"), "{text}");
    assert_eq!(std::fs::read_dir(&parent).map(|d| d.count()).unwrap_or(0), 0, "mount point left behind");
    let _ = std::fs::remove_dir(&parent);
}
