//! Block cases in a plan (NVMe/TCP, NVMe/RDMA, iSCSI, iSER): how a plan file writes them, what it and
//! validation refuse by name, and the `nfsbench run --engine kernel` arguments a block case gets.

mod support;

use compare::plan::{target_host, Case, CaseKind, Engine, Plan};
use compare::plan_file::{parse, Defaults};
use compare::validate::validate;
use kernel_attach::Kind;
use std::path::Path;

use support::remote_setup;

const DEFAULTS: Defaults = Defaults { numjobs: 1, size: 1 << 20 };

const FOUR: &str = r#"
baseline = "iscsi"
[[case]]
name = "iscsi"
kind = "iscsi"
[[case]]
name = "iser"
kind = "iser"
port = 3261
[[case]]
name = "nvme-tcp"
kind = "nvme-tcp"
options = "nr_io_queues=2,queue_size=64"
[[case]]
name = "nvme-rdma"
kind = "nvme-rdma"
nqn = "nqn.2014-08.org.example:other"
"#;

#[test]
fn a_plan_file_writes_block_cases_and_they_are_the_kernel_engines() {
    let plan = parse(FOUR, DEFAULTS).expect("parses");
    let kinds: Vec<_> = plan.cases.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [Kind::Iscsi, Kind::Iser, Kind::NvmeTcp, Kind::NvmeRdma].map(CaseKind::Block).to_vec(),
        "every kind as written"
    );
    assert!(plan.cases.iter().all(|c| c.engine == Engine::Kernel && c.is_block()));
    assert_eq!(plan.block_kinds().len(), 4);
    assert!(!plan.uses_kernel_nfs(), "no NFS case mounts");
    let urls: Vec<_> = plan.cases.iter().filter_map(|c| c.target_on("10.99.0.1")).collect();
    assert_eq!(
        urls,
        [
            "iscsi://10.99.0.1:3260/iqn.2026-11.io.nfsbench:ram0",
            "iser://10.99.0.1:3261/iqn.2026-11.io.nfsbench:ram0",
            "nvme-tcp://10.99.0.1:4420/nqn.2026-11.io.nfsbench:ram0",
            "nvme-rdma://10.99.0.1:4420/nqn.2014-08.org.example:other",
        ]
    );
    assert_eq!(plan.cases[2].mount_options(), "nr_io_queues=2,queue_size=64", "attach options as written");
    assert_eq!(validate(&plan, Some("10.99.0.1")).expect("valid"), vec![None; 4]);
    let mut crossed = plan.clone();
    crossed.cross_versions(&["3".into(), "4.1".into()]);
    assert_eq!(crossed.cases.len(), 4, "a block case has no NFS version to cross");
}

#[test]
fn keys_of_the_other_kind_and_unknown_kinds_are_refused_by_name() {
    let refused = [
        ("kind = \"nvme-rdma\"\nvers = \"3\"", "case 'x': vers does not apply to a case of kind nvme-rdma"),
        ("kind = \"iscsi\"\nnqn = \"nqn.a\"", "case 'x': nqn does not apply to a case of kind iscsi"),
        ("kind = \"nvme-tcp\"\niqn = \"iqn.a\"", "case 'x': iqn does not apply to a case of kind nvme-tcp"),
        ("nqn = \"nqn.a\"", "case 'x': nqn does not apply to a case of kind nfs"),
        ("kind = \"smb3\"", "case 'x': kind 'smb3' is not nfs, smb, nvme-tcp, nvme-rdma, iscsi or iser"),
        (
            "kind = \"smb\"\nvers = \"3\"",
            "case 'x': vers does not apply to a case of kind smb (give mount.cifs's in options)",
        ),
        ("kind = \"smb\"\nnqn = \"nqn.a\"", "case 'x': nqn does not apply to a case of kind smb"),
        ("kind = \"iser\"\nshare = \"bench\"", "case 'x': share does not apply to a case of kind iser"),
        ("share = \"bench\"", "case 'x': share does not apply to a case of kind nfs"),
        ("kind = \"iser\"\nengine = \"nfsbench\"", "engine must be kernel, not 'nfsbench'"),
    ];
    for (body, expected) in refused {
        let e = parse(&format!("[[case]]\nname = \"x\"\n{body}\n"), DEFAULTS).expect_err(body);
        assert!(e.to_string().contains(expected), "{body}: {e}");
    }
}

