//! The engine end to end against the embedded server in-process: verify clean and verify catching a
//! corrupted byte, COMMITs from fsync=N, the random map, loops, time_based runs, and connections
//! spread by nconnect/remoteports.

use load_engine::{EngineConfig, EngineRun, LiveCounters};
use mount_options::MountConfig;
use nfs_client::NfsClient;
use nfs_server::{ConnectionInfo, Reply, Server};
use onc_rpc::RpcMessage;
use report::Dir;
use server_core::RecordHandler;
use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use test_support::{spec, TestServer};

const READ: u32 = 6;
const WRITE: u32 = 7;
const COMMIT: u32 = 21;

fn jobs(args: &[&str]) -> fio_job::JobSet {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    fio_job::parse(None, &args).expect("valid job")
}

async fn run(server: &TestServer, options: &str, args: &[&str]) -> EngineRun {
    let client = NfsClient::builder(&MountConfig::new(spec(server.addr.port(), options))).mount().await.expect("mount");
    let config = EngineConfig {
        export: "/export".into(),
        live: Arc::new(LiveCounters::default()),
        verbose_layout: false,
        peers: None,
    };
    let run = load_engine::run(&client, &jobs(args), &config).await.expect("engine runs");
    client.unmount().await.expect("unmount");
    run
}

/// Passes every call to the server; READ replies carrying data can be corrupted, READ offsets recorded.
struct Tampering {
    inner: Arc<Server>,
    corrupt_next_read: AtomicBool,
    read_offsets: Mutex<Vec<u64>>,
}

impl Tampering {
    fn new(inner: Arc<Server>) -> Arc<Self> {
        Arc::new(Tampering { inner, corrupt_next_read: AtomicBool::new(false), read_offsets: Mutex::new(Vec::new()) })
    }
}

impl RecordHandler for Tampering {
    fn handle(&self, record: &[u8], conn: &ConnectionInfo) -> Option<Reply> {
        let read_offset = RpcMessage::decode(record).ok().and_then(|(msg, body)| {
            let call = msg.as_call()?;
            (call.prog == onc_rpc::NFS_PROGRAM && call.proc == READ).then_some(())?;
            match nfs3_proto::Nfs3Call::decode(READ, body).ok()? {
                nfs3_proto::Nfs3Call::Read(args) => Some(args.offset),
                _ => None,
            }
        });
        let mut reply = self.inner.handle(record, conn)?;
        if let Some(offset) = read_offset {
            self.read_offsets.lock().expect("lock").push(offset);
            let corrupt = !reply.is_flat() && self.corrupt_next_read.swap(false, Ordering::SeqCst);
            if corrupt {
                reply.rewrite_payloads(|data| {
                    let middle = data.len() / 2;
                    if let Some(byte) = data.get_mut(middle) {
                        *byte ^= 0x20;
                    }
                });
            }
        }
        Some(reply)
    }

    fn may_block(&self) -> bool {
        false
    }
}

/// Passes every call to the server and keeps each WRITE's offset and data.
struct WriteLog {
    inner: Arc<Server>,
    writes: Mutex<Vec<(u64, Vec<u8>)>>,
}

impl RecordHandler for WriteLog {
    fn handle(&self, record: &[u8], conn: &ConnectionInfo) -> Option<Reply> {
        let write = RpcMessage::decode(record).ok().and_then(|(msg, body)| {
            let call = msg.as_call()?;
            (call.prog == onc_rpc::NFS_PROGRAM && call.proc == WRITE).then_some(())?;
            match nfs3_proto::Nfs3Call::decode(WRITE, body).ok()? {
                nfs3_proto::Nfs3Call::Write(args) => Some((args.offset, args.data.to_vec())),
                _ => None,
            }
        });
        self.writes.lock().expect("lock").extend(write);
        self.inner.handle(record, conn)
    }

    fn may_block(&self) -> bool {
        false
    }
}

