use super::*;
use std::net::{IpAddr, Ipv4Addr};

fn flow(sport: u16, dport: u16) -> Flow {
    let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
    Flow { src: SocketAddr::new(ip, sport), dst: SocketAddr::new(ip, dport) }
}

fn seg(flow: Flow, seq: u32, syn: bool, payload: &[u8], t: u64) -> Segment<'_> {
    Segment { timestamp: Duration::from_micros(t), flow, seq, syn, payload }
}

#[test]
fn reassembles_in_order_segments_after_the_syn() {
    let f = flow(1000, 2049);
    let mut s = TcpStreams::default();
    s.push(&seg(f, 99, true, b"", 1));
    s.push(&seg(f, 100, false, b"abc", 2));
    s.push(&seg(f, 103, false, b"def", 3));
    let streams = s.into_streams();
    assert_eq!(streams.len(), 1);
    assert_eq!(streams[0].1.data, b"abcdef");
    assert_eq!(streams[0].1.time_at(4), Some(Duration::from_micros(3)));
}

#[test]
fn drops_retransmitted_bytes_and_places_out_of_order_segments() {
    let f = flow(1000, 2049);
    let mut s = TcpStreams::default();
    s.push(&seg(f, 10, false, b"ab", 1));
    s.push(&seg(f, 14, false, b"ef", 2)); // ahead of a gap
    s.push(&seg(f, 10, false, b"abc", 3)); // retransmission overlapping new data
    s.push(&seg(f, 13, false, b"d", 4)); // fills the gap
    let streams = s.into_streams();
    assert_eq!(streams[0].1.data, b"abcdef");
    assert_eq!(streams[0].1.missing_bytes, 0);
}

#[test]
fn handles_sequence_number_wrap() {
    let f = flow(1000, 2049);
    let mut s = TcpStreams::default();
    s.push(&seg(f, u32::MAX - 1, false, b"ab", 1));
    s.push(&seg(f, 0, false, b"cd", 2));
    assert_eq!(s.into_streams()[0].1.data, b"abcd");
}

#[test]
fn counts_bytes_lost_behind_an_unfilled_gap() {
    let f = flow(1000, 2049);
    let mut s = TcpStreams::default();
    s.push(&seg(f, 0, false, b"ab", 1));
    s.push(&seg(f, 5, false, b"xy", 2));
    let streams = s.into_streams();
    assert_eq!(streams[0].1.data, b"ab");
    assert_eq!(streams[0].1.missing_bytes, 3);
}

#[test]
fn a_reused_address_pair_starts_a_new_stream() {
    let f = flow(1000, 2049);
    let mut s = TcpStreams::default();
    s.push(&seg(f, 0, true, b"", 1));
    s.push(&seg(f, 1, false, b"old", 2));
    s.push(&seg(f, 5000, true, b"", 3));
    s.push(&seg(f, 5001, false, b"new", 4));
    let streams = s.into_streams();
    let data: Vec<_> = streams.iter().map(|(_, s)| s.data.clone()).collect();
    assert_eq!(data, vec![b"old".to_vec(), b"new".to_vec()]);
}

#[test]
fn rejects_bytes_that_are_not_a_capture() {
    assert!(matches!(tcp_streams_from_bytes(b"definitely not pcap"), Err(CaptureError::Format(_))));
}
