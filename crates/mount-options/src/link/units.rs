//! The units of a link spec, as netem and fio users write them: times in `ns`, `us`/`µs`, `ms`, `s`;
//! rates in `bit`, `kbit`, `mbit`, `gbit`, `tbit` (decimal, bits per second, as netem's `rate`);
//! distances in `m`, `km`, `mi`; loss in percent (`%` required, as netem); sizes with binary `k`/`m`/`g`
//! suffixes (`6m` = 6 MiB, as fio). Each parser has a printer that it reads back exactly.

use std::time::Duration;

use thiserror::Error;

/// Kilometres in a statute mile.
const KM_PER_MILE: f64 = 1.609_344;

/// A value of a link property that cannot be read; the message says what was expected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UnitError {
    /// A bare number where a unit is required (`rtt=20`).
    #[error("needs a unit ({expected})")]
    MissingUnit { expected: &'static str },
    /// A unit this quantity does not know (`rate=10gbps`).
    #[error("unknown {quantity} unit '{unit}' ({expected})")]
    UnknownUnit { quantity: &'static str, unit: String, expected: &'static str },
    /// Not a finite, non-negative number.
    #[error("'{0}' is not a number")]
    NotANumber(String),
    /// A loss without its `%`.
    #[error("in percent, e.g. 0.1%")]
    NotPercent,
    /// A time too large for a `Duration`.
    #[error("out of range")]
    Overflow,
    /// Outside what the quantity allows; `allowed` says what does.
    #[error("{allowed}")]
    OutOfRange { allowed: &'static str },
}

/// `20ms`, `150us`, `1.5ms`, `0.02s`.
pub fn parse_time(text: &str) -> Result<Duration, UnitError> {
    let (number, unit) = split_unit(text);
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "" => return Err(UnitError::MissingUnit { expected: "ns, us, ms, s" }),
        other => return Err(unknown("time", other, "ns, us, ms, s")),
    };
    let seconds = parse_number(number)? * scale;
    Duration::try_from_secs_f64(seconds).map_err(|_| UnitError::Overflow)
}

/// `10gbit`, `100mbit`, `2.5gbit` (bits per second, decimal).
pub fn parse_rate(text: &str) -> Result<u64, UnitError> {
    let (number, unit) = split_unit(text);
    let scale = match unit.to_ascii_lowercase().as_str() {
        "bit" => 1e0,
        "kbit" => 1e3,
        "mbit" => 1e6,
        "gbit" => 1e9,
        "tbit" => 1e12,
        "" => return Err(UnitError::MissingUnit { expected: "bit, kbit, mbit, gbit, tbit" }),
        other => return Err(unknown("rate", other, "bit, kbit, mbit, gbit, tbit: bits per second")),
    };
    let bps = parse_number(number)? * scale;
    if !(1000.0..=1e15).contains(&bps) {
        return Err(UnitError::OutOfRange { allowed: "between 1kbit and 1000tbit" });
    }
    Ok(bps as u64)
}

/// `8600mi`, `8600miles`, `100km`: kilometres.
pub fn parse_distance_km(text: &str) -> Result<f64, UnitError> {
    let (number, unit) = split_unit(text);
    let scale = match unit {
        "km" => 1.0,
        "mi" | "mile" | "miles" => KM_PER_MILE,
        "m" => 1e-3,
        "" => return Err(UnitError::MissingUnit { expected: "km, mi" }),
        other => return Err(unknown("distance", other, "m, km, mi")),
    };
    let km = parse_number(number)? * scale;
    if km > 100_000.0 {
        return Err(UnitError::OutOfRange { allowed: "at most 100,000 km" });
    }
    Ok(km)
}

/// `0.1%` as 0.001.
pub fn parse_loss(text: &str) -> Result<f64, UnitError> {
    let number = text.strip_suffix('%').ok_or(UnitError::NotPercent)?;
    let percent = parse_number(number.trim())?;
    if percent >= 50.0 {
        return Err(UnitError::OutOfRange { allowed: "below 50%" });
    }
    Ok(percent / 100.0)
}

/// `6m`, `512k`, `65536`: bytes, binary multiples.
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    let (number, unit) = split_unit(text);
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        other => return Err(unknown("size", other, "k, m, g")),
    };
    let bytes = parse_number(number)? * scale as f64;
    if bytes > (1u64 << 40) as f64 {
        return Err(UnitError::OutOfRange { allowed: "at most 1t" });
    }
    Ok(bytes as u64)
}

