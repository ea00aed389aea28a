//! Tests of the shared-memory channel: doorbells wake a sleeping consumer, messages sent before the
//! end are delivered, and the end is reported.

use std::future::poll_fn;
use std::time::Duration;

use super::*;
use crate::channel::ring::ring_len;

fn channels(spin: Duration) -> (ShmChannel, ShmChannel) {
    let (a, b) = socket::pair();
    let len = ring_len(256, 8).expect("size");
    let (ring_a, ring_b) = (Ring::create(len).expect("ring"), Ring::create(len).expect("ring"));
    let peer_of_a = Ring::map_peer(ring_a.fd().try_clone_to_owned().expect("dup"), len).expect("map");
    let peer_of_b = Ring::map_peer(ring_b.fd().try_clone_to_owned().expect("dup"), len).expect("map");
    let sock_a = Arc::new(socket::register(a).expect("register"));
    let sock_b = Arc::new(socket::register(b).expect("register"));
    (ShmChannel::new(sock_a, ring_a, peer_of_b, 256, spin), ShmChannel::new(sock_b, ring_b, peer_of_a, 256, spin))
}

async fn recv_all(channel: &mut ShmChannel) -> Result<Vec<Bytes>, ChannelError> {
    let mut got = Vec::new();
    poll_fn(|cx| channel.poll_recv(cx, 64, &mut |m| got.push(m))).await?;
    Ok(got)
}

#[tokio::test]
async fn a_doorbell_wakes_a_sleeping_consumer() {
    for spin in [Duration::ZERO, Duration::from_micros(20)] {
        let (mut a, mut b) = channels(spin);
        let consumer = tokio::spawn(async move {
            let got = recv_all(&mut b).await.expect("message");
            (got, b)
        });
        // Let the consumer go to sleep first.
        tokio::time::sleep(Duration::from_millis(20)).await;
        a.send(&[b"wake ", b"up"]).expect("send");
        let (got, _b) = tokio::time::timeout(Duration::from_secs(5), consumer).await.expect("woken").expect("task");
        assert_eq!(got, vec![Bytes::from_static(b"wake up")]);
    }
}

#[tokio::test]
async fn messages_sent_before_the_end_are_delivered_then_the_end() {
    let (mut a, mut b) = channels(Duration::ZERO);
    a.send(&[b"one"]).expect("send");
    a.send(&[b"two"]).expect("send");
    a.close();
    assert!(matches!(a.send(&[b"late"]), Err(ChannelError::Closed)));
    assert_eq!(recv_all(&mut b).await.expect("messages"), vec![Bytes::from_static(b"one"), Bytes::from_static(b"two")]);
    assert!(matches!(recv_all(&mut b).await, Err(ChannelError::Closed)));
    assert!(matches!(b.send(&[b"x"]), Err(ChannelError::Closed)));
}

#[tokio::test]
async fn a_peer_that_dies_without_closing_is_seen_through_the_socket() {
    let (a, mut b) = channels(Duration::ZERO);
    // Dropping without `close` leaves the rings open, as a crashed process would.
    drop(a);
    let ended = tokio::time::timeout(Duration::from_secs(5), recv_all(&mut b)).await.expect("in time");
    assert!(matches!(ended, Err(ChannelError::Closed)));
}
