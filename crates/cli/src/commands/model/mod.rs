//! `nfsbench model --wan rtt=20ms,rate=10gbit [--proto tcp|rdma|both] [--rw read|write|both] [--bs 4k,1m]
//! [--rtt 0,1ms,... | --distance 0.2mi,...] [--output-format text|json]`: the closed-form throughput model
//! of the `model` crate over proto × rw × bs × round trip, as a table with the binding limit of each
//! row explained, or as JSON.
//!
//! Exit status: 0 success; 2 bad usage (one line on stderr naming the option).

mod table;

use std::time::Duration;

use model::{LanBaseline, ModelInput, ModelOutput, Mount, Network, Rw, Workload};
use mount_options::link::{parse_distance_km, parse_rate, parse_size, parse_time};
use mount_options::rdma::{parse_credits, parse_inline};
use mount_options::{LinkSpec, Proto};
use serde::Serialize;

use crate::error::CliError;

/// Round trips beyond this are refused, as `--wan` refuses them.
const MAX_RTT: Duration = Duration::from_secs(10);

#[derive(clap::Args, Debug)]
#[command(after_help = "Per RPC: latency = LAN latency + round trips × RTT + size × 8 / rate. Round trips: 1, \
    but 2 for an RDMA write whose call exceeds the inline threshold (the server RDMA-Reads the data before \
    it replies). Bandwidth = RPCs in flight × size / latency (Little's law), RPCs in flight = iodepth × \
    numjobs × clients × ⌈bs / rsize⌉, at most credits × nconnect over RDMA; capped by the link rate, one TCP \
    window per connection per RTT, the server's RDMA Read depth for writes, and the LAN throughput. The \
    smallest term names the limit. The `model` crate's documentation derives every term.")]
pub struct ModelArgs {
    /// The link, as `run --wan`: rtt=20ms or distance=8600mi, rate=10gbit (bits per second; none: no
    /// limit), tcp_window=6m (bytes unacknowledged per TCP connection). jitter and loss are not modelled
    #[arg(long, value_name = "SPEC")]
    pub wan: Option<String>,
    /// Transport: tcp, rdma or both
    #[arg(long, value_name = "P", default_value = "both")]
    pub proto: String,
    /// Direction: read, write or both (random or sequential is the same to the transport)
    #[arg(long, value_name = "RW", default_value = "both")]
    pub rw: String,
    /// I/O sizes (fio's bs), comma separated
    #[arg(long, value_name = "SIZES", default_value = "4k,1m")]
    pub bs: String,
    /// I/Os each job keeps in flight (fio's iodepth)
    #[arg(long, value_name = "N", default_value = "16")]
    pub iodepth: String,
    /// Jobs per client (fio's numjobs)
    #[arg(long, value_name = "N", default_value = "1")]
    pub numjobs: String,
    /// Client hosts running the job, each with its own mount
    #[arg(long, value_name = "N", default_value = "1")]
    pub clients: String,
    /// Connections per mount (nconnect=); RPCs spread over them, each with its credits and TCP window
    #[arg(long, value_name = "N", default_value = "1")]
    pub nconnect: String,
    /// Largest READ (rsize=); a larger I/O goes as ⌈bs / rsize⌉ RPCs at once
    #[arg(long, value_name = "SIZE", default_value = "1m")]
    pub rsize: String,
    /// Largest WRITE (wsize=), likewise
    #[arg(long, value_name = "SIZE", default_value = "1m")]
    pub wsize: String,
    /// RPC-over-RDMA credits per connection in force: the client asks 128 (Linux), knfsd and `nfsbench
    /// serve` grant 64; the smaller one counts
    #[arg(long, value_name = "N", default_value = "128")]
    pub rdma_credits: String,
    /// RPC-over-RDMA inline threshold: a call or reply larger than this (headers included) moves through
    /// chunks; a write then costs the server's RDMA Read round trip
    #[arg(long, value_name = "SIZE", default_value = "4k")]
    pub rdma_inline: String,
    /// RDMA Reads the server may have outstanding per connection (its initiator depth): write payloads
    /// pulled at once
    #[arg(long, value_name = "N", default_value = "16")]
    pub rdma_read_depth: String,
    /// Per-operation time with no distance (client + server + LAN; fio's mean clat measured at LAN)
    #[arg(long, value_name = "TIME", default_value = "50us")]
    pub lan_latency: String,
    /// Bandwidth measured at LAN, a ceiling no distance raises: 3GB/s, 2800MB/s, 2.5GiB/s or 24gbit
    #[arg(long, value_name = "RATE")]
    pub lan_throughput: Option<String>,
    /// Round trips to model, comma separated (0, 1ms, 70ms, ...); replaces the rtt of --wan
    #[arg(long, value_name = "TIMES")]
    pub rtt: Option<String>,
    /// Distances to model at 5 µs per km each way (0.2mi, 100km, 8600mi, ...); replaces the rtt of --wan
    #[arg(long, value_name = "DISTANCES")]
    pub distance: Option<String>,
    /// text (a table and the limits explained) or json
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub output_format: String,
}

/// One round trip to model, with the distance it came from when given as one.
#[derive(Debug, Clone, Serialize)]
pub struct RttPoint {
    #[serde(serialize_with = "seconds")]
    pub rtt: Duration,
    /// As written (`8600mi`), when given as a distance.
    pub distance: Option<String>,
    pub distance_km: Option<f64>,
}

/// One row: a proto × rw × bs × rtt combination and its prediction.
#[derive(Debug, Serialize)]
pub struct Row {
    #[serde(with = "model::proto_serde")]
    pub proto: Proto,
    pub rw: Rw,
    pub bs: u64,
    #[serde(flatten)]
    pub point: RttPoint,
    pub input: ModelInput,
    pub output: ModelOutput,
}

/// Everything the command was asked, validated.
#[derive(Debug)]
struct Plan {
    protos: Vec<Proto>,
    rws: Vec<Rw>,
    sizes: Vec<u64>,
    points: Vec<RttPoint>,
    base: ModelInput,
    json: bool,
    unmodelled: Option<String>,
}

/// Run `nfsbench model`.
pub fn run(args: &ModelArgs) -> Result<(), CliError> {
    let plan = match build_plan(args) {
        Ok(plan) => plan,
        Err(message) => return Err(CliError::Usage(message)),
    };
    let rows = rows(&plan);
    if plan.json {
        #[derive(Serialize)]
        struct Report<'a> {
            rows: &'a [Row],
        }
        println!("{}", serde_json::to_string_pretty(&Report { rows: &rows }).map_err(anyhow::Error::from)?);
    } else {
        print!("{}", table::render(&plan.base, &rows, plan.unmodelled.as_deref()));
    }
    Ok(())
}

