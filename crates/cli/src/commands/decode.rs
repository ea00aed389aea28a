//! `nfsbench decode CAPTURE`: every RPC message in a pcap, decoded by the workspace's codecs.
//!
//! A decoding failure on traffic between real peers means either our codec or the peer is wrong, so it
//! is reported with the record's position and makes the command exit 1.
use anyhow::Context;
use nfsbench::inspect::{describe, procedure_name, rpc_records, CallKey, Direction};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct DecodeArgs {
    /// The capture (pcap or pcapng, e.g. from `tcpdump -s 0 -w FILE port 2049`).
    capture: PathBuf,
    /// Print only the per-procedure table, not one line per message.
    #[arg(long)]
    summary: bool,
}

#[derive(Default)]
struct Tally {
    calls: u64,
    replies: u64,
    call_bytes: u64,
    reply_bytes: u64,
    /// Reply statuses by name (NFS3_OK, NFS3ERR_NOENT, PROG_MISMATCH, ...).
    statuses: BTreeMap<String, u64>,
}

pub fn run(args: &DecodeArgs) -> anyhow::Result<ExitCode> {
    let streams = capture::read_tcp_streams(&args.capture)?;
    let found = rpc_records(streams);
    let mut tally: BTreeMap<CallKey, Tally> = BTreeMap::new();
    let (mut failed, mut unmatched) = (0u64, 0u64);
    let start = found.records.first().map(|r| r.time).unwrap_or_default();
    for record in &found.records {
        let Some(decoded) = record.decode() else {
            unmatched += 1;
            continue;
        };
        let key = record.key.context("a decodable record always has its procedure")?;
        let label = procedure_name(key);
        let kind = match record.direction {
            Direction::Call => "call ",
            Direction::Reply => "reply",
        };
        let decoded = match decoded {
            Ok(d) => d,
            Err(e) => {
                failed += 1;
                eprintln!("nfsbench: {} xid {:#010x} {label} {kind}: {e}", record.flow, record.xid);
                continue;
            }
        };
        let line = describe(&decoded.message.body, &decoded.body);
        let t = tally.entry(key).or_default();
        match record.direction {
            Direction::Call => {
                t.calls += 1;
                t.call_bytes += record.bytes.len() as u64;
            }
            Direction::Reply => {
                t.replies += 1;
                t.reply_bytes += record.bytes.len() as u64;
                let status = line.split_whitespace().next().unwrap_or("SUCCESS").to_string();
                *t.statuses.entry(status).or_default() += 1;
            }
        }
        if !args.summary {
            let secs = record.time.saturating_sub(start).as_secs_f64();
            println!("{secs:10.6} {} xid {:#010x} {kind} {label} {line}", record.flow, record.xid);
        }
    }
    print_summary(&tally);
    for (flow, why) in &found.skipped_streams {
        println!("skipped stream {flow}: {why}");
    }
    let total = found.records.len();
    println!(
        "decode: {} of {total} RPC messages decoded, {failed} failed, {unmatched} replies without their call in the capture",
        total as u64 - failed - unmatched
    );
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn print_summary(tally: &BTreeMap<CallKey, Tally>) {
    println!(
        "{:<24} {:>7} {:>7} {:>12} {:>12}  reply statuses",
        "procedure", "calls", "replies", "call bytes", "reply bytes"
    );
    for (key, t) in tally {
        let statuses: Vec<String> = t.statuses.iter().map(|(s, n)| format!("{s}×{n}")).collect();
        println!(
            "{:<24} {:>7} {:>7} {:>12} {:>12}  {}",
            procedure_name(*key),
            t.calls,
            t.replies,
            t.call_bytes,
            t.reply_bytes,
            statuses.join(" ")
        );
    }
}
