//! The NFSv4.1/4.2 client against nfsbench's own server (the embedded RAM export, in-process): the
//! session, the export found through the server's pseudo file system, files written, read and closed,
//! nconnect bound to one session, and the load engine with verify over it.

mod common;

use std::sync::Arc;

use bytes::Bytes;
use load_engine::{EngineConfig, LiveCounters};
use nfs_client::{Access, CreateHow, NfsClient, NfsVersion, StableHow};
use test_support::{spec, TestServer};

async fn mount(server: &TestServer, options: &str) -> NfsClient {
    common::mount(&spec(server.addr.port(), options)).await.unwrap_or_else(|e| panic!("mount {options}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_minor_versions_mount_the_export_and_round_trip_a_file() {
    let server = TestServer::start().await;
    for (options, version) in
        [("vers=4.1", NfsVersion::V4_1), ("vers=4.2", NfsVersion::V4_2), ("vers=4", NfsVersion::V4_2)]
    {
        let client = mount(&server, options).await;
        assert_eq!(client.version(), version, "{options}");
        let name = format!("f-{}", version);
        let how = Some((CreateHow::Unchecked, 0o644));
        let (file, attr) = client.open(client.root(), &name, Access::ReadWrite, how).await.expect("open");
        assert_eq!(attr.size, 0);
        let data = Bytes::from(vec![0xA5; 1 << 20]);
        let written = client.write(&file, 0, data.clone(), StableHow::Unstable).await.expect("write");
        assert_eq!(written.count, 1 << 20);
        let verifier = client.commit(&file, 0, 0).await.expect("commit");
        assert_eq!(verifier, written.verifier);
        let read = client.read(&file, 4096, 8192).await.expect("read");
        assert!(read.data == data.slice(4096..12288));
        assert_eq!(client.getattr(file.handle()).await.expect("getattr").size, 1 << 20);
        client.close(&file).await.expect("close");
        client.remove(client.root(), &name).await.expect("remove");
        client.unmount().await.expect("unmount");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nconnect_binds_four_connections_to_one_session_on_our_server() {
    let server = TestServer::start().await;
    let client = mount(&server, "vers=4.1,nconnect=4").await;
    assert_eq!(client.connections().len(), 4);
    let (dir, _) = client.mkdir(client.root(), "d", 0o755).await.expect("mkdir");
    for i in 0..8 {
        client.create(&dir, &format!("f{i}"), CreateHow::Guarded, 0o644).await.expect("create");
    }
    assert!(client.connections().iter().all(|c| c.calls_sent > 0), "{:?}", client.connections());
    client.unmount().await.expect("unmount");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_job_runs_over_v4_on_our_server() {
    let server = TestServer::start().await;
    let client = mount(&server, "vers=4.2,nconnect=2").await;
    let config = EngineConfig {
        export: "/export".into(),
        live: Arc::new(LiveCounters::default()),
        verbose_layout: false,
        peers: None,
    };
    for args in [
        ["--name=w", "--rw=randwrite", "--bs=4k", "--size=512k", "--iodepth=16", "--numjobs=2", "--verify=crc32c"],
        ["--name=r", "--rw=randread", "--bs=4k", "--size=512k", "--iodepth=16", "--numjobs=2", "--verify=crc32c"],
    ] {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let jobs = fio_job::parse(None, &args).expect("job");
        let run = load_engine::run(&client, &jobs, &config).await.expect("engine");
        assert!(run.failures.is_empty(), "{:?}", run.failures);
        assert!(run.results.iter().all(|r| r.verify_errors == 0));
    }
    client.unmount().await.expect("unmount");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nfsv4_1_over_rdma_queue_pairs_on_our_server() {
    use mount_options::{MountConfig, MountSpec};
    use rdma::Provider;
    use server_rdma::{RdmaServer, RdmaServerConfig};

    let tcp = TestServer::start().await;
    let listener =
        rdma_soft::SoftProvider::new().expect("soft").listen("127.0.0.1:0".parse().unwrap()).expect("listen");
    let rdma = RdmaServer::new(listener, Arc::clone(&tcp.server), RdmaServerConfig::default());
    let port = rdma.local_addr().port();
    let task = tokio::spawn(rdma.run(std::future::pending::<()>()));
    let options = format!("vers=4.1,proto=rdma,port={port},nconnect=2");
    let spec = MountSpec::parse("127.0.0.1:/export", Some(&options)).expect("spec");
    let provider = Arc::new(rdma_soft::SoftProvider::new().expect("soft"));
    let client = NfsClient::builder(&MountConfig::new(spec)).rdma_provider(provider).mount().await.expect("mount");
    assert!(client.connections().iter().all(|c| c.transport.starts_with("rdma")));
    let (file, _) =
        client.open(client.root(), "q", Access::ReadWrite, Some((CreateHow::Unchecked, 0o644))).await.expect("open");
    for len in [100usize, 4096, 65536, 1 << 20] {
        let data = Bytes::from((0..len).map(|i| (i % 251) as u8).collect::<Vec<_>>());
        client.write(&file, 0, data.clone(), StableHow::FileSync).await.expect("write");
        let read = client.read(&file, 0, len as u32).await.expect("read");
        assert!(read.data == data, "{len} bytes back intact");
    }
    client.close(&file).await.expect("close");
    client.unmount().await.expect("unmount");
    task.abort();
    tcp.stop().await;
}
