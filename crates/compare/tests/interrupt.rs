//! SIGINT in the middle of a cell: the child running the cell is stopped, the plan ends with
//! `Interrupted`, and no child is left running. (Its own test binary: the interrupt is process-wide.)

mod stand_in;

use compare::execute::{execute, RunError, Setup};
use compare::plan::{Case, Plan, Workload};
use compare::plan_file::Defaults;
use compare::validate::validate;
use std::path::Path;
use std::time::{Duration, Instant};

/// A stand-in for `nfsbench run`: lays out at once, then sleeps through the measured cell (in the
/// foreground of a shell that exits on SIGTERM), its pid in `cell.pid`.
const SLOW_RUN: &str = r#"#!/bin/bash
out=
for a in "$@"; do [ "$prev" = --output ] && out=$a; prev=$a; done
case $out in */layout-*) echo '{"jobs":[]}' > "$out"; exit 0 ;; esac
echo $$ > "$(dirname "$(dirname "$out")")/cell.pid"
trap 'exit 143' TERM
while :; do sleep 0.05; done
"#;

fn wait_for(path: &Path, deadline: Duration) -> Option<String> {
    let start = Instant::now();
    while start.elapsed() < deadline {
        if let Ok(text) = std::fs::read_to_string(path) {
            if text.ends_with('\n') {
                return Some(text.trim().to_string());
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[test]
fn sigint_in_the_middle_of_a_cell_stops_it_and_ends_the_plan() {
    let (dir, exe) = stand_in::stand_in("interrupt", SLOW_RUN);

    let mut plan = Plan::default_for(Defaults { numjobs: 1, size: 1 << 20 });
    plan.cases = vec![Case::from_options("tcp", "vers=3")];
    plan.baseline = "tcp".into();
    plan.workloads = vec![Workload::new("w", "read", 4096, 1, 1, 1 << 20)];
    plan.wire = false;
    let unsupported = validate(&plan, Some("h:/x")).expect("valid");
    let setup = Setup {
        exe,
        target: Some("h:/x".into()),
        out_dir: dir.clone(),
        rdma_provider: "soft".into(),
        provider: None,
        wire_peer: None,
        hostfile: None,
        cpus: 1,
    };
    compare::interrupt::watch().expect("signal thread");
    let pid_file = dir.join("cell.pid");
    let me = std::process::id().to_string();
    let interrupter = std::thread::spawn(move || {
        let child = wait_for(&pid_file, Duration::from_secs(60)).expect("the cell started");
        let _ = std::process::Command::new("kill").args(["-INT", &me]).status();
        child
    });
    let result = execute(&plan, &unsupported, &setup);
    let child = interrupter.join().expect("interrupter");
    match result {
        Err(RunError::Interrupted { during }) => assert_eq!(during, "tcp × w rep 1/3"),
        other => panic!("expected Interrupted, got {other:?}"),
    }
    let alive = std::process::Command::new("kill").args(["-0", &child]).status().expect("kill -0");
    assert!(!alive.success(), "the cell's child {child} is still running");
    let _ = std::fs::remove_dir_all(&dir);
}
