//! NFSv4.1 over RPC-over-RDMA (the soft provider) against the fake server: no port mapper, the session
//! over queue pairs, nconnect queue pairs bound to one session, data of every size intact.

mod v4_support;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use mount_options::{MountConfig, MountSpec};
use nfs_client::{Access, CreateHow, NfsClient, NfsVersion, StableHow};
use v4_support::{Config, FakeV4};

async fn mount_rdma(server: &mut FakeV4, options: &str) -> NfsClient {
    let rdma = server.serve_rdma();
    let all = format!("vers=4.1,proto=rdma,port={},{options}", rdma.port());
    let spec = MountSpec::parse("127.0.0.1:/", Some(&all)).expect("spec");
    let provider = Arc::new(rdma_soft::SoftProvider::new().expect("soft provider"));
    NfsClient::builder(&MountConfig::new(spec)).rdma_provider(provider).mount().await.expect("mount over RDMA")
}

fn pattern(len: usize, seed: u8) -> Bytes {
    (0..len).map(|i| (i as u8).wrapping_mul(29).wrapping_add(seed)).collect::<Vec<_>>().into()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_v4_1_session_runs_over_queue_pairs_with_data_intact() {
    let mut server = FakeV4::start(Config::default(), Duration::from_secs(30)).await;
    let client = mount_rdma(&mut server, "nconnect=2").await;
    assert_eq!(client.version(), NfsVersion::V4_1);
    assert!(client.connections().iter().all(|c| c.transport.starts_with("rdma")), "{:?}", client.connections());
    assert_eq!((server.count("CREATE_SESSION"), server.count("BIND_CONN_TO_SESSION")), (1, 1), "two QPs, one session");
    let how = Some((CreateHow::Unchecked, 0o644));
    let (file, _) = client.open(client.root(), "rdma", Access::ReadWrite, how).await.expect("open");
    let mut offset = 0u64;
    for (i, len) in [1usize, 4096, 65536, 1 << 20].into_iter().enumerate() {
        let data = pattern(len, i as u8);
        let w = client.write(&file, offset, data.clone(), StableHow::FileSync).await.expect("write");
        assert_eq!(w.count as usize, len);
        let r = client.read(&file, offset, len as u32).await.expect("read");
        assert!(r.data == data, "READ of {len} bytes returns what was written");
        offset += len as u64;
    }
    client.close(&file).await.expect("close");
    client.unmount().await.expect("unmount");
}
