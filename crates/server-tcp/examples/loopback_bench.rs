//! Measures the TCP transport alone: a stand-in READ program behind `TcpServer`, and a pipelined client
//! in another process, on loopback.
//!
//!   cargo run --release -p server-tcp --example loopback_bench -- serve 127.0.0.1:20490 [WORKERS] [inline|task|blocking]
//!   cargo run --release -p server-tcp --example loopback_bench -- load 127.0.0.1:20490 [CONNS] [DEPTH] [SECS] [BYTES]
//!
//! WORKERS 1 is a current-thread runtime. The stand-in program decodes the RPC header, copies BYTES of
//! file data into a fresh buffer and encodes a reply around it, as a RAM-disk READ does. The client keeps
//! DEPTH calls in flight per connection and sends as many new calls per read as replies came in.
#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nfs_server::{ConnectionInfo, Reply};
use onc_rpc::{frame_record, CallHeader, OpaqueAuth, RecordDecoder, RecordLimits, ReplyBody, RpcMessage};
use server_core::{ConnectionLimits, Execution, RecordHandler};
use server_tcp::TcpServer;

struct ReadProgram {
    file: Vec<u8>,
}

impl RecordHandler for ReadProgram {
    fn handle(&self, record: &[u8], _conn: &ConnectionInfo) -> Option<Reply> {
        let (msg, args) = RpcMessage::decode(record).ok()?;
        let count = args.first_chunk::<4>().map_or(0, |w| u32::from_be_bytes(*w)) as usize;
        let mut payload = Vec::with_capacity(count);
        payload.extend_from_slice(self.file.get(..count.min(self.file.len()))?);
        let mut w = RpcMessage::reply(msg.xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(120);
        w.put_u32(0); // status
        w.put_raw(&[0; 88]); // post-op attributes' size
        w.put_u32(count as u32);
        w.put_u32(count as u32);
        let mut inline = w.into_vec();
        let at = inline.len();
        inline.extend_from_slice(&[0, 0, 0, 0]);
        Some(Reply::with_payload(inline, at, payload))
    }

    fn may_block(&self) -> bool {
        false
    }
}

fn arg(args: &[String], i: usize, default: &str) -> String {
    args.get(i).cloned().unwrap_or_else(|| default.to_string())
}

fn serve(addr: SocketAddr, workers: usize, execution: Execution) {
    let rt = server_tcp::runtime(workers, server_tcp::DEFAULT_BLOCKING_THREADS).unwrap();
    rt.block_on(async {
        let program = Arc::new(ReadProgram { file: vec![0x5a; 1 << 20] });
        let limits = ConnectionLimits { execution, ..ConnectionLimits::default() };
        let server = TcpServer::bind(&[addr], program, limits).unwrap();
        eprintln!("serving on {:?} workers={workers} {execution:?}", server.local_addrs());
        let stats = server.stats();
        server
            .run(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .unwrap();
        eprintln!("{}", stats.snapshot());
    });
}

fn load(addr: SocketAddr, conns: usize, depth: usize, secs: u64, bytes: u32) {
    let done = Arc::new(AtomicU64::new(0));
    let until = Instant::now() + Duration::from_secs(secs);
    let threads: Vec<_> = (0..conns)
        .map(|c| {
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let mut stream = TcpStream::connect(addr).unwrap();
                stream.set_nodelay(true).unwrap();
                let mut xid = (c as u32) << 24;
                let mut cred = Vec::new();
                let cred = onc_rpc::AuthSysParms::new(1, b"bench", 0, 0, &[0]).unwrap().to_opaque_auth(&mut cred);
                let frame = |xid: u32| {
                    let msg = RpcMessage::call(xid, CallHeader::new(100_003, 3, 6, cred, OpaqueAuth::NONE));
                    let mut w = msg.header_writer(48);
                    w.put_u32(bytes);
                    w.put_raw(&[0; 32]); // a file handle and offset's worth of arguments
                    frame_record(&w.into_vec(), 1 << 30)
                };
                let mut out = Vec::new();
                for _ in 0..depth {
                    out.extend(frame(xid));
                    xid = xid.wrapping_add(1);
                }
                stream.write_all(&out).unwrap();
                let mut decoder = RecordDecoder::new(RecordLimits::default());
                let mut buf = vec![0u8; 256 << 10];
                let mut in_flight = depth;
                let mut count = 0u64;
                loop {
                    let n = stream.read(&mut buf).unwrap();
                    assert!(n > 0, "server closed");
                    decoder.push(&buf[..n]).unwrap();
                    out.clear();
                    while let Some(record) = decoder.pop() {
                        count += 1;
                        in_flight -= 1;
                        if Instant::now() < until {
                            out.extend(frame(xid));
                            xid = xid.wrapping_add(1);
                            in_flight += 1;
                        }
                        decoder.recycle(record);
                    }
                    if !out.is_empty() {
                        stream.write_all(&out).unwrap();
                    }
                    if in_flight == 0 {
                        break;
                    }
                }
                done.fetch_add(count, Ordering::Relaxed);
            })
        })
        .collect();
    let started = Instant::now();
    for t in threads {
        t.join().unwrap();
    }
    let total = done.load(Ordering::Relaxed);
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{total} calls in {secs:.2} s: {:.0} calls/s ({conns} conns x depth {depth}, {bytes} B)",
        total as f64 / secs
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let addr: SocketAddr = arg(&args, 2, "127.0.0.1:20490").parse().unwrap();
    match args.get(1).map(String::as_str) {
        Some("serve") => {
            let workers = arg(&args, 3, "1").parse().unwrap();
            let execution = match arg(&args, 4, "inline").as_str() {
                "task" => Execution::TaskPerCall,
                "blocking" => Execution::BlockingPool,
                _ => Execution::Inline,
            };
            serve(addr, workers, execution)
        }
        Some("load") => load(
            addr,
            arg(&args, 3, "1").parse().unwrap(),
            arg(&args, 4, "32").parse().unwrap(),
            arg(&args, 5, "5").parse().unwrap(),
            arg(&args, 6, "4096").parse().unwrap(),
        ),
        _ => eprintln!("usage: loopback_bench serve ADDR [WORKERS] [inline|task|blocking] | load ADDR [CONNS] [DEPTH] [SECS] [BYTES]"),
    }
}
