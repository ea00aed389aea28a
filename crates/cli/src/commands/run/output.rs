//! Writing the results in the formats asked, to stdout or `--output`.

use super::args::{Format, RunArgs};
use anyhow::Context;
use mount_options::{MountSpec, Proto};
use nfs_client::{ClientStats, ConnectionInfo};
use report::clients::ClientRun;
use report::{JobResult, RunResult};
use std::io::Write;
use std::time::SystemTime;

/// The run's result as the report crate takes it.
pub fn run_result(
    jobs: &fio_job::JobSet,
    notes: Vec<(String, String)>,
    results: Vec<JobResult>,
    start_time: SystemTime,
) -> RunResult {
    RunResult {
        jobs: results,
        global_options: jobs.global.0.clone(),
        start_time,
        percentile_list: jobs.jobs.iter().find_map(|j| j.percentile_list.clone()),
        notes,
    }
}

/// What a file-engine run ran on: the engine, and as "transport" (where compare reads what carried the
/// I/O) the engine, how it opened the files and their file systems — "file (io_uring, O_DIRECT) on
/// /mnt/x, nfs4".
pub fn file_notes(jobs: &fio_job::JobSet) -> Vec<(String, String)> {
    vec![("engine".to_string(), "file".to_string()), ("transport".to_string(), load_engine::file::describe(jobs))]
}

/// A `--engine kernel` run's notes: the file engine's, with "transport" saying the kernel client carried
/// the I/O, and the mount as asked and as negotiated.
pub fn kernel_notes(
    args: &RunArgs,
    kernel: &crate::commands::kernel_engine::KernelTarget,
    file_notes: Vec<(String, String)>,
) -> Vec<(String, String)> {
    let mut notes = vec![("engine".to_string(), "kernel".to_string())];
    for (key, value) in file_notes {
        match key.as_str() {
            "engine" => {}
            "transport" => notes.push(("transport".into(), format!("{} (jobs: {value})", kernel.transport()))),
            _ => notes.push((key, value)),
        }
    }
    notes.push(("target".into(), args.target.clone().unwrap_or_default()));
    let asked = match kernel {
        crate::commands::kernel_engine::KernelTarget::Block(_) => "attach options asked",
        _ => "mount options asked",
    };
    notes.push((asked.into(), args.mount_options.clone().unwrap_or_default()));
    if let Some(link) = &args.wan {
        notes.push(("long-distance link".into(), format!("{} (tc netem on the path to the target)", link.describe())));
    }
    notes.push(("negotiated".into(), kernel.negotiated()));
    let differences = kernel.differences();
    if !differences.is_empty() {
        notes.push(("negotiated differently".into(), differences.join("; ")));
    }
    notes
}

/// Write every format asked, one after another; `sections` go into the JSON's "nfsbench" object.
pub fn write(args: &RunArgs, run: &RunResult, sections: &[(&str, serde_json::Value)]) -> anyhow::Result<()> {
    emit(args, |format| match format {
        Format::Normal => Ok(report::to_normal_text(run)),
        Format::Json | Format::JsonPlus => {
            json_text(&with_sections(report::to_fio_json(run, format == Format::JsonPlus), sections))
        }
    })
}

/// Write every format asked for the clients of a many-clients run, in fio's client-mode layout: each
/// client's results, then "All clients"; `sections` (rank 0's, e.g. its kernel mount) as in [`write`].
pub fn write_clients(
    args: &RunArgs,
    clients: &[ClientRun],
    all: &RunResult,
    sections: &[(&str, serde_json::Value)],
) -> anyhow::Result<()> {
    emit(args, |format| match format {
        Format::Normal => Ok(report::clients::to_client_text(clients, all)),
        Format::Json | Format::JsonPlus => json_text(&with_sections(
            report::clients::to_fio_client_json(clients, all, format == Format::JsonPlus),
            sections,
        )),
    })
}

/// `doc` with each section added to its "nfsbench" object.
fn with_sections(mut doc: serde_json::Value, sections: &[(&str, serde_json::Value)]) -> serde_json::Value {
    if let Some(nfsbench) = doc.get_mut("nfsbench").and_then(serde_json::Value::as_object_mut) {
        for (key, value) in sections {
            nfsbench.insert((*key).to_string(), value.clone());
        }
    }
    doc
}

fn json_text(value: &serde_json::Value) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(value).context("encoding JSON")? + "\n")
}

/// The formats' texts, one after another, to `--output` or stdout.
fn emit(args: &RunArgs, text_of: impl Fn(Format) -> anyhow::Result<String>) -> anyhow::Result<()> {
    let mut text = String::new();
    for format in &args.formats {
        text.push_str(&text_of(*format)?);
    }
    match &args.output {
        Some(path) => std::fs::write(path, text).with_context(|| format!("writing {}", path.display())),
        None => std::io::stdout().lock().write_all(text.as_bytes()).context("writing to stdout"),
    }
}

/// What the run was against and what its RPC layer went through, for the report's "nfsbench" section.
pub fn nfs_notes(
    args: &RunArgs,
    spec: &MountSpec,
    connections: &[ConnectionInfo],
    rpc: &ClientStats,
) -> Vec<(String, String)> {
    // The connection names its transport, with the RDMA provider that carried it ("rdma (soft ...)").
    let transport = connections.first().map_or_else(
        || match spec.proto {
            Proto::Tcp => "tcp".to_string(),
            Proto::Rdma => "rdma".to_string(),
        },
        |c| c.transport.clone(),
    );
    let mut notes = vec![
        ("target".to_string(), args.target.clone().unwrap_or_default()),
        ("mount_options".to_string(), spec.option_string()),
        ("transport".to_string(), transport),
        ("connections".to_string(), connections.len().to_string()),
    ];
    if let Some(wan) = &args.wan {
        notes.push(("wan".to_string(), wan.to_string()));
    }
    for (i, c) in connections.iter().enumerate() {
        let local = c.local.map_or_else(|| "unconnected".to_string(), |a| a.to_string());
        notes.push((format!("connection.{i}"), format!("{local} -> {}", c.remote)));
    }
    // The RPC layer's counters over the whole run (MOUNT's calls aside), as mountstats gives a kernel
    // mount's: a server's own counters are read against them (a retransmitted WRITE is counted twice there).
    notes.extend([
        ("rpc_calls".to_string(), rpc.calls.to_string()),
        ("rpc_retransmissions".to_string(), rpc.retransmissions.to_string()),
        ("rpc_reconnects".to_string(), rpc.reconnects.to_string()),
        ("rpc_major_timeouts".to_string(), rpc.major_timeouts.to_string()),
    ]);
    if spec.proto == Proto::Rdma {
        // What the data path cost beyond the wire: registrations per call tend to 0 once each queue
        // pair's pool is registered; copies are the WRITE data into the pool and READ data out of it.
        let per_call = |n: u64| if rpc.calls == 0 { 0.0 } else { n as f64 / rpc.calls as f64 };
        notes.extend([
            ("rdma_registrations".to_string(), rpc.registrations.to_string()),
            ("rdma_registrations_per_call".to_string(), format!("{:.4}", per_call(rpc.registrations))),
            ("rdma_client_bytes_copied".to_string(), rpc.bytes_copied.to_string()),
        ]);
    }
    notes
}
