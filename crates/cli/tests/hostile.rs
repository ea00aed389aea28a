//! The hostile-client suite: `nfsbench serve` attacked the way a careless or hostile peer can, each
//! attack with a good client beside it. For every case the good client (`nfsbench run`, 4 KiB random
//! reads at iodepth 8) runs once undisturbed and once under the attack, on the same server; under
//! attack it must keep 0.8× its IOPS and its p99 within 3× (`hostile_support`), a new client
//! must still mount, and the server's memory stay under its configured bound.
//!
//! The attacks themselves are the `hostile` crate's raw-socket clients. The cases that judge the good
//! client's figures run in release builds only (`make hostile`, part of `make test`): a debug build's
//! server spends ten times the CPU per call, which measures the build, not the defence. Cases that need
//! root (a `dir:` export whose files change owner) say so and pass without running when the tests are
//! not root.

mod cli_support;
mod hostile_support;

use std::fs::File;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use cli_support::{nfsbench, scratch, serve, stderr};
use hostile::checks::{write_by_owner_of_setid_file, ModeChange};
use hostile::proc_stat::rss_bytes;
use hostile::{Attack, AttackReport, Target};
use hostile_support::{good_client, judge, judged, new_client_mounts, Good, ATTACK_RAMP};

/// `nfsbench serve` on a free loopback port with a config file, its stderr kept in a file.
struct Server {
    child: Child,
    addr: SocketAddr,
    dir: PathBuf,
    log: PathBuf,
}

impl Server {
    fn start(name: &str, export: &str, config: &str) -> Server {
        let dir = scratch(name);
        let config_path = dir.join("serve.toml");
        std::fs::write(&config_path, config).expect("config");
        let log = dir.join("serve.log");
        let args = ["--listen", "127.0.0.1:0", "--export", export, "--config", path(&config_path)];
        let (child, addrs) = serve(
            &args,
            &dir.join("ready"),
            File::create(dir.join("serve.out")).expect("out"),
            File::create(&log).expect("log"),
        );
        Server { child, addr: addrs[0], dir, log }
    }

    fn target(&self) -> Target {
        Target { addr: self.addr, export: "/export".into() }
    }

    fn rss(&self) -> u64 {
        rss_bytes(self.child.id()).expect("the server is running")
    }

