//! TCP through the emulated link, end to end on loopback: a relay on the client side (or on the server
//! side) adds the round trip to a ping-pong, the rate caps a stream, and the window caps it at
//! window / RTT.
//!
//! Figures on the 2-core development machine (a shared VM, debug build): the relay's own hops cost
//! 60–100 µs a round trip; a 2 ms link measured 2.13–2.23 ms over loopback, a 20 ms one 20.3–20.6 ms (the
//! rest is waking idle threads); 32 MiB through 200 Mbit/s 199.7 Mbit/s; a 64 KiB window over 20 ms
//! 3.0–3.2 MB/s (the bound is 3.28).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mount_options::LinkSpec;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wan::Link;

/// One test at a time: a stream's pumps would otherwise delay another test's ping-pongs on 2 cores.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn link(text: &str) -> Arc<Link> {
    Link::new(LinkSpec::parse(text).expect("spec"))
}

/// A loopback server that hands every accepted stream (through a relay over `link`, when given) to
/// `serve`.
async fn server<F, Fut>(link: Option<Arc<Link>>, serve: F) -> SocketAddr
where
    F: Fn(TcpStream) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let stream = match &link {
                Some(link) => wan::tcp::relay(stream, Arc::clone(link)).await.expect("server-side relay"),
                None => stream,
            };
            tokio::spawn(serve(stream));
        }
    });
    addr
}

async fn echo(mut stream: TcpStream) {
    let mut buf = vec![0u8; 64 << 10];
    while let Ok(n) = stream.read(&mut buf).await {
        if n == 0 || stream.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
}

/// Reads to end of stream, then answers the byte count.
async fn sink(mut stream: TcpStream) {
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    while let Ok(n) = stream.read(&mut buf).await {
        if n == 0 {
            break;
        }
        total += n as u64;
    }
    let _ = stream.write_all(&total.to_be_bytes()).await;
}

/// Round trips of 20 ping-pongs of 64 bytes, sorted.
async fn ping_pong(stream: &mut TcpStream) -> Vec<Duration> {
    let msg = [0x5au8; 64];
    let mut back = [0u8; 64];
    let mut samples = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        stream.write_all(&msg).await.expect("ping");
        stream.read_exact(&mut back).await.expect("pong");
        samples.push(t.elapsed());
        assert_eq!(back, msg);
    }
    samples.sort();
    samples
}

async fn median_round_trip(stream: &mut TcpStream) -> Duration {
    let samples = ping_pong(stream).await;
    samples[samples.len() / 2]
}

/// A link with no delay to speak of (64 bytes at 1000 Gbit/s: half a nanosecond).
const NO_DELAY: &str = "rate=1000gbit";

/// The relay's own cost: its two extra loopback hops each way, `base` against `plain` loopback. Small,
/// and bounded loosely (the machine is shared): a relay that slept on a millisecond timer would fail.
fn assert_relay_cost(plain: Duration, base: Duration) {
    eprintln!("round trip over loopback {plain:?}, through a relay without delay {base:?}");
    assert!(base.saturating_sub(plain) < Duration::from_micros(500), "the relay adds {:?}", base - plain);
}

/// The link adds `rtt` to the path it emulates (here loopback through the relay, whose own round trip
/// `base` is measured beside it): no round trip is shorter than `rtt`, and the median is at most 10%
/// (or 50 µs) longer than base + rtt. The best median of three runs of 20 counts: the machine is
/// shared, and a run that another process slowed down says nothing about the link.
async fn assert_round_trip(stream: &mut TcpStream, base: Duration, rtt: Duration) {
    let tolerance = (rtt / 10).max(Duration::from_micros(50));
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let samples = ping_pong(stream).await;
        assert!(samples[0] >= rtt, "a round trip of {:?} through a link of rtt {rtt:?}", samples[0]);
        best = best.min(samples[samples.len() / 2]);
        if best.saturating_sub(base) <= rtt + tolerance {
            break;
        }
    }
    eprintln!("rtt {rtt:?}: median round trip {best:?} (without delay {base:?})");
    assert!(
        best.saturating_sub(base) <= rtt + tolerance,
        "median round trip {best:?} for an rtt of {rtt:?} over a path of {base:?}"
    );
}

