//! `mpirun -np 4 nfsbench run ...` against `nfsbench serve`: four clients at once, rank 0 writing the
//! merged result in fio's client-mode JSON. The merge is checked against the clients' own rows (bins
//! summed bucket by bucket, percentiles by fio's rule over the summed bins, exact means) and the bytes
//! against the server's own counters; then the clients run from four network namespaces (veth pairs,
//! private addresses made here) so the server sees four client hosts.
//! Needs Debian's openmpi-bin (scripts/install-deps.sh test) and, for the namespaces, root and iproute2.

mod cli_support;

use cli_support::{nfsbench, scratch, wait_ready};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

const RANKS: usize = 4;

/// `nfsbench serve` on `listen`, its stdout (the counters printed at exit) and stderr kept in files.
struct Served {
    child: Option<Child>,
    addr: SocketAddr,
    dir: PathBuf,
}

impl Served {
    fn start(name: &str, listen: &str, log: Option<&str>) -> Served {
        let dir = scratch(name);
        let ready = dir.join("ready");
        let mut cmd = nfsbench();
        cmd.args(["serve", "--listen", listen, "--export", "/export=mem:512MiB", "--ready-file"]).arg(&ready);
        if let Some(filter) = log {
            cmd.env("RUST_LOG", filter);
        }
        let stdout = std::fs::File::create(dir.join("serve.out")).expect("serve.out");
        let stderr = std::fs::File::create(dir.join("serve.err")).expect("serve.err");
        let mut child = cmd.stdout(stdout).stderr(stderr).spawn().expect("spawn serve");
        let addr = wait_ready(&mut child, &ready)[0];
        Served { child: Some(child), addr, dir }
    }

