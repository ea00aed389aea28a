//! `nfsbench serve` as users run it: the built binary on a free loopback port, spoken to over TCP.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod cli_support;

use cli_support::{nfsbench, scratch, serve};
use hostile::RawClient;
use onc_rpc::NFS_PROGRAM;

/// Runs `nfsbench serve ARGS` expecting it to exit at once; returns the output.
fn serve_fails(args: &[&str]) -> Output {
    let mut child =
        nfsbench().arg("serve").args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nfsbench serve {args:?} did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn serves_null_and_mount_then_prints_statistics_on_sigterm() {
    let dir = scratch("e2e");
    let ready = dir.join("ready");
    let (child, addrs) = serve(&["--listen", "127.0.0.1:0"], &ready, Stdio::piped(), Stdio::piped());
    assert_eq!(addrs.len(), 1);
    assert_ne!(addrs[0].port(), 0, "the ready file has the port actually bound");

    let mut client = RawClient::connect(addrs[0]).expect("connect");
    assert!(client.call(NFS_PROGRAM, 3, 0, &[]).expect("NFS NULL").is_empty(), "NFS NULL has no results");
    let root = client.mount("/export").unwrap_or_else(|e| panic!("MNT /export: {e}"));
    assert!(!root.is_empty());
    drop(client);

    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let output = child.wait_with_output().expect("exit");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "exit {:?}, stderr: {stderr}", output.status);
    assert!(stdout.contains("MNT"), "stats name the MOUNT call: {stdout}");
    assert!(stdout.contains("NULL"), "stats name the NULL call: {stdout}");
    assert!(stdout.contains("tcp: connections accepted 1"), "transport stats: {stdout}");
    assert!(!ready.exists(), "the ready file is removed on exit");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A raw NFSv4.1 client on one TCP connection: COMPOUNDs out, and every record back — replies, and the
/// server's own calls on the back channel, which it answers as told.
struct V4Conn {
    stream: std::net::TcpStream,
    decoder: onc_rpc::RecordDecoder,
    xid: u32,
    /// Calls the server sent us.
    calls: Vec<Vec<u8>>,
}

impl V4Conn {
    fn connect(addr: std::net::SocketAddr) -> V4Conn {
        let stream = std::net::TcpStream::connect(addr).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
        V4Conn { stream, decoder: onc_rpc::RecordDecoder::new(Default::default()), xid: 1, calls: Vec::new() }
    }

    fn send(&mut self, record: &[u8]) {
        use std::io::Write;
        let mut framed = onc_rpc::record_marker(record.len() as u32, true).to_vec();
        framed.extend_from_slice(record);
        self.stream.write_all(&framed).expect("send");
    }

    fn next_record(&mut self) -> Vec<u8> {
        use std::io::Read;
        let mut buf = [0u8; 16 << 10];
        loop {
            if let Some(record) = self.decoder.pop() {
                return record;
            }
            let n = self.stream.read(&mut buf).expect("read");
            assert!(n > 0, "the server closed the connection");
            self.decoder.push(&buf[..n]).expect("record marking");
        }
    }

    /// One COMPOUND (minor version 1) of `ops`; the server's calls that come first are kept.
    fn compound(&mut self, ops: Vec<nfs4_proto::NfsArgOp<'_>>) -> Vec<u8> {
        self.xid += 1;
        let args = nfs4_proto::Compound4Args { tag: b"", minorversion: 1, argarray: ops };
        let header = onc_rpc::CallHeader::new(NFS_PROGRAM, 4, 1, onc_rpc::OpaqueAuth::NONE, onc_rpc::OpaqueAuth::NONE);
        let mut w = onc_rpc::RpcMessage::call(self.xid, header).header_writer(256);
        xdr::XdrEncode::encode(&args, &mut w);
        self.send(&w.to_vec());
        loop {
            let record = self.next_record();
            let (msg, body) = onc_rpc::RpcMessage::decode(&record).expect("RPC message");
            if msg.as_call().is_some() {
                self.calls.push(record);
            } else if msg.xid == self.xid {
                return body.to_vec();
            }
        }
    }
}

#[test]
fn serves_nfsv41_and_calls_the_client_back_on_its_own_connection() {
    use nfs4_proto::*;
    let dir = scratch("v4");
    let ready = dir.join("ready");
    let (child, addrs) = serve(&["--listen", "127.0.0.1:0"], &ready, Stdio::piped(), Stdio::piped());
    let mut conn = V4Conn::connect(addrs[0]);
    let exchange = conn.compound(vec![NfsArgOp::ExchangeId(ExchangeIdArgs {
        clientowner: ClientOwner4 { verifier: Verifier4([1; 8]), ownerid: Opaque4(b"e2e client") },
        ..ExchangeIdArgs::default()
    })]);
    let res = Compound4Res::decode_reply(&exchange, &[OpNum4::ExchangeId]).expect("EXCHANGE_ID reply");
    let [NfsResOp::ExchangeId(Nfs4Result::Ok(ok))] = &res.resarray[..] else { panic!("{res:?}") };
    let (clientid, sequence) = (ok.clientid, ok.sequenceid);
    let attrs = ChannelAttrs4 {
        maxrequestsize: 1 << 20,
        maxresponsesize: 1 << 20,
        maxoperations: 8,
        maxrequests: 4,
        ..ChannelAttrs4::default()
    };
    let created = conn.compound(vec![NfsArgOp::CreateSession(CreateSessionArgs {
        clientid,
        sequence,
        flags: CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
        fore_chan_attrs: attrs,
        back_chan_attrs: ChannelAttrs4 {
            maxrequestsize: 4096,
            maxresponsesize: 4096,
            maxoperations: 2,
            maxrequests: 1,
            ..ChannelAttrs4::default()
        },
        cb_program: 0x4000_0000,
        sec_parms: vec![CallbackSecParms4::None],
    })]);
    let res = Compound4Res::decode_reply(&created, &[OpNum4::CreateSession]).expect("CREATE_SESSION reply");
    let [NfsResOp::CreateSession(Nfs4Result::Ok(session))] = &res.resarray[..] else { panic!("{res:?}") };
    let sessionid = session.sessionid;
    let sequence = |seq: u32| {
        NfsArgOp::Sequence(SequenceArgs { sessionid, sequenceid: seq, slotid: 0, highest_slotid: 0, cachethis: false })
    };
    conn.compound(vec![sequence(1), NfsArgOp::Putrootfh]);
    // The CB_NULL probe came on this connection; answering it brings CB_SEQUENCE, answered in turn.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut answered = 0;
    let mut seq = 1;
    while answered < 2 {
        assert!(Instant::now() < deadline, "no callbacks came");
        for call in std::mem::take(&mut conn.calls) {
            let (msg, body) = onc_rpc::RpcMessage::decode(&call).expect("a call");
            let header = msg.as_call().expect("a call");
            assert_eq!((header.prog, header.vers), (0x4000_0000, 1));
            let mut results = Vec::new();
            if header.proc == 1 {
                let mut ops = CompoundDecoder::new_callback(body, 4).expect("CB_COMPOUND");
                let Some(Ok(CbArgOp::CbSequence(args))) = ops.next() else { panic!("CB_SEQUENCE first") };
                let ok = callback::CbSequenceResOk {
                    sessionid,
                    sequenceid: args.sequenceid,
                    slotid: 0,
                    highest_slotid: 0,
                    target_highest_slotid: 0,
                };
                let res = CbCompound4Res::new(b"", vec![CbResOp::CbSequence(Nfs4Result::Ok(ok))]);
                let mut w = xdr::XdrWriter::new();
                xdr::XdrEncode::encode(&res, &mut w);
                results = w.to_vec();
            }
            let reply = onc_rpc::RpcMessage::reply(msg.xid, onc_rpc::ReplyBody::success(onc_rpc::OpaqueAuth::NONE));
            let mut w = reply.header_writer(results.len());
            w.put_raw(&results);
            conn.send(&w.to_vec());
            answered += 1;
        }
        seq += 1;
        conn.compound(vec![sequence(seq)]);
    }
    seq += 1;
    let last = conn.compound(vec![sequence(seq)]);
    let res = Compound4Res::decode_reply(&last, &[OpNum4::Sequence]).expect("SEQUENCE reply");
    let [NfsResOp::Sequence(Nfs4Result::Ok(flags))] = &res.resarray[..] else { panic!("{res:?}") };
    assert_eq!(
        flags.status_flags & (SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION),
        0,
        "the back channel is up"
    );
    drop(conn);
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let output = child.wait_with_output().expect("exit");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "exit {:?}, stderr: {stderr}", output.status);
    assert!(stderr.contains("nfs4: lease_secs 90"), "the [nfs4] settings in force: {stderr}");
    for row in ["COMPOUND", "EXCHANGE_ID", "CREATE_SESSION", "SEQUENCE"] {
        assert!(stdout.contains(row), "the statistics have {row}: {stdout}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rdma_flags_without_rdma_exit_2_naming_them() {
    let output = serve_fails(&["--rdma-listen", "127.0.0.1:20049"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--rdma-listen") && stderr.contains("--rdma"), "{stderr}");
}

#[test]
fn the_verbs_provider_without_an_rdma_device_exits_1_naming_it() {
    if std::fs::read_dir("/sys/class/infiniband").is_ok_and(|mut d| d.next().is_some()) {
        return; // this machine has an RDMA device: the verbs provider opens
    }
    let output = serve_fails(&["--listen", "127.0.0.1:0", "--rdma", "--rdma-provider", "verbs"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--rdma-provider verbs"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn completion_vectors_on_the_soft_provider_exit_2_naming_the_option() {
    let args = ["--listen", "127.0.0.1:0", "--rdma", "--rdma-listen", "127.0.0.1:0", "--rdma-provider", "soft"];
    let output = serve_fails(&[&args[..], &["--rdma-comp-vectors", "2"]].concat());
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--rdma-comp-vectors") && stderr.contains("no completion vectors"), "{stderr}");
}

#[test]
fn a_bad_backend_exits_2_naming_it() {
    let output = serve_fails(&["--export", "/x=floppy"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("floppy") && stderr.contains("--export"), "{stderr}");
}

#[test]
fn an_unknown_config_key_exits_2_naming_the_key_and_line() {
    let dir = scratch("config");
    let config = dir.join("serve.toml");
    std::fs::write(&config, "listeners = [\"127.0.0.1:0\"]\n[limits]\nmax_inflight = 3\n").expect("write");
    let output = serve_fails(&["--config", config.to_str().expect("utf-8 path")]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("max_inflight") && stderr.contains("serve.toml:3:"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_address_in_use_exits_1_naming_it() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = taken.local_addr().expect("addr").to_string();
    let output = serve_fails(&["--listen", &addr]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&addr), "{stderr}");
}
