//! A multi-threaded runtime: a ping-pong on two worker threads while another task streams RDMA
//! Writes and Reads on the same connection; every completion must succeed and every byte arrive.

mod support;

use std::sync::Arc;

use rdma::{Access, CompletionKind, QueuePair, RegBuf};
use support::{next, pair};

const ROUNDS: u32 = 3000;

async fn echo(server: Arc<dyn QueuePair>) {
    for _ in 0..ROUNDS {
        loop {
            let done = next(&*server).await;
            assert!(done.iter().all(|c| c.result.is_ok()), "{done:?}");
            let calls = done.iter().filter(|c| matches!(c.result, Ok(CompletionKind::Recv(_)))).count();
            if calls > 0 {
                server.post_recvs(calls as u32).expect("recvs");
                for _ in 0..calls {
                    server.post_send(0, &[b"pong"]).expect("send");
                }
                break;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_pong_and_one_sided_streams_share_a_connection_across_threads() {
    let (client, server) = pair().await;
    let (client, server): (Arc<dyn QueuePair>, Arc<dyn QueuePair>) = (client.into(), server.into());
    client.post_recvs(4).expect("recvs");
    let target = client.register(RegBuf::Writable(vec![0; 1 << 16]), Access::REMOTE_WRITE | Access::REMOTE_READ);
    let target = target.expect("register");
    let echo = tokio::spawn(echo(server.clone()));
    // The server's RDMA traffic runs beside its echo; the echo task polls the completions.
    let writer = {
        let server = server.clone();
        let seg = target.segment(0, 1 << 16).expect("segment");
        tokio::task::spawn_blocking(move || {
            let source = server.register(RegBuf::Writable(vec![9; 1 << 16]), Access::LOCAL_WRITE).expect("reg");
            let mut posted = 0;
            while posted < 2000 {
                let result = if posted % 2 == 0 {
                    server.post_write(1, &source, 0, seg)
                } else {
                    server.post_read(2, &source, 0, seg)
                };
                match result {
                    Ok(()) => posted += 1,
                    Err(rdma::RdmaError::QueueFull { .. }) => std::thread::yield_now(),
                    Err(e) => panic!("{e}"),
                }
            }
        })
    };
    for _ in 0..ROUNDS {
        client.post_send(0, &[b"ping"]).expect("send");
        loop {
            let done = next(&*client).await;
            assert!(done.iter().all(|c| c.result.is_ok()), "{done:?}");
            let replies = done.iter().filter(|c| matches!(c.result, Ok(CompletionKind::Recv(_)))).count();
            if replies > 0 {
                client.post_recvs(replies as u32).expect("recvs");
                break;
            }
        }
    }
    echo.await.expect("echo");
    // Keep draining the server's completions until the writer is through.
    while !writer.is_finished() {
        let _ = tokio::time::timeout(std::time::Duration::from_millis(1), next(&*server)).await;
    }
    writer.await.expect("writer");
    let bytes = target.into_buffer().expect("sole owner").into_bytes();
    assert!(bytes.iter().all(|b| *b == 9));
}
