//! results.csv (one row per cell, with intervals and the ratio against the baseline) and reps.csv (one
//! row per repetition, the raw figures).

use crate::results::{Estimate, KernelCounters, RdmaCounters, Report};
use crate::summarize::Outcome;

/// One row per cell.
pub fn results_csv(report: &Report) -> String {
    let mut s = String::from(
        "case,workload,metric,reps,bandwidth_mbs,bandwidth_lo,bandwidth_hi,iops,iops_lo,iops_hi,clat_mean_us,\
         clat_p50_us,clat_p99_us,clat_p99_99_us,host_cpu_s_per_gb,host_cpu_s_per_gb_lo,host_cpu_s_per_gb_hi,\
         host_cpu_s_per_million_ios,client_cpu_s_per_gb,server_cpu_s_per_gb,efficiency,ratio_vs_baseline,\
         ratio_lo,ratio_hi,verdict,engine,negotiated,negotiation_differs,kernel_rpcs,kernel_retransmissions,\
         kernel_timeouts,kernel_rtt_ms,kernel_exec_ms,kernel_backlog_ms,rdma_read_chunks,rdma_write_chunks,\
         rdma_reply_chunks,rdma_hardway_registrations,rdma_failed_marshals,clat_stdev_us,clat_stdev_us_lo,\
         clat_stdev_us_hi,clat_mean_ratio,clat_mean_ratio_lo,clat_mean_ratio_hi,clat_stdev_ratio,clat_stdev_ratio_lo,\
         clat_stdev_ratio_hi\n",
    );
    for c in &report.cells {
        let metric = report.workloads.iter().find(|w| w.name == c.workload).map(|w| w.metric);
        let pct = |p: f64| c.clat_percentiles_us.iter().find(|(q, _)| *q == p).map(|(_, v)| *v);
        let ratio = report.ratios.iter().find(|r| r.case == c.case && r.workload == c.workload);
        let latency = report.latency_ratios.iter().find(|r| r.case == c.case && r.workload == c.workload);
        let row = [
            field(&c.case),
            field(&c.workload),
            metric.map_or(String::new(), |m| m.unit().to_string()),
            c.bandwidth_mbs.n.to_string(),
            est(&c.bandwidth_mbs),
            est(&c.iops),
            num(Some(c.clat_mean_us.mean)),
            num(pct(50.0)),
            num(pct(99.0)),
            num(pct(99.99)),
            est(&c.host_cpu_per_gb),
            num(Some(c.host_cpu_per_mio.mean)),
            num(Some(c.client_cpu_per_gb.mean)),
            num(c.server_cpu_per_gb.map(|e| e.mean)),
            num(c.efficiency),
            ratio.map_or(",,".into(), |r| est(&r.ratio)),
            ratio.map_or(String::new(), |r| format!("{:?}", r.verdict).to_lowercase()),
            kernel_fields(report, &c.case, c.kernel.as_ref()),
            est(&c.clat_stdev_us),
            latency.map_or(",,".into(), |r| est(&r.mean)),
            latency.map_or(",,".into(), |r| est(&r.stdev)),
        ];
        s.push_str(&row.join(","));
        s.push('\n');
    }
    s
}

/// One row per repetition.
pub fn reps_csv(outcomes: &[Outcome]) -> String {
    let mut s = String::from(
        "case,workload,rep,bandwidth_mbs,iops,clat_mean_us,bytes,ios,runtime_s,client_cpu_s,server_cpu_s,host_cpu_s,file,\
         clat_stdev_us\n",
    );
    for o in outcomes {
        let m = &o.measure;
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            field(&o.case),
            field(&o.workload),
            o.rep,
            num(Some(m.bandwidth_mbs)),
            num(Some(m.iops)),
            num(Some(m.clat_mean_us)),
            m.bytes,
            m.ios,
            num(Some(m.runtime_s)),
            num(Some(m.client_cpu_s)),
            num(o.server_cpu_s),
            num(Some(m.host_cpu_s)),
            field(&o.file),
            num(Some(m.clat_stdev_us))
        ));
    }
    s
}

/// The engine, the kernel's negotiation and its counters (empty for nfsbench's own client).
fn kernel_fields(report: &Report, case: &str, k: Option<&KernelCounters>) -> String {
    let row = report.cases.iter().find(|c| c.case.name == case);
    let engine = row.map_or(String::new(), |r| r.case.engine.to_string());
    let negotiation = row.and_then(|r| r.negotiation.as_ref());
    let (negotiated, differs) = match negotiation {
        Some(n) => (field(&n.negotiated), field(&n.differs.join("; "))),
        None => (String::new(), String::new()),
    };
    let counters = match k {
        Some(k) => {
            let r = k.rdma.clone();
            let rdma = |f: fn(&RdmaCounters) -> u64| r.as_ref().map_or(String::new(), |r| f(r).to_string());
            [
                k.rpcs.to_string(),
                k.retransmissions.to_string(),
                k.timeouts.to_string(),
                num(Some(k.rtt_ms)),
                num(Some(k.exec_ms)),
                num(Some(k.backlog_ms)),
                rdma(|r| r.read_chunks),
                rdma(|r| r.write_chunks),
                rdma(|r| r.reply_chunks),
                rdma(|r| r.hardway_registrations),
                rdma(|r| r.failed_marshals),
            ]
            .join(",")
        }
        None => ",".repeat(10),
    };
    format!("{engine},{negotiated},{differs},{counters}")
}

fn est(e: &Estimate) -> String {
    format!("{},{},{}", num(Some(e.mean)), num(Some(e.lo)), num(Some(e.hi)))
}

fn num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map_or(String::new(), |x| format!("{x:.6}").trim_end_matches('0').trim_end_matches('.').to_string())
}

/// RFC 4180 quoting when needed.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_plain_and_fields_quoted_when_needed() {
        assert_eq!(num(Some(1.5)), "1.5");
        assert_eq!(num(Some(2.0)), "2");
        assert_eq!(num(Some(f64::NAN)), "");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"x\""), "\"say \"\"x\"\"\"");
    }
}
