//! The text output of `nfsbench model`: what was assumed, one row per prediction, and each limit that
//! binds explained once, by the first row it binds.

use std::fmt::Write;

use model::format::{mb, size, time};
use model::ModelInput;
use mount_options::link::format_rate;

use super::Row;

const HEADERS: [&str; 10] = ["proto", "rw", "bs", "distance", "rtt", "MB/s", "IOPS", "latency", "RTs", "limit"];

/// The whole report: assumptions, table, limits.
pub fn render(base: &ModelInput, rows: &[Row], unmodelled: Option<&str>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", assumptions(base));
    if let Some(note) = unmodelled {
        let _ = writeln!(out, "note: {note}");
    }
    out.push('\n');
    let with_distance = rows.iter().any(|r| r.point.distance.is_some());
    let cells: Vec<[String; 10]> = rows.iter().map(cells).collect();
    let shown: Vec<usize> = (0..HEADERS.len()).filter(|&c| c != 3 || with_distance).collect();
    let widths: Vec<usize> = (0..HEADERS.len())
        .map(|c| cells.iter().map(|r| r[c].chars().count()).chain([HEADERS[c].len()]).max().unwrap_or(0))
        .collect();
    let line = |fields: &[String]| {
        let parts: Vec<String> = shown
            .iter()
            .map(|&c| match c {
                // Numbers right-aligned.
                5..=8 => format!("{:>w$}", fields[c], w = widths[c]),
                _ => format!("{:<w$}", fields[c], w = widths[c]),
            })
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(&HEADERS.map(String::from)));
    for row in &cells {
        let _ = writeln!(out, "{}", line(row));
    }
    out.push_str("\nlimits (each at the first row it binds):\n");
    let mut seen: Vec<&str> = Vec::new();
    for row in rows {
        let name = row.output.limit.name();
        if !seen.contains(&name) {
            seen.push(name);
            let _ = writeln!(
                out,
                "  {} {} {} at {}: {}",
                row.proto,
                row.rw.name(),
                fio_size(row.bs),
                where_(row),
                row.output.explanation
            );
        }
    }
    out
}

/// The line of assumptions shared by every row.
fn assumptions(base: &ModelInput) -> String {
    let (m, w, n) = (&base.mount, &base.workload, &base.network);
    let rate = n.rate_bps.map_or("no rate limit".to_string(), |r| format!("rate {}", format_rate(r)));
    let ceiling = base.lan.throughput.map_or(String::new(), |t| format!(", LAN ceiling {} MB/s", mb(t)));
    format!(
        "link:     {rate}, TCP window {} per connection, LAN latency {}{ceiling}\n\
         workload: {} I/Os outstanding (iodepth {} × numjobs {} × clients {})\n\
         mount:    nconnect {}, rsize {}, wsize {}; RDMA {} credits, {} inline, Read depth {}",
        size(n.tcp_window as f64),
        time(base.lan.latency),
        w.outstanding(),
        w.iodepth,
        w.numjobs,
        w.clients,
        m.nconnect,
        size(m.rsize as f64),
        size(m.wsize as f64),
        m.rdma_credits,
        size(f64::from(m.rdma_inline)),
        m.rdma_read_depth,
    )
}

fn cells(row: &Row) -> [String; 10] {
    let o = &row.output;
    [
        row.proto.to_string(),
        row.rw.name().to_string(),
        fio_size(row.bs),
        row.point.distance.clone().unwrap_or_default(),
        time(row.point.rtt),
        mb(o.bandwidth),
        iops(o.iops),
        time(o.latency),
        o.round_trips.to_string(),
        o.limit.name().to_string(),
    ]
}

fn where_(row: &Row) -> String {
    match &row.point.distance {
        Some(d) => format!("{d} ({})", time(row.point.rtt)),
        None => time(row.point.rtt),
    }
}

/// `4k`, `1m`, `1536`: as fio's bs is written.
fn fio_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{}g", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}m", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{}k", b >> 10),
        b => b.to_string(),
    }
}

/// `320.0k`, `1.31M`, `62.5`.
fn iops(x: f64) -> String {
    match x {
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e3 => format!("{:.1}k", x / 1e3),
        x => format!("{x:.1}"),
    }
}