fn unknown(quantity: &'static str, unit: &str, expected: &'static str) -> UnitError {
    UnitError::UnknownUnit { quantity, unit: unit.to_string(), expected }
}

fn split_unit(text: &str) -> (&str, &str) {
    let sign = usize::from(text.starts_with(['-', '+']));
    let at = text[sign..].find(|c: char| !(c.is_ascii_digit() || c == '.')).map_or(text.len(), |i| i + sign);
    (&text[..at], &text[at..])
}

fn parse_number(text: &str) -> Result<f64, UnitError> {
    match text.parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 => Ok(n),
        _ => Err(UnitError::NotANumber(text.to_string())),
    }
}

/// `20ms`, `150us`, `1.5s`, `138.403584ms` (what `parse_time` reads back, to the nanosecond).
pub fn format_time(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns >= 1_000_000_000 {
        format!("{}s", trim(ns as f64 / 1e9, 9))
    } else if ns >= 1_000_000 {
        format!("{}ms", trim(ns as f64 / 1e6, 6))
    } else {
        format!("{}us", trim(ns as f64 / 1e3, 3))
    }
}

/// `10gbit`, `100mbit` (what `parse_rate` reads back).
pub fn format_rate(bps: u64) -> String {
    let b = bps as f64;
    if b >= 1e9 {
        format!("{}gbit", trim(b / 1e9, 9))
    } else if b >= 1e6 {
        format!("{}mbit", trim(b / 1e6, 6))
    } else {
        format!("{}kbit", trim(b / 1e3, 3))
    }
}

fn trim(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_quantity_names_its_units_when_one_is_missing_or_unknown() {
        for (result, message) in [
            (parse_time("20").map(|_| ()), "needs a unit (ns, us, ms, s)"),
            (parse_time("20h").map(|_| ()), "unknown time unit 'h' (ns, us, ms, s)"),
            (parse_rate("1").map(|_| ()), "needs a unit (bit, kbit, mbit, gbit, tbit)"),
            (
                parse_rate("1GBPS").map(|_| ()),
                "unknown rate unit 'gbps' (bit, kbit, mbit, gbit, tbit: bits per second)",
            ),
            (parse_rate("1bit").map(|_| ()), "between 1kbit and 1000tbit"),
            (parse_distance_km("5").map(|_| ()), "needs a unit (km, mi)"),
            (parse_distance_km("5ft").map(|_| ()), "unknown distance unit 'ft' (m, km, mi)"),
            (parse_distance_km("200000km").map(|_| ()), "at most 100,000 km"),
            (parse_loss("1").map(|_| ()), "in percent, e.g. 0.1%"),
            (parse_loss("50%").map(|_| ()), "below 50%"),
            (parse_size("1T").map(|_| ()), "unknown size unit 't' (k, m, g)"),
            (parse_size("2048g").map(|_| ()), "at most 1t"),
            (parse_time("1e30s").map(|_| ()), "unknown time unit 'e30s' (ns, us, ms, s)"),
            (parse_time("99999999999999999999999s").map(|_| ()), "out of range"),
            (parse_time("x1ms").map(|_| ()), "unknown time unit 'x1ms' (ns, us, ms, s)"),
            (parse_time("1.2.3ms").map(|_| ()), "'1.2.3' is not a number"),
        ] {
            assert_eq!(result.map_err(|e| e.to_string()), Err(message.to_string()));
        }
    }

    #[test]
    fn printed_times_and_rates_read_back_exactly() {
        for ns in [1_000, 150_000, 1_500_000, 138_403_584, 2_000_000_000, 1_000_000_001] {
            let d = Duration::from_nanos(ns);
            assert_eq!(parse_time(&format_time(d)), Ok(d), "{}", format_time(d));
        }
        for bps in [1_000, 2_500_000, 10_000_000_000, 100_000_000] {
            assert_eq!(parse_rate(&format_rate(bps)), Ok(bps), "{}", format_rate(bps));
        }
        assert_eq!(parse_size("6m"), Ok(6 << 20));
        assert_eq!(parse_distance_km("1mi"), Ok(KM_PER_MILE));
    }
}
