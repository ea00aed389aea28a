//! The plans shipped in plans/ parse and validate, and the plan file refuses what it does not know.

use compare::plan::Plan;
use compare::plan_file::{parse, Defaults};
use compare::validate::validate;

const DEFAULTS: Defaults = Defaults { numjobs: 2, size: 64 << 20 };

fn repo_plan(name: &str) -> String {
    let path = format!("{}/../../plans/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_netapp_plan_has_ten_cases_and_runs_every_one_of_them() {
    let plan = parse(&repo_plan("netapp-study.toml"), DEFAULTS).expect("parses");
    assert_eq!(plan.cases.len(), 10);
    assert_eq!(plan.workloads.len(), 4);
    assert_eq!(validate(&plan, None).expect("valid"), vec![None; 10], "NFSv3 and NFSv4.1 alike");
    let rp = plan.cases.iter().find(|c| c.name == "v3-rdma-nconnect4-rp4").expect("case");
    assert_eq!(rp.mount_options(), "vers=3,proto=rdma,nconnect=4,remoteports=127.0.0.1-127.0.0.4");
    let v41 = plan.cases.iter().find(|c| c.name == "v41-rdma-nconnect4-rp4").expect("case");
    assert_eq!(v41.mount_config().expect("parses").spec.connection_addrs().expect("addresses").len(), 4);
}

#[test]
fn the_block_plan_attaches_four_transports_from_the_lab_targets_names() {
    let plan = parse(&repo_plan("block.toml"), DEFAULTS).expect("parses");
    assert_eq!((plan.cases.len(), plan.workloads.len(), plan.wire), (4, 4, false));
    assert!(plan.cases.iter().all(|c| c.is_block() && c.is_kernel()));
    assert!(validate(&plan, None).is_err(), "a block plan needs a target");
    assert_eq!(validate(&plan, Some("10.99.0.1")).expect("valid"), vec![None; 4]);
}

#[test]
fn the_smb_direct_plan_is_microsofts_job_over_tcp_and_smb_direct() {
    let plan = parse(&repo_plan("smb-direct.toml"), DEFAULTS).expect("parses");
    assert_eq!((plan.cases.len(), plan.workloads.len(), plan.wire), (3, 1, false));
    assert!(plan.cases.iter().all(|c| c.is_smb() && c.is_kernel()));
    let w = &plan.workloads[0];
    assert_eq!((w.rw.as_str(), w.bs, w.iodepth, w.numjobs), ("randread", 4096, 10, 16));
    let fio: Vec<&str> = w.fio.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(fio, ["norandommap", "refill_buffers"]);
    assert_eq!(validate(&plan, Some("10.99.0.1")).expect("valid"), vec![None; 3]);
}

#[test]
fn the_v4_plan_crosses_four_cases_with_three_versions() {
    let plan = parse(&repo_plan("v4-vs-v3.toml"), DEFAULTS).expect("parses");
    let names: Vec<&str> = plan.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), 12);
    assert_eq!(&names[..3], ["tcp-v3", "tcp-v4.1", "tcp-v4.2"]);
    assert_eq!(plan.baseline, "tcp-v3");
    assert_eq!(validate(&plan, None).expect("valid"), vec![None; 12]);
}

#[test]
fn the_kernel_netapp_plan_mounts_all_ten_cases_with_the_kernel_client() {
    let plan = parse(&repo_plan("netapp-study-kernel.toml"), DEFAULTS).expect("parses");
    assert_eq!((plan.cases.len(), plan.workloads.len()), (10, 4));
    assert!(plan.cases.iter().all(compare::plan::Case::is_kernel));
    assert_eq!(validate(&plan, Some("filer:/export")).expect("valid"), vec![None; 10], "mount.nfs judges every case");
    let v41 = plan.cases.iter().find(|c| c.name == "v41-rdma").expect("case");
    assert_eq!(v41.mount_options(), "vers=4.1,proto=rdma,port=20049");
    let names: Vec<&str> = plan.cases.iter().map(|c| c.name.as_str()).collect();
    let ours = parse(&repo_plan("netapp-study.toml"), DEFAULTS).expect("parses");
    assert_eq!(names, ours.cases.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), "the same ten cases");
}

#[test]
fn the_scaling_plan_sweeps_three_parameters() {
    let plan = parse(&repo_plan("scaling.toml"), DEFAULTS).expect("parses");
    validate(&plan, None).expect("valid");
    assert_eq!(plan.sweeps.len(), 3);
    let bs = plan.sweep_workloads(&plan.sweeps[2]);
    assert_eq!(bs.iter().map(|w| w.bs).collect::<Vec<_>>(), vec![4 << 10, 64 << 10, 1 << 20, 16 << 20]);
    assert!(bs.iter().all(|w| w.job_name == "seq-write" && w.end_fsync), "sweep points share the files");
    assert_eq!(bs[1].name, "seq-write@bs=64KiB");
}

