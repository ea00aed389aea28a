//! [`RdmaTransport`] driven directly, with calls the procedure layer does not make: READDIRPLUS (its
//! reply comes back through a Reply chunk), a call too large to send inline (a Long Call), and calls
//! queued for credits in a known order, against the scripted responder over the software provider.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::fake::fattr;
use common::rdma_fake::{body, reply, RdmaAction, RdmaCall, RdmaFake, RdmaScript};
use nfs3_proto::{
    CookieVerf3, DirListPlus3, EntryPlus3, FileHandle3, Nfs3Proc, ReaddirplusArgs, ReaddirplusRes, ReaddirplusResOk,
    NFS_PROGRAM, NFS_V3,
};
use nfs_client::transport::{reply_channel, RpcCall, RpcReply, RpcTransport};
use nfs_client::{RdmaConfig, RdmaTransport, RetransmitPolicy};
use onc_rpc::{CallHeader, OpaqueAuth, RpcMessage};
use rpcrdma_proto::RdmaBody;
use xdr::{XdrEncode, XdrWriter};

const OPTIONS: RetransmitPolicy = RetransmitPolicy { timeo: Duration::from_secs(60), retrans: 2, hard: true };

async fn transport(fake: &RdmaFake) -> RdmaTransport {
    let config = RdmaConfig::new(Arc::new(rdma_soft::SoftProvider::new().expect("soft provider")));
    RdmaTransport::connect(&[fake.addr], &config, OPTIONS).await.expect("connect")
}

fn encode<'a>(xid: u32, proc: Nfs3Proc, args: impl FnOnce(&mut XdrWriter<'a>)) -> Vec<u8> {
    let header = CallHeader::new(NFS_PROGRAM, NFS_V3, proc as u32, OpaqueAuth::NONE, OpaqueAuth::NONE);
    let mut w = RpcMessage::call(xid, header).header_writer(64);
    args(&mut w);
    w.to_vec()
}

async fn call(t: &RdmaTransport, xid: u32, proc: &'static str, inline: Vec<u8>) -> RpcReply {
    let (tx, rx) = reply_channel();
    t.submit(RpcCall { xid, proc, inline, payload: None, reply_payload: 0, reply_len: None }, tx);
    rx.wait(proc).await.expect("answered")
}

/// READDIRPLUS results with `n` entries (about 150 bytes each).
fn listing(n: u64) -> Vec<u8> {
    let names: Vec<String> = (0..n).map(|i| format!("entry-{i:05}")).collect();
    let handle = FileHandle3::new(&[3; 32]).expect("handle");
    let entries = names
        .iter()
        .enumerate()
        .map(|(i, name)| EntryPlus3 {
            fileid: i as u64,
            name: name.as_bytes(),
            cookie: i as u64 + 1,
            name_attributes: Some(fattr(0)),
            name_handle: Some(handle),
        })
        .collect();
    let ok = ReaddirplusResOk {
        dir_attributes: None,
        cookieverf: CookieVerf3([0; 8]),
        reply: DirListPlus3 { entries, eof: true },
    };
    ReaddirplusRes::Ok(ok).to_xdr_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readdirplus_replies_come_back_whole_through_the_reply_chunk() {
    let script: RdmaScript = Arc::new(|_: &RdmaCall| vec![reply(listing(100))]);
    let fake = RdmaFake::start(script, 32).await;
    let t = transport(&fake).await;
    let args = ReaddirplusArgs {
        dir: FileHandle3::new(b"dir").expect("handle"),
        cookie: 0,
        cookieverf: CookieVerf3([0; 8]),
        dircount: 8192,
        maxcount: 32768,
    };
    let got = call(&t, 77, "READDIRPLUS", encode(77, Nfs3Proc::Readdirplus, |w| args.encode(w))).await;
    let expected = listing(100);
    assert!(expected.len() > 4096, "larger than the inline threshold");
    assert_eq!(&got.record[24..], &expected[..], "the whole reply, truncated to the returned length");
    assert!(got.payload.is_none());
    let seen = fake.calls().pop().expect("the call");
    let offered = body(&seen.header).reply.as_ref().expect("a Reply chunk was offered");
    assert_eq!(offered.byte_len(), 24 + 4 + 32768, "sized by maxcount");
    assert!(matches!(seen.header.body, RdmaBody::Msg(_)), "the call itself fits inline");
    // A small directory fits inline even though a Reply chunk was offered.
    let fake_small = RdmaFake::start(Arc::new(|_: &RdmaCall| vec![reply(listing(2))]), 32).await;
    let t_small = transport(&fake_small).await;
    let got = call(&t_small, 78, "READDIRPLUS", encode(78, Nfs3Proc::Readdirplus, |w| args.encode(w))).await;
    assert_eq!(&got.record[24..], &listing(2)[..]);
    t.shutdown().await;
    t_small.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_over_the_peers_1024_byte_default_goes_as_a_long_call() {
    // The fake sends no RFC 8797 private data: the client must assume 1024 bytes each way.
    let script: RdmaScript = Arc::new(|c: &RdmaCall| vec![reply(c.args.len().to_be_bytes().to_vec())]);
    let fake = RdmaFake::start_with(script, 8, false).await;
    let t = transport(&fake).await;
    let name = vec![b'n'; 1500];
    let inline = encode(5, Nfs3Proc::Lookup, |w| {
        w.put_opaque(b"dir-handle");
        w.put_opaque(&name);
    });
    let sent_args = inline.len() - 40;
    let got = call(&t, 5, "LOOKUP", inline).await;
    assert_eq!(&got.record[24..], &sent_args.to_be_bytes(), "the server saw the whole call");
    let seen = fake.calls().pop().expect("the call");
    assert!(matches!(seen.header.body, RdmaBody::NoMsg(_)), "RDMA_NOMSG");
    let reads = &body(&seen.header).reads;
    assert_eq!((reads.len(), reads[0].position), (1, 0), "one position-zero Read chunk");
    assert_eq!(seen.args.len(), sent_args);
    // A small call still goes inline.
    let got = call(&t, 6, "LOOKUP", encode(6, Nfs3Proc::Lookup, |w| w.put_opaque(b"x"))).await;
    assert_eq!(got.record.len(), 24 + 8);
    let seen = fake.calls().pop().expect("the call");
    assert!(matches!(seen.header.body, RdmaBody::Msg(_)) && body(&seen.header).reads.is_empty());
    t.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_wait_for_a_credit_in_the_order_they_were_submitted() {
    let script: RdmaScript = Arc::new(|_: &RdmaCall| {
        vec![RdmaAction::Reply { results: Vec::new(), placed: None, delay: Duration::from_millis(2) }]
    });
    let fake = RdmaFake::start(script, 1).await;
    let t = transport(&fake).await;
    let waiting: Vec<_> = (10..16)
        .map(|xid| {
            let (tx, rx) = reply_channel();
            t.submit(
                RpcCall {
                    xid,
                    proc: "NULL",
                    inline: encode(xid, Nfs3Proc::Null, |_| {}),
                    payload: None,
                    reply_payload: 0,
                    reply_len: None,
                },
                tx,
            );
            rx
        })
        .collect();
    for rx in waiting {
        rx.wait("NULL").await.expect("answered");
    }
    assert_eq!(fake.calls().iter().map(|c| c.xid).collect::<Vec<_>>(), (10..16).collect::<Vec<_>>());
    assert_eq!(fake.max_in_flight(), 1);
    t.shutdown().await;
}
