//! `nfsbench decode CAPTURE`: every RPC message in a pcap, decoded by the workspace's codecs.
//!
//! A message that fails to decode is a finding when the peer that received it accepted it: a reply
//! (clients take what servers send), or a call that the server answered with SUCCESS. Those make the
//! command exit 1. A call that the server itself refused (GARBAGE_ARGS, PROC_UNAVAIL, ...) and that we
//! cannot decode either is agreement, and is only counted.
use anyhow::Context;
use nfsbench::inspect::{describe, procedure_name, rpc_records, CallKey, Direction, RecordInCapture};
use onc_rpc::{AcceptStat, ReplyBody, RpcMessage};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;

use crate::error::{CliError, ExitKind};

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

pub fn run(args: &DecodeArgs) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match decode(args, &mut out) {
        // The reader went away (`nfsbench decode x.pcap | head`): not an error of ours.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) => {
            Ok(())
        }
        // Each record that did not decode was reported in the output.
        Ok(Decoded::SomeFailed) => Err(CliError::Reported(ExitKind::Failure)),
        Ok(Decoded::All) => Ok(()),
        Err(e) => Err(CliError::Other(e)),
    }
}

/// Whether every record decoded.
enum Decoded {
    All,
    SomeFailed,
}

fn decode(args: &DecodeArgs, out: &mut impl Write) -> anyhow::Result<Decoded> {
    let streams = capture::read_tcp_streams(&args.capture)?;
    let found = rpc_records(streams);
    let mut tally: BTreeMap<CallKey, Tally> = BTreeMap::new();
    let (mut failed, mut refused_by_both, mut unmatched) = (0u64, 0u64, 0u64);
    let accepted = calls_the_server_accepted(&found.records);
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
                let peer_accepted = match record.direction {
                    Direction::Reply => true,
                    Direction::Call => accepted.get(&(record.flow, record.xid)).copied().unwrap_or(false),
                };
                if peer_accepted {
                    failed += 1;
                    eprintln!("nfsbench: {} xid {:#010x} {label} {kind}: {e}", record.flow, record.xid);
                } else {
                    refused_by_both += 1;
                    if !args.summary {
                        writeln!(
                            out,
                            "{} xid {:#010x} {kind} {label} refused by the server and by us: {e}",
                            record.flow, record.xid
                        )?;
                    }
                }
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
            writeln!(out, "{secs:10.6} {} xid {:#010x} {kind} {label} {line}", record.flow, record.xid)?;
        }
    }
    print_summary(out, &tally)?;
    for (flow, why) in &found.skipped_streams {
        writeln!(out, "skipped stream {flow}: {why}")?;
    }
    let total = found.records.len();
    writeln!(
        out,
        "decode: {} of {total} RPC messages decoded, {failed} failed, {refused_by_both} malformed calls refused by the \
         server and by us, {unmatched} replies without their call in the capture",
        total as u64 - failed - refused_by_both - unmatched
    )?;
    Ok(if failed == 0 { Decoded::All } else { Decoded::SomeFailed })
}

/// For each call (by its flow and xid), whether the server's reply was an accepted SUCCESS.
fn calls_the_server_accepted(records: &[RecordInCapture]) -> HashMap<(capture::Flow, u32), bool> {
    records
        .iter()
        .filter(|r| r.direction == Direction::Reply)
        .filter_map(|r| {
            let (message, _) = RpcMessage::decode(&r.bytes).ok()?;
            let success = matches!(message.as_reply()?, ReplyBody::Accepted(a) if a.stat == AcceptStat::Success);
            Some(((r.flow.reversed(), r.xid), success))
        })
        .collect()
}

fn print_summary(out: &mut impl Write, tally: &BTreeMap<CallKey, Tally>) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<24} {:>7} {:>7} {:>12} {:>12}  reply statuses",
        "procedure", "calls", "replies", "call bytes", "reply bytes"
    )?;
    for (key, t) in tally {
        let statuses: Vec<String> = t.statuses.iter().map(|(s, n)| format!("{s}×{n}")).collect();
        writeln!(
            out,
            "{:<24} {:>7} {:>7} {:>12} {:>12}  {}",
            procedure_name(*key),
            t.calls,
            t.replies,
            t.call_bytes,
            t.reply_bytes,
            statuses.join(" ")
        )?;
    }
    Ok(())
}
