//! Floods from a session: one request in flight on each of several slots of one connection, each slot's
//! next request sent as soon as its answer is in, until the stop flag is raised. The caller builds each
//! request from the slot's SEQUENCE and judges each answer; the slot's sequence id follows SEQUENCE's
//! result as a careful client's would, so the flood breaks only the rule it means to.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use nfs4_proto::SequenceArgs;

use super::Ctx;
use crate::rpc::{RpcFailure, REPLY_TIMEOUT};
use crate::v4::answer::Answer;
use crate::v4::conn::Received;
use crate::v4::session::Session;

/// How long a read waits before the stop flag is looked at again.
const POLL: Duration = Duration::from_millis(200);

/// True for the errors of a read that timed out (the server is slow, not gone).
pub(crate) fn timed_out(e: &RpcFailure) -> bool {
    let RpcFailure::Io(io) = e else { return false };
    matches!(io.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted)
}

/// Keeps a request in flight on each of `depth` slots of `session` until stopped (at the attack's pace,
/// when it has one): `request` builds the COMPOUND body for a SEQUENCE (and a note of what it sent),
/// `judge` gets the note and the answer. `Err` when the connection failed; no answer for
/// [`REPLY_TIMEOUT`] is a failure too.
pub(crate) fn pump<T>(
    session: &mut Session,
    depth: u32,
    ctx: Ctx<'_>,
    mut request: impl FnMut(SequenceArgs) -> (Vec<u8>, T),
    mut judge: impl FnMut(T, &Answer),
) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, .. } = ctx;
    session.conn.set_read_timeout(POLL)?;
    let mut pacer = ctx.pacer();
    let mut in_flight: HashMap<u32, (SequenceArgs, T)> = HashMap::new();
    let mut send = |session: &mut Session, slot: u32, in_flight: &mut HashMap<u32, (SequenceArgs, T)>| {
        if pacer.wait(stop) {
            return Ok(());
        }
        let sequence = session.sequence(slot);
        let (body, note) = request(sequence);
        let xid = session.conn.send_body(&body)?;
        tally.sent(1, body.len() as u64);
        in_flight.insert(xid, (sequence, note));
        Ok::<(), RpcFailure>(())
    };
    for slot in 0..depth.min(session.slots()) {
        send(session, slot, &mut in_flight)?;
    }
    let mut waited = Duration::ZERO;
    while !stop.load(Relaxed) {
        match session.conn.receive() {
            Ok(Received::Reply { xid, answer }) => {
                waited = Duration::ZERO;
                let Some((sequence, note)) = in_flight.remove(&xid) else { continue };
                session.note(sequence, &answer);
                judge(note, &answer);
                if !stop.load(Relaxed) {
                    send(session, sequence.slotid, &mut in_flight)?;
                }
            }
            Ok(Received::Call { .. }) => {}
            Err(e) if timed_out(&e) => {
                waited += POLL;
                if waited >= REPLY_TIMEOUT {
                    return Err(e);
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