fn io_bytes(run: &EngineRun, dir: Dir) -> u64 {
    run.results.iter().map(|r| r.recorder.io_bytes(dir)).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn written_data_reads_back_clean_under_crc32c_and_md5() {
    let server = TestServer::start().await;
    for verify in ["--verify=crc32c", "--verify=md5"] {
        let unit = "--verify_interval=4k";
        let write =
            run(&server, "", &["--name=v", "--rw=write", "--bs=64k", "--size=8m", "--iodepth=4", verify, unit]).await;
        assert!(write.failures.is_empty(), "{:?}", write.failures);
        assert_eq!(io_bytes(&write, Dir::Write), 8 << 20);
        // The verify phase reads back everything written.
        assert_eq!(io_bytes(&write, Dir::Read), 8 << 20);
        let read =
            run(&server, "", &["--name=v", "--rw=randread", "--bs=4k", "--size=8m", "--iodepth=16", verify]).await;
        assert!(read.failures.is_empty(), "{:?}", read.failures);
        assert_eq!(read.results[0].verify_errors, 0);
        assert_eq!(io_bytes(&read, Dir::Read), 8 << 20);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_corrupted_byte_in_a_read_reply_fails_verify() {
    let mut tamper = None;
    let server = TestServer::start_with(&["127.0.0.1:0".parse().expect("addr")], |inner| {
        let t = Tampering::new(inner);
        tamper = Some(Arc::clone(&t));
        t
    });
    let tamper = tamper.expect("handler made");
    let job = ["--name=c", "--rw=read", "--bs=128k", "--size=4m", "--verify=crc32c"];
    let clean = run(&server, "", &job).await;
    assert!(clean.failures.is_empty(), "{:?}", clean.failures);
    tamper.corrupt_next_read.store(true, Ordering::SeqCst);
    let corrupted = run(&server, "", &job).await;
    assert_eq!(corrupted.results[0].verify_errors, 1);
    assert_eq!(corrupted.results[0].error, 84, "EILSEQ, as fio reports verify failures");
    assert_eq!(corrupted.failures.len(), 1);
    assert!(corrupted.failures[0].contains("verify failed at offset"), "{}", corrupted.failures[0]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_random_map_reads_every_block_exactly_once_per_loop() {
    let mut tamper = None;
    let server = TestServer::start_with(&["127.0.0.1:0".parse().expect("addr")], |inner| {
        let t = Tampering::new(inner);
        tamper = Some(Arc::clone(&t));
        t
    });
    let tamper = tamper.expect("handler made");
    // Laid out first (1 MiB writes), then read.
    let run1 =
        run(&server, "", &["--name=m", "--rw=randread", "--bs=4k", "--size=4m", "--iodepth=8", "--loops=2"]).await;
    assert!(run1.failures.is_empty(), "{:?}", run1.failures);
    assert_eq!(run1.results[0].recorder.total_ios(Dir::Read), 2 * 1024);
    let offsets = tamper.read_offsets.lock().expect("lock").clone();
    assert_eq!(offsets.len(), 2048);
    for pass in offsets.chunks(1024) {
        let distinct: HashSet<u64> = pass.iter().copied().collect();
        assert_eq!(distinct.len(), 1024, "each pass visits every block once");
    }
    let sorted = offsets[..64].windows(2).filter(|w| w[1] == w[0] + 4096).count();
    assert!(sorted < 16, "random order, not sequential ({sorted} of 63 steps were +4 KiB)");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fsync_every_n_writes_sends_a_commit_and_buffered_writes_are_committed_at_the_end() {
    let server = TestServer::start().await;
    let before = server.server.nfs_calls(COMMIT);
    let r =
        run(&server, "", &["--name=f", "--rw=randwrite", "--bs=4k", "--size=1m", "--fsync=32", "--iodepth=4"]).await;
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    // 256 writes: a COMMIT after every 32nd once those writes are answered, so nothing is left unstable.
    let commits = server.server.nfs_calls(COMMIT) - before;
    assert_eq!(commits, 8, "one COMMIT after each 32 writes, covering them all");
    assert_eq!(r.results[0].recorder.sync_lat().count(), commits);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_time_based_job_runs_for_its_runtime_over_many_passes() {
    let server = TestServer::start().await;
    let started = Instant::now();
    let args = ["--name=t", "--rw=read", "--bs=64k", "--size=1m", "--runtime=1", "--time_based", "--ramp_time=200ms"];
    let r = run(&server, "", &args).await;
    let wall = started.elapsed();
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    let runtime = r.results[0].runtime;
    assert!(runtime >= Duration::from_millis(950) && runtime < Duration::from_millis(1500), "{runtime:?}");
    assert!(wall >= Duration::from_millis(1150), "ramp time comes before the measured runtime: {wall:?}");
    assert!(io_bytes(&r, Dir::Read) > 4 << 20, "a 1 MiB file read many times over");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numjobs_clones_get_their_own_files_and_results() {
    let server = TestServer::start().await;
    let before = server.server.nfs_calls(WRITE);
    let r = run(&server, "", &["--name=n", "--rw=write", "--bs=256k", "--size=2m", "--numjobs=3"]).await;
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    assert_eq!(r.results.len(), 3);
    assert!(r.results.iter().all(|j| j.recorder.io_bytes(Dir::Write) == 2 << 20));
    assert_eq!(server.server.nfs_calls(WRITE) - before, 3 * 8);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nconnect_and_remoteports_spread_connections_over_the_server_addresses() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("probe").local_addr().expect("addr").port();
    let listen: Vec<SocketAddr> = (1..=4).map(|i| format!("127.0.0.{i}:{port}").parse().expect("addr")).collect();
    let server = TestServer::start_with(&listen, |s| s);
    let options = "nconnect=8,remoteports=127.0.0.1-127.0.0.4";
    let client = NfsClient::builder(&MountConfig::new(spec(port, options))).mount().await.expect("mount");
    let config = EngineConfig {
        export: "/export".into(),
        live: Arc::new(LiveCounters::default()),
        verbose_layout: false,
        peers: None,
    };
    let job = jobs(&["--name=s", "--rw=randread", "--bs=4k", "--size=1m", "--iodepth=32"]);
    let r = load_engine::run(&client, &job, &config).await.expect("engine runs");
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    let connections = client.connections();
    assert_eq!(connections.len(), 8);
    for i in 1..=4u8 {
        let to_this = connections.iter().filter(|c| c.remote.ip() == std::net::Ipv4Addr::new(127, 0, 0, i)).count();
        assert_eq!(to_this, 2, "two connections to 127.0.0.{i}");
    }
    assert!(connections.iter().all(|c| c.calls_sent > 0), "round robin uses every connection");
    // 8 NFS connections plus the short-lived MOUNT one.
    assert_eq!(server.transport.snapshot().accepted, 9);
    client.unmount().await.expect("unmount");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_io_larger_than_rsize_and_wsize_is_split_into_calls_and_verifies_clean() {
    let server = TestServer::start().await;
    let (reads, writes) = (server.server.nfs_calls(READ), server.server.nfs_calls(WRITE));
    // 4 MiB I/Os over rsize=wsize=1 MiB: each one 4 calls, as the Linux client splits O_DIRECT I/O.
    let job = ["--name=big", "--rw=write", "--bs=4m", "--size=16m", "--iodepth=2", "--verify=crc32c"];
    let r = run(&server, "rsize=1048576,wsize=1048576", &job).await;
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    assert_eq!(io_bytes(&r, Dir::Write), 16 << 20);
    assert_eq!(io_bytes(&r, Dir::Read), 16 << 20, "the verify phase read it all back");
    assert_eq!(r.results[0].recorder.lat(Dir::Write).count(), 4, "4 I/Os of 4 MiB, timed as one each");
    assert_eq!(server.server.nfs_calls(WRITE) - writes, 16, "16 WRITE calls of 1 MiB");
    assert_eq!(server.server.nfs_calls(READ) - reads, 16, "16 READ calls of 1 MiB");
    // A size that is not a multiple: 2.5 MiB I/Os end with a half-MiB call.
    let job = ["--name=odd", "--rw=read", "--bs=2560k", "--size=5m", "--verify=crc32c", "--do_verify=0"];
    let r = run(&server, "rsize=1048576", &["--name=odd", "--rw=write", "--bs=2560k", "--size=5m", "--verify=crc32c"])
        .await;
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    let r = run(&server, "rsize=1048576", &job).await;
    assert!(r.failures.is_empty() && r.results[0].verify_errors == 0, "{:?}", r.failures);
    assert_eq!(io_bytes(&r, Dir::Read), 5 << 20);
    server.stop().await;
}

/// The two writes of block 0 of a job that writes four 4 KiB blocks twice (two loops), with `extra` options.
async fn block_zero_written_twice(server: &TestServer, log: &WriteLog, extra: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let mut args = vec!["--name=r", "--rw=write", "--bs=4k", "--size=16k", "--loops=2"];
    args.extend_from_slice(extra);
    log.writes.lock().expect("lock").clear();
    let r = run(server, "", &args).await;
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    let writes = std::mem::take(&mut *log.writes.lock().expect("lock"));
    let mut at_zero = writes.into_iter().filter(|(offset, _)| *offset == 0).map(|(_, data)| data);
    let (Some(first), Some(second), None) = (at_zero.next(), at_zero.next(), at_zero.next()) else {
        panic!("block 0 is written once per loop");
    };
    assert_eq!((first.len(), second.len()), (4096, 4096));
    (first, second)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refill_buffers_sends_new_bytes_in_each_write_of_a_block_and_still_verifies() {
    let mut log = None;
    let server = TestServer::start_with(&["127.0.0.1:0".parse().expect("addr")], |inner| {
        let l = Arc::new(WriteLog { inner, writes: Mutex::new(Vec::new()) });
        log = Some(Arc::clone(&l));
        l
    });
    let log = log.expect("handler made");
    let (first, second) = block_zero_written_twice(&server, &log, &[]).await;
    assert_eq!(first, second, "without refill_buffers the buffer is reused, as fio reuses it");
    let (first, second) = block_zero_written_twice(&server, &log, &["--refill_buffers"]).await;
    assert_ne!(first, second, "refill_buffers: the second write of the block carries new bytes");
    // verify= writes its own units (fresh per write); refill_buffers leaves them alone.
    let job = ["--name=v", "--rw=randwrite", "--bs=4k", "--size=1m", "--iodepth=8", "--verify=md5", "--refill_buffers"];
    let r = run(&server, "", &job).await;
    assert!(r.failures.is_empty() && r.results[0].verify_errors == 0, "{:?}", r.failures);
    assert_eq!(io_bytes(&r, Dir::Read), 1 << 20, "the verify phase read it all back");
    server.stop().await;
}
