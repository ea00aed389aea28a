//! Malformed COMPOUNDs, answered one at a time and compared with what RFC 8881 requires.

use std::net::SocketAddr;

use nfs4_proto::{NfsArgOp, NfsStat4, OpNum4};
use onc_rpc::record_marker;

use super::Verdicts;
use crate::rpc::RpcFailure;
use crate::v4::answer::{outcome_of, Outcome};
use crate::v4::conn::V4Conn;
use crate::v4::malformed::{in_session, sessionless, SlotEffect};
use crate::v4::session::Session;

/// Every probe of [`crate::v4::malformed`]: the sessionless ones on one connection (opened again if the
/// server closes it), the session ones on slot 0 of a session of their own; then a record past the
/// transport's limit, which must cost the sender its connection and nothing else.
pub fn malformed_compounds(addr: SocketAddr) -> Result<Verdicts, RpcFailure> {
    let mut verdicts = Verdicts::default();
    let mut conn = V4Conn::connect(addr)?;
    for probe in sessionless() {
        let got = outcome_of(conn.call_body(&probe.body))?;
        if got == Outcome::Closed {
            conn = V4Conn::connect(addr)?;
        }
        verdicts.outcome(probe.name, &probe.expected, &got);
    }
    let mut session = Session::establish(addr, owner("malformed").as_bytes())?;
    let fore = session.granted.fore_chan_attrs;
    let count = in_session(session.sequence(0), fore.maxoperations, Some(fore.maxrequestsize)).len();
    for index in 0..count {
        let sequence = session.sequence(0);
        let Some(probe) = in_session(sequence, fore.maxoperations, Some(fore.maxrequestsize)).into_iter().nth(index)
        else {
            break;
        };
        let got = outcome_of(session.conn.call_body(&probe.body))?;
        verdicts.outcome(probe.name, &probe.expected, &got);
        if got == Outcome::Closed {
            return Err(RpcFailure::Closed);
        }
        let sequenced = matches!(&got, Outcome::Compound { results, .. }
            if results.first() == Some(&(OpNum4::Sequence, NfsStat4::Ok)));
        match probe.slot {
            SlotEffect::Advances if sequenced => session.set_seqid(0, sequence.sequenceid),
            SlotEffect::Advances | SlotEffect::Untouched => {}
            SlotEffect::Refused => {
                session.resync(0)?;
            }
        }
    }
    // The session is still usable after all of that.
    let after = session.call(0, &[NfsArgOp::Putrootfh])?.outcome();
    let healthy = Outcome::results(&[(OpNum4::Sequence, NfsStat4::Ok), (OpNum4::Putrootfh, NfsStat4::Ok)]);
    verdicts.outcome("the session after the malformed COMPOUNDs", &healthy, &after);
    session.destroy();
    verdicts.outcome("a record of 2 MiB", &Outcome::Closed, &oversized_record(addr)?);
    Ok(verdicts)
}

/// RFC 8881 §18.46.3 (and knfsd's nfsd4_sequence, which checks both before it touches the slot): a
/// SEQUENCE refused with NFS4ERR_TOO_MANY_OPS or NFS4ERR_REQ_TOO_BIG leaves the slot as it was, so the
/// client's next request reuses the sequence id and is executed, not answered as a retry.
pub fn refused_sequence_leaves_its_slot(addr: SocketAddr) -> Result<Verdicts, RpcFailure> {
    let mut verdicts = Verdicts::default();
    let mut session = Session::establish(addr, owner("refused-sequence").as_bytes())?;
    let fore = session.granted.fore_chan_attrs;
    for name in ["one operation past ca_maxoperations", "a request past ca_maxrequestsize"] {
        let sequence = session.sequence(0);
        let probe =
            in_session(sequence, fore.maxoperations, Some(fore.maxrequestsize)).into_iter().find(|p| p.name == name);
        let Some(probe) = probe else { continue };
        let refused = outcome_of(session.conn.call_body(&probe.body))?;
        verdicts.outcome(name, &probe.expected, &refused);
        // The same sequence id again, with a request within the limits.
        let next = session.call_with(sequence, &[NfsArgOp::Putrootfh])?.outcome();
        let executed = Outcome::results(&[(OpNum4::Sequence, NfsStat4::Ok), (OpNum4::Putrootfh, NfsStat4::Ok)]);
        verdicts.outcome(format!("the slot's sequence id after {name}"), &executed, &next);
        if next != executed {
            session.resync(0)?;
        }
    }
    session.destroy();
    Ok(verdicts)
}

/// A record marker announcing 2 MiB (past the 1 MiB + 64 KiB records `nfsbench serve` reads): the
/// server must drop the connection rather than buffer it.
fn oversized_record(addr: SocketAddr) -> Result<Outcome, RpcFailure> {
    let mut conn = V4Conn::connect(addr)?;
    let mut bytes = record_marker(2 << 20, true).to_vec();
    bytes.extend_from_slice(&vec![0u8; 256 << 10]);
    match conn.send_raw(&bytes) {
        Ok(()) => match conn.receive() {
            Ok(_) => Ok(Outcome::Malformed("an answer instead of a closed connection".into())),
            Err(e) => outcome_of(Err(e)),
        },
        Err(RpcFailure::Io(e))
            if matches!(e.kind(), std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset) =>
        {
            Ok(Outcome::Closed)
        }
        Err(e) => Err(e),
    }
}

/// A client owner for one check, unique to this process and run.
pub(crate) fn owner(what: &str) -> String {
    format!("nfsbench-hostile-{what}-{}-{:016x}", std::process::id(), crate::v4::random::next_u64())
}