#[test]
fn unknown_keys_and_bad_values_are_refused_by_name() {
    let typo = "reps = 3\n[[case]]\nname = \"a\"\nprot = \"tcp\"\n";
    assert!(parse(typo, DEFAULTS).unwrap_err().to_string().contains("prot"));
    let bad_size = "[[workload]]\nname = \"w\"\nrw = \"read\"\nbs = \"1x\"\n";
    assert!(parse(bad_size, DEFAULTS).unwrap_err().to_string().contains("bs '1x'"));
    let mut plan = Plan::default_for(DEFAULTS);
    plan.baseline = "nope".into();
    assert!(validate(&plan, None).unwrap_err().to_string().contains("baseline 'nope'"));
    let mut plan = Plan::default_for(DEFAULTS);
    plan.cases[1].options = Some("bogus=1".into());
    assert!(validate(&plan, None).unwrap_err().to_string().contains("bogus"));
    let mut plan = Plan::default_for(DEFAULTS);
    plan.cases[1].name = "tcp".into();
    assert!(validate(&plan, None).unwrap_err().to_string().contains("used twice"));
    let mut plan = Plan::default_for(DEFAULTS);
    plan.cases[0].rdma_credits = Some(32);
    assert!(validate(&plan, None).unwrap_err().to_string().contains("proto=rdma only"));
}

#[test]
fn errors_name_the_key_and_the_owner_in_full_sentences() {
    let cases = [
        ("reps = 0\n", "reps = 0 is not 1..=100"),
        ("runtime = \"2x\"\n", "runtime '2x' is not a duration (2s, 500ms)"),
        ("[[case]]\nname = \"a\"\nrsize = \"big\"\n", "case 'a': rsize 'big' is not a size"),
        (
            "[[workload]]\nname = \"w\"\nrw = \"read\"\nbs = \"1m\"\nrtt = \"far\"\n",
            "workload 'w': rtt 'far' is neither a round trip (20ms) nor a distance (8600mi, 100km)",
        ),
        (
            "[[sweep]]\nparameter = \"depth\"\nvalues = [1]\nworkload = \"w\"\n",
            "sweep parameter 'depth' is not iodepth, numjobs, bs, clients or rtt",
        ),
        (
            "[[sweep]]\nparameter = \"iodepth\"\nvalues = [\"x\"]\nworkload = \"w\"\n",
            "sweep of iodepth on 'w': 'x' is not a number or size",
        ),
        (
            "[[workload]]\nname = \"w\"\nrw = \"seek\"\nbs = \"1m\"\n",
            "workload 'w': rw 'seek' is not read, write, randread, randwrite, rw or randrw",
        ),
        ("[[workload]]\nname = \"w\"\nrw = \"read\"\nbs = 100\n", "workload 'w': bs = 100 is not 512..=67108864"),
        (
            "[[sweep]]\nparameter = \"iodepth\"\nvalues = [1]\nworkload = \"w\"\n",
            "sweep of iodepth: workload 'w' is not in the plan",
        ),
    ];
    for (text, message) in cases {
        let error = match parse(text, DEFAULTS) {
            Ok(plan) => validate(&plan, None).expect_err(text).to_string(),
            Err(e) => e.to_string(),
        };
        assert_eq!(error, message, "{text}");
    }
    let toml = parse("reps = [\n", DEFAULTS).expect_err("not TOML").to_string();
    assert!(!toml.contains('\n') && toml.contains("line 1"), "one line, placed: {toml}");
}

#[test]
fn the_default_plan_is_the_four_cases_and_four_workloads_of_the_studies() {
    let plan = Plan::default_for(DEFAULTS);
    let names: Vec<&str> = plan.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["tcp", "tcp-nconnect4", "rdma", "rdma-2qp"]);
    assert_eq!(plan.cases[3].mount_options(), "vers=3,proto=rdma,nconnect=2");
    assert_eq!(plan.workloads.len(), 4);
    assert_eq!(validate(&plan, None).expect("valid"), vec![None; 4]);
    let w = &plan.workloads[2];
    assert_eq!(w.description(), "4KiB random read, iodepth 32, 2 jobs");
    let args = w.fio_args(std::time::Duration::from_millis(300), std::time::Duration::from_millis(100));
    assert!(args.contains(&"--runtime=300ms".to_string()) && args.contains(&"--ramp_time=100ms".to_string()));
}

#[test]
fn the_clients_plan_sweeps_client_processes_under_mpirun() {
    let plan = parse(&repo_plan("clients.toml"), DEFAULTS).expect("parses");
    validate(&plan, None).expect("valid");
    assert!(plan.uses_mpi());
    assert!(plan.workloads.iter().all(|w| w.clients == Some(1)), "every cell under mpirun, one file layout");
    let points = plan.sweep_workloads(&plan.sweeps[0]);
    assert_eq!(points.iter().map(|w| w.clients).collect::<Vec<_>>(), [Some(1), Some(2), Some(4), Some(6)]);
    assert_eq!(points[2].name, "seq-read-1m@clients=4");
    assert_eq!(points[2].description(), "1MiB sequential read, iodepth 8, 1 job, 4 clients");
    let zero = "[[workload]]\nname = \"w\"\nrw = \"read\"\nbs = \"1m\"\nclients = 0\n";
    let plan = parse(zero, DEFAULTS).expect("parses");
    assert!(validate(&plan, None).unwrap_err().to_string().contains("clients = 0"));
}

