//! The file engine end to end on local files under /var/tmp (O_DIRECT needs a file system that takes
//! it): verify round trips through io_uring, direct and buffered, the numjobs × nrfiles layout, syncs
//! counted, a missing directory refused, and data written by the file engine read back by the same
//! verify units the NFS engine writes.

use load_engine::{EngineConfig, EngineError, EngineRun, LiveCounters};
use report::Dir;
use std::path::PathBuf;
use std::sync::Arc;

/// A fresh directory under /var/tmp, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = PathBuf::from("/var/tmp").join(format!("nfsbench-file-engine-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir)
    }

    fn arg(&self) -> String {
        format!("--directory={}", self.0.display())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn run(args: &[String]) -> Result<EngineRun, EngineError> {
    let set = fio_job::parse(None, args).expect("valid job");
    let config = EngineConfig {
        export: String::new(),
        live: Arc::new(LiveCounters::default()),
        verbose_layout: false,
        peers: None,
    };
    load_engine::file::run(&set, &config).await
}

fn args(scratch: &Scratch, list: &[&str]) -> Vec<String> {
    std::iter::once(scratch.arg()).chain(list.iter().map(|s| s.to_string())).collect()
}

fn io(run: &EngineRun, dir: Dir) -> (u64, u64) {
    let bytes = run.results.iter().map(|r| r.recorder.io_bytes(dir)).sum();
    let ios = run.results.iter().map(|r| r.recorder.total_ios(dir)).sum();
    (bytes, ios)
}

#[tokio::test]
async fn randwrite_with_crc32c_reads_back_clean_direct_and_buffered() {
    let scratch = Scratch::new("verify");
    for direct in ["--direct=1", "--direct=0"] {
        let write = run(&args(
            &scratch,
            &["--name=v", "--rw=randwrite", "--bs=4k", "--size=2m", "--iodepth=8", "--verify=crc32c", direct],
        ))
        .await
        .expect("runs");
        assert!(write.failures.is_empty(), "{:?}", write.failures);
        assert_eq!(io(&write, Dir::Write), (2 << 20, 512));
        assert_eq!(io(&write, Dir::Read).0, 2 << 20, "the verify phase reads back every unit written");
        let read = run(&args(
            &scratch,
            &[
                "--name=v",
                "--rw=randread",
                "--bs=16k",
                "--size=2m",
                "--iodepth=4",
                "--verify=crc32c",
                "--verify_interval=4k",
                direct,
            ],
        ))
        .await
        .expect("runs");
        assert!(read.failures.is_empty(), "{:?}", read.failures);
        assert_eq!(read.results[0].verify_errors, 0);
        assert_eq!(io(&read, Dir::Read), (2 << 20, 128));
    }
}

#[tokio::test]
async fn a_flipped_byte_on_disk_fails_verify_with_eilseq() {
    let scratch = Scratch::new("corrupt");
    let job = ["--name=c", "--rw=write", "--bs=64k", "--size=1m", "--verify=md5", "--do_verify=0"];
    let write = run(&args(&scratch, &job)).await.expect("runs");
    assert!(write.failures.is_empty(), "{:?}", write.failures);
    let path = scratch.0.join("c.0.0");
    let mut data = std::fs::read(&path).expect("file written");
    data[300_000] ^= 0x20;
    std::fs::write(&path, &data).expect("corrupted");
    let read =
        run(&args(&scratch, &["--name=c", "--rw=read", "--bs=64k", "--size=1m", "--verify=md5"])).await.expect("runs");
    assert_eq!(read.results[0].verify_errors, 1);
    assert_eq!(read.results[0].error, 84);
}

#[tokio::test]
async fn each_clone_gets_its_files_laid_out_before_a_read() {
    let scratch = Scratch::new("layout");
    let run = run(&args(
        &scratch,
        &["--name=lay", "--rw=read", "--bs=64k", "--size=768k", "--nrfiles=3", "--numjobs=2", "--direct=1"],
    ))
    .await
    .expect("runs");
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    assert_eq!(run.results.len(), 2);
    let mut names: Vec<String> = std::fs::read_dir(&scratch.0)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .collect();
    names.sort();
    assert_eq!(names, ["lay.0.0", "lay.0.1", "lay.0.2", "lay.1.0", "lay.1.1", "lay.1.2"]);
    for name in &names {
        // fio splits size= across the files.
        assert_eq!(std::fs::metadata(scratch.0.join(name)).expect("file").len(), 256 << 10, "{name}");
    }
    assert_eq!(io(&run, Dir::Read).0, 2 * (768 << 10));
}

#[tokio::test]
async fn fsync_every_n_writes_and_end_fsync_are_counted() {
    let scratch = Scratch::new("fsync");
    let run = run(&args(&scratch, &["--name=s", "--rw=write", "--bs=4k", "--size=256k", "--fsync=8", "--end_fsync=1"]))
        .await
        .expect("runs");
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    let syncs = run.results[0].recorder.sync_lat().count();
    assert_eq!(syncs, 64 / 8 + 1, "one per 8 writes and one at the end");
}

#[tokio::test]
async fn a_missing_directory_is_refused_by_name() {
    let e = run(&[
        "--directory=/var/tmp/nfsbench-no-such-dir/sub".into(),
        "--name=m".into(),
        "--rw=read".into(),
        "--size=1m".into(),
    ])
    .await
    .unwrap_err();
    assert!(e.to_string().starts_with("directory '/var/tmp/nfsbench-no-such-dir/sub': no such directory"), "{e}");
}

#[tokio::test]
async fn an_existing_file_without_size_is_read_whole_and_a_new_one_refused() {
    let scratch = Scratch::new("sized");
    let path = scratch.0.join("existing");
    std::fs::write(&path, vec![7u8; 300 << 10]).expect("file");
    let file = format!("--filename={}", path.display());
    let run1 = run(&[file, "--name=e".into(), "--rw=read".into(), "--bs=4k".into()]).await.expect("runs");
    assert_eq!(io(&run1, Dir::Read), (300 << 10, 75));
    let missing = format!("--filename={}", scratch.0.join("missing").display());
    let e = run(&[missing, "--name=e".into(), "--rw=read".into()]).await.unwrap_err();
    assert!(e.to_string().contains("you need to specify size="), "{e}");
}

/// The file of a job that writes one 4 KiB block, with `extra` options: under `--loops=2` the block is
/// written and then overwritten, and the file keeps the overwrite.
async fn one_block_written(scratch: &Scratch, extra: &[&str]) -> Vec<u8> {
    let mut list = vec!["--name=r", "--rw=write", "--bs=4k", "--size=4k"];
    list.extend_from_slice(extra);
    let r = run(&args(scratch, &list)).await.expect("runs");
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    let data = std::fs::read(scratch.0.join("r.0.0")).expect("file written");
    assert_eq!(data.len(), 4096);
    data
}

#[tokio::test]
async fn refill_buffers_overwrites_a_block_with_new_bytes_and_still_verifies() {
    let scratch = Scratch::new("refill");
    // The first write of a clone is the same in both runs, so the loops=2 file shows the second write.
    let once = one_block_written(&scratch, &[]).await;
    let overwritten = one_block_written(&scratch, &["--loops=2"]).await;
    assert_eq!(once, overwritten, "without refill_buffers the overwrite repeats the buffer, as today");
    let once = one_block_written(&scratch, &["--refill_buffers"]).await;
    let overwritten = one_block_written(&scratch, &["--refill_buffers", "--loops=2"]).await;
    assert_ne!(once, overwritten, "refill_buffers: the overwrite carried new bytes");
    let again = one_block_written(&scratch, &["--refill_buffers"]).await;
    assert_eq!(once, again, "repeatable under randrepeat, as fio's buffers are");
    // verify= writes its own units (fresh per write); refill_buffers leaves them alone.
    let job =
        ["--name=v", "--rw=randwrite", "--bs=4k", "--size=1m", "--iodepth=8", "--verify=crc32c", "--refill_buffers"];
    let r = run(&args(&scratch, &job)).await.expect("runs");
    assert!(r.failures.is_empty() && r.results[0].verify_errors == 0, "{:?}", r.failures);
    assert_eq!(io(&r, Dir::Read).0, 1 << 20, "the verify phase read it all back");
}
