//! The peer's one-sided byte counters (`QueuePair::peer_one_sided`): each side sees what the
//! other did to its memory, counted before the Send that follows the operation.

mod support;

use rdma::{Access, CompletionKind, RegBuf};
use support::{next, pair, take};

#[tokio::test]
async fn each_side_sees_the_bytes_its_peer_read_and_wrote_before_the_send_that_follows() {
    let (client, server) = pair().await;
    assert_eq!(client.peer_one_sided().map(|p| (p.read_bytes, p.written_bytes, p.reads)), Some((0, 0, 0)));
    assert_eq!(server.peer_one_sided().map(|p| (p.read_bytes, p.written_bytes, p.reads)), Some((0, 0, 0)));
    client.post_recvs(2).expect("recvs");
    let exposed = client
        .register(RegBuf::Writable(vec![7; 1 << 20]), Access::LOCAL_WRITE | Access::REMOTE_READ | Access::REMOTE_WRITE)
        .expect("reg");
    let scratch = server.register(RegBuf::Writable(vec![0; 1 << 20]), Access::LOCAL_WRITE).expect("reg");

    // The server pulls 1 MiB and pushes 4000 bytes of the client's memory, then replies.
    server.post_read(1, &scratch, 0, exposed.segment(0, 1 << 20).expect("seg")).expect("read");
    server.post_write(2, &scratch, 0, exposed.segment(100, 4000).expect("seg")).expect("write");
    server.post_send(3, &[b"done"]).expect("send");
    take(&*server, 3).await;
    assert!(matches!(&next(&*client).await[0].result, Ok(CompletionKind::Recv(m)) if m.as_ref() == b"done"));
    assert_eq!(client.peer_one_sided().map(|p| (p.read_bytes, p.written_bytes, p.reads)), Some((1 << 20, 4000, 1)));
    // Nothing was done to the server's memory.
    assert_eq!(server.peer_one_sided().map(|p| (p.read_bytes, p.written_bytes, p.reads)), Some((0, 0, 0)));

    // Counts are cumulative; a zero-length operation adds nothing.
    server.post_write(4, &scratch, 0, exposed.segment(0, 96).expect("seg")).expect("write");
    server.post_read(5, &scratch, 0, exposed.segment(0, 0).expect("seg")).expect("read");
    server.post_send(6, &[b"again"]).expect("send");
    take(&*server, 3).await;
    next(&*client).await;
    assert_eq!(client.peer_one_sided().map(|p| (p.read_bytes, p.written_bytes, p.reads)), Some((1 << 20, 4096, 1)));

    // And the other way round.
    let target = server.register(RegBuf::Writable(vec![0; 512]), Access::REMOTE_WRITE).expect("reg");
    client.post_write(7, &exposed, 0, target.segment(0, 512).expect("seg")).expect("write");
    take(&*client, 1).await;
    assert_eq!(server.peer_one_sided().map(|p| (p.read_bytes, p.written_bytes, p.reads)), Some((0, 512, 0)));
}
