//! The `--wan` option string: `rtt=20ms,rate=10gbit[,jitter=1ms][,loss=0.1%][,tcp_window=6m]`, or
//! `distance=8600mi` (or `km`) in place of `rtt`.
//!
//! Units as netem and fio users write them: times in `ns`, `us`/`µs`, `ms`, `s`; rates in `bit`,
//! `kbit`, `mbit`, `gbit`, `tbit` (decimal, bits per second, as netem's `rate`); loss in percent (`%`
//! required, as netem); sizes with binary `k`/`m`/`g` suffixes (`6m` = 6 MiB, as fio).

use std::fmt;
use std::time::Duration;

/// Light in fibre travels about 200,000 km/s: 5 µs per km, one way (the figure studies of long-haul
/// InfiniBand use).
pub const ONE_WAY_PER_KM: Duration = Duration::from_nanos(5_000);

/// The round trip of a fibre path `km` long (5 µs per km each way), as `distance=` gives it.
pub fn rtt_of_distance_km(km: f64) -> Duration {
    ONE_WAY_PER_KM.mul_f64(2.0 * km.max(0.0))
}

/// Kilometres in a statute mile.
const KM_PER_MILE: f64 = 1.609_344;

/// What a TCP connection may have in flight by default: Linux's largest autotuned receive buffer
/// (`net.ipv4.tcp_rmem` maximum, 6 MiB).
pub const DEFAULT_TCP_WINDOW: u64 = 6 << 20;

/// One emulated link, as given on the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct WanSpec {
    /// Round-trip propagation delay (both directions together; each direction gets half).
    pub rtt: Duration,
    /// The distance `rtt` came from, in km, when given as a distance.
    pub distance_km: Option<f64>,
    /// Bits per second in each direction; `None`: no rate limit, propagation only.
    pub rate_bps: Option<u64>,
    /// Each message's extra delay is drawn uniformly from [0, jitter) (order within a connection is kept).
    pub jitter: Duration,
    /// Probability that a message is lost and arrives one round trip later (its retransmission).
    pub loss: f64,
    /// Bytes a TCP connection may have unacknowledged in each direction (the receive window).
    pub tcp_window: u64,
}

/// A `--wan` string that cannot be used; the message names the part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--wan {0}")]
pub struct SpecError(String);

fn bad(message: String) -> SpecError {
    SpecError(message)
}

