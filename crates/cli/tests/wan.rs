//! `--wan`: a long-distance link emulated on either side. The built binaries on loopback: 4 KiB random
//! reads one at a time take the link's round trip more than over plain loopback, whether the client
//! (`nfsbench run --wan`) or the server (`nfsbench serve --wan`) emulates it, over TCP and over
//! RPC-over-RDMA (soft provider) alike; bad specs are usage errors naming `--wan`.

mod cli_support;

use cli_support::{nfsbench, scratch, serve, stderr};
use std::net::SocketAddr;
use std::process::{Child, Output, Stdio};

/// `nfsbench serve` with `extra` flags on a free port, killed on drop.
struct Served {
    child: Child,
    addr: SocketAddr,
    /// The RPC-over-RDMA listener, with `--rdma`.
    rdma: Option<SocketAddr>,
}

impl Served {
    fn start(name: &str, extra: &[&str]) -> Served {
        let ready = scratch(name).join("ready");
        let args = [&["--listen", "127.0.0.1:0", "--export", "/export=mem:64MiB"], extra].concat();
        let (child, addrs) = serve(&args, &ready, Stdio::null(), Stdio::null());
        Served { child, addr: addrs[0], rdma: addrs.get(1).copied() }
    }

    /// `nfsbench serve --rdma` on the soft provider, with `extra` flags.
    fn start_rdma(name: &str, extra: &[&str]) -> Served {
        let rdma = ["--rdma", "--rdma-provider", "soft", "--rdma-listen", "127.0.0.1:0"];
        Self::start(name, &[&rdma[..], extra].concat())
    }

    /// One second of 4 KiB random reads at iodepth 1, as fio JSON, with `extra` flags.
    fn randread(&self, extra: &[&str]) -> Output {
        let options = match self.rdma {
            Some(rdma) => format!("proto=rdma,port={},mountport={}", rdma.port(), self.addr.port()),
            None => format!("port={0},mountport={0}", self.addr.port()),
        };
        let provider: &[&str] = if self.rdma.is_some() { &["--rdma-provider", "soft"] } else { &[] };
        nfsbench()
            .args(["run", "--name=r", "--rw=randread", "--bs=4k", "--iodepth=1", "--size=1m", "--runtime=1"])
            .args(["--time_based", "--output-format=json", "--target", "127.0.0.1:/export", "-o"])
            .arg(options)
            .args(provider)
            .args(extra)
            .output()
            .expect("run nfsbench run")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The JSON of a successful run, and its median completion latency in ms (the median: a few reads made
/// late by a loaded machine move the mean, not the median).
fn median_clat_ms(out: &Output) -> (serde_json::Value, f64) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let read = &j["jobs"][0]["read"];
    assert!(read["total_ios"].as_u64().is_some_and(|n| n > 10), "{read}");
    let median = read["clat_ns"]["percentile"]["50.000000"].as_f64().expect("clat median") / 1e6;
    (j, median)
}

/// The 10 ms round trip, applied once: at least 10 ms, and under the 20 ms a delay applied twice would take.
fn assert_ten_ms(median: f64) {
    assert!((10.0..20.0).contains(&median), "median completion latency {median:.3} ms over a 10 ms link");
}

#[test]
fn a_client_side_link_adds_its_round_trip_to_every_read() {
    let served = Served::start("wan-client", &[]);
    let out = served.randread(&["--wan", "rtt=10ms"]);
    let (j, median) = median_clat_ms(&out);
    eprintln!("run --wan rtt=10ms: median clat {median:.3} ms");
    assert_ten_ms(median);
    assert_eq!(j["nfsbench"]["notes"]["wan"], "rtt=10ms");
    // The connection reported is the real one to the server, not the relay's loopback pair.
    let connection = j["nfsbench"]["notes"]["connection.0"].as_str().expect("connection note");
    assert!(connection.ends_with(&format!("-> {}", served.addr)), "{connection}");
    let local: SocketAddr = connection.split(' ').next().and_then(|a| a.parse().ok()).expect("local address");
    assert_ne!(local.port(), served.addr.port());
    assert!(stderr(&out).contains("emulating a long-distance link on the client side: rtt=10ms"), "{}", stderr(&out));
    // Without the link the same reads take well under a millisecond.
    let (j, plain) = median_clat_ms(&served.randread(&[]));
    eprintln!("run without a link: median clat {plain:.3} ms");
    assert!(plain < 5.0, "median {plain:.3} ms without a link");
    assert!(j["nfsbench"]["notes"].get("wan").is_none());
}

#[test]
fn a_server_side_link_adds_its_round_trip_to_every_read() {
    let served = Served::start("wan-server", &["--wan", "rtt=10ms"]);
    let (_, median) = median_clat_ms(&served.randread(&[]));
    eprintln!("serve --wan rtt=10ms: median clat {median:.3} ms");
    assert_ten_ms(median);
}

#[test]
fn over_rdma_a_client_side_link_adds_its_round_trip_and_the_provider_says_so() {
    let served = Served::start_rdma("wan-client-rdma", &[]);
    let out = served.randread(&["--wan", "rtt=10ms"]);
    let (j, median) = median_clat_ms(&out);
    eprintln!("run -o proto=rdma --wan rtt=10ms: median clat {median:.3} ms");
    assert_ten_ms(median);
    let transport = j["nfsbench"]["notes"]["transport"].as_str().expect("transport note");
    assert!(transport.contains("soft") && transport.contains("emulated link (rtt=10ms)"), "{transport}");
}

#[test]
fn over_rdma_a_server_side_link_adds_its_round_trip() {
    let served = Served::start_rdma("wan-server-rdma", &["--wan", "rtt=10ms"]);
    let (_, median) = median_clat_ms(&served.randread(&[]));
    eprintln!("serve --rdma --wan rtt=10ms: median clat {median:.3} ms");
    assert_ten_ms(median);
}

#[test]
fn bad_specs_are_usage_errors_naming_wan() {
    let run = |extra: &[&str]| {
        nfsbench()
            .args(["run", "--name=r", "--rw=read", "--size=1m", "--target", "127.0.0.1:/export"])
            .args(extra)
            .output()
            .expect("run")
    };
    let serve =
        |extra: &[&str]| nfsbench().args(["serve", "--listen", "127.0.0.1:0"]).args(extra).output().expect("serve");
    for (out, needle) in [
        (run(&["--wan", "rtt=10ms,rate=1gbps"]), "rate=1gbps"),
        (run(&["--wan=distance=20parsecs"]), "distance=20parsecs"),
        (serve(&["--wan", "rtt=10ms,bandwidth=1gbit"]), "'bandwidth'"),
    ] {
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert_eq!(text.lines().count(), 1, "one line: {text}");
        assert!(text.contains("--wan") && text.contains(needle), "{needle}: {text}");
    }
}