#[test]
fn the_distance_plan_sweeps_the_round_trip_over_an_emulated_link() {
    let plan = parse(&repo_plan("distance.toml"), DEFAULTS).expect("parses");
    validate(&plan, None).expect("valid");
    assert_eq!(plan.wan.as_ref().and_then(|w| w.rate_bps), Some(1_000_000_000));
    let points = plan.sweep_workloads(&plan.sweeps[0]);
    let rtts: Vec<u64> = points.iter().map(|w| w.rtt.expect("rtt").as_micros() as u64).collect();
    // 8,600 miles ≈ 13,840 km ≈ 138.4 ms at 5 µs/km each way.
    assert_eq!(rtts[0], 0);
    assert!((138_000..139_000).contains(&rtts[5]), "{rtts:?}");
    assert_eq!(plan.link_for(&points[0]).map(|l| l.rtt.as_micros()), Some(0), "the LAN point keeps the rate");
    let far = plan.link_for(&points[5]).expect("a link");
    assert_eq!(far.to_string(), format!("rtt={},rate=1gbit", mount_options::link::format_time(far.rtt)));
    assert!(points[5].name.starts_with("seq-read-1m@rtt=138.40"), "{}", points[5].name);
    assert!(points[5].description().contains("RTT 138.40"), "{}", points[5].description());
    // Without a plan link, a zero round trip is no emulation at all.
    let mut bare = plan.clone();
    bare.wan = None;
    assert_eq!(bare.link_for(&points[0]), None);
    assert_eq!(bare.link_for(&points[1]).map(|l| l.rate_bps), Some(None));
    for bad in ["[[sweep]]\nparameter = \"rtt\"\nvalues = [\"20\"]\nworkload = \"seq-read-1m\"\n", "wan = \"rtt=1\"\n"]
    {
        let e = parse(bad, DEFAULTS).map(|p| validate(&p, None)).expect_err(bad);
        let e = e.to_string();
        assert!(e.contains("rtt") || e.contains("20"), "{bad}: {e}");
    }
}

#[test]
fn a_cases_options_string_is_read_as_case_reads_it_and_its_own_keys_win() {
    let text = "[[case]]\nname = \"r\"\noptions = \"rdma,nconnect=2,timeo=600\"\n\n[[case]]\nname = \"t\"\n\
                proto = \"tcp\"\nnconnect = 4\noptions = \"proto=rdma,nconnect=2\"\n";
    let plan = parse(text, DEFAULTS).expect("parses");
    let (r, t) = (&plan.cases[0], &plan.cases[1]);
    assert_eq!((r.proto.to_string(), r.nconnect, r.options.as_deref()), ("rdma".into(), 2, Some("timeo=600")));
    assert_eq!(r.mount_options(), "vers=3,proto=rdma,nconnect=2,timeo=600");
    assert_eq!((t.proto.to_string(), t.nconnect), ("tcp".into(), 4), "the case's own keys win over options");
}

#[test]
fn a_case_with_a_list_of_versions_becomes_one_case_per_version_and_the_baseline_its_first() {
    let text = r#"
        baseline = "tcp"
        [[case]]
        name = "tcp"
        vers = ["3", "4.1", 4.2]
        [[case]]
        name = "rdma"
        proto = "rdma"
    "#;
    let plan = parse(text, DEFAULTS).expect("parses");
    let cases: Vec<(&str, &str)> = plan.cases.iter().map(|c| (c.name.as_str(), c.vers.as_str())).collect();
    assert_eq!(cases, [("tcp-v3", "3"), ("tcp-v4.1", "4.1"), ("tcp-v4.2", "4.2"), ("rdma", "3")]);
    assert_eq!(plan.baseline, "tcp-v3");
}

#[test]
fn versions_crosses_every_case_of_the_plan() {
    let text = r#"
        versions = ["3", "4.2"]
        [[case]]
        name = "tcp"
        [[case]]
        name = "rdma"
        proto = "rdma"
        nconnect = 2
    "#;
    let plan = parse(text, DEFAULTS).expect("parses");
    let names: Vec<&str> = plan.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["tcp-v3", "tcp-v4.2", "rdma-v3", "rdma-v4.2"]);
    assert_eq!(plan.cases[3].mount_options(), "vers=4.2,proto=rdma,nconnect=2");
    assert_eq!(plan.baseline, "tcp-v3");
}

#[test]
fn versions_beside_a_case_list_of_versions_and_an_empty_list_are_refused_by_name() {
    let both = "versions = [\"3\"]\n[[case]]\nname = \"a\"\nvers = [\"3\", \"4.1\"]\n";
    assert!(parse(both, DEFAULTS).expect_err("refused").to_string().contains("versions"));
    let empty = "[[case]]\nname = \"a\"\nvers = []\n";
    assert_eq!(parse(empty, DEFAULTS).expect_err("refused").to_string(), "case 'a': vers is an empty list");
}