impl WanSpec {
    /// Parses `rtt=20ms,rate=10gbit,...`.
    pub fn parse(text: &str) -> Result<WanSpec, SpecError> {
        let mut spec = WanSpec {
            rtt: Duration::ZERO,
            distance_km: None,
            rate_bps: None,
            jitter: Duration::ZERO,
            loss: 0.0,
            tcp_window: DEFAULT_TCP_WINDOW,
        };
        let mut rtt_given = false;
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                return Err(bad(format!(
                    "'{part}': expected KEY=VALUE (rtt, distance, rate, jitter, loss, tcp_window)"
                )));
            };
            let value = value.trim();
            match key.trim() {
                "rtt" | "delay" if rtt_given => return Err(bad(format!("'{part}': the round trip is given twice"))),
                "rtt" => {
                    spec.rtt = parse_time(value).map_err(|e| bad(format!("rtt={value}: {e}")))?;
                    rtt_given = true;
                }
                // netem's `delay` is one way.
                "delay" => {
                    spec.rtt = 2 * parse_time(value).map_err(|e| bad(format!("delay={value}: {e}")))?;
                    rtt_given = true;
                }
                "distance" if rtt_given => {
                    return Err(bad(format!("'{part}': give a distance or a round trip, not both")))
                }
                "distance" => {
                    let km = parse_distance_km(value).map_err(|e| bad(format!("distance={value}: {e}")))?;
                    spec.rtt = rtt_of_distance_km(km);
                    spec.distance_km = Some(km);
                    rtt_given = true;
                }
                "rate" => spec.rate_bps = Some(parse_rate(value).map_err(|e| bad(format!("rate={value}: {e}")))?),
                "jitter" => spec.jitter = parse_time(value).map_err(|e| bad(format!("jitter={value}: {e}")))?,
                "loss" => spec.loss = parse_loss(value).map_err(|e| bad(format!("loss={value}: {e}")))?,
                "tcp_window" => {
                    spec.tcp_window = parse_size(value).map_err(|e| bad(format!("tcp_window={value}: {e}")))?;
                    if spec.tcp_window < 4096 {
                        return Err(bad(format!("tcp_window={value}: at least 4k")));
                    }
                }
                other => {
                    return Err(bad(format!(
                        "'{other}' is not a link property (rtt, delay, distance, rate, jitter, loss, tcp_window)"
                    )))
                }
            }
        }
        if spec.rtt.is_zero() && spec.rate_bps.is_none() {
            return Err(bad(format!("'{text}': give at least rtt= (or distance=) or rate=")));
        }
        if spec.rtt > Duration::from_secs(10) {
            return Err(bad(format!("rtt {:?}: at most 10 s", spec.rtt)));
        }
        Ok(spec)
    }

    /// The spec with the round trip `rtt` (from a distance sweep, say) and everything else kept.
    pub fn with_rtt(&self, rtt: Duration) -> WanSpec {
        WanSpec { rtt, distance_km: None, ..self.clone() }
    }

    /// A link of round trip `rtt` and nothing else (no rate limit, jitter or loss).
    pub fn rtt_only(rtt: Duration) -> WanSpec {
        WanSpec {
            rtt,
            distance_km: None,
            rate_bps: None,
            jitter: Duration::ZERO,
            loss: 0.0,
            tcp_window: DEFAULT_TCP_WINDOW,
        }
    }

    /// For people: the spec with the distance it came from ("rtt=138.403584ms (13840 km),rate=10gbit").
    pub fn describe(&self) -> String {
        let text = self.to_string();
        match (self.distance_km, text.split_once(',')) {
            (Some(km), Some((rtt, rest))) => format!("{rtt} ({km:.0} km),{rest}"),
            (Some(km), None) => format!("{text} ({km:.0} km)"),
            (None, _) => text,
        }
    }

    /// Propagation delay of one direction.
    pub fn one_way(&self) -> Duration {
        self.rtt / 2
    }

    /// Time on the wire for `bytes` at the rate (zero without one).
    pub fn serialisation(&self, bytes: u64) -> Duration {
        match self.rate_bps {
            Some(bps) => Duration::from_secs_f64(bytes as f64 * 8.0 / bps as f64),
            None => Duration::ZERO,
        }
    }

    /// Bytes in flight that fill the link: rate × round trip (`None` without a rate).
    pub fn bandwidth_delay_product(&self) -> Option<u64> {
        self.rate_bps.map(|bps| (bps as f64 / 8.0 * self.rtt.as_secs_f64()) as u64)
    }
}

impl fmt::Display for WanSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Always as a round trip, so that the text parses back (`describe` adds the distance).
        write!(f, "rtt={}", format_time(self.rtt))?;
        if let Some(bps) = self.rate_bps {
            write!(f, ",rate={}", format_rate(bps))?;
        }
        if !self.jitter.is_zero() {
            write!(f, ",jitter={}", format_time(self.jitter))?;
        }
        if self.loss > 0.0 {
            write!(f, ",loss={}%", self.loss * 100.0)?;
        }
        if self.tcp_window != DEFAULT_TCP_WINDOW {
            write!(f, ",tcp_window={}k", self.tcp_window / 1024)?;
        }
        Ok(())
    }
}

/// `20ms`, `150us`, `1.5ms`, `0.02s`.
pub fn parse_time(text: &str) -> Result<Duration, String> {
    let (number, unit) = split_unit(text);
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "" => return Err("needs a unit (ns, us, ms, s)".into()),
        other => return Err(format!("unknown time unit '{other}' (ns, us, ms, s)")),
    };
    let seconds = parse_number(number)? * scale;
    Duration::try_from_secs_f64(seconds).map_err(|_| "out of range".to_string())
}

/// `10gbit`, `100mbit`, `2.5gbit` (bits per second, decimal).
pub fn parse_rate(text: &str) -> Result<u64, String> {
    let (number, unit) = split_unit(text);
    let scale = match unit.to_ascii_lowercase().as_str() {
        "bit" => 1e0,
        "kbit" => 1e3,
        "mbit" => 1e6,
        "gbit" => 1e9,
        "tbit" => 1e12,
        "" => return Err("needs a unit (bit, kbit, mbit, gbit, tbit)".into()),
        other => return Err(format!("unknown rate unit '{other}' (bit, kbit, mbit, gbit, tbit: bits per second)")),
    };
    let bps = parse_number(number)? * scale;
    if !(1000.0..=1e15).contains(&bps) {
        return Err("between 1kbit and 1000tbit".into());
    }
    Ok(bps as u64)
}

