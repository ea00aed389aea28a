//! `nfsbench mountstats MOUNTPOINT [--json] [--asked OPTIONS] [--from FILE]`: what a Linux NFS mount
//! negotiated and what its RPC client counted since it was mounted, read from /proc/self/mountstats (or
//! a saved copy) by the `mountstats` crate — the check to run before trusting a figure measured on it.
//!
//! Prints the negotiated options, one row per transport (sends, receives, bad XIDs, average backlog;
//! for RDMA the chunk, registration and marshalling counters) and the per-op statistics of every op
//! that was called; `--json` the same as one object. `--asked` adds asked-vs-negotiated checks.
//!
//! Exit status: 0; 1 when `--asked` finds an option that differs, or the text cannot be read; 2 when
//! MOUNTPOINT is not an NFS mount or FILE cannot be opened.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use mountstats::{check_options, differs, Mount, MountWindow, OptionCheck, Verdict};
use serde::Serialize;

use crate::error::{CliError, ExitKind};

#[derive(clap::Args, Debug)]
pub struct MountstatsArgs {
    /// The mount point of an NFS mount (`/mnt/nfs`)
    pub mountpoint: String,
    /// Print one JSON object instead of tables
    #[arg(long)]
    pub json: bool,
    /// The mount.nfs option string the mount was asked for (`vers=4.1,proto=rdma,nconnect=4`): adds
    /// asked-vs-negotiated checks; exit status 1 when any differs
    #[arg(long, value_name = "OPTIONS")]
    pub asked: Option<String>,
    /// Read a saved copy of /proc/self/mountstats (`cat /proc/self/mountstats > FILE`) instead of this
    /// process's
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
}

/// `--json`'s object.
#[derive(Serialize)]
struct JsonReport<'a> {
    /// Everything the kernel printed for the mount, parsed.
    mount: &'a Mount,
    /// The counters since the mount, with per-op averages (ops that were called only).
    since_mount: &'a MountWindow,
    /// The asked-vs-negotiated checks (`--asked` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<&'a [OptionCheck]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    differs: Option<bool>,
}

pub fn run(args: &MountstatsArgs) -> Result<(), CliError> {
    let mounts = read(args)?;
    let mountpoint = match &args.from {
        Some(_) => args.mountpoint.clone(),
        // The kernel prints the resolved path.
        None => std::fs::canonicalize(&args.mountpoint)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| args.mountpoint.clone()),
    };
    let source = args.from.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| mountstats::SELF_PATH.into());
    let mount = Mount::find(&mounts, &mountpoint)
        .ok_or_else(|| CliError::Usage(format!("{}: not a mount point in {source}", args.mountpoint)))?;
    if !mount.is_nfs() {
        return Err(CliError::Usage(format!("{}: not an NFS mount (fstype {})", args.mountpoint, mount.fstype)));
    }
    let checks = args.asked.as_deref().map(|asked| check_options(asked, mount));
    let since_mount = mount.delta(&Mount { nfs: None, ..mount.clone() });
    let text = if args.json {
        let report = JsonReport {
            mount,
            since_mount: &since_mount,
            checks: checks.as_deref(),
            differs: checks.as_deref().map(differs),
        };
        serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)? + "\n"
    } else {
        render(mount, &since_mount, checks.as_deref())
    };
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        // The reader went away (`nfsbench mountstats /mnt | head`): not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.map_err(anyhow::Error::from)?,
    }
    match checks {
        Some(checks) if differs(&checks) => Err(CliError::Reported(ExitKind::Failure)),
        _ => Ok(()),
    }
}

/// The mounts of `--from FILE` or of /proc/self/mountstats.
fn read(args: &MountstatsArgs) -> Result<Vec<Mount>, CliError> {
    let Some(path) = &args.from else {
        return mountstats::read_self().map_err(|e| CliError::Failed(e.to_string()));
    };
    let bytes = std::fs::read(path).map_err(|e| CliError::Usage(format!("--from {}: {e}", path.display())))?;
    mountstats::parse(&String::from_utf8_lossy(&bytes))
        .map_err(|e| CliError::Failed(format!("--from {}: {e}", path.display())))
}

