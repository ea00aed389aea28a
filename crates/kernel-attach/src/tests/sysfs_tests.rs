use super::Tree;
use crate::sysfs::{numbered, online_cpus};

#[test]
fn values_lose_their_newline_and_missing_files_are_none() {
    let tree = Tree::new("sysfs-values");
    tree.file("class/nvme/nvme0/state", "live\n");
    let sysfs = tree.sysfs();
    assert_eq!(sysfs.read("class/nvme/nvme0/state").expect("state"), "live");
    assert_eq!(sysfs.read_opt("class/nvme/nvme0/kato").expect("absent"), None);
    let e = sysfs.read("class/nvme/nvme0/kato").expect_err("required");
    assert!(e.to_string().contains("nvme0/kato"), "{e}");
    assert_eq!(sysfs.read_num_opt::<u32>("class/nvme/nvme0/kato").expect("absent"), None);
}

#[test]
fn hostile_files_are_errors_naming_them() {
    let tree = Tree::new("sysfs-hostile");
    tree.file("empty", "");
    tree.file("blank", " \n\n");
    tree.file("huge", &"7".repeat(70_000));
    std::fs::write(tree.path("binary"), [0xff, 0xfe, b'1']).expect("binary");
    tree.file("word", "twelve\n");
    tree.file("negative", "-3\n");
    let sysfs = tree.sysfs();
    for (file, expected) in [("empty", "a value"), ("blank", "a value"), ("huge", "64 KiB"), ("binary", "text")] {
        let e = sysfs.read(file).expect_err(file);
        assert!(e.to_string().contains(&*tree.path(file).to_string_lossy()) && e.to_string().contains(expected), "{e}");
    }
    for file in ["word", "negative"] {
        let e = sysfs.read_num::<u32>(file).expect_err(file);
        assert!(e.to_string().contains(file) && e.to_string().contains("a number"), "{e}");
    }
    // A directory where a file should be.
    std::fs::create_dir_all(tree.path("dir")).expect("dir");
    assert!(sysfs.read("dir").expect_err("dir").to_string().contains("dir"));
}

#[test]
fn listings_are_in_natural_order() {
    let tree = Tree::new("sysfs-list");
    for name in ["nvme10", "nvme2", "nvme-subsys0", "nvme1"] {
        std::fs::create_dir_all(tree.path(&format!("class/nvme/{name}"))).expect("dir");
    }
    assert_eq!(tree.sysfs().list("class/nvme").expect("list"), ["nvme1", "nvme2", "nvme10", "nvme-subsys0"]);
    assert!(tree.sysfs().list("class/none").expect("missing directory").is_empty());
    assert_eq!(numbered("nvme12", "nvme"), Some(12));
    assert_eq!(numbered("nvme", "nvme"), None);
    assert_eq!(numbered("nvme1n1", "nvme"), None);
    assert_eq!(numbered("nvme-fabrics", "nvme"), None);
}

#[test]
fn online_cpus_are_counted_from_the_list() {
    let tree = Tree::new("sysfs-cpus");
    let sysfs = tree.sysfs();
    assert_eq!(online_cpus(&sysfs).expect("absent"), None);
    for (list, count) in [("0\n", 1), ("0-1\n", 2), ("0-3,6\n", 5), ("0,2,4-5", 4)] {
        tree.file("devices/system/cpu/online", list);
        assert_eq!(online_cpus(&sysfs).expect(list), Some(count), "{list}");
    }
    for bad in ["a-b", "3-1", "0-", ","] {
        tree.file("devices/system/cpu/online", bad);
        let e = online_cpus(&sysfs).expect_err(bad);
        assert!(e.to_string().contains("cpu/online") && e.to_string().contains("CPU list"), "{e}");
    }
}
