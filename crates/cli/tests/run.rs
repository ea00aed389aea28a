//! `nfsbench run` as users run it: the built binary against `nfsbench serve` on a free loopback port.
//! Exit statuses (0, 1, 2) and the one-line messages that name what was refused; fio's output formats.

mod cli_support;

use cli_support::{nfsbench, scratch, serve, stderr};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Output, Stdio};

/// `nfsbench serve` on a free port (and with `rdma`, RPC-over-RDMA on the soft provider on another),
/// killed on drop.
struct Served {
    child: Child,
    addr: SocketAddr,
    rdma: Option<SocketAddr>,
}

impl Served {
    fn start(name: &str) -> Served {
        Self::start_with(name, &[])
    }

    fn start_with(name: &str, extra: &[&str]) -> Served {
        let dir = scratch(name);
        let ready = dir.join("ready");
        let args = [&["--listen", "127.0.0.1:0", "--export", "/export=mem:512MiB"], extra].concat();
        let (child, addrs) = serve(&args, &ready, Stdio::null(), Stdio::null());
        Served { child, addr: addrs[0], rdma: addrs.get(1).copied() }
    }

    /// The embedded server with `--rdma` on the software provider, on a free port.
    fn start_rdma(name: &str) -> Served {
        Self::start_with(name, &["--rdma", "--rdma-provider", "soft", "--rdma-listen", "127.0.0.1:0"])
    }

    fn options(&self) -> String {
        match self.rdma {
            Some(rdma) => format!("proto=rdma,port={},mountport={}", rdma.port(), self.addr.port()),
            None => format!("port={0},mountport={0}", self.addr.port()),
        }
    }

    /// `nfsbench run ARGS --target 127.0.0.1:/export -o port=P,mountport=P` (over RDMA: proto=rdma and
    /// the soft provider).
    fn run(&self, args: &[&str]) -> Output {
        let provider: &[&str] = if self.rdma.is_some() { &["--rdma-provider", "soft"] } else { &[] };
        nfsbench()
            .arg("run")
            .args(args)
            .args(provider)
            .args(["--target", "127.0.0.1:/export", "-o", &self.options()])
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

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", stderr(out)))
}

#[test]
fn help_lists_the_contract_and_exits_0() {
    let out = nfsbench().args(["run", "--help"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in ["--target", "nconnect", "remoteports", "--output-format", "verify"] {
        assert!(text.contains(needle), "help lacks {needle}");
    }
}

#[test]
fn bad_usage_exits_2_with_one_line_naming_what_was_refused() {
    let cases: [(&[&str], &str); 5] = [
        (&["--name=a", "--size=1m", "--target", "h:/e", "-o", "vers=4.0"], "vers=4.0"),
        (&["--name=a", "--size=1m", "--target", "h:/e", "-o", "nconnect=4,bogus"], "bogus"),
        (&["--name=a", "--size=1m", "--zonemode=zbd", "--target", "h:/e"], "zonemode"),
        (&["--name=a", "--size=1m", "--rw=randread:8", "--target", "h:/e"], "randread:8"),
        (&["--name=a"], "--target"),
    ];
    for (args, named) in cases {
        let out = nfsbench().arg("run").args(args).output().expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(named), "{args:?}: message does not name {named}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line: {err}");
    }
}

#[test]
fn an_unreachable_server_exits_1_naming_the_target() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("probe").local_addr().expect("addr").port();
    let options = format!("port={port},mountport={port},timeo=10,retrans=1,soft");
    let out = nfsbench()
        .args(["run", "--name=a", "--size=1m", "--target", "127.0.0.1:/export", "-o", &options])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("127.0.0.1:/export"), "{}", stderr(&out));
}

#[test]
fn write_and_read_with_verify_give_fio_json_with_no_errors() {
    write_and_read_with_verify(Served::start("verify"), "tcp");
}

#[test]
fn write_and_read_with_verify_over_soft_rdma_name_the_provider() {
    write_and_read_with_verify(Served::start_rdma("verify-rdma"), "rdma (soft (shared memory, one host))");
}

#[test]
fn rdma_flags_on_a_tcp_mount_are_refused_by_name() {
    let out = nfsbench()
        .args(["run", "--name=a", "--size=1m", "--rdma-credits=32", "--target", "127.0.0.1:/export"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--rdma-credits"), "{}", stderr(&out));
}

fn write_and_read_with_verify(served: Served, transport: &str) {
    let write = served.run(&[
        "--name=v",
        "--rw=write",
        "--bs=256k",
        "--size=16m",
        "--verify=crc32c",
        "--verify_interval=4k",
        "--output-format=json",
    ]);
    assert_eq!(write.status.code(), Some(0), "{}", stderr(&write));
    let j = json(&write);
    assert_eq!(j["jobs"][0]["error"], 0);
    assert_eq!(j["jobs"][0]["write"]["io_bytes"], 16 << 20);
    let read = served.run(&[
        "--name=v",
        "--rw=randread",
        "--bs=4k",
        "--size=16m",
        "--iodepth=16",
        "--verify=crc32c",
        "--verify_interval=4k",
        "--output-format=json+",
    ]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
    let j = json(&read);
    let job = &j["jobs"][0];
    assert_eq!(job["nfsbench_verify_errors"], 0);
    assert_eq!(job["read"]["total_ios"], 4096);
    assert!(job["read"]["clat_ns"]["bins"].as_object().is_some_and(|b| !b.is_empty()), "json+ has bins");
    assert!(job["read"]["clat_ns"]["percentile"]["99.000000"].as_u64().is_some());
    assert_eq!(j["nfsbench"]["notes"]["transport"], transport);
}

#[test]
fn a_study_job_file_runs_unmodified_with_group_reporting() {
    let served = Served::start("study");
    let dir = scratch("study-job");
    let job = dir.join("study.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=libaio\ndirect=1\ndirectory=/mnt/nfs\nsize=16m\nruntime=60\ntime_based\n\
         group_reporting\niodepth=16\nnumjobs=2\n\n[seq-read-1m]\nrw=read\nbs=1M\nstonewall\n\n\
         [rand-read-4k]\nrw=randread\nbs=4k\nstonewall\n",
    )
    .expect("job file");
    let out = served.run(&[path(&job), "--runtime=1", "--output-format=json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let j = json(&out);
    let jobs = j["jobs"].as_array().expect("jobs");
    assert_eq!(jobs.len(), 2, "one merged entry per group");
    assert_eq!(jobs[0]["jobname"], "seq-read-1m");
    assert_eq!(jobs[1]["groupid"], 1);
    assert!(jobs.iter().all(|x| x["read"]["iops"].as_f64().is_some_and(|v| v > 0.0)));
    let err = stderr(&out);
    assert!(err.contains("ioengine=libaio"), "the ignored engine is told: {err}");
    assert!(err.contains("/mnt/nfs is taken as the mount point"), "{err}");
}

#[test]
fn normal_output_goes_to_the_output_file() {
    let served = Served::start("normal");
    let file = scratch("normal-out").join("result.txt");
    let out = served.run(&["--name=n", "--rw=randwrite", "--bs=4k", "--size=2m", "--output", path(&file)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let text = std::fs::read_to_string(&file).expect("output file");
    assert!(text.contains("n: (groupid=0, jobs=1): err= 0"), "{text}");
    assert!(text.contains("Run status group 0 (all jobs):"), "{text}");
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}