/// The tables of the text output.
fn render(mount: &Mount, window: &MountWindow, checks: Option<&[OptionCheck]>) -> String {
    let mut out = String::new();
    let nfs = mount.nfs.as_ref();
    let age = nfs.and_then(|n| n.age).map(|a| format!(", mounted {a} s ago")).unwrap_or_default();
    let _ = writeln!(out, "{}: {} ({}{age})", mount.mountpoint, mount.device, mount.fstype);
    let opts: Vec<String> = nfs
        .map(|n| n.opts.iter().map(|o| o.value.as_ref().map_or(o.key.clone(), |v| format!("{}={v}", o.key))).collect())
        .unwrap_or_default();
    let _ = writeln!(out, "\nnegotiated options (the kernel's, as it printed them)");
    for line in wrap(&opts, 100) {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(out, "\ntransports (counters since the mount)");
    let rows = window
        .transports
        .iter()
        .enumerate()
        .map(|(i, t)| {
            vec![
                i.to_string(),
                t.proto.clone(),
                t.sends.to_string(),
                t.recvs.to_string(),
                t.bad_xids.to_string(),
                decimal(t.avg_backlog),
                decimal(t.avg_requests),
            ]
        })
        .collect();
    table(&mut out, &["#", "proto", "sends", "recvs", "bad xids", "avg backlog", "avg in flight"], rows, true);
    let rdma: Vec<Vec<String>> = window
        .transports
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.rdma.as_ref().map(|r| (i, r)))
        .map(|(i, r)| {
            let opt = |v: Option<u64>| v.map_or("-".into(), |v| v.to_string());
            vec![
                i.to_string(),
                r.read_chunk_count.to_string(),
                r.write_chunk_count.to_string(),
                r.reply_chunk_count.to_string(),
                r.hardway_register_count.to_string(),
                opt(r.mrs_allocated),
                opt(r.local_inv_needed),
                r.failed_marshal_count.to_string(),
                r.bad_reply_count.to_string(),
            ]
        })
        .collect();
    if !rdma.is_empty() {
        let _ = writeln!(out, "\nRPC-over-RDMA (xprtrdma counters)");
        let headers = [
            "#",
            "read chunks",
            "write chunks",
            "reply chunks",
            "hardway reg",
            "MRs alloc",
            "local inv",
            "failed marshal",
            "bad replies",
        ];
        table(&mut out, &headers, rdma, true);
    }
    let _ = writeln!(out, "\nper-op statistics (ops called since the mount; times in ms per op)");
    let rows = window
        .ops
        .iter()
        .map(|o| {
            vec![
                o.name.clone(),
                o.ops.to_string(),
                o.retransmissions.to_string(),
                o.timeouts.to_string(),
                decimal(o.avg_rtt_ms),
                decimal(o.avg_exec_ms),
                decimal(o.avg_queue_ms),
                o.bytes_sent.to_string(),
                o.bytes_recv.to_string(),
                o.errors.map_or("-".into(), |e| e.to_string()),
            ]
        })
        .collect();
    let headers =
        ["op", "ops", "retrans", "timeouts", "avg RTT", "avg exec", "avg queue", "bytes sent", "bytes recv", "errors"];
    table(&mut out, &headers, rows, true);
    if let Some(checks) = checks {
        let verdict = if differs(checks) { "differs from what was asked" } else { "is what was asked" };
        let _ = writeln!(out, "\nasked vs negotiated: the mount {verdict}");
        let rows = checks
            .iter()
            .map(|c| {
                let v = match c.verdict {
                    Verdict::Same => "same",
                    Verdict::Differs => "DIFFERS",
                    Verdict::NotShown => "not shown",
                };
                vec![
                    c.key.clone(),
                    c.asked.clone(),
                    c.negotiated.clone().unwrap_or_else(|| "-".into()),
                    v.into(),
                    c.note.clone().unwrap_or_default(),
                ]
            })
            .collect();
        table(&mut out, &["option", "asked", "negotiated", "verdict", "note"], rows, false);
    }
    out
}

/// Two decimals, or `-` when there is nothing to average.
fn decimal(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.2}"))
}

/// `items` joined with commas into lines of at most `width` characters (a longer item gets its own).
fn wrap(items: &[String], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for item in items {
        if !line.is_empty() && line.len() + 1 + item.len() > width {
            lines.push(std::mem::take(&mut line) + ",");
        }
        if !line.is_empty() {
            line.push(',');
        }
        line.push_str(item);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Appends a table: the first column left-aligned, the others right-aligned when `numeric` (counters)
/// and left-aligned when not (the checks).
fn table(out: &mut String, headers: &[&str], rows: Vec<Vec<String>>, numeric: bool) {
    if rows.is_empty() {
        let _ = writeln!(out, "  (none)");
        return;
    }
    let widths: Vec<usize> = (0..headers.len())
        .map(|c| {
            rows.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).chain([headers[c].len()]).max().unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let mut s = String::from(" ");
        for (c, cell) in cells.iter().enumerate() {
            let w = widths[c];
            let left = c == 0 || !numeric;
            s.push_str(&if left { format!(" {cell:<w$}") } else { format!(" {cell:>w$}") });
        }
        s.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(headers.to_vec()));
    for row in &rows {
        let _ = writeln!(out, "{}", line(row.iter().map(String::as_str).collect()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_lines_within_the_width_and_ends_each_but_the_last_with_a_comma() {
        let items: Vec<String> = ["rw", "vers=3", "rsize=1048576", "wsize=1048576"].map(String::from).into();
        assert_eq!(wrap(&items, 20), ["rw,vers=3,", "rsize=1048576,", "wsize=1048576"]);
        assert!(wrap(&[], 20).is_empty());
    }

    #[test]
    fn table_aligns_numbers_right_and_names_left() {
        let mut out = String::new();
        table(&mut out, &["op", "ops"], vec![vec!["READ".into(), "5".into()], vec!["WRITE".into(), "68".into()]], true);
        assert_eq!(out, "  op    ops\n  READ    5\n  WRITE  68\n");
    }
}
