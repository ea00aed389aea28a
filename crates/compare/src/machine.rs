//! Facts about this host for the report, from procfs, and the UTC time of day without a date library.

use std::time::{SystemTime, UNIX_EPOCH};

/// "hostname: 2 CPUs (AMD EPYC 7B13), 24 GiB, Linux 6.1.0-18-amd64".
pub fn describe(cpus: usize) -> String {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default().trim().to_string();
    let host = read("/proc/sys/kernel/hostname");
    let kernel = read("/proc/sys/kernel/osrelease");
    let cpuinfo = read("/proc/cpuinfo");
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or_else(String::new, |(_, m)| format!(" ({})", m.trim()));
    let mem_kib: u64 = read("/proc/meminfo")
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0);
    let gib = (mem_kib as f64 / (1u64 << 20) as f64).round();
    format!("{host}: {cpus} CPUs{model}, {gib} GiB, Linux {kernel}")
}

/// "2026-11-22 11:40:03 UTC".
pub fn utc_now() -> String {
    utc(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()))
}

/// Seconds since the epoch as a UTC date and time (the proleptic Gregorian calendar).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to civil date, after H. Hinnant's "chrono-compatible low-level date algorithms".
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", rem / 3600, rem / 60 % 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_seconds_become_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_795_347_405), "2026-11-22 11:36:45 UTC");
        assert!(describe(2).contains("2 CPUs"));
    }
}
