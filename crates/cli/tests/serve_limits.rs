//! `[limits] max_connections` of `nfsbench serve --config` holds for the RPC-over-RDMA listener too.

mod cli_support;

use cli_support::{scratch, serve};
use std::io::Read;
use std::process::Stdio;

#[test]
fn the_configured_connection_cap_reaches_the_rdma_front_end() {
    let dir = scratch("serve-limits");
    let config = dir.join("serve.toml");
    std::fs::write(&config, "[limits]\nmax_connections = 3\n").expect("config");
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--export",
        "/export=mem:16MiB",
        "--rdma",
        "--rdma-provider",
        "soft",
        "--rdma-listen",
        "127.0.0.1:0",
        "--config",
        config.to_str().expect("utf-8 path"),
    ];
    let (mut child, _) = serve(&args, &dir.join("ready"), Stdio::null(), Stdio::piped());
    let _ = child.kill();
    let mut text = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut text).expect("read stderr");
    let _ = child.wait();
    assert!(text.contains("RPC-over-RDMA: at most 3 connections per listener"), "{text}");
    assert!(text.contains("max_connections 3"), "the TCP front end's limits line: {text}");
}
