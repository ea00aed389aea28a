//! `nfsbench serve` as users run it: the built binary on a free loopback port, spoken to over TCP.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod cli_support;

use cli_support::{nfsbench, scratch, serve};
use nfs3_proto::mount::MountRes3;
use onc_rpc::{frame_record, AuthSysParms, CallHeader, OpaqueAuth, RecordDecoder, RecordLimits, ReplyBody, RpcMessage};
use onc_rpc::{MAX_FRAGMENT_LEN, MOUNT_PROGRAM, NFS_PROGRAM};

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

/// One RPC exchange on `stream`: an AUTH_SYS call, the accepted-success reply's results.
fn call(stream: &mut TcpStream, xid: u32, prog: u32, proc: u32, args: &[u8]) -> Vec<u8> {
    let mut cred_buf = Vec::new();
    let cred = AuthSysParms::new(1, b"e2e", 0, 0, &[0]).expect("cred").to_opaque_auth(&mut cred_buf);
    let mut w = RpcMessage::call(xid, CallHeader::new(prog, 3, proc, cred, OpaqueAuth::NONE)).header_writer(args.len());
    w.put_raw(args);
    stream.write_all(&frame_record(&w.to_vec(), MAX_FRAGMENT_LEN as usize)).expect("send");
    let mut decoder = RecordDecoder::new(RecordLimits::default());
    let mut buf = [0u8; 4096];
    let record = loop {
        if let Some(record) = decoder.pop() {
            break record;
        }
        let n = stream.read(&mut buf).expect("read");
        assert!(n > 0, "server closed the connection");
        decoder.push(&buf[..n]).expect("well-formed record");
    };
    let (msg, results) = RpcMessage::decode(&record).expect("reply");
    assert_eq!(msg.xid, xid);
    assert_eq!(msg.as_reply(), Some(&ReplyBody::success(OpaqueAuth::NONE)));
    results.to_vec()
}

#[test]
fn serves_null_and_mount_then_prints_statistics_on_sigterm() {
    let dir = scratch("e2e");
    let ready = dir.join("ready");
    let (child, addrs) = serve(&["--listen", "127.0.0.1:0"], &ready, Stdio::piped(), Stdio::piped());
    assert_eq!(addrs.len(), 1);
    assert_ne!(addrs[0].port(), 0, "the ready file has the port actually bound");

    let mut stream = TcpStream::connect(addrs[0]).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    assert!(call(&mut stream, 1, NFS_PROGRAM, 0, &[]).is_empty(), "NFS NULL has no results");
    let mut path = Vec::new();
    path.extend_from_slice(&7u32.to_be_bytes());
    path.extend_from_slice(b"/export\0");
    let results = call(&mut stream, 2, MOUNT_PROGRAM, 1, &path);
    match xdr::decode_exact::<MountRes3>(&results).expect("mountres3") {
        MountRes3::Ok(ok) => assert!(!ok.fhandle.is_empty()),
        MountRes3::Fail(e) => panic!("MNT /export: {e:?}"),
    }
    drop(stream);

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