/// `8600mi`, `8600miles`, `100km`: kilometres.
pub fn parse_distance_km(text: &str) -> Result<f64, String> {
    let (number, unit) = split_unit(text);
    let scale = match unit {
        "km" => 1.0,
        "mi" | "mile" | "miles" => KM_PER_MILE,
        "m" => 1e-3,
        "" => return Err("needs a unit (km, mi)".into()),
        other => return Err(format!("unknown distance unit '{other}' (m, km, mi)")),
    };
    let km = parse_number(number)? * scale;
    if km > 100_000.0 {
        return Err("at most 100,000 km".into());
    }
    Ok(km)
}

/// `0.1%` as 0.001.
pub fn parse_loss(text: &str) -> Result<f64, String> {
    let number = text.strip_suffix('%').ok_or("in percent, e.g. 0.1%")?;
    let percent = parse_number(number.trim())?;
    if percent >= 50.0 {
        return Err("below 50%".into());
    }
    Ok(percent / 100.0)
}

/// `6m`, `512k`, `65536`: bytes, binary multiples.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let (number, unit) = split_unit(text);
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        other => return Err(format!("unknown size unit '{other}' (k, m, g)")),
    };
    let bytes = parse_number(number)? * scale as f64;
    if bytes > (1u64 << 40) as f64 {
        return Err("at most 1t".into());
    }
    Ok(bytes as u64)
}

fn split_unit(text: &str) -> (&str, &str) {
    let sign = usize::from(text.starts_with(['-', '+']));
    let at = text[sign..].find(|c: char| !(c.is_ascii_digit() || c == '.')).map_or(text.len(), |i| i + sign);
    (&text[..at], &text[at..])
}

fn parse_number(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 => Ok(n),
        _ => Err(format!("'{text}' is not a number")),
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
    fn a_round_trip_and_a_rate_are_read_in_netems_units() {
        let s = WanSpec::parse("rtt=20ms,rate=10gbit,jitter=1ms,loss=0.1%").expect("spec");
        assert_eq!(s.rtt, Duration::from_millis(20));
        assert_eq!(s.one_way(), Duration::from_millis(10));
        assert_eq!(s.rate_bps, Some(10_000_000_000));
        assert_eq!(s.jitter, Duration::from_millis(1));
        assert!((s.loss - 0.001).abs() < 1e-12);
        assert_eq!(s.tcp_window, DEFAULT_TCP_WINDOW);
        assert_eq!(s.to_string(), "rtt=20ms,rate=10gbit,jitter=1ms,loss=0.1%");
        assert_eq!(WanSpec::parse(&s.to_string()), Ok(s));
    }

    #[test]
    fn a_distance_becomes_five_microseconds_per_km_each_way() {
        // The ORNL study's longest loop: 8,600 miles ≈ 13,840 km ≈ 138 ms round trip.
        let s = WanSpec::parse("distance=8600mi,rate=10gbit").expect("spec");
        let ms = s.rtt.as_secs_f64() * 1e3;
        assert!((ms - 138.4).abs() < 0.1, "{ms}");
        assert_eq!(s.describe(), "rtt=138.403584ms (13840 km),rate=10gbit");
        assert_eq!(WanSpec::parse(&s.to_string()).map(|p| p.rtt), Ok(s.rtt));
        assert_eq!(WanSpec::parse("distance=100km").expect("km").rtt, Duration::from_millis(1));
        assert_eq!(WanSpec::parse("delay=5ms").expect("one way").rtt, Duration::from_millis(10));
    }

    #[test]
    fn serialisation_and_the_bandwidth_delay_product_follow_the_rate() {
        let s = WanSpec::parse("rtt=10ms,rate=1gbit").expect("spec");
        assert_eq!(s.serialisation(1_000_000), Duration::from_millis(8));
        assert_eq!(s.bandwidth_delay_product(), Some(1_250_000));
        assert_eq!(WanSpec::parse("rtt=1ms").expect("no rate").serialisation(1 << 30), Duration::ZERO);
    }

    #[test]
    fn bad_parts_are_refused_by_name() {
        for (text, needle) in [
            ("rtt=20", "unit"),
            ("rtt=20ms,distance=10km", "not both"),
            ("rate=10gbps", "'gbps'"),
            ("loss=0.1", "percent"),
            ("bandwidth=1gbit", "'bandwidth'"),
            ("rtt=20ms,rtt=30ms", "twice"),
            ("jitter=1ms", "at least"),
            ("rtt=-1ms", "not a number"),
            ("tcp_window=1k,rtt=1ms", "at least 4k"),
            ("distance=1e9km", "unit"),
            ("rtt", "KEY=VALUE"),
        ] {
            let e = WanSpec::parse(text).expect_err(text).to_string();
            assert!(e.starts_with("--wan ") && e.contains(needle), "{text}: {e}");
        }
    }
}
