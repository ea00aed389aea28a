//! Several engines in step as the clients of a many-clients run: each client's files in its own
//! directory, shared files laid out once (by client 0), and a client that fails stops the others at the
//! next group instead of leaving them waiting. The clients are threads here, in step through a barrier
//! (under mpirun they are processes in step through MPI).

use load_engine::{EngineConfig, EngineError, EngineRun, LiveCounters, Peers};
use mount_options::MountConfig;
use nfs_client::NfsClient;
use report::Dir;
use std::collections::HashMap;
use std::sync::{Arc, Barrier, Mutex};
use test_support::{spec, TestServer};

const WRITE: u32 = 7;

/// Clients in step through a barrier: round k of `all_ok` is failed when any client said not ok.
#[derive(Debug)]
struct ThreadPeers {
    rank: usize,
    round: Mutex<usize>,
    barrier: Arc<Barrier>,
    failed: Arc<Mutex<HashMap<usize, bool>>>,
}

impl Peers for ThreadPeers {
    fn rank(&self) -> usize {
        self.rank
    }

    fn all_ok(&self, ok: bool) -> bool {
        let round = {
            let mut r = self.round.lock().expect("round");
            *r += 1;
            *r
        };
        *self.failed.lock().expect("flags").entry(round).or_default() |= !ok;
        self.barrier.wait();
        !self.failed.lock().expect("flags")[&round]
    }
}

/// Runs `jobs_of(rank)` on `clients` threads at once against `server`, each with its own client and a
/// current-thread runtime (the engine blocks in `all_ok`, as it does in MPI calls).
fn run_clients(
    server: &TestServer,
    clients: usize,
    jobs_of: impl Fn(usize) -> Vec<String>,
) -> Vec<Result<EngineRun, EngineError>> {
    let barrier = Arc::new(Barrier::new(clients));
    let failed = Arc::new(Mutex::new(HashMap::new()));
    let port = server.addr.port();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|rank| {
                let peers =
                    ThreadPeers { rank, round: Mutex::new(0), barrier: barrier.clone(), failed: failed.clone() };
                let args = jobs_of(rank);
                scope.spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
                    runtime.block_on(async move {
                        let client =
                            NfsClient::builder(&MountConfig::new(spec(port, ""))).mount().await.expect("mount");
                        let jobs = fio_job::parse(None, &args).expect("valid job");
                        let config = EngineConfig {
                            export: "/export".into(),
                            live: Arc::new(LiveCounters::default()),
                            verbose_layout: false,
                            peers: Some(Arc::new(peers)),
                        };
                        let run = load_engine::run(&client, &jobs, &config).await;
                        client.unmount().await.expect("unmount");
                        run
                    })
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("client thread")).collect()
    })
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn bytes(run: &EngineRun, dir: Dir) -> u64 {
    run.results.iter().map(|r| r.recorder.io_bytes(dir)).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_client_writes_its_own_files() {
    let server = TestServer::start().await;
    let runs = tokio::task::block_in_place(|| {
        run_clients(&server, 3, |_| args(&["--name=w", "--rw=write", "--bs=64k", "--size=1m", "--numjobs=2"]))
    });
    for run in &runs {
        let run = run.as_ref().expect("every client ran");
        assert!(run.failures.is_empty(), "{:?}", run.failures);
        assert_eq!(bytes(run, Dir::Write), 2 << 20);
    }
    assert_eq!(server.server.nfs_calls(WRITE), 3 * 2 * 16, "6 files of 16 writes, none shared");
    let client = NfsClient::builder(&MountConfig::new(spec(server.addr.port(), ""))).mount().await.expect("mount");
    for rank in 0..3 {
        for jobnum in 0..2 {
            let path = format!("rank{rank}/w.{jobnum}.0");
            let (_, attr) = client.lookup_path(&path).await.unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_eq!(attr.size, 1 << 20, "{path}");
        }
    }
    client.unmount().await.expect("unmount");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_file_is_shared_and_laid_out_once() {
    let server = TestServer::start().await;
    let runs = tokio::task::block_in_place(|| {
        run_clients(&server, 3, |_| args(&["--name=r", "--filename=shared", "--rw=read", "--bs=64k", "--size=2m"]))
    });
    for run in &runs {
        let run = run.as_ref().expect("every client ran");
        assert!(run.failures.is_empty(), "{:?}", run.failures);
        assert_eq!(bytes(run, Dir::Read), 2 << 20);
    }
    let written: u64 = server.server.nfs_calls(WRITE);
    assert!(written > 0, "the file was laid out");
    let client = NfsClient::builder(&MountConfig::new(spec(server.addr.port(), ""))).mount().await.expect("mount");
    let (_, attr) = client.lookup_path("shared").await.expect("the shared file");
    assert_eq!(attr.size, 2 << 20);
    assert!(client.lookup_path("rank0").await.is_err(), "no per-client directory for a named file");
    client.unmount().await.expect("unmount");
    // Laid out by client 0 alone: as many WRITEs as one layout of 2 MiB takes, not three times that.
    let single = TestServer::start().await;
    let alone = NfsClient::builder(&MountConfig::new(spec(single.addr.port(), ""))).mount().await.expect("mount");
    let config = EngineConfig {
        export: "/export".into(),
        live: Arc::new(LiveCounters::default()),
        verbose_layout: false,
        peers: None,
    };
    let jobs = fio_job::parse(None, &args(&["--name=r", "--filename=shared", "--rw=read", "--bs=64k", "--size=2m"]))
        .expect("valid job");
    load_engine::run(&alone, &jobs, &config).await.expect("runs alone");
    alone.unmount().await.expect("unmount");
    assert_eq!(written, single.server.nfs_calls(WRITE), "three clients laid the shared file out once");
    single.stop().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_cannot_lay_out_stops_the_others_at_the_group() {
    let server = TestServer::start().await;
    // Client 1's directory is a regular file: its layout fails; the others learn it instead of waiting.
    let client = NfsClient::builder(&MountConfig::new(spec(server.addr.port(), ""))).mount().await.expect("mount");
    let root = client.root().clone();
    client.create(&root, "not-a-dir", nfs_client::CreateHow::Unchecked, 0o644).await.expect("create");
    client.unmount().await.expect("unmount");
    let runs = tokio::task::block_in_place(|| {
        run_clients(&server, 3, |rank| {
            let dir = if rank == 1 { "--directory=not-a-dir" } else { "--directory=ok" };
            args(&["--name=w", "--rw=write", "--bs=64k", "--size=1m", dir])
        })
    });
    assert!(matches!(runs[1], Err(EngineError::Directory { .. })), "{:?}", runs[1].as_ref().err());
    for rank in [0, 2] {
        assert!(matches!(runs[rank], Err(EngineError::Peer { group: 0 })), "{rank}: {:?}", runs[rank].as_ref().err());
    }
    assert_eq!(server.server.nfs_calls(WRITE), 0, "no client started its clock");
    server.stop().await;
}
