//! The file engine's pure parts: mountinfo lookups and the run's description.

use super::mounts::{Mount, MountTable};
use std::path::Path;

const MOUNTINFO: &str = "\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
30 22 0:26 / /dev/shm rw,nosuid shared:2 - tmpfs tmpfs rw
41 22 0:40 / /mnt/nfs\\040share rw,relatime shared:9 - nfs4 srv:/export rw,vers=4.2
42 22 0:41 / /mnt/nfs\\040share rw,relatime shared:10 - nfs srv:/other rw,vers=3
garbage line
";

#[test]
fn the_longest_mount_point_wins_and_the_last_of_stacked_mounts() {
    let table = MountTable::parse(MOUNTINFO);
    let shm = Mount { point: "/dev/shm".into(), fstype: "tmpfs".into() };
    assert_eq!(table.mount_of(Path::new("/dev/shm")), Some(&shm));
    let root = Mount { point: "/".into(), fstype: "ext4".into() };
    assert_eq!(table.mount_of(Path::new("/var/tmp/not-there-yet/file.0.0")), Some(&root));
}

#[test]
fn escaped_mount_points_are_read_back_and_malformed_lines_skipped() {
    let table = MountTable::parse(MOUNTINFO);
    let points: Vec<&str> = table.mounts().iter().map(|m| m.point.as_str()).collect();
    assert_eq!(points, ["/", "/dev/shm", "/mnt/nfs share", "/mnt/nfs share"]);
    assert_eq!(table.mounts()[3].fstype, "nfs");
}

#[test]
fn the_description_names_the_engine_the_mode_and_the_file_system() {
    let args: Vec<String> =
        ["--name=d", "--directory=/dev/shm", "--size=1m", "--direct=1"].iter().map(|s| s.to_string()).collect();
    let set = fio_job::parse(None, &args).expect("job");
    assert_eq!(super::describe(&set), "file (io_uring, O_DIRECT) on /dev/shm, tmpfs");
    let args: Vec<String> = ["--name=b", "--filename=/var/tmp/x", "--size=1m"].iter().map(|s| s.to_string()).collect();
    let set = fio_job::parse(None, &args).expect("job");
    assert!(super::describe(&set).starts_with("file (io_uring, buffered) on /"), "{}", super::describe(&set));
}
