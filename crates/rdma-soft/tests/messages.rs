//! Sends and receives: order, credits (posted receives), sizes, and the connection's end.

mod support;

use rdma::{CompletionKind, QpConfig, RdmaError, WcError};
use support::{error, next, pair, pair_with, take, until_disconnected};

fn received(completions: &[rdma::Completion]) -> Vec<Vec<u8>> {
    completions
        .iter()
        .filter_map(|c| match &c.result {
            Ok(CompletionKind::Recv(bytes)) => Some(bytes.to_vec()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn send_and_receive_round_trip_in_order() {
    let (client, server) = pair().await;
    client.post_recvs(4).expect("recvs");
    for i in 0..10u8 {
        client.post_send(u64::from(i), &[b"call ", &[i]]).expect("send");
    }
    let sends = take(&*client, 10).await;
    assert!(sends.iter().enumerate().all(|(i, c)| c.wr_id == i as u64 && matches!(c.result, Ok(CompletionKind::Send))));
    let got = received(&take(&*server, 10).await);
    assert_eq!(got, (0..10u8).map(|i| [&b"call "[..], &[i]].concat()).collect::<Vec<_>>());
    server.post_recvs(6).expect("recvs");
    server.post_send(99, &[b"reply", b""]).expect("send");
    assert!(matches!(next(&*server).await[0].result, Ok(CompletionKind::Send)));
    assert_eq!(received(&next(&*client).await), vec![b"reply".to_vec()]);
}

#[tokio::test]
async fn an_empty_send_arrives_as_an_empty_message() {
    let (client, server) = pair().await;
    client.post_send(1, &[]).expect("send");
    assert_eq!(received(&next(&*server).await), vec![Vec::<u8>::new()]);
    assert!(matches!(next(&*client).await[0].result, Ok(CompletionKind::Send)));
}

#[tokio::test]
async fn rejects_send_without_posted_receive_and_both_sides_disconnect() {
    let (client, server) = pair_with(QpConfig::default(), QpConfig::default(), 1).await;
    client.post_send(1, &[b"first"]).expect("send");
    client.post_send(2, &[b"second: no receive left"]).expect("post");
    let done = until_disconnected(&*client).await;
    assert_eq!(done.len(), 2);
    assert!(matches!(done[0].result, Ok(CompletionKind::Send)));
    assert_eq!((done[1].wr_id, error(&done[1])), (2, Some(WcError::ReceiverNotReady)));
    // The server got the first message, then the end of the connection.
    let seen = until_disconnected(&*server).await;
    assert_eq!(received(&seen), vec![b"first".to_vec()]);
    assert!(matches!(client.post_send(3, &[b"x"]), Err(RdmaError::Disconnected)));
    assert!(matches!(server.post_recvs(1), Err(RdmaError::Disconnected)));
}

#[tokio::test]
async fn a_message_longer_than_the_peers_receive_size_fails_with_length() {
    let server_config = QpConfig { recv_size: 1024, ..QpConfig::default() };
    let (client, server) = pair_with(QpConfig::default(), server_config, 4).await;
    client.post_send(7, &[&[0u8; 1000], &[0u8; 25]]).expect("post");
    let done = until_disconnected(&*client).await;
    assert_eq!(error(&done[0]), Some(WcError::Length { len: 1025, limit: 1024 }));
    let flushed = until_disconnected(&*server).await;
    assert_eq!(flushed.len(), 4, "the server's four receives are flushed");
    assert!(flushed.iter().all(|c| error(c) == Some(WcError::Flushed)));
}

#[tokio::test]
async fn posting_more_receives_than_the_queue_holds_is_queue_full() {
    let config = QpConfig { max_recv: 8, ..QpConfig::default() };
    let (client, _server) = pair_with(config, QpConfig::default(), 0).await;
    client.post_recvs(8).expect("recvs");
    assert!(matches!(client.post_recvs(1), Err(RdmaError::QueueFull { queue: "receive", depth: 8 })));
}

#[tokio::test]
async fn disconnect_flushes_posted_receives_and_the_peer_sees_it() {
    let (client, server) = pair().await;
    client.post_recvs(3).expect("recvs");
    client.disconnect();
    let flushed = until_disconnected(&*client).await;
    assert_eq!(flushed.len(), 3);
    let flushed = until_disconnected(&*server).await;
    assert_eq!(flushed.len(), 16);
}

#[tokio::test]
async fn dropping_a_queue_pair_disconnects_its_peer() {
    let (client, server) = pair().await;
    drop(client);
    assert_eq!(until_disconnected(&*server).await.len(), 16);
}

/// Receive buffers so large that a ring would pass 64 MiB: such connections carry messages on the
/// socket instead, with the same semantics.
fn socket_channel_config() -> QpConfig {
    QpConfig { recv_size: 256 << 10, max_recv: 512, ..QpConfig::default() }
}

#[tokio::test]
async fn large_configurations_carry_messages_on_the_socket_with_the_same_semantics() {
    let (client, server) = pair_with(socket_channel_config(), socket_channel_config(), 64).await;
    let messages: Vec<Vec<u8>> = (0..40u8).map(|i| vec![i; 200 << 10]).collect();
    for (i, m) in messages.iter().enumerate() {
        client.post_send(i as u64, &[m]).expect("send");
    }
    // More than the socket buffer holds: the rest waits in the sender until its poller runs again.
    let keep_polling = async {
        loop {
            next(&*client).await;
        }
    };
    let got = tokio::select! {
        () = keep_polling => unreachable!(),
        got = take(&*server, 40) => received(&got),
    };
    assert_eq!(got, messages);
    server.post_send(1, &[b"no receive posted at the client"]).expect("post");
    assert_eq!(error(&until_disconnected(&*server).await[0]), Some(WcError::ReceiverNotReady));
    until_disconnected(&*client).await;
}