/// Bytes per second of a stream of `bytes` through the connection, as the far end counted them: from
/// the first write until the count is back.
async fn stream_rate(mut stream: TcpStream, bytes: usize) -> f64 {
    let buf = vec![0xa5u8; 1 << 20];
    let start = Instant::now();
    let mut left = bytes;
    while left > 0 {
        let n = left.min(buf.len());
        stream.write_all(&buf[..n]).await.expect("write");
        left -= n;
    }
    stream.shutdown().await.expect("half-close");
    let mut count = [0u8; 8];
    stream.read_exact(&mut count).await.expect("count");
    assert_eq!(u64::from_be_bytes(count), bytes as u64, "every byte arrives, once");
    bytes as f64 / start.elapsed().as_secs_f64()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_side_relay_adds_the_round_trip() {
    let _serial = SERIAL.lock().await;
    let addr = server(None, echo).await;
    for (spec, rtt) in [("rtt=20ms", 20), ("rtt=2ms", 2)] {
        let plain = median_round_trip(&mut TcpStream::connect(addr).await.expect("connect")).await;
        let no_delay = link(NO_DELAY);
        let base = median_round_trip(&mut wan::tcp::connect(addr, Some(&no_delay)).await.expect("connect").0).await;
        assert_relay_cost(plain, base);
        let link = link(spec);
        let (mut stream, local) = wan::tcp::connect(addr, Some(&link)).await.expect("connect through the link");
        // The real connection's address, not the relay's loopback pair.
        assert_ne!(local, stream.local_addr().expect("relay end"));
        assert_round_trip(&mut stream, base, Duration::from_millis(rtt)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_side_relay_adds_the_round_trip() {
    let _serial = SERIAL.lock().await;
    let plain = median_round_trip(&mut TcpStream::connect(server(None, echo).await).await.expect("connect")).await;
    let no_delay = server(Some(link(NO_DELAY)), echo).await;
    let base = median_round_trip(&mut TcpStream::connect(no_delay).await.expect("connect")).await;
    assert_relay_cost(plain, base);
    for (spec, rtt) in [("rtt=20ms", 20), ("rtt=2ms", 2)] {
        let addr = server(Some(link(spec)), echo).await;
        let (mut stream, _) = wan::tcp::connect(addr, None).await.expect("connect");
        assert_round_trip(&mut stream, base, Duration::from_millis(rtt)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_caps_a_stream() {
    let _serial = SERIAL.lock().await;
    let addr = server(None, sink).await;
    let link = link("rate=200mbit,rtt=1ms");
    let (stream, _) = wan::tcp::connect(addr, Some(&link)).await.expect("connect");
    let bits = stream_rate(stream, 32 << 20).await * 8.0;
    eprintln!("200 Mbit/s link: {:.1} Mbit/s", bits / 1e6);
    assert!((200e6 * 0.8..=200e6 * 1.03).contains(&bits), "{:.1} Mbit/s through a 200 Mbit/s link", bits / 1e6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_caps_a_stream_at_window_per_round_trip() {
    let _serial = SERIAL.lock().await;
    let addr = server(None, sink).await;
    let link = link("rtt=20ms,tcp_window=64k");
    let (stream, _) = wan::tcp::connect(addr, Some(&link)).await.expect("connect");
    let rate = stream_rate(stream, 4 << 20).await;
    eprintln!("64 KiB window over 20 ms: {:.3} MB/s", rate / 1e6);
    // 64 KiB per 20 ms: 3.28 MB/s.
    let cap = 65536.0 / 0.020;
    assert!((cap * 0.6..=3.3e6 * 1.1).contains(&rate), "{:.2} MB/s with a 64 KiB window over 20 ms", rate / 1e6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_either_end_reaches_the_other() {
    let _serial = SERIAL.lock().await;
    // The application closes: the server sees end of stream through the relay, one way later.
    let addr = server(None, echo).await;
    let link = link("rtt=4ms");
    let (mut stream, _) = wan::tcp::connect(addr, Some(&link)).await.expect("connect");
    stream.write_all(b"last words").await.expect("write");
    stream.shutdown().await.expect("half-close");
    let mut back = Vec::new();
    stream.read_to_end(&mut back).await.expect("echo, then end of stream");
    assert_eq!(back, b"last words");

    // The server goes away: the application's reads end instead of hanging.
    let gone = server(None, |stream| async move { drop(stream) }).await;
    let (mut stream, _) = wan::tcp::connect(gone, Some(&link)).await.expect("connect");
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await.expect("not hanging");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
}
