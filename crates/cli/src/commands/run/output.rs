//! Writing the results in the formats asked, to stdout or `--output`.

use super::args::{Format, RunArgs};
use anyhow::Context;
use mount_options::{MountSpec, Proto};
use nfs_client::ConnectionInfo;
use report::{JobResult, RunResult};
use std::io::Write;
use std::time::SystemTime;

/// Build the run's result and write every format asked, one after another.
pub fn write(
    args: &RunArgs,
    jobs: &fio_job::JobSet,
    spec: &MountSpec,
    connections: &[ConnectionInfo],
    results: Vec<JobResult>,
    start_time: SystemTime,
) -> anyhow::Result<()> {
    let run = RunResult {
        jobs: results,
        global_options: jobs.global.0.clone(),
        start_time,
        percentile_list: jobs.jobs.iter().find_map(|j| j.percentile_list.clone()),
        notes: notes(args, spec, connections),
    };
    let mut text = String::new();
    for format in &args.formats {
        match format {
            Format::Normal => text.push_str(&report::to_normal_text(&run)),
            Format::Json | Format::JsonPlus => {
                let value = report::to_fio_json(&run, *format == Format::JsonPlus);
                text.push_str(&serde_json::to_string_pretty(&value).context("encoding JSON")?);
                text.push('\n');
            }
        }
    }
    match &args.output {
        Some(path) => std::fs::write(path, text).with_context(|| format!("writing {}", path.display())),
        None => std::io::stdout().lock().write_all(text.as_bytes()).context("writing to stdout"),
    }
}

/// What the run was against, for the report's "nfsbench" section.
fn notes(args: &RunArgs, spec: &MountSpec, connections: &[ConnectionInfo]) -> Vec<(String, String)> {
    // The connection names its transport, with the RDMA provider that carried it ("rdma (soft ...)").
    let transport = connections.first().map_or_else(
        || match spec.proto {
            Proto::Tcp => "tcp".to_string(),
            Proto::Rdma => "rdma".to_string(),
        },
        |c| c.transport.clone(),
    );
    let mut notes = vec![
        ("target".to_string(), args.target.clone()),
        ("mount_options".to_string(), spec.option_string()),
        ("transport".to_string(), transport),
        ("connections".to_string(), connections.len().to_string()),
    ];
    for (i, c) in connections.iter().enumerate() {
        let local = c.local.map_or_else(|| "unconnected".to_string(), |a| a.to_string());
        notes.push((format!("connection.{i}"), format!("{local} -> {}", c.remote)));
    }
    notes
}
