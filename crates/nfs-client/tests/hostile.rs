//! Hostile or broken replies: each fails (at most) its own call, and the client carries on.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::fake::{fattr, getattr_ok, reply, Action, Call, FakeServer};
use common::spec;
use nfs3_proto::{Nfs3Proc, ReadRes, ReadResOk};
use nfs_client::{ClientError, NfsClient};
use onc_rpc::{frame_record, record_marker, AcceptStat, ReplyBody, RpcMessage, MAX_FRAGMENT_LEN};
use xdr::XdrEncode;

/// A READ success reply with `data`, record-marked; `count` as given.
fn read_reply(xid: u32, count: u32, data: &[u8]) -> Vec<u8> {
    let mut ok = ReadResOk::new(Some(fattr(8192)), false, data);
    ok.count = count;
    reply(xid, &ReadRes::Ok(ok).to_xdr_bytes())
}

/// The call's READ count (args: handle, offset, count).
fn read_count(call: &Call) -> u32 {
    let words = call.args.len();
    u32::from_be_bytes(call.args[words - 4..].try_into().expect("count word"))
}

async fn mount(fake: &FakeServer, options: &str) -> NfsClient {
    common::mount(&spec(fake.addr.port(), options)).await.expect("mount")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbage_body_or_a_truncated_one_fails_only_that_call() {
    let script = Arc::new(|c: &Call| {
        if c.proc != Nfs3Proc::Read as u32 {
            return vec![Action::Raw(getattr_ok(c.xid))];
        }
        let count = read_count(c);
        let full = read_reply(c.xid, count, &vec![0x5a; count as usize]);
        vec![Action::Raw(match c.proc {
            // Count 1: the right xid, then noise.
            _ if count == 1 => {
                let mut junk = c.xid.to_be_bytes().to_vec();
                junk.extend([0xff; 20]);
                frame_record(&junk, MAX_FRAGMENT_LEN as usize)
            }
            // Count 2: the reply cut short inside the data.
            _ if count == 2 => {
                let record = &full[4..full.len() - 8];
                frame_record(record, MAX_FRAGMENT_LEN as usize)
            }
            _ => full,
        })]
    });
    let fake = FakeServer::start(script).await;
    let client = mount(&fake, "soft,timeo=20").await;
    let fh = client.root().clone();
    let garbage = client.read(&fh, 0, 1).await.expect_err("garbage");
    assert!(matches!(garbage, ClientError::Protocol { proc: "READ", .. }), "{garbage}");
    let truncated = client.read(&fh, 0, 2).await.expect_err("truncated");
    assert!(matches!(truncated, ClientError::Protocol { proc: "READ", .. }), "{truncated}");
    let fine = client.read(&fh, 0, 4096).await.expect("a good reply still works");
    assert_eq!(fine.data.len(), 4096);
    client.getattr(&fh).await.expect("and other calls too");
    assert_eq!(client.stats().reconnects, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_with_unknown_xids_are_counted_and_dropped() {
    let script = Arc::new(|c: &Call| {
        let mut junk = frame_record(b"\x00\x00", MAX_FRAGMENT_LEN as usize);
        junk.extend(getattr_ok(c.xid.wrapping_add(1_000_000)));
        junk.extend(getattr_ok(c.xid));
        vec![Action::Raw(junk)]
    });
    let fake = FakeServer::start(script).await;
    let client = mount(&fake, "soft,timeo=20").await;
    client.getattr(client.root()).await.expect("the right reply still completes the call");
    assert_eq!(client.stats().unknown_replies, 2);
    assert_eq!(client.connections()[0].unknown_replies, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_returning_more_than_asked_or_a_count_unlike_its_data_is_refused() {
    let script = Arc::new(|c: &Call| {
        let count = read_count(c);
        vec![Action::Raw(match count {
            10 => read_reply(c.xid, 20, &[1; 20]),
            _ => read_reply(c.xid, count + 1, &vec![1; count as usize]),
        })]
    });
    let fake = FakeServer::start(script).await;
    let client = mount(&fake, "soft,timeo=20").await;
    let more = client.read(client.root(), 0, 10).await.expect_err("more than asked");
    assert!(more.to_string().contains("20 bytes returned, 10 asked for"), "{more}");
    let mismatch = client.read(client.root(), 0, 100).await.expect_err("count unlike data");
    assert!(mismatch.to_string().contains("count 101 but 100 bytes"), "{mismatch}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_level_refusals_name_the_procedure() {
    let script = Arc::new(|c: &Call| {
        let body = match c.proc {
            0 => ReplyBody::accepted(AcceptStat::ProcUnavail),
            _ => ReplyBody::auth_error(onc_rpc::AuthStat::TooWeak),
        };
        let record = RpcMessage::reply(c.xid, body).header_writer(0).to_vec();
        vec![Action::Raw(frame_record(&record, MAX_FRAGMENT_LEN as usize))]
    });
    let fake = FakeServer::start(script).await;
    let client = mount(&fake, "soft,timeo=20").await;
    let err = client.null().await.expect_err("PROC_UNAVAIL");
    assert_eq!(err.to_string(), "NULL call not executed by the server: PROC_UNAVAIL");
    let err = client.getattr(client.root()).await.expect_err("AUTH_ERROR");
    assert!(matches!(err, ClientError::RpcDenied { proc: "GETATTR", .. }), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_record_stream_drops_the_connection_and_the_call_is_sent_again() {
    // First transmission: a fragment header claiming 1 GiB. Second (on the new connection): an answer.
    let script = Arc::new(|c: &Call| match c.transmission {
        1 => vec![Action::Raw(record_marker(1 << 30, true).to_vec())],
        _ => vec![Action::Raw(getattr_ok(c.xid))],
    });
    let fake = FakeServer::start(script).await;
    let client = mount(&fake, "hard,timeo=600").await;
    let attr = tokio::time::timeout(Duration::from_secs(10), client.getattr(client.root()))
        .await
        .expect("no timeout needed: the reconnection resends")
        .expect("answered on the new connection");
    assert_eq!(attr.size, 4096);
    let calls = fake.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].xid, calls[1].xid);
    assert_ne!(calls[0].connection, calls[1].connection);
    assert_eq!(client.stats().reconnects, 1);
}
