//! Holding connections: silent ones, or ones that trickle a record that never ends (one byte a second
//! after a marker announcing 1,000 bytes). One thread tends all of them; a connection the server closes
//! is noticed at its next byte (trickle) or by a non-blocking read (idle), and opened again.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use onc_rpc::record_marker;

use super::{open, sleep_unless_stopped, Tally, REOPEN_PAUSE};

/// The trickled record's announced length: far more than a second's trickle will ever send.
const TRICKLED_RECORD: u32 = 1000;
/// Time between two bytes of a trickle (and two checks of an idle connection).
const TICK: Duration = Duration::from_secs(1);

struct Held {
    stream: Option<TcpStream>,
    /// Bytes of the trickled record sent so far.
    sent: u32,
}

pub(super) fn run(addr: SocketAddr, connections: usize, trickle: bool, stop: &AtomicBool, tally: &Tally) {
    let mut held: Vec<Held> = (0..connections).map(|_| Held { stream: None, sent: 0 }).collect();
    loop {
        let mut lost = false;
        for h in &mut held {
            if h.stream.is_none() {
                h.stream = open(addr, tally).inspect(|s| {
                    let _ = s.set_nonblocking(true);
                });
                h.sent = 0;
                if h.stream.is_none() {
                    lost = true;
                    continue;
                }
            }
            let alive = match (&mut h.stream, trickle) {
                (Some(stream), true) => trickle_one(stream, &mut h.sent, tally),
                (Some(stream), false) => still_open(stream),
                (None, _) => true,
            };
            if !alive {
                tally.closed();
                h.stream = None;
                lost = true;
            }
        }
        let pause = if lost { REOPEN_PAUSE.max(TICK) } else { TICK };
        if sleep_unless_stopped(pause, stop) {
            return;
        }
    }
}

/// Sends the marker (first time) or one more byte of the record; false once the server closed.
fn trickle_one(stream: &mut TcpStream, sent: &mut u32, tally: &Tally) -> bool {
    let bytes: Vec<u8> = if *sent == 0 { record_marker(TRICKLED_RECORD, true).to_vec() } else { vec![0] };
    if *sent >= TRICKLED_RECORD - 1 {
        return true; // Never complete the record.
    }
    match stream.write(&bytes) {
        Ok(n) if n > 0 => {
            *sent += 1;
            tally.sent(u64::from(*sent == 1), n as u64);
            still_open(stream)
        }
        Ok(_) => false,
        Err(e) => e.kind() == ErrorKind::WouldBlock,
    }
}

/// False once the server has closed (EOF or reset); the socket must be non-blocking.
fn still_open(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 64];
    match stream.read(&mut buf) {
        Ok(0) => false,
        Ok(_) => true,
        Err(e) => e.kind() == ErrorKind::WouldBlock,
    }
}
