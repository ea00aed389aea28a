use super::*;
use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: CompareArgs,
}

fn plan_of(line: &[&str]) -> Plan {
    let cli = Cli::try_parse_from(std::iter::once("compare").chain(line.iter().copied())).expect("parses");
    build_plan(&cli.args, 2).expect("valid").0
}

#[test]
fn engine_kernel_sets_every_case_also_those_given_with_case() {
    let plan =
        plan_of(&["--engine", "kernel", "--target", "h:/x", "--case", "a=vers=4.1", "--case", "b=vers=3,sec=krb5"]);
    assert!(plan.cases.iter().all(Case::is_kernel), "{:?}", plan.cases);
    assert!(plan.title.ends_with("kernel NFS client"), "{}", plan.title);
    let (_, unsupported) = build_plan(
        &Cli::try_parse_from(["compare", "--engine", "kernel", "--target", "h:/x", "--case", "a=vers=3,sec=krb5"])
            .expect("parses")
            .args,
        2,
    )
    .expect("valid");
    assert_eq!(unsupported, vec![None], "mount.nfs, not nfsbench's client, judges a kernel case's options");
}

#[test]
fn without_engine_the_plan_keeps_its_own() {
    let plan = plan_of(&["--case", "a=vers=3"]);
    assert!(!plan.uses_kernel());
}

#[test]
fn vers_runs_every_case_once_per_version_and_a_plain_baseline_means_its_first() {
    let plan = plan_of(&["--vers", "3,4.1", "--cases", "tcp,rdma", "--baseline", "rdma"]);
    let names: Vec<&str> = plan.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["tcp-v3", "tcp-v4.1", "rdma-v3", "rdma-v4.1"]);
    assert_eq!(plan.baseline, "rdma-v3");
    let cli = Cli::try_parse_from(["compare", "--vers", ","]).expect("parses");
    assert!(build_plan(&cli.args, 2).is_err(), "an empty version list is refused");
}

#[test]
fn cases_keeps_a_sweeps_cases_that_remain_and_drops_a_sweep_left_with_none() {
    let smb = concat!(env!("CARGO_MANIFEST_DIR"), "/../../plans/smb-direct.toml");
    let plan = plan_of(&[smb, "--target", "10.99.0.1", "--cases", "smb"]);
    assert_eq!(plan.sweeps.len(), 1);
    assert_eq!(plan.sweeps[0].cases, ["smb"]);
    let plan = plan_of(&[smb, "--target", "10.99.0.1", "--cases", "smb-direct-2ch"]);
    assert!(plan.sweeps.is_empty(), "the sweep named neither remaining case");
}
