//! The load engine over NFSv4.1 against the fake server: fio's layout, I/O and verify through the
//! version-neutral file calls, one OPEN per file shared by the clones and one CLOSE at the group's end,
//! and a run that survives its connections being cut.

mod v4_support;

use std::sync::Arc;
use std::time::Duration;

use load_engine::{EngineConfig, EngineRun, LiveCounters};
use nfs_client::NfsClient;
use v4_support::{Config, FakeV4};

fn jobs(args: &[&str]) -> fio_job::JobSet {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    fio_job::parse(None, &args).expect("valid job")
}

async fn run(client: &NfsClient, args: &[&str]) -> EngineRun {
    let config = EngineConfig {
        export: "/".into(),
        live: Arc::new(LiveCounters::default()),
        verbose_layout: false,
        peers: None,
    };
    load_engine::run(client, &jobs(args), &config).await.expect("engine runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_job_runs_over_v4_with_one_open_per_file_closed_at_the_end() {
    let server = FakeV4::start(Config::default(), Duration::from_secs(30)).await;
    let client = server.mount("vers=4.1,nconnect=2").await.expect("mount");
    let write = [
        "--name=w",
        "--rw=randwrite",
        "--bs=4k",
        "--size=256k",
        "--iodepth=8",
        "--numjobs=2",
        "--filename=shared",
        "--verify=crc32c",
        "--direct=1",
    ];
    let done = run(&client, &write).await;
    assert!(done.failures.is_empty(), "{:?}", done.failures);
    assert_eq!(server.count("OPEN"), 1, "the two clones share one open");
    assert_eq!(server.count("CLOSE"), 1, "closed once the group was done");
    assert_eq!(server.open_count(), 0);
    let read = [
        "--name=r",
        "--rw=read",
        "--bs=16k",
        "--size=256k",
        "--iodepth=4",
        "--filename=shared",
        "--verify=crc32c",
        "--verify_interval=4k",
    ];
    let checked = run(&client, &read).await;
    assert!(checked.failures.is_empty(), "{:?}", checked.failures);
    assert_eq!(checked.results[0].verify_errors, 0);
    assert!(server.count("READ") >= 16);
    client.unmount().await.expect("unmount");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_survives_its_connections_being_cut_mid_run() {
    let server = Arc::new(FakeV4::start(Config::default(), Duration::from_secs(30)).await);
    let client = server.mount("vers=4.1").await.expect("mount");
    let cutter = {
        let server = server.clone();
        tokio::spawn(async move {
            for _ in 0..3 {
                tokio::time::sleep(Duration::from_millis(150)).await;
                server.kill_connections();
            }
        })
    };
    let job = [
        "--name=cut",
        "--rw=randrw",
        "--bs=4k",
        "--size=1m",
        "--iodepth=16",
        "--time_based",
        "--runtime=1",
        "--filename=f",
        "--direct=1",
    ];
    let done = run(&client, &job).await;
    cutter.await.expect("cutter");
    assert!(done.failures.is_empty(), "{:?}", done.failures);
    assert!(client.stats().reconnects >= 1, "the connection was cut and made again");
    assert_eq!(server.count("CREATE_SESSION"), 1, "the session outlived its connections");
}
