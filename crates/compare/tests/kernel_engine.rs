//! The kernel engine in a plan: how cases choose it, what validation refuses, the `nfsbench run`
//! arguments a kernel case gets, and a plan whose one case fails to mount (a stand-in `nfsbench` that
//! refuses RDMA mounts as mount.nfs would) measuring every other case.

mod stand_in;
mod support;

use compare::execute::{execute, Setup};
use compare::plan::{Case, Engine, Plan, Workload};
use compare::plan_file::{parse, Defaults};
use compare::validate::validate;
use std::path::Path;
use std::time::Duration;

use support::remote_setup;

const DEFAULTS: Defaults = Defaults { numjobs: 1, size: 1 << 20 };

#[test]
fn a_plan_or_a_case_chooses_the_kernel_engine_and_a_bad_name_is_refused() {
    let plan =
        parse("engine = \"kernel\"\n[[case]]\nname = \"a\"\n[[case]]\nname = \"b\"\nengine = \"nfsbench\"\n", DEFAULTS)
            .expect("parses");
    assert_eq!(plan.cases.iter().map(|c| c.engine).collect::<Vec<_>>(), vec![Engine::Kernel, Engine::Nfsbench]);
    let plan = parse("engine = \"kernel\"\n", DEFAULTS).expect("parses");
    assert!(plan.cases.iter().all(Case::is_kernel), "the default cases take the plan's engine");
    let e = parse("[[case]]\nname = \"a\"\nengine = \"fuse\"\n", DEFAULTS).expect_err("unknown engine");
    assert_eq!(e.to_string(), "case 'a': engine 'fuse' is not nfsbench or kernel");
}

#[test]
fn kernel_cases_pass_nfsv4_through_and_refuse_what_only_nfsbench_does() {
    let mut plan = Plan::default_for(DEFAULTS);
    plan.cases = vec![Case::from_options("v41", "vers=4.1,proto=tcp,nconnect=4"), Case::from_options("v3", "vers=3")];
    plan.baseline = "v3".into();
    plan.set_engine(Engine::Kernel);
    assert_eq!(validate(&plan, Some("10.0.0.1:/srv")).expect("valid"), vec![None, None], "mount.nfs judges vers=4.1");

    let mut rdma = plan.clone();
    rdma.cases[0] = Case { engine: Engine::Kernel, ..Case::from_options("v41", "vers=4.1,proto=rdma") };
    let e = validate(&rdma, None).expect_err("the embedded server's RDMA is the soft provider");
    assert!(e.to_string().contains("case 'v41': the kernel's RPC-over-RDMA needs an RDMA device"), "{e}");
    rdma.cases[0].rdma_credits = Some(32);
    let e = validate(&rdma, Some("h:/x")).expect_err("nfsbench's own flag");
    assert!(e.to_string().contains("rdma_credits and rdma_inline set nfsbench's own client"), "{e}");

    let mut far = plan.clone();
    far.workloads[0].rtt = Some(Duration::from_millis(20));
    assert!(validate(&far, Some("h:/x")).is_ok(), "the link goes on the path to a target");
    let e = validate(&far, None).expect_err("the embedded server's path never leaves the host");
    assert!(e.to_string().contains("long-distance link (workload 'seq-read-1m': rtt) on the path"), "{e}");
    far.wan = Some(mount_options::LinkSpec::parse("rate=1gbit,jitter=1ms").expect("spec"));
    let e = validate(&far, Some("h:/x")).expect_err("netem reorders jittered packets");
    assert!(e.to_string().contains("--wan jitter is not for the kernel engine"), "{e}");
}

#[test]
fn a_kernel_case_runs_nfsbench_run_engine_kernel_with_its_options_as_asked() {
    let setup = remote_setup("10.99.0.1:/srv/nfs");
    let mut case = Case::from_options("rdma", "vers=3,proto=rdma,rsize=4194304");
    case.engine = Engine::Kernel;
    let args = setup.run_args(&case, &["--rw=read".into()], None, Path::new("/o.json"));
    let joined = args.join(" ");
    assert!(
        joined.starts_with(
            "run --rw=read --target 10.99.0.1:/srv/nfs -o vers=3,proto=rdma,port=20049,rsize=4194304 --engine kernel"
        ),
        "{joined}"
    );
    assert!(!joined.contains("--rdma-provider"), "{joined}");
    let link = mount_options::LinkSpec::parse("rtt=20ms").expect("spec");
    let far = setup.run_args(&case, &["--rw=read".into()], Some(&link), Path::new("/o.json")).join(" ");
    assert!(far.contains("--engine kernel --wan rtt=20ms"), "the link goes on the path: {far}");
    let mut named = Case::from_options("rdma", "vers=3,proto=rdma,port=20050");
    named.engine = Engine::Kernel;
    assert_eq!(named.mount_options(), "vers=3,proto=rdma,port=20050", "a port given stays as given");
}

