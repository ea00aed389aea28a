//! Latency consistency in the report: each cell's completion-latency standard deviation, and every case
//! against the baseline for the mean and the deviation of its latency, in every output.

use compare::measure::RepMeasure;
use compare::plan::{Case, Plan, Workload};
use compare::plan_file::Defaults;
use compare::results::Verdict;
use compare::summarize::{summarize, Context, Outcome};

fn outcome(case: &str, rep: u32, mean: f64, stdev: f64) -> Outcome {
    Outcome {
        case: case.into(),
        workload: "rr".into(),
        rep,
        measure: RepMeasure {
            bytes: 4096 * 1000,
            ios: 1000,
            iops: 1000.0,
            clat_mean_us: mean,
            clat_stdev_us: stdev,
            runtime_s: 1.0,
            ..RepMeasure::default()
        },
        server_cpu_s: None,
        file: format!("cells/{case}--rr--{rep}.json"),
    }
}

#[test]
fn rdma_with_steadier_latency_gets_a_stdev_ratio_below_one_in_every_output() {
    let mut plan = Plan::default_for(Defaults { numjobs: 1, size: 1 << 20 });
    plan.cases = vec![Case::from_options("tcp", "vers=3"), Case::from_options("rdma", "vers=3,proto=rdma")];
    plan.baseline = "tcp".into();
    plan.workloads = vec![Workload::new("rr", "randread", 4096, 32, 1, 1 << 20)];
    plan.reps = 3;
    let outcomes: Vec<Outcome> = (1..=3)
        .flat_map(|rep| {
            let k = rep as f64;
            [outcome("tcp", rep, 100.0 + k, 50.0 + k), outcome("rdma", rep, 82.0 + k, 30.0 + k)]
        })
        .collect();
    let report = summarize(&plan, &vec![None, None], &outcomes, Vec::new(), Context::default());
    let rdma = report.cells.iter().find(|c| c.case == "rdma").expect("rdma cell");
    assert!((rdma.clat_stdev_us.mean - 32.0).abs() < 1e-9 && rdma.clat_stdev_us.n == 3, "{:?}", rdma.clat_stdev_us);
    let [r] = &report.latency_ratios[..] else { panic!("one latency ratio: {:?}", report.latency_ratios) };
    assert_eq!((r.case.as_str(), r.baseline.as_str()), ("rdma", "tcp"));
    assert!(r.mean.mean < 0.85 && r.mean_verdict == Verdict::Lower, "{r:?}");
    assert!((r.stdev.mean - 0.615).abs() < 0.005 && r.stdev_verdict == Verdict::Lower, "{r:?}");

    let text = compare::render::terminal::to_terminal(&report);
    assert!(text.contains("stdev µs"), "{text}");
    assert!(text.contains("rdma vs tcp: rr clat mean 0.82× ["), "{text}");
    assert!(text.contains("clat stdev 0.62× ["), "{text}");
    let md = compare::render::markdown::to_markdown(&report);
    assert!(md.contains("| clat stdev µs |") && md.contains("- rdma vs tcp: rr clat mean"), "{md}");
    let csv = compare::render::csv::results_csv(&report);
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let row: Vec<&str> = csv.lines().nth(2).expect("rdma row").split(',').collect();
    let at = |name: &str| row[header.iter().position(|h| *h == name).expect(name)];
    assert_eq!((at("case"), at("clat_stdev_us")), ("rdma", "32"));
    assert!(at("clat_stdev_ratio").starts_with("0.61"), "{csv}");
    let html = compare::render::html::to_html(&report);
    assert!(html.contains("<th>clat stdev µs</th>") && html.contains("clat stdev 0.62×"), "html");
}
