//! knfsd_null: the verbs provider against the Linux kernel NFS server's RPC-over-RDMA listener (port
//! 20049). Connects with RFC 8797 private data (4 KiB each way), checks that knfsd answers with its own,
//! sends an NFSv3 NULL call as RDMA_MSG (RFC 8166 §4) and checks the reply: same XID, RDMA_MSG, credits
//! granted, an accepted RPC reply. Prints `PASS`/`FAIL` lines and `N passed, N failed`.
//!
//! ```sh
//! lab/vm/run.sh -- bash -c '. lab/vm/guest/rxe.sh; . lab/vm/guest/knfsd.sh; target/debug/examples/knfsd_null 10.99.0.1'
//! ```

use std::error::Error;
use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;
use std::time::Duration;

use rdma::{next_completions, CompletionKind, Provider, QpConfig};
use rdma_verbs::VerbsProvider;
use rpcrdma_proto::{ChunkLists, ConnectPrivate, DecodeLimits, InlineThresholds, RdmaBody, RdmaHeader, NFS_RDMA_PORT};
use xdr::XdrEncode;

const STEP: Duration = Duration::from_secs(90);
const XID: u32 = 0x6e66_7362;

/// An ONC RPC call (RFC 5531) of NFSv3 NULL with AUTH_NONE: xid, CALL, rpcvers 2, prog 100003, vers 3,
/// proc 0, credential and verifier of flavour 0 and length 0.
fn nfs3_null_call(xid: u32) -> Vec<u8> {
    [xid, 0, 2, 100_003, 3, 0, 0, 0, 0, 0].iter().flat_map(|w| w.to_be_bytes()).collect()
}

fn word(bytes: &[u8], index: usize) -> Option<u32> {
    let b = bytes.get(index * 4..index * 4 + 4)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

async fn run(ip: IpAddr, checks: &mut (u32, u32)) -> Result<(), Box<dyn Error>> {
    let mut check = |name: &str, ok: bool, detail: String| {
        if ok {
            checks.0 += 1;
        } else {
            checks.1 += 1;
        }
        println!("{} {name}: {detail}", if ok { "PASS" } else { "FAIL" });
    };
    let provider = VerbsProvider::open()?;
    let ours = InlineThresholds { send: 4096, recv: 4096 };
    let config = QpConfig {
        recv_size: 4096,
        max_recv: 32,
        max_send: 32,
        initiator_depth: 0,
        responder_resources: 16,
        ..QpConfig::default()
    };
    let addr = SocketAddr::new(ip, NFS_RDMA_PORT);
    let qp = tokio::time::timeout(STEP, provider.connect(addr, config, &ours.to_private(false).encode())).await??;
    let info = qp.info();
    let theirs = ConnectPrivate::decode(&info.peer_private_data);
    check(
        "knfsd accepts RFC 8797 private data and answers with its own",
        theirs.is_some(),
        format!("{theirs:?} ({} bytes from {:?} via {})", info.peer_private_data.len(), info.peer, info.provider),
    );

    qp.post_recvs(4)?;
    let header = RdmaHeader::msg(XID, 32, ChunkLists::default()).to_xdr_bytes();
    qp.post_send(1, &[&header, &nfs3_null_call(XID)])?;
    let mut out = Vec::new();
    while !out.iter().any(|c: &rdma::Completion| matches!(c.result, Ok(CompletionKind::Recv(_)))) {
        tokio::time::timeout(STEP, next_completions(qp.as_ref(), &mut out)).await??;
    }
    let reply = out.iter().find_map(|c| match &c.result {
        Ok(CompletionKind::Recv(bytes)) => Some(bytes.clone()),
        _ => None,
    });
    let reply = reply.ok_or("no reply")?;
    let (head, rpc) = RdmaHeader::decode(&reply, &DecodeLimits::default())?;
    check(
        "knfsd answers RDMA_MSG with credits",
        head.xid == XID && matches!(head.body, RdmaBody::Msg(_)) && head.credits > 0,
        format!("xid {:#x}, {} credits, {:?}", head.xid, head.credits, head.procedure()),
    );
    // xid, REPLY (1), MSG_ACCEPTED (0), verifier (flavour, length 0), SUCCESS (0).
    let accepted =
        word(rpc, 0) == Some(XID) && word(rpc, 1) == Some(1) && word(rpc, 2) == Some(0) && word(rpc, 5) == Some(0);
    check("the NFSv3 NULL reply is accepted", accepted, format!("{} bytes of RPC reply", rpc.len()));
    qp.disconnect();
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let ip = std::env::args().nth(1).unwrap_or_else(|| "10.99.0.1".into());
    let Ok(ip) = ip.parse::<IpAddr>() else {
        eprintln!("usage: knfsd_null [IP]");
        return ExitCode::from(2);
    };
    let mut checks = (0, 0);
    if let Err(e) = run(ip, &mut checks).await {
        checks.1 += 1;
        println!("FAIL knfsd_null ran to the end: {e}");
    }
    println!("{} passed, {} failed", checks.0, checks.1);
    if checks.1 == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