fn rows(plan: &Plan) -> Vec<Row> {
    let mut rows = Vec::new();
    for &proto in &plan.protos {
        for &rw in &plan.rws {
            for &bs in &plan.sizes {
                for point in &plan.points {
                    let mut input = plan.base.with_rtt(point.rtt);
                    input.mount.proto = proto;
                    input.workload.rw = rw;
                    input.workload.bs = bs;
                    let output = model::predict(&input);
                    rows.push(Row { proto, rw, bs, point: point.clone(), input, output });
                }
            }
        }
    }
    rows
}

fn build_plan(args: &ModelArgs) -> Result<Plan, String> {
    let wan = args.wan.as_deref().map(LinkSpec::parse).transpose().map_err(|e| e.to_string())?;
    let points = match (&args.rtt, &args.distance, &wan) {
        (Some(_), Some(_), _) => return Err("--rtt and --distance: give one list of round trips, not both".into()),
        (Some(list), None, _) => list_of(list, "--rtt", parse_rtt)?,
        (None, Some(list), _) => list_of(list, "--distance", parse_distance)?,
        (None, None, Some(spec)) => {
            vec![RttPoint {
                rtt: spec.rtt,
                distance: spec.distance_km.map(|km| format!("{km:.0}km")),
                distance_km: spec.distance_km,
            }]
        }
        (None, None, None) => {
            return Err("give the link: --wan rtt=20ms,rate=10gbit, or --rtt or --distance lists".into())
        }
    };
    let unmodelled = wan
        .as_ref()
        .filter(|w| !w.jitter.is_zero() || w.loss > 0.0)
        .map(|w| format!("--wan {w}: jitter and loss are not modelled (steady state, no retransmissions)"));
    let network = wan.as_ref().map_or_else(|| Network::with_rtt(Duration::ZERO), Network::from_wan);

    let mut mount = Mount::new(Proto::Tcp);
    mount.nconnect = count(&args.nconnect, "--nconnect", 1024)?;
    mount.rsize = io_size(&args.rsize, "--rsize")?;
    mount.wsize = io_size(&args.wsize, "--wsize")?;
    mount.rdma_credits = parse_credits(&args.rdma_credits).map_err(|e| e.to_string())?;
    mount.rdma_inline = parse_inline(&args.rdma_inline).map_err(|e| e.to_string())?;
    mount.rdma_read_depth = count(&args.rdma_read_depth, "--rdma-read-depth", 255)?;
    let mut workload = Workload::new(Rw::Read, 4096, count(&args.iodepth, "--iodepth", 65536)?);
    workload.numjobs = count(&args.numjobs, "--numjobs", 65536)?;
    workload.clients = count(&args.clients, "--clients", 65536)?;
    let lan = LanBaseline {
        latency: lan_latency(&args.lan_latency)?,
        throughput: args.lan_throughput.as_deref().map(lan_throughput).transpose()?,
    };

    let protos = match args.proto.as_str() {
        "both" => vec![Proto::Tcp, Proto::Rdma],
        "tcp" => vec![Proto::Tcp],
        "rdma" => vec![Proto::Rdma],
        p => return Err(format!("--proto '{p}' is not tcp, rdma or both")),
    };
    let rws = match args.rw.as_str() {
        "both" => vec![Rw::Read, Rw::Write],
        "read" => vec![Rw::Read],
        "write" => vec![Rw::Write],
        other => return Err(format!("--rw '{other}' is not read, write or both")),
    };
    let sizes = list_of(&args.bs, "--bs", block_size)?;
    let json = match args.output_format.as_str() {
        "text" => false,
        "json" => true,
        other => return Err(format!("--output-format '{other}' is not text or json")),
    };
    Ok(Plan { protos, rws, sizes, points, base: ModelInput { mount, workload, network, lan }, json, unmodelled })
}

