//! Sizes, bandwidths and times as the explanations write them.

use std::time::Duration;

/// `1 MiB`, `6 MiB`, `4 KiB`, `150 KiB`, `1.5 MiB`, `512 bytes`.
pub fn size(bytes: f64) -> String {
    const UNITS: [(f64, &str); 3] = [(1_073_741_824.0, "GiB"), (1_048_576.0, "MiB"), (1024.0, "KiB")];
    for (scale, unit) in UNITS {
        if bytes >= scale {
            return format!("{} {unit}", trim(bytes / scale, 1));
        }
    }
    format!("{} bytes", trim(bytes, 0))
}

/// Decimal megabytes per second, three significant figures: `1250 MB/s`, `44.9 MB/s`, `6.52 MB/s`.
pub fn bandwidth(bytes_per_second: f64) -> String {
    format!("{} MB/s", mb(bytes_per_second))
}

/// The number of `bandwidth` without its unit.
pub fn mb(bytes_per_second: f64) -> String {
    let mb = bytes_per_second / 1e6;
    match mb {
        m if m >= 100.0 => format!("{m:.0}"),
        m if m >= 10.0 => format!("{m:.1}"),
        m => format!("{m:.2}"),
    }
}

/// Three significant figures in the largest unit that keeps a whole number in front: `20ms`, `20.9ms`,
/// `53.3us`, `1.05s`, `0` (what `--rtt` reads back, rounded).
pub fn time(d: Duration) -> String {
    if d.is_zero() {
        return "0".to_string();
    }
    let (value, unit) = match d.as_secs_f64() * 1e9 {
        n if n >= 1e9 => (n / 1e9, "s"),
        n if n >= 1e6 => (n / 1e6, "ms"),
        n if n >= 1e3 => (n / 1e3, "us"),
        n => (n, "ns"),
    };
    let decimals = match value {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    format!("{}{unit}", trim(value, decimals))
}

/// `1` or `s` for plurals.
pub fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn trim(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_bandwidths_and_times_read_as_people_write_them() {
        assert_eq!(size(1048576.0), "1 MiB");
        assert_eq!(size(6.0 * 1048576.0), "6 MiB");
        assert_eq!(size(4096.0), "4 KiB");
        assert_eq!(size(1.5 * 1048576.0), "1.5 MiB");
        assert_eq!(size(512.0), "512 bytes");
        assert_eq!(bandwidth(1.25e9), "1250 MB/s");
        assert_eq!(bandwidth(44.94e6), "44.9 MB/s");
        assert_eq!(bandwidth(6.52e6), "6.52 MB/s");
        assert_eq!(time(Duration::from_millis(20)), "20ms");
        assert_eq!(time(Duration::from_secs_f64(0.020_888_861)), "20.9ms");
        assert_eq!(time(Duration::from_secs_f64(140.053e-3)), "140ms");
        assert_eq!(time(Duration::from_secs_f64(1.053e-3)), "1.05ms");
        assert_eq!(time(Duration::from_nanos(53_277)), "53.3us");
        assert_eq!(time(Duration::from_nanos(3_218)), "3.22us");
        assert_eq!(time(Duration::ZERO), "0");
    }
}