#[test]
fn validation_needs_a_target_and_reads_the_attach_options_as_the_engine_does() {
    let mut plan = Plan::default_for(DEFAULTS);
    plan.cases = vec![Case::block("nvme", Kind::NvmeRdma, "queue_size=128")];
    plan.baseline = "nvme".into();
    let e = validate(&plan, None).expect_err("the embedded server serves NFS only");
    assert!(e.to_string().contains("case 'nvme': a nvme-rdma case needs a target host of its own"), "{e}");
    plan.cases[0].options = Some("hdr_digest".into());
    let e = validate(&plan, Some("10.99.0.1")).expect_err("no digests over RDMA");
    assert!(e.to_string().contains("hdr_digest"), "{e}");
    plan.cases[0].options = Some("rsize=65536".into());
    let e = validate(&plan, Some("10.99.0.1")).expect_err("not an NVMe option");
    assert!(e.to_string().contains("rsize"), "{e}");
    plan.cases[0].options = None;
    plan.cases[0].target_name = Some("not-an-nqn".into());
    let e = validate(&plan, Some("10.99.0.1")).expect_err("an NQN starts nqn.");
    assert!(e.to_string().contains("not-an-nqn"), "{e}");
}

#[test]
fn a_block_case_runs_nfsbench_run_engine_kernel_on_its_target_url() {
    let setup = remote_setup("10.99.0.1:/srv/nfs");
    let case = Case::block("nvme", Kind::NvmeRdma, "nr_io_queues=2");
    let joined = setup.run_args(&case, &["--rw=read".into()], None, Path::new("/o.json")).join(" ");
    assert!(
        joined.starts_with(
            "run --rw=read --target nvme-rdma://10.99.0.1:4420/nqn.2026-11.io.nfsbench:ram0 -o nr_io_queues=2 \
             --engine kernel"
        ),
        "{joined}"
    );
    let bare = Case::block("iscsi", Kind::Iscsi, "");
    let joined = setup.run_args(&bare, &[], None, Path::new("/o.json")).join(" ");
    assert!(joined.starts_with("run --target iscsi://10.99.0.1:3260/iqn.2026-11.io.nfsbench:ram0 --engine kernel"));
    assert!(!joined.contains("--rdma-provider") && !joined.contains(" -o "), "{joined}");
}

#[test]
fn an_smb_case_mounts_its_share_on_the_plans_host_with_its_options_as_written() {
    let plan = parse(
        "baseline = \"smb\"\n[[case]]\nname = \"smb\"\nkind = \"smb\"\noptions = \"vers=3.1.1\"\n\
         [[case]]\nname = \"smb-direct\"\nkind = \"smb\"\nshare = \"fast\"\noptions = \"vers=3.1.1,rdma\"\n",
        DEFAULTS,
    )
    .expect("parses");
    assert!(plan.cases.iter().all(|c| c.is_smb() && c.is_kernel()) && plan.uses_smb() && !plan.uses_kernel_nfs());
    let targets: Vec<_> = plan.cases.iter().filter_map(|c| c.target_on("10.99.0.1")).collect();
    assert_eq!(targets, ["//10.99.0.1/bench", "//10.99.0.1/fast"]);
    assert_eq!(validate(&plan, Some("10.99.0.1")).expect("valid"), vec![None; 2]);
    let e = validate(&plan, None).expect_err("no share without a target");
    assert!(e.to_string().contains("a smb case needs a target host of its own"), "{e}");
    let setup = remote_setup("10.99.0.1");
    let joined = setup.run_args(&plan.cases[1], &[], None, Path::new("/o.json")).join(" ");
    assert!(joined.starts_with("run --target //10.99.0.1/fast -o vers=3.1.1,rdma --engine kernel"), "{joined}");
    let secret = Case::smb("s", "vers=3.1.1,username=u,password=hunter2");
    assert_eq!(compare::plan::masked(&secret.mount_options()), "vers=3.1.1,username=u,password=***");
}

#[test]
fn the_host_of_a_target_is_found_in_every_form_compare_takes() {
    for (target, host) in [
        ("10.99.0.1:/srv/nfs", "10.99.0.1"),
        ("10.99.0.1", "10.99.0.1"),
        ("filer", "filer"),
        ("[fd00::1]:/export", "fd00::1"),
        ("nfs://filer:2049/export?version=3", "filer"),
    ] {
        assert_eq!(target_host(target), host, "{target}");
    }
    let case = Case::block("n", Kind::NvmeTcp, "");
    assert_eq!(case.target_on("fd00::1").as_deref(), Some("nvme-tcp://[fd00::1]:4420/nqn.2026-11.io.nfsbench:ram0"));
}
