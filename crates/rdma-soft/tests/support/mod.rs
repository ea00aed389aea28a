//! Helpers shared by the integration tests: an in-process client/server pair and completion polling
//! with deadlines (a test fails instead of hanging).
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use rdma::{next_completions, Completion, Provider, QpConfig, QueuePair, RdmaError};
use rdma_soft::SoftProvider;

pub const DEADLINE: Duration = Duration::from_secs(10);

pub fn localhost() -> SocketAddr {
    "127.0.0.1:0".parse().expect("address")
}

/// A connected pair: (client, server), with `server_recvs` receives posted by the server at accept.
pub async fn pair_with(
    client: QpConfig,
    server: QpConfig,
    server_recvs: u32,
) -> (Box<dyn QueuePair>, Box<dyn QueuePair>) {
    let provider = SoftProvider::new().expect("provider");
    let mut listener = provider.listen(localhost()).expect("listen");
    let addr = listener.local_addr();
    let accepting = async {
        let incoming = listener.accept().await.expect("incoming");
        incoming.accept_with_recvs(server, b"server", server_recvs).await.expect("accept")
    };
    let (c, s) = tokio::time::timeout(DEADLINE, async {
        tokio::join!(async { provider.connect(addr, client, b"client").await.expect("connect") }, accepting)
    })
    .await
    .expect("connected in time");
    (c, s)
}

pub async fn pair() -> (Box<dyn QueuePair>, Box<dyn QueuePair>) {
    pair_with(QpConfig::default(), QpConfig::default(), 16).await
}

/// The next batch of completions (at least one).
pub async fn next(qp: &dyn QueuePair) -> Vec<Completion> {
    let mut out = Vec::new();
    tokio::time::timeout(DEADLINE, next_completions(qp, &mut out))
        .await
        .expect("completions in time")
        .expect("connection up");
    out
}

/// Exactly `n` completions, waiting for as many batches as needed.
pub async fn take(qp: &dyn QueuePair, n: usize) -> Vec<Completion> {
    let mut out = Vec::new();
    while out.len() < n {
        out.extend(next(qp).await);
    }
    assert_eq!(out.len(), n, "more completions than expected: {out:?}");
    out
}

/// Every completion until the connection reports `Disconnected`.
pub async fn until_disconnected(qp: &dyn QueuePair) -> Vec<Completion> {
    let mut out = Vec::new();
    loop {
        let mut batch = Vec::new();
        match tokio::time::timeout(DEADLINE, next_completions(qp, &mut batch)).await.expect("in time") {
            Ok(()) => out.extend(batch),
            Err(RdmaError::Disconnected) => return out,
            Err(e) => panic!("unexpected error {e}"),
        }
    }
}

/// The completion's error, if it failed.
pub fn error(c: &Completion) -> Option<rdma::WcError> {
    c.result.as_ref().err().cloned()
}