    /// Stops the server (SIGTERM, as a user would) and returns what it printed: (stdout, stderr).
    fn stop(mut self) -> (String, String) {
        if let Some(mut child) = self.child.take() {
            Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
            assert!(child.wait().expect("wait").success(), "the server exits cleanly on SIGTERM");
        }
        let read = |f: &str| std::fs::read_to_string(self.dir.join(f)).unwrap_or_default();
        (read("serve.out"), read("serve.err"))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `mpirun -np 4 [launcher] nfsbench run ARGS --output-format=json+ --output FILE` and the JSON rank 0 wrote.
fn mpirun(
    served: &Served,
    dir: &Path,
    name: &str,
    launcher: &[&str],
    mpi_env: &[(&str, &str)],
    args: &[&str],
) -> Value {
    let out_file = dir.join(format!("{name}.json"));
    let options = format!("port={0},mountport={0}", served.addr.port());
    let target = format!("{}:/export", served.addr.ip());
    let mut cmd = Command::new("mpirun");
    cmd.args(["--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,vader", "-np", &RANKS.to_string()]);
    for (key, value) in mpi_env {
        cmd.env(key, value).args(["-x", key]);
    }
    let out: Output = cmd
        .args(launcher)
        .arg(env!("CARGO_BIN_EXE_nfsbench"))
        .arg("run")
        .args(args)
        .args(["--target", &target, "-o", &options, "--output-format=json+", "--output"])
        .arg(&out_file)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("mpirun runs (scripts/install-deps.sh test installs openmpi-bin)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "mpirun failed: {stderr}");
    let text = std::fs::read_to_string(&out_file).unwrap_or_else(|e| panic!("rank 0 wrote no result ({e}): {stderr}"));
    serde_json::from_str(&text).expect("the result is JSON")
}

/// (per-client job objects, the "All clients" object) of a client-mode result with one job.
fn split(result: &Value) -> (Vec<&Value>, &Value) {
    let stats = result["client_stats"].as_array().expect("client_stats");
    let (all, clients): (Vec<&Value>, Vec<&Value>) = stats.iter().partition(|j| j["jobname"] == "All clients");
    assert_eq!((clients.len(), all.len()), (RANKS, 1), "one row per client and one 'All clients'");
    (clients, all[0])
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

fn bins(lat: &Value) -> BTreeMap<u64, u64> {
    lat["bins"].as_object().expect("json+ bins").iter().map(|(k, v)| (k.parse().expect("bin key"), u(v))).collect()
}

/// fio's percentile rule over summed bins: the first bin whose running count reaches p% of N, clamped to
/// [min, max].
fn percentile(bins: &BTreeMap<u64, u64>, p: f64, min: u64, max: u64) -> u64 {
    let n: u64 = bins.values().sum();
    let mut seen = 0;
    for (value, count) in bins {
        seen += count;
        if seen as f64 >= p / 100.0 * n as f64 {
            return (*value).clamp(min, max);
        }
    }
    max
}

/// The merged direction `dir` of "All clients" equals the merge of the clients' own: bytes and I/Os summed,
/// clat bins summed bucket by bucket, N, min, max, the exact mean, and percentiles from the summed bins.
fn assert_exact_merge(clients: &[&Value], all: &Value, dir: &str) {
    let sum = |key: &str| clients.iter().map(|c| u(&c[dir][key])).sum::<u64>();
    assert_eq!(u(&all[dir]["io_bytes"]), sum("io_bytes"), "{dir} bytes");
    assert_eq!(u(&all[dir]["total_ios"]), sum("total_ios"), "{dir} I/Os");
    let clat = |j: &Value| j[dir]["clat_ns"].clone();
    let mut summed = BTreeMap::new();
    for c in clients {
        for (value, count) in bins(&clat(c)) {
            *summed.entry(value).or_insert(0) += count;
        }
    }
    let merged = clat(all);
    assert_eq!(bins(&merged), summed, "{dir}: the merged histogram is the sum of the clients' histograms");
    let n: u64 = clients.iter().map(|c| u(&clat(c)["N"])).sum();
    assert_eq!(u(&merged["N"]), n);
    let (min, max) = (u(&merged["min"]), u(&merged["max"]));
    assert_eq!(min, clients.iter().map(|c| u(&clat(c)["min"])).min().expect("clients"));
    assert_eq!(max, clients.iter().map(|c| u(&clat(c)["max"])).max().expect("clients"));
    let weighted: f64 = clients.iter().map(|c| clat(c)["mean"].as_f64().expect("mean") * u(&clat(c)["N"]) as f64).sum();
    let mean = merged["mean"].as_f64().expect("mean");
    assert!((mean - weighted / n as f64).abs() <= 1e-9 * mean, "{dir}: mean {mean} vs {}", weighted / n as f64);
    for (p, value) in merged["percentile"].as_object().expect("percentiles") {
        let p: f64 = p.parse().expect("percentile key");
        assert_eq!(u(value), percentile(&summed, p, min, max), "{dir} p{p} from the summed bins, never averaged");
    }
}

/// Calls of an NFS procedure in the server's exit report ("NFSv3  WRITE  calls ...").
fn server_calls(report: &str, procedure: &str) -> u64 {
    report
        .lines()
        .find_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some("NFSv3") && words.next() == Some(procedure)).then(|| words.next())?
        })
        .and_then(|calls| calls.parse().ok())
        .unwrap_or(0)
}

#[test]
fn four_ranks_merge_exactly_and_match_the_servers_counters() {
    let dir = scratch("mpi-four-ranks");
    let served = Served::start("mpi-four-ranks-serve", "127.0.0.1:0", None);
    let job = ["--name=w", "--rw=write", "--bs=64k", "--size=4m", "--iodepth=4"];
    let write = mpirun(&served, &dir, "write", &[], &[], &job);
    let read_job = ["--name=w", "--rw=randread", "--bs=64k", "--size=4m", "--iodepth=4", "--time_based", "--runtime=1"];
    let read = mpirun(&served, &dir, "read", &[], &[], &read_job);
    let (report, _) = served.stop();

    let (clients, all) = split(&write);
    assert_exact_merge(&clients, all, "write");
    assert_eq!(u(&all["write"]["io_bytes"]), RANKS as u64 * (4 << 20), "every client wrote its 4 MiB");
    let (clients, all_read) = split(&read);
    assert_exact_merge(&clients, all_read, "read");
    let hosts: BTreeSet<&str> = clients.iter().map(|c| c["hostname"].as_str().expect("hostname")).collect();
    assert_eq!(hosts.len(), 1, "four ranks on this host: {hosts:?}");
    let ranks: Vec<u64> = clients.iter().map(|c| u(&c["nfsbench_rank"])).collect();
    assert_eq!(ranks, [0, 1, 2, 3]);
    // Each I/O is one call of 64 KiB (bs ≤ wsize): the server counted exactly what the clients report.
    assert_eq!(server_calls(&report, "WRITE"), u(&all["write"]["total_ios"]), "{report}");
    assert_eq!(server_calls(&report, "READ"), u(&all_read["read"]["total_ios"]), "{report}");
    assert_eq!(u(&all_read["read"]["io_bytes"]), server_calls(&report, "READ") * 65536);
    // "All clients" bandwidth is the sum: every byte over the longest client's run time.
    let longest = clients.iter().map(|c| u(&c["read"]["runtime"])).max().expect("clients");
    assert_eq!(u(&all_read["read"]["bw_bytes"]), u(&all_read["read"]["io_bytes"]) * 1000 / longest);
}

/// Network namespaces nfsbmpi-K with a veth pair each (10.199.K.1 here, 10.199.K.2 there), deleted on drop.
struct Namespaces {
    names: Vec<String>,
}

impl Namespaces {
    fn make(count: usize) -> Namespaces {
        let mut made = Namespaces { names: Vec::new() };
        for k in 0..count {
            let ns = format!("nfsbmpi-{k}");
            let (host, inside) = (format!("nfsbh{k}"), format!("nfsbc{k}"));
            let _ = Command::new("ip").args(["netns", "del", &ns]).status();
            made.names.push(ns.clone());
            for args in [
                vec!["netns", "add", &ns],
                vec!["link", "add", &host, "type", "veth", "peer", "name", &inside, "netns", &ns],
                vec!["addr", "add", &format!("10.199.{k}.1/24"), "dev", &host],
                vec!["link", "set", &host, "up"],
                vec!["-n", &ns, "addr", "add", &format!("10.199.{k}.2/24"), "dev", &inside],
                vec!["-n", &ns, "link", "set", &inside, "up"],
                vec!["-n", &ns, "link", "set", "lo", "up"],
                vec!["-n", &ns, "route", "add", "default", "via", &format!("10.199.{k}.1")],
            ] {
                let out = Command::new("ip").args(&args).output().expect("ip (iproute2)");
                assert!(out.status.success(), "ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
            }
        }
        made
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for ns in &self.names {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

#[test]
fn ranks_in_their_own_network_namespaces_are_four_client_hosts() {
    assert!(
        is_root(),
        "this test makes network namespaces and needs root (CI runs as root); run the other tests with --skip namespaces"
    );
    let namespaces = Namespaces::make(RANKS);
    let dir = scratch("mpi-namespaces");
    // Each rank enters its namespace and a UTS namespace named after it: a host of its own.
    let launcher = dir.join("in-namespace.sh");
    std::fs::write(
        &launcher,
        "#!/bin/sh\nk=$OMPI_COMM_WORLD_RANK\n\
         exec ip netns exec nfsbmpi-$k unshare --uts sh -c 'hostname client-'$k'; exec \"$@\"' sh \"$@\"\n",
    )
    .expect("launcher");
    Command::new("chmod").arg("+x").arg(&launcher).status().expect("chmod");
    let served = Served::start("mpi-namespaces-serve", "10.199.0.1:0", Some("server_tcp=debug"));
    // PMIx (mpirun's link to its ranks) listens on loopback by default, which the namespaces do not share:
    // it listens on the address they reach instead.
    let pmix = [("PMIX_MCA_ptl_tcp_remote_connections", "1"), ("PMIX_MCA_ptl_tcp_if_include", "nfsbh0")];
    let launcher = launcher.to_str().expect("path");
    let job = ["--name=w", "--rw=write", "--bs=64k", "--size=2m"];
    let result = mpirun(&served, &dir, "namespaces", &[launcher], &pmix, &job);
    let (report, log) = served.stop();
    drop(namespaces);

    let (clients, all) = split(&result);
    assert_exact_merge(&clients, all, "write");
    let hosts: Vec<&str> = clients.iter().map(|c| c["hostname"].as_str().expect("hostname")).collect();
    assert_eq!(hosts, ["client-0", "client-1", "client-2", "client-3"]);
    // The server saw connections from the four namespaces' addresses.
    let peers: BTreeSet<String> = log
        .lines()
        .filter(|l| l.contains("connection accepted"))
        .filter_map(|l| l.split("peer=").nth(1)?.split(':').next().map(str::to_string))
        .collect();
    let expected: BTreeSet<String> = (0..RANKS).map(|k| format!("10.199.{k}.2")).collect();
    assert_eq!(peers, expected, "{log}");
    assert_eq!(server_calls(&report, "WRITE"), u(&all["write"]["total_ios"]), "{report}");
}
