//! Number and time formatting exactly as fio prints them: `num2str` (lib/num2str.c: "37.6MiB", "4843.0k",
//! "2048k"), the ctime(3) date, and the unit scaling of latency lines.

use std::time::SystemTime;

/// Unit suffix, fio's `enum n2s_unit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// No suffix.
    None,
    /// "/s".
    PerSec,
    /// "B".
    Byte,
    /// "bit" (value ×8).
    Bit,
    /// "B/s".
    BytePerSec,
    /// "bit/s" (value ×8).
    BitPerSec,
}

/// fio's `num2str(num, maxlen, base, pow2, units)`: at most `maxlen` digits (the '.' counts), divided by
/// 1000 or 1024 until it fits, with one rounding quirk kept: the fraction is printed from the remainder of
/// the *last* division only.
pub fn num2str(num: u64, maxlen: usize, base: u64, pow2: bool, unit: Unit) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefixes = if pow2 { &IEC } else { &SI };
    let suffix = match unit {
        Unit::None => "",
        Unit::PerSec => "/s",
        Unit::Byte => "B",
        Unit::Bit => "bit",
        Unit::BytePerSec => "B/s",
        Unit::BitPerSec => "bit/s",
    };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let mut post = 0usize;
    let mut b = base;
    while b > 1 {
        b /= thousand;
        post += 1;
    }
    let mut num = match unit {
        Unit::Bit | Unit::BitPerSec => num.saturating_mul(8),
        _ => num,
    };
    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post < prefixes.len() {
        if num.to_string().len() <= maxlen {
            break;
        }
        let m = num % thousand;
        num /= thousand;
        carry = m >= thousand / 2;
        modulo = Some(m);
        post += 1;
    }
    if post >= prefixes.len() {
        post = 0;
    }
    let Some(m) = modulo else {
        return format!("{num}{}{suffix}", prefixes[post]);
    };
    let digits = num.to_string().len();
    if maxlen <= digits + 1 {
        if carry {
            num += 1;
        }
        return format!("{num}{}{suffix}", prefixes[post]);
    }
    let decimals = maxlen - digits - 1;
    let frac = format!("{:.*}", decimals, m as f64 / thousand as f64);
    if frac.starts_with('1') {
        num += 1;
    }
    let after_point = frac.get(2..).unwrap_or("");
    format!("{num}.{after_point}{}{suffix}", prefixes[post])
}

/// ctime(3) without the newline, in local time: "Sun Nov 22 05:48:08 2026".
pub fn ctime(t: SystemTime) -> String {
    let local: chrono::DateTime<chrono::Local> = t.into();
    local.format("%a %b %e %H:%M:%S %Y").to_string()
}

/// Milliseconds since the Unix epoch (0 before it).
pub fn epoch_ms(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// fio's `display_lat` scaling: (min, max, mean, dev, unit name) in msec when min > 2 ms, max > 99.999 ms
/// and dev > 1 ms; in usec when min > 2 µs, max > 99.999 µs and dev > 1 µs; else nsec.
pub fn scale_lat(min: u64, max: u64, mean: f64, dev: f64) -> (u64, u64, f64, f64, &'static str) {
    if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        (min / 1_000_000, max / 1_000_000, mean / 1e6, dev / 1e6, "msec")
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        (min / 1000, max / 1000, mean / 1e3, dev / 1e3, "usec")
    } else {
        (min, max, mean, dev, "nsec")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num2str_matches_strings_fio_printed() {
        // From fio 3.33 runs (see tests/fixtures): io sizes, bandwidths, IOPS and latency maxima.
        assert_eq!(num2str(67_108_864, 4, 1, true, Unit::Byte), "64.0MiB");
        assert_eq!(num2str(67_108_864, 4, 1, false, Unit::Byte), "67.1MB");
        assert_eq!(num2str(2_147_483_648_000, 4, 1, true, Unit::BytePerSec), "2000GiB/s");
        assert_eq!(num2str(2_147_483_648_000, 4, 1, false, Unit::BytePerSec), "2147GB/s");
        assert_eq!(num2str(2_048_000, 4, 1, false, Unit::None), "2048k");
        assert_eq!(num2str(9620, 4, 1, false, Unit::None), "9620");
        assert_eq!(num2str(4_843_000, 6, 1, false, Unit::None), "4843.0k");
        assert_eq!(num2str(2_147_483_648, 4, 1, true, Unit::Byte), "2048MiB");
        assert_eq!(num2str(2_147_483_648, 4, 1, false, Unit::Byte), "2147MB");
    }

    #[test]
    fn num2str_with_a_kibibyte_base_starts_at_the_kibi_prefix() {
        // The progress line: 2 201 600 KiB/s → "2150MiB/s".
        assert_eq!(num2str(2_201_600, 4, 1024, true, Unit::BytePerSec), "2150MiB/s");
        assert_eq!(num2str(0, 4, 1024, true, Unit::BytePerSec), "0KiB/s");
    }

    #[test]
    fn latency_lines_switch_units_like_fio() {
        assert_eq!(scale_lat(1487, 4_843_000, 77_500.0, 81_579.0).4, "nsec");
        assert_eq!(scale_lat(26_000, 743_000, 174_930.0, 120_700.0).4, "usec");
        assert_eq!(scale_lat(3_000_000, 200_000_000, 5e7, 2e6).4, "msec");
    }
}
