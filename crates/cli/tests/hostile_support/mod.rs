//! What the hostile-client suite's cases share: the good client, a new client mounting, and the
//! judgement of the good client's figures under attack against its undisturbed ones.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::process::Output;
use std::time::{Duration, Instant};

use hostile::RawClient;

use crate::cli_support::{nfsbench, stderr};

/// Under attack the good client keeps at least this share of its undisturbed IOPS.
pub const MIN_IOPS_SHARE: f64 = 0.8;
/// Under attack the good client's p99 completion latency stays within this factor of undisturbed
/// (of 50 µs at least: below that, loopback's own jitter decides).
pub const MAX_P99_FACTOR: f64 = 3.0;
/// How long an attack runs before the good client is measured beside it (connections opened, queues
/// filled).
pub const ATTACK_RAMP: Duration = Duration::from_secs(2);

/// The good client's figures.
#[derive(Debug, Clone, Copy)]
pub struct Good {
    pub iops: f64,
    pub p99_us: f64,
}

impl Good {
    fn from_output(out: &Output) -> Good {
        assert!(out.status.success(), "the good client failed: {}", stderr(out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("fio JSON");
        let read = &json["jobs"][0]["read"];
        let iops = read["iops"].as_f64().expect("iops");
        let p99_ns = read["clat_ns"]["percentile"]["99.000000"].as_f64().expect("p99");
        Good { iops, p99_us: p99_ns / 1000.0 }
    }
}

/// The good client against the server's TCP port: 4 KiB random reads at iodepth 8 for 3 s.
pub fn good_client(port: u16) -> Good {
    let out = nfsbench()
        .args(["run", "--name=good", "--rw=randread", "--bs=4k", "--iodepth=8", "--size=16m", "--time_based"])
        .args(["--runtime=3", "--output-format=json", "--filename=good"])
        .args(["--target", "127.0.0.1:/export", "-o", &format!("port={port},mountport={port}")])
        .output()
        .expect("nfsbench run");
    Good::from_output(&out)
}

/// A client that is not yet connected can still mount `/export` and be answered, within 2 s.
pub fn new_client_mounts(addr: SocketAddr) -> Result<(), String> {
    let started = Instant::now();
    let mut client = RawClient::connect(addr).map_err(|e| format!("connect: {e}"))?;
    client.mount("/export").map_err(|e| format!("MOUNT: {e}"))?;
    client.null().map_err(|e| format!("NULL: {e}"))?;
    match started.elapsed() {
        took if took > Duration::from_secs(2) => Err(format!("mounting took {took:?}")),
        _ => Ok(()),
    }
}

/// The suite's common judgement: a new client mounted during the attack, and the good client kept its
/// IOPS and p99. `what` (the attack's own report, the server's memory) is printed beside the figures.
pub fn judge(
    case: &str,
    undisturbed: Good,
    attacked: Good,
    mount: &Result<(), String>,
    what: &str,
) -> Result<(), String> {
    let (u, a) = (undisturbed, attacked);
    eprintln!(
        "{case}: undisturbed {:.0} IOPS p99 {:.0} µs; under attack {:.0} IOPS ({:.2}×) p99 {:.0} µs ({:.2}×); {what}",
        u.iops,
        u.p99_us,
        a.iops,
        a.iops / u.iops,
        a.p99_us,
        a.p99_us / u.p99_us,
    );
    if let Err(why) = mount {
        return Err(format!("{case}: a new client could not mount during the attack: {why}"));
    }
    if a.iops < MIN_IOPS_SHARE * u.iops {
        return Err(format!("{case}: the good client fell from {:.0} to {:.0} IOPS", u.iops, a.iops));
    }
    if a.p99_us > MAX_P99_FACTOR * u.p99_us.max(50.0) {
        return Err(format!("{case}: the good client's p99 rose from {:.0} µs to {:.0} µs", u.p99_us, a.p99_us));
    }
    Ok(())
}

/// Measures with `attempt`, which judges each good client beside the attack (one verdict each, in the
/// same order every time). A good client whose judgement fails is measured again, up to
/// [`MEASUREMENTS`] attempts in all, and the case fails only when some good client failed in every
/// attempt. On 2 shared cores one 3-second window can be unlucky: CI's machine left one good client or
/// the other at 0.78-0.80x in windows where this one measured 0.9x. A broken defence fails every
/// attempt: before these defences the bad-version flood left the good client 0.07x its IOPS.
pub fn judged<T>(case: &str, mut attempt: impl FnMut() -> (T, Vec<Result<(), String>>)) -> T {
    let mut passed: Vec<bool> = Vec::new();
    let mut failures = Vec::new();
    for n in 1..=MEASUREMENTS {
        let (run, verdicts) = attempt();
        passed.resize(passed.len().max(verdicts.len()), false);
        for (i, verdict) in verdicts.into_iter().enumerate() {
            match verdict {
                Ok(()) => passed[i] = true,
                Err(why) if !passed[i] => failures.push(why),
                Err(_) => {}
            }
        }
        if passed.iter().all(|p| *p) {
            return run;
        }
        if n < MEASUREMENTS {
            eprintln!("{case}: {}; measuring once more", failures.last().map_or("", String::as_str));
        }
    }
    panic!("{case}: a good client failed in each of {MEASUREMENTS} attempts: {}", failures.join("; "))
}

/// How many times a case is measured before its judgement fails it.
const MEASUREMENTS: usize = 3;