/// A comma-separated list, each item read by `parse`; the error names the option and the item.
fn list_of<T>(text: &str, option: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    let items: Vec<&str> = text.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if items.is_empty() {
        return Err(format!("{option} '{text}' is an empty list"));
    }
    items.into_iter().map(|item| parse(item).map_err(|e| format!("{option} '{item}': {e}"))).collect()
}

fn parse_rtt(text: &str) -> Result<RttPoint, String> {
    let rtt = if text == "0" { Duration::ZERO } else { parse_time(text).map_err(|e| e.to_string())? };
    if rtt > MAX_RTT {
        return Err("at most 10s".into());
    }
    Ok(RttPoint { rtt, distance: None, distance_km: None })
}

fn parse_distance(text: &str) -> Result<RttPoint, String> {
    let km = if text == "0" { 0.0 } else { parse_distance_km(text).map_err(|e| e.to_string())? };
    Ok(RttPoint { rtt: model::rtt_of_distance_km(km), distance: Some(text.to_string()), distance_km: Some(km) })
}

fn block_size(text: &str) -> Result<u64, String> {
    match parse_size(text).map_err(|e| e.to_string())? {
        0 => Err("an I/O size above 0".into()),
        n if n > 1 << 30 => Err("at most 1g".into()),
        n => Ok(n),
    }
}

/// rsize/wsize: 1 KiB to 1 GiB (Linux stops at 1 MiB; the model need not).
fn io_size(text: &str, option: &str) -> Result<u64, String> {
    match parse_size(text) {
        Ok(n) if (1024..=1 << 30).contains(&n) => Ok(n),
        Ok(_) => Err(format!("{option} '{text}': from 1k to 1g")),
        Err(e) => Err(format!("{option} '{text}': {e}")),
    }
}

fn count(text: &str, option: &str, max: u32) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("{option} '{text}' is not a count from 1 to {max}")),
    }
}

fn lan_latency(text: &str) -> Result<Duration, String> {
    match parse_time(text) {
        Ok(d) if !d.is_zero() && d <= MAX_RTT => Ok(d),
        Ok(_) => Err(format!("--lan-latency '{text}': above 0 and at most 10s")),
        Err(e) => Err(format!("--lan-latency '{text}': {e}")),
    }
}

/// `3GB/s`, `2800MB/s`, `2.5GiB/s` (bytes per second) or `24gbit` (bits per second).
fn lan_throughput(text: &str) -> Result<f64, String> {
    let bad = |e: String| format!("--lan-throughput '{text}': {e}");
    let bytes = match text.strip_suffix("/s") {
        Some(size) => {
            let (number, scale) = [("GiB", 1_073_741_824.0), ("MiB", 1_048_576.0), ("GB", 1e9), ("MB", 1e6)]
                .into_iter()
                .find_map(|(unit, scale)| size.strip_suffix(unit).map(|n| (n, scale)))
                .ok_or_else(|| bad("in GB/s, MB/s, GiB/s, MiB/s or a rate like 24gbit".into()))?;
            number.parse::<f64>().map_err(|_| bad(format!("'{number}' is not a number")))? * scale
        }
        None => parse_rate(text).map_err(|e| bad(e.to_string()))? as f64 / 8.0,
    };
    if bytes.is_finite() && bytes > 0.0 {
        Ok(bytes)
    } else {
        Err(bad("above 0".into()))
    }
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lan_throughput_takes_bytes_or_bits_per_second() {
        assert_eq!(lan_throughput("3GB/s"), Ok(3e9));
        assert_eq!(lan_throughput("2800MB/s"), Ok(2.8e9));
        assert_eq!(lan_throughput("1MiB/s"), Ok(1_048_576.0));
        assert_eq!(lan_throughput("24gbit"), Ok(3e9));
        for bad in ["3GB", "xGB/s", "0MB/s"] {
            assert!(lan_throughput(bad).expect_err(bad).starts_with("--lan-throughput"), "{bad}");
        }
    }

    #[test]
    fn lists_name_the_option_and_the_bad_item() {
        assert_eq!(list_of("4k, 1m", "--bs", block_size), Ok(vec![4096, 1 << 20]));
        assert!(list_of("4k,4x", "--bs", block_size).expect_err("4x").starts_with("--bs '4x': "));
        assert_eq!(parse_rtt("0").map(|p| p.rtt), Ok(Duration::ZERO));
        assert!(parse_rtt("11s").is_err() && parse_rtt("5").is_err());
        let far = parse_distance("8600mi").expect("miles");
        assert!((far.rtt.as_secs_f64() - 0.1384).abs() < 1e-4, "{:?}", far.rtt);
    }
}
