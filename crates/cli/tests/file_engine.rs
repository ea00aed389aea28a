//! `nfsbench run` without `--target`: the file engine on local paths, as users run it. Exit statuses
//! and messages, the JSON's engine description, verify round trips, layout, syncs, O_DIRECT refused by a
//! file system that does not take it, and a block device (a loop device, when losetup works here).
//! Files live under /var/tmp: O_DIRECT needs a file system that takes it.

mod cli_support;

use cli_support::{nfsbench, serve, stderr};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh directory under /var/tmp, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = PathBuf::from("/var/tmp").join(format!("nfsbench-cli-file-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("utf-8 path")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    nfsbench().arg("run").args(args).args(["--eta", "never"]).output().expect("run nfsbench run")
}

/// `nfsbench run ARGS --output-format=json+`: exit 0 and the JSON document.
fn run_json(args: &[&str]) -> Value {
    let out = run(&[args, &["--output-format=json+"]].concat());
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn total(doc: &Value, dir: &str, field: &str) -> u64 {
    doc["jobs"].as_array().expect("jobs").iter().map(|j| j[dir][field].as_u64().unwrap_or(0)).sum()
}

#[test]
fn a_randwrite_then_randread_with_crc32c_round_trips_and_says_what_it_ran_on() {
    let dir = Scratch::new("verify");
    let write = run_json(&[
        "--name=v",
        "--rw=randwrite",
        "--bs=4k",
        "--size=4m",
        "--iodepth=16",
        "--direct=1",
        "--verify=crc32c",
        "--directory",
        dir.path(),
    ]);
    assert_eq!((total(&write, "write", "io_bytes"), total(&write, "write", "total_ios")), (4 << 20, 1024));
    let description = write["nfsbench"]["notes"]["transport"].as_str().expect("transport note");
    assert!(description.starts_with("file (io_uring, O_DIRECT) on /"), "{description}");
    assert_eq!(write["nfsbench"]["notes"]["engine"], "file");
    let read = run_json(&[
        "--name=v",
        "--rw=randread",
        "--bs=4k",
        "--size=4m",
        "--iodepth=16",
        "--verify=crc32c",
        "--directory",
        dir.path(),
    ]);
    assert_eq!(total(&read, "read", "io_bytes"), 4 << 20);
    assert_eq!(read["jobs"][0]["error"], 0);
    assert!(read["nfsbench"]["notes"]["transport"].as_str().expect("note").starts_with("file (io_uring, buffered)"));
}

#[test]
fn numjobs_times_nrfiles_are_laid_out_and_syncs_are_counted() {
    let dir = Scratch::new("layout");
    let doc = run_json(&[
        "--name=l",
        "--rw=write",
        "--bs=4k",
        "--size=128k",
        "--nrfiles=2",
        "--numjobs=3",
        "--fsync=4",
        "--end_fsync=1",
        "--directory",
        dir.path(),
    ]);
    let mut names: Vec<String> = std::fs::read_dir(&dir.0)
        .expect("directory")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .collect();
    names.sort();
    assert_eq!(names, ["l.0.0", "l.0.1", "l.1.0", "l.1.1", "l.2.0", "l.2.1"]);
    let jobs = doc["jobs"].as_array().expect("jobs");
    assert_eq!(jobs.len(), 3);
    for job in jobs {
        // 32 writes of 4 KiB: a sync after every 4 writes to a file (16 per file, 2 files) and one per
        // written file at the end.
        assert_eq!(job["sync"]["total_ios"], 32 / 4 + 2, "{}", job["sync"]);
    }
}

#[test]
fn no_target_and_no_local_path_is_bad_usage_naming_the_ways_to_give_one() {
    let out = run(&["--name=x", "--rw=read", "--size=1m"]);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("--target") && e.contains("--directory") && e.contains("filename="), "{e}");
}

#[test]
fn nfs_flags_without_a_target_are_refused_by_name() {
    for (flag, args) in
        [("-o", &["-o", "vers=3"][..]), ("--wan", &["--wan", "rtt=1ms"]), ("--rdma-credits", &["--rdma-credits", "8"])]
    {
        let out = run(&[&["--name=x", "--size=1m", "--directory", "/var/tmp"], args].concat());
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert!(stderr(&out).contains(&format!("{flag} applies to an NFS --target only")), "{}", stderr(&out));
    }
}

#[test]
fn a_missing_directory_fails_naming_it() {
    let out = run(&["--name=x", "--rw=read", "--size=1m", "--directory", "/var/tmp/nfsbench-there-is-no-such-dir"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("directory '/var/tmp/nfsbench-there-is-no-such-dir': no such directory"),
        "{}",
        stderr(&out)
    );
}

/// Whether `dir` takes O_DIRECT (tmpfs does since Linux 6.6).
fn takes_o_direct(dir: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join("nfsbench-o-direct-probe");
    let opened = std::fs::OpenOptions::new().write(true).create(true).truncate(true).custom_flags(0o40000).open(&path);
    let _ = std::fs::remove_file(&path);
    opened.is_ok()
}

#[test]
fn direct_on_a_file_system_that_refuses_o_direct_is_refused_naming_it() {
    let shm = Path::new("/dev/shm");
    let out = if shm.is_dir() && !takes_o_direct(shm) {
        run(&["--name=d", "--rw=read", "--size=1m", "--direct=1", "--directory", "/dev/shm"])
    } else {
        // tmpfs takes O_DIRECT on this kernel: ramfs does not; mount one in a user and mount namespace.
        let dir = Scratch::new("ramfs");
        let script = format!(
            "mount -t ramfs none {0} && exec {1} run --name=d --rw=read --size=1m --direct=1 --directory {0} --eta never",
            dir.path(),
            env!("CARGO_BIN_EXE_nfsbench")
        );
        let out = Command::new("unshare").args(["-rm", "sh", "-c", &script]).output();
        match out {
            Ok(out) if !stderr(&out).contains("mount:") && !stderr(&out).contains("unshare:") => out,
            other => {
                eprintln!("skipped: tmpfs takes O_DIRECT here and no ramfs could be mounted (unshare -rm): {other:?}");
                return;
            }
        }
    };
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(
        e.contains("direct=1") && e.contains("refuses O_DIRECT") && (e.contains("tmpfs") || e.contains("ramfs")),
        "{e}"
    );
}

/// A loop device over a file, detached on drop.
struct LoopDevice(String);

impl LoopDevice {
    fn attach(file: &Path) -> Result<LoopDevice, String> {
        let out =
            Command::new("losetup").args(["-f", "--show"]).arg(file).output().map_err(|e| format!("losetup: {e}"))?;
        if !out.status.success() {
            return Err(format!("losetup -f --show: {}", stderr(&out).trim()));
        }
        Ok(LoopDevice(String::from_utf8_lossy(&out.stdout).trim().to_string()))
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.0]).status();
    }
}