    fn log_len(&self) -> u64 {
        std::fs::metadata(&self.log).map_or(0, |m| m.len())
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn good_client(&self) -> Good {
        good_client(self.addr.port())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// What the good client saw beside an attack, and what the attack did.
struct Beside {
    undisturbed: Good,
    attacked: Good,
    report: AttackReport,
    mount: Result<(), String>,
    rss: u64,
}

/// Runs the good client undisturbed, then again while `attack` runs (after its ramp); checks a new
/// client mounting and the server's memory during the attack.
fn beside(server: &Server, attack: Attack) -> Beside {
    let undisturbed = server.good_client();
    let stop = AtomicBool::new(false);
    let target = server.target();
    std::thread::scope(|scope| {
        let attacker = scope.spawn(|| attack.run(&target, &stop));
        std::thread::sleep(ATTACK_RAMP);
        let attacked = server.good_client();
        let mount = new_client_mounts(server.addr);
        let rss = server.rss();
        stop.store(true, Ordering::Relaxed);
        let report = attacker.join().expect("attack thread").expect("the attack started");
        Beside { undisturbed, attacked, report, mount, rss }
    })
}

impl Beside {
    /// The one good client's verdict.
    fn judge(&self, case: &str) -> Vec<Result<(), String>> {
        let what = format!("attack {:?}; server RSS {} MiB", self.report, self.rss >> 20);
        vec![judge(case, self.undisturbed, self.attacked, &self.mount, &what)]
    }
}

/// [`beside`], judged (and measured again if a judgement fails, as [`judged`] says).
fn judged_beside(server: &Server, attack: Attack, case: &str) -> Beside {
    judged(case, || {
        let run = beside(server, attack);
        let verdict = run.judge(case);
        (run, verdict)
    })
}

/// Limits small enough for the attacks to reach in a test, with every timeout short.
const TIGHT: &str = "[limits]\n";

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good client's figures: run with --release (make hostile)")]
fn trickling_connections_past_the_cap_leave_room_for_new_clients() {
    // Issue 3 as reported: 1,100 connections each trickling one byte a second against the default cap
    // of 1,024 connections.
    let server = Server::start("trickle", "/export=mem:256MiB", &format!("{TIGHT}partial_record_timeout_secs = 3\n"));
    judged_beside(&server, Attack::Trickle { connections: 1100 }, "trickle");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good client's figures: run with --release (make hostile)")]
fn idle_connections_past_the_cap_leave_room_for_new_clients() {
    let server = Server::start("idle", "/export=mem:256MiB", &format!("{TIGHT}max_connections = 256\n"));
    judged_beside(&server, Attack::Idle { connections: 1000 }, "idle");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good client's figures: run with --release (make hostile)")]
fn unread_replies_cannot_take_the_servers_memory() {
    // Issue 4 as reported: 64 connections pipelining 1 MiB READs, never reading a reply, took the server
    // from 148 MB to 1.35 GB. Here the server-wide budget is 128 MiB.
    let budget: u64 = 128 << 20;
    let config = format!("{TIGHT}max_server_in_flight_bytes = {budget}\n");
    let server = Server::start("unread", "/export=mem:256MiB", &config);
    let before = server.rss();
    let connections = 64;
    let run = judged_beside(&server, Attack::UnreadReplies { connections }, "unread-replies");
    // The budget; per connection one call always admitted (a 1 MiB reply) and two 64 KiB buffers;
    // 32 MiB for the allocator's slack. Before the budget, each connection held about 19 MiB.
    let bound = before + budget + connections as u64 * ((1 << 20) + (128 << 10)) + (32 << 20);
    assert!(run.rss < bound, "server RSS {} MiB over its bound {} MiB", run.rss >> 20, bound >> 20);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good client's figures: run with --release (make hostile)")]
fn a_flood_of_bad_rpc_versions_does_not_flood_the_log() {
    // Issue 5 as reported: one warning line per refused call, 389 MiB of stderr in 8 s.
    let server = Server::start("bad-version", "/export=mem:256MiB", "");
    let before = server.log_len();
    let run = judged_beside(&server, Attack::BadVersion { connections: 1 }, "bad-version");
    let logged = server.log_len() - before;
    let seconds = ATTACK_RAMP.as_secs() + 6;
    assert!(run.report.calls > 10_000, "the flood sent only {} calls", run.report.calls);
    // A burst of 10 lines a second per call site, plus one summary line a second.
    assert!(logged < seconds * 20 * 400, "{logged} bytes of log for {} refused calls", run.report.calls);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(server.log_text().contains("more like this in the last second"), "no summary of the left-out lines");
}

#[test]
fn a_write_clears_set_id_bits_of_an_unprivileged_owners_file_on_a_ram_export() {
    // Issue 7: knfsd clears set-user-ID, and set-group-ID with group execute, on a write by a caller
    // without CAP_FSETID.
    let server = Server::start("setid-mem", "/export=mem:64MiB", NO_SQUASH);
    for (name, mode) in [("with-gx", 0o6755), ("without-gx", 0o6745)] {
        let change = write_by_owner_of_setid_file(&server.target(), name, mode).expect("the check's calls");
        assert_eq!(change.before, mode, "{name}: the set-ID bits were not set");
        assert_eq!(change.after, ModeChange::expected_after(mode), "{name}: mode {:o} after the write", change.after);
    }
}

#[test]
fn a_write_clears_set_id_bits_of_an_unprivileged_owners_file_on_a_directory_export() {
    if !is_root() {
        eprintln!("skipped: changing a file's owner on a dir: export needs root");
        return;
    }
    let data = scratch("setid-dir-data");
    let server = Server::start("setid-dir", &format!("/export=dir:{}", path(&data)), NO_SQUASH);
    for (name, mode) in [("with-gx", 0o6755), ("without-gx", 0o6745)] {
        let change = write_by_owner_of_setid_file(&server.target(), name, mode).expect("the check's calls");
        assert_eq!(change.before, mode, "{name}: the set-ID bits were not set");
        assert_eq!(change.after, ModeChange::expected_after(mode), "{name}: mode {:o} after the write", change.after);
    }
    let _ = std::fs::remove_dir_all(&data);
}

/// The export's rules with root not squashed (the checks create files as root in a root-owned directory).
const NO_SQUASH: &str = "[[exports]]\npath = \"/export\"\nsquash = \"none\"\n";

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

/// A port free on loopback now (for a server that must come back on the same one).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// `nfsbench serve` of a `dir:` export on a fixed port with its own state directory.
fn serve_dir(dir: &Path, data: &Path, state: &Path, port: u16) -> Child {
    let ready = dir.join("ready");
    let _ = std::fs::remove_file(&ready);
    let listen = format!("127.0.0.1:{port}");
    let export = format!("/export=dir:{}", path(data));
    let config = dir.join("serve.toml");
    std::fs::write(&config, NO_SQUASH).expect("config");
    let args = ["--listen", &listen, "--export", &export, "--state-dir", path(state), "--config", path(&config)];
    let log = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("serve.log")).expect("log");
    serve(&args, &ready, std::process::Stdio::null(), log).0
}

#[test]
fn a_dir_export_killed_and_restarted_under_hard_mounted_verify_jobs_ends_clean() {
    // Issue 6 as reported: after kill -9 and a restart on the same directory and port every handle was
    // stale, the root's included, and the job failed. Handles of a dir: export must survive a restart;
    // FILE_SYNC data survives it, and unstable data whose verifier changed is written again.
    let dir = scratch("restart");
    let (data, state) = (dir.join("data"), dir.join("state"));
    std::fs::create_dir_all(&data).expect("data dir");
    let port = free_port();
    let options = format!("port={port},mountport={port},hard,timeo=5,retrans=2");
    // A write job (FILE_SYNC, read back and verified) and a read job whose file is laid out (unstable
    // WRITEs, then COMMIT) and verified.
    let jobs: [&[&str]; 2] = [
        &["--name=w", "--rw=write", "--bs=64k", "--size=96m", "--direct=1", "--iodepth=4", "--filename=w"],
        &["--name=r", "--rw=read", "--bs=64k", "--size=96m", "--iodepth=4", "--filename=r"],
    ];
    for job in jobs {
        let mut server = serve_dir(&dir, &data, &state, port);
        let client = nfsbench()
            .arg("run")
            .args(job)
            .args(["--verify=crc32c", "--output-format=json", "--target", "127.0.0.1:/export", "-o", &options])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("nfsbench run");
        std::thread::sleep(Duration::from_millis(400));
        server.kill().expect("kill -9 the server");
        server.wait().expect("reap");
        std::thread::sleep(Duration::from_millis(500));
        let mut server = serve_dir(&dir, &data, &state, port);
        let out = client.wait_with_output().expect("the job ends");
        let _ = server.kill();
        let _ = server.wait();
        let err = stderr(&out);
        assert!(out.status.success(), "{job:?} did not survive the restart: {err}");
        assert!(!err.contains("STALE") && !err.contains("verify"), "{job:?}: {err}");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("fio JSON");
        assert_eq!(json["jobs"][0]["error"], 0, "{job:?}: {}", json["jobs"][0]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
