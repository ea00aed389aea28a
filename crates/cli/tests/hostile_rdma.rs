//! The hostile-client suite's RPC-over-RDMA cases: `nfsbench serve --rdma --rdma-provider soft`
//! attacked by soft-RDMA peers (any process of the server's host can be one), with the `hostile`
//! crate's requester.
//!
//! - Busy counters: peers raising every busy counter the server consults before it frees a
//!   registration, each sending a WRITE whose data the server RDMA-Reads, once froze the whole server.
//!   A good TCP client beside them must keep its IOPS and p99 (the judgement of `hostile.rs`), a new
//!   client must mount, and the server must drop the peers.
//! - Claimed address: a soft-RDMA client claiming in its Hello an address it does not have must not be
//!   served under the export rules of that address.

mod cli_support;
mod hostile_support;

use std::fs::File;
use std::net::{IpAddr, SocketAddr};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};

use cli_support::{scratch, serve};
use hostile::checks::{claimed_address, getattr_over_rdma, ClaimOutcome};
use hostile::{Attack, RawClient, Target};
use hostile_support::{good_client, judge, judged, new_client_mounts, Good, ATTACK_RAMP};
use nfs3_proto::NfsStat3;

/// Peers the busy-counter attack runs at once.
const PEERS: usize = 4;

/// `nfsbench serve` with TCP on a free loopback port and soft RDMA on `rdma_listen`.
struct Server {
    child: Child,
    tcp: SocketAddr,
    /// Where to dial the RDMA listener (loopback, whatever address it was bound to).
    rdma: SocketAddr,
}

impl Server {
    /// The server `name` (its files in `dir` are named after it) with `config`.
    fn start(dir: &std::path::Path, name: &str, config: &str, rdma_listen: &str) -> Server {
        let config_path = dir.join(format!("{name}.toml"));
        std::fs::write(&config_path, config).expect("config");
        let state = dir.join("state");
        let args = [
            "--listen",
            "127.0.0.1:0",
            "--config",
            config_path.to_str().expect("utf-8"),
            "--state-dir",
            state.to_str().expect("utf-8"),
            "--rdma",
            "--rdma-provider",
            "soft",
            "--rdma-listen",
            rdma_listen,
        ];
        let out = File::create(dir.join(format!("{name}.out"))).expect("out");
        let log = File::create(dir.join(format!("{name}.log"))).expect("log");
        let (child, addrs) = serve(&args, &dir.join(format!("{name}.ready")), out, log);
        let rdma = SocketAddr::new(IpAddr::from([127, 0, 0, 1]), addrs[1].port());
        Server { child, tcp: addrs[0], rdma }
    }

    fn target(&self) -> Target {
        Target { addr: self.tcp, export: "/export".into() }
    }

    /// The good client, over TCP.
    fn good_client(&self) -> Good {
        good_client(self.tcp.port())
    }

    fn new_client_mounts(&self) -> Result<(), String> {
        new_client_mounts(self.tcp)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "figures from a debug build mean nothing: run with --release (make hostile)")]
fn soft_rdma_peers_holding_busy_counters_neither_slow_a_good_client_nor_keep_their_connections() {
    let dir = scratch("rdma-busy");
    let server =
        // No Read targets kept (rdma_read_targets = 0): every WRITE's target is registered for it and
        // deregistered after, which is what the peers' raised busy counters go after.
        Server::start(
            &dir,
            "serve",
            "[[exports]]\npath = \"/export\"\nbackend = \"mem:256MiB\"\n[limits]\nrdma_read_targets = 0\n",
            "127.0.0.1:0",
        );
    let target = server.target();
    let attack = Attack::RdmaBusyCounters { connections: PEERS };
    let case = "rdma-busy-counters";
    let (rdma_getattr, report) = judged(case, || {
        let undisturbed = server.good_client();
        let stop = AtomicBool::new(false);
        let (attacked, mount, rdma_getattr, report) = std::thread::scope(|scope| {
            let attacker = scope.spawn(|| attack.run_with_rdma(&target, Some(server.rdma), &stop));
            std::thread::sleep(ATTACK_RAMP);
            let attacked = server.good_client();
            let mount = server.new_client_mounts();
            let mut root = RawClient::connect(server.tcp).expect("connect");
            let rdma_getattr = getattr_over_rdma(server.rdma, &root.mount("/export").expect("MOUNT"));
            stop.store(true, Ordering::Relaxed);
            let report = attacker.join().expect("attack thread").expect("the attack started");
            (attacked, mount, rdma_getattr, report)
        });
        let verdict = judge(case, undisturbed, attacked, &mount, &format!("attack {report:?}"));
        ((rdma_getattr, report), vec![verdict])
    });
    assert!(matches!(rdma_getattr, Ok(NfsStat3::Ok)), "an honest RDMA client during the attack: {rdma_getattr:?}");
    // Every peer but those cut short by the stop was dropped by the server.
    assert!(report.closed_by_server >= 1, "the server dropped no hostile peer: {report:?}");
    assert!(report.connected <= report.closed_by_server + PEERS as u64, "peers kept their connections: {report:?}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_soft_rdma_client_claiming_an_address_it_does_not_have_gets_no_access_its_export_rules_deny() {
    let claimed: IpAddr = "10.9.9.9".parse().expect("ip");
    let dir = scratch("rdma-claim");
    let data = dir.join("data");
    std::fs::create_dir_all(&data).expect("data dir");
    let export = |clients: &str| {
        format!("[[exports]]\npath = \"/export\"\nbackend = \"dir:{}\"\n{clients}", data.to_str().expect("utf-8"))
    };
    // The export's root handle, from a MOUNT while the export is open to everyone: handles of a dir:
    // export outlive the server (its key stays in the state directory).
    let root = {
        let open = Server::start(&dir, "open", &export(""), "127.0.0.1:0");
        RawClient::connect(open.tcp).expect("connect").mount("/export").expect("MOUNT")
    };
    // The same export open only to the claimed address, on a wildcard RDMA listener: the claim is an
    // address the listener would answer to, were it this host's.
    let server = Server::start(&dir, "closed", &export("clients = [\"10.9.9.9/32\"]\n"), "0.0.0.0:0");
    match claimed_address(server.rdma, claimed, &root).expect("the check's calls") {
        ClaimOutcome::Refused { reason } => {
            eprintln!("claimed address: refused: {reason:?}");
            assert!(reason.is_some_and(|r| r.contains("10.9.9.9")), "the refusal says why");
        }
        ClaimOutcome::Accepted { getattr } => {
            eprintln!("claimed address: accepted, GETATTR {getattr:?}");
            assert_ne!(getattr, NfsStat3::Ok, "a client claiming 10.9.9.9 was served under its export rules");
        }
    }
    // The handle is good and the rules hold: an honest local client is known as 127.0.0.1, refused.
    let honest = getattr_over_rdma(server.rdma, &root).expect("an honest client's GETATTR");
    assert_eq!(honest, NfsStat3::Acces, "an honest local client known as 127.0.0.1");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