/// A stand-in for `nfsbench run`: refuses every RDMA mount with mount.nfs's words, and writes a small
/// json+ result with a kernel section for the others.
const FAKE_RUN: &str = r#"#!/bin/sh
out=; opts=
while [ $# -gt 0 ]; do
  case $1 in --output) out=$2; shift ;; -o) opts=$2; shift ;; esac
  shift
done
case $opts in *proto=rdma*)
  echo "nfsbench run: mount.nfs 10.99.0.1:/srv -o $opts failed (exit status: 32): mount.nfs: access denied by server" >&2
  exit 1 ;;
esac
cat > "$out" <<JSON
{"timestamp_ms": 2000, "nfsbench": {"runtime_ms": 1000, "notes": {"transport": "kernel nfs client, tcp"},
  "kernel": {"negotiated": "rw,vers=3,rsize=1048576,proto=tcp", "transports": 4,
             "differs": ["rsize: asked 4194304, negotiated 1048576"],
             "window": {"rpcs": 110, "retransmissions": 2, "timeouts": 0, "data_rpcs": 100,
                        "bytes_sent": 20000, "bytes_received": 1100000,
                        "rtt_ms_total": 50.0, "exec_ms_total": 70.0, "backlog_ms_total": 5.0}}},
 "jobs": [{"jobname": "w", "error": 0, "job_runtime": 1000, "usr_cpu": 1.0, "sys_cpu": 1.0,
           "read": {"io_bytes": 1048576, "total_ios": 100, "bw_bytes": 1048576, "iops": 100.0,
                    "clat_ns": {"mean": 1000.0, "bins": {"1000": 100}}},
           "write": {"io_bytes": 0, "total_ios": 0, "bw_bytes": 0, "iops": 0.0, "clat_ns": {"mean": 0.0}}}]}
JSON
"#;

#[test]
fn a_case_that_cannot_mount_is_marked_failed_and_the_rest_is_measured() {
    let (dir, exe) = stand_in::stand_in("kernel-engine", FAKE_RUN);

    let mut plan = Plan::default_for(DEFAULTS);
    // The baseline fails: the files are laid out over the next case, which works.
    plan.cases = vec![
        Case::from_options("rdma", "vers=3,proto=rdma"),
        Case::from_options("tcp", "vers=3,proto=tcp,rsize=4194304"),
        Case::from_options("tcp4", "vers=3,proto=tcp,nconnect=4"),
    ];
    plan.baseline = "rdma".into();
    plan.set_engine(Engine::Kernel);
    plan.workloads = vec![Workload::new("w", "read", 4096, 1, 1, 1 << 20)];
    plan.reps = 2;
    plan.wire = false;
    let unsupported = validate(&plan, Some("10.99.0.1:/srv")).expect("valid");
    let setup = Setup {
        exe,
        target: Some("10.99.0.1:/srv".into()),
        out_dir: dir.clone(),
        rdma_provider: "verbs".into(),
        provider: None,
        wire_peer: None,
        hostfile: None,
        cpus: 2,
    };
    let finished = execute(&plan, &unsupported, &setup).expect("the plan goes on");
    let report = &finished.report;
    let failed = finished.failed_cases();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].starts_with("rdma: ") && failed[0].contains("access denied by server"), "{failed:?}");
    let cells: Vec<&str> = report.cells.iter().map(|c| c.case.as_str()).collect();
    assert_eq!(cells, vec!["tcp", "tcp4"]);
    let tcp = report.cases.iter().find(|c| c.case.name == "tcp").expect("tcp row");
    let n = tcp.negotiation.as_ref().expect("negotiation read back");
    assert_eq!((n.transports, n.differs.len()), (4, 1));
    let k = report.cells[0].kernel.as_ref().expect("kernel counters");
    assert_eq!((k.rpcs, k.retransmissions, k.bytes_received), (220, 4, 2_200_000), "summed over 2 repetitions");
    assert!((k.rtt_ms - 0.5).abs() < 1e-9 && (k.exec_ms - 0.7).abs() < 1e-9, "{k:?}");
    let text = compare::render::terminal::to_terminal(report);
    assert!(text.contains("rdma: failed: "), "{text}");
    assert!(text.contains("DIFFERS FROM ASKED: rsize: asked 4194304, negotiated 1048576"), "{text}");
    let md = compare::render::markdown::to_markdown(report);
    assert!(
        md.contains("| tcp | `vers=3,proto=tcp,rsize=4194304` | `rw,vers=3,rsize=1048576,proto=tcp` | 4 |"),
        "{md}"
    );
    let csv = compare::render::csv::results_csv(report);
    assert!(csv.lines().nth(1).is_some_and(|l| l.contains(",kernel,") && l.contains(",220,4,0,0.5,0.7,")), "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}