#[test]
fn a_block_device_is_read_whole_without_size_and_never_laid_out() {
    let dir = Scratch::new("loop");
    let backing = dir.0.join("backing");
    std::fs::write(&backing, vec![0x5au8; 8 << 20]).expect("backing file");
    let device = match LoopDevice::attach(&backing) {
        Ok(device) => device,
        Err(why) => {
            eprintln!("skipped: no loop device ({why})");
            return;
        }
    };
    let filename = format!("--filename={}", device.0);
    let doc = run_json(&["--name=b", "--rw=randread", "--bs=4k", "--iodepth=8", "--direct=1", &filename]);
    assert_eq!((total(&doc, "read", "io_bytes"), total(&doc, "read", "total_ios")), (8 << 20, 2048));
    assert!(std::fs::read(&backing).expect("backing").iter().all(|b| *b == 0x5a), "the device was not written");
}

/// A child process killed (and reaped) when the test ends, passed or not.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn data_written_by_one_engine_verifies_with_the_other() {
    let dir = Scratch::new("cross");
    // Writable for whoever the server maps the client to (root is squashed by default).
    std::fs::set_permissions(&dir.0, std::os::unix::fs::PermissionsExt::from_mode(0o777)).expect("chmod");
    let ready = dir.0.join("ready");
    let export = format!("/export=dir:{}", dir.path());
    let (server, addrs) =
        serve(&["--listen", "127.0.0.1:0", "--export", &export], &ready, Stdio::null(), Stdio::null());
    let _server = KillOnDrop(server);
    let options = format!("port={0},mountport={0}", addrs[0].port());
    let nfs = |args: &[&str]| {
        nfsbench()
            .arg("run")
            .args(args)
            .args(["--target", "127.0.0.1:/export", "-o", &options, "--eta", "never"])
            .output()
            .expect("nfsbench run")
    };
    let job = ["--rw=write", "--bs=64k", "--size=2m", "--verify=crc32c", "--verify_interval=4k", "--do_verify=0"];
    let check = ["--rw=randread", "--bs=4k", "--size=2m", "--verify=crc32c"];
    // NFS engine writes, the file engine reads the server's directory.
    let out = nfs(&[&["--name=n"][..], &job].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let read = run_json(&[&["--name=n", "--directory", dir.path()][..], &check].concat());
    assert_eq!((read["jobs"][0]["error"].as_u64(), total(&read, "read", "io_bytes")), (Some(0), 2 << 20));
    // The file engine writes, the NFS engine reads it through the server.
    let out = run(&[&["--name=f", "--direct=1", "--directory", dir.path()][..], &job].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let out = nfs(&[&["--name=f", "--output-format=json"][..], &check].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!((doc["jobs"][0]["error"].as_u64(), total(&doc, "read", "io_bytes")), (Some(0), 2 << 20));
}
