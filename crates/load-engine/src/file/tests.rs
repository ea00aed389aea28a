//! The file engine's pure parts: mountinfo lookups and the run's description.

use super::mounts::mount_of;
use std::path::Path;

const MOUNTSTATS: &str = "\
device /dev/vda mounted on / with fstype ext4
device tmpfs mounted on /dev/shm with fstype tmpfs
device srv:/a mounted on /var with fstype nfs4 statvers=1.1
device srv:/b mounted on /var with fstype nfs statvers=1.1
";

#[test]
fn the_longest_mount_point_wins_and_the_last_of_stacked_mounts() {
    let mounts = mountstats::parse(MOUNTSTATS).expect("mountstats text");
    let on = |p: &str| mount_of(&mounts, Path::new(p)).map(|m| (m.mountpoint.as_str(), m.fstype.as_str()));
    assert_eq!(on("/dev/shm"), Some(("/dev/shm", "tmpfs")));
    assert_eq!(on("/var/tmp/not-there-yet/file.0.0"), Some(("/var", "nfs")), "the nearest existing ancestor's");
    assert_eq!(on("/usr"), Some(("/", "ext4")));
    assert_eq!(mount_of(&[], Path::new("/")), None);
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
