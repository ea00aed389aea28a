//! The long-distance link a mount runs over (`--wan`): `rtt=20ms,rate=10gbit[,jitter=1ms][,loss=0.1%]
//! [,tcp_window=6m]`, or `distance=8600mi` (or `km`) in place of `rtt`, parsed into a [`LinkSpec`].
//! Pure parsing and arithmetic; the emulation itself (timers, relays, the RDMA wrapper) is the `wan`
//! crate's. Units: [`units`].

mod units;

use std::fmt;
use std::time::Duration;

use thiserror::Error;

pub use units::{
    format_rate, format_time, parse_distance_km, parse_loss, parse_rate, parse_size, parse_time, UnitError,
};

/// Light in fibre travels about 200,000 km/s: 5 µs per km, one way (the figure studies of long-haul
/// InfiniBand use).
pub const ONE_WAY_PER_KM: Duration = Duration::from_nanos(5_000);

/// What a TCP connection may have in flight by default: Linux's largest autotuned receive buffer
/// (`net.ipv4.tcp_rmem` maximum, 6 MiB).
pub const DEFAULT_TCP_WINDOW: u64 = 6 << 20;

/// The smallest `tcp_window=`.
const MIN_TCP_WINDOW: u64 = 4096;

/// The longest round trip a link may have.
const MAX_RTT: Duration = Duration::from_secs(10);

/// The round trip of a fibre path `km` long (5 µs per km each way), as `distance=` gives it.
pub fn rtt_of_distance_km(km: f64) -> Duration {
    ONE_WAY_PER_KM.mul_f64(2.0 * km.max(0.0))
}

/// One emulated link, as given on the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkSpec {
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

/// A `--wan` string that cannot be used; the message names the part, prefixed with `--wan`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LinkSpecError {
    /// A part without `=`.
    #[error("--wan '{part}': expected KEY=VALUE (rtt, distance, rate, jitter, loss, tcp_window)")]
    NotKeyValue { part: String },
    /// `rtt=` or `delay=` after the round trip was already given.
    #[error("--wan '{part}': the round trip is given twice")]
    RoundTripTwice { part: String },
    /// `distance=` after the round trip was already given.
    #[error("--wan '{part}': give a distance or a round trip, not both")]
    DistanceAndRoundTrip { part: String },
    /// A property whose value does not read.
    #[error("--wan {key}={value}: {reason}")]
    BadValue { key: &'static str, value: String, reason: UnitError },
    /// `tcp_window=` below 4 KiB.
    #[error("--wan tcp_window={value}: at least 4k")]
    WindowTooSmall { value: String },
    /// A key that is not a link property.
    #[error("--wan '{key}' is not a link property (rtt, delay, distance, rate, jitter, loss, tcp_window)")]
    UnknownKey { key: String },
    /// Neither a round trip nor a rate: the link would do nothing.
    #[error("--wan '{text}': give at least rtt= (or distance=) or rate=")]
    NoEffect { text: String },
    /// A round trip over 10 s.
    #[error("--wan rtt {rtt:?}: at most 10 s")]
    RoundTripTooLong { rtt: Duration },
}

impl LinkSpec {
    /// Parses `rtt=20ms,rate=10gbit,...`.
    pub fn parse(text: &str) -> Result<LinkSpec, LinkSpecError> {
        let mut spec = LinkSpec::rtt_only(Duration::ZERO);
        let mut rtt_given = false;
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                return Err(LinkSpecError::NotKeyValue { part: part.to_string() });
            };
            let value = value.trim();
            let bad = |key: &'static str| {
                let value = value.to_string();
                move |reason| LinkSpecError::BadValue { key, value, reason }
            };
            match key.trim() {
                "rtt" | "delay" if rtt_given => {
                    return Err(LinkSpecError::RoundTripTwice { part: part.to_string() });
                }
                "rtt" => {
                    spec.rtt = parse_time(value).map_err(bad("rtt"))?;
                    rtt_given = true;
                }
                // netem's `delay` is one way.
                "delay" => {
                    let one_way = parse_time(value).map_err(bad("delay"))?;
                    spec.rtt = one_way.checked_mul(2).ok_or(UnitError::Overflow).map_err(bad("delay"))?;
                    rtt_given = true;
                }
                "distance" if rtt_given => {
                    return Err(LinkSpecError::DistanceAndRoundTrip { part: part.to_string() });
                }
                "distance" => {
                    let km = parse_distance_km(value).map_err(bad("distance"))?;
                    spec.rtt = rtt_of_distance_km(km);
                    spec.distance_km = Some(km);
                    rtt_given = true;
                }
                "rate" => spec.rate_bps = Some(parse_rate(value).map_err(bad("rate"))?),
                "jitter" => spec.jitter = parse_time(value).map_err(bad("jitter"))?,
                "loss" => spec.loss = parse_loss(value).map_err(bad("loss"))?,
                "tcp_window" => {
                    spec.tcp_window = parse_size(value).map_err(bad("tcp_window"))?;
                    if spec.tcp_window < MIN_TCP_WINDOW {
                        return Err(LinkSpecError::WindowTooSmall { value: value.to_string() });
                    }
                }
                other => return Err(LinkSpecError::UnknownKey { key: other.to_string() }),
            }
        }
        if spec.rtt.is_zero() && spec.rate_bps.is_none() {
            return Err(LinkSpecError::NoEffect { text: text.to_string() });
        }
        if spec.rtt > MAX_RTT {
            return Err(LinkSpecError::RoundTripTooLong { rtt: spec.rtt });
        }
        Ok(spec)
    }

    /// The spec with the round trip `rtt` (from a distance sweep, say) and everything else kept.
    pub fn with_rtt(&self, rtt: Duration) -> LinkSpec {
        LinkSpec { rtt, distance_km: None, ..self.clone() }
    }

    /// A link of round trip `rtt` and nothing else (no rate limit, jitter or loss).
    pub fn rtt_only(rtt: Duration) -> LinkSpec {
        LinkSpec {
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

impl fmt::Display for LinkSpec {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_trip_and_a_rate_are_read_in_netems_units() {
        let s = LinkSpec::parse("rtt=20ms,rate=10gbit,jitter=1ms,loss=0.1%").expect("spec");
        assert_eq!(s.rtt, Duration::from_millis(20));
        assert_eq!(s.one_way(), Duration::from_millis(10));
        assert_eq!(s.rate_bps, Some(10_000_000_000));
        assert_eq!(s.jitter, Duration::from_millis(1));
        assert!((s.loss - 0.001).abs() < 1e-12);
        assert_eq!(s.tcp_window, DEFAULT_TCP_WINDOW);
        assert_eq!(s.to_string(), "rtt=20ms,rate=10gbit,jitter=1ms,loss=0.1%");
        assert_eq!(LinkSpec::parse(&s.to_string()), Ok(s));
    }

    #[test]
    fn a_distance_becomes_five_microseconds_per_km_each_way() {
        // The ORNL study's longest loop: 8,600 miles ≈ 13,840 km ≈ 138 ms round trip.
        let s = LinkSpec::parse("distance=8600mi,rate=10gbit").expect("spec");
        let ms = s.rtt.as_secs_f64() * 1e3;
        assert!((ms - 138.4).abs() < 0.1, "{ms}");
        assert_eq!(s.describe(), "rtt=138.403584ms (13840 km),rate=10gbit");
        assert_eq!(LinkSpec::parse(&s.to_string()).map(|p| p.rtt), Ok(s.rtt));
        assert_eq!(LinkSpec::parse("distance=100km").expect("km").rtt, Duration::from_millis(1));
        assert_eq!(LinkSpec::parse("delay=5ms").expect("one way").rtt, Duration::from_millis(10));
    }

    #[test]
    fn serialisation_and_the_bandwidth_delay_product_follow_the_rate() {
        let s = LinkSpec::parse("rtt=10ms,rate=1gbit").expect("spec");
        assert_eq!(s.serialisation(1_000_000), Duration::from_millis(8));
        assert_eq!(s.bandwidth_delay_product(), Some(1_250_000));
        assert_eq!(LinkSpec::parse("rtt=1ms").expect("no rate").serialisation(1 << 30), Duration::ZERO);
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
            let e = LinkSpec::parse(text).expect_err(text).to_string();
            assert!(e.starts_with("--wan ") && e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn each_refusal_reads_as_before_the_move_out_of_wan() {
        for (text, message) in [
            ("rtt", "--wan 'rtt': expected KEY=VALUE (rtt, distance, rate, jitter, loss, tcp_window)"),
            ("rtt=1ms,delay=2ms", "--wan 'delay=2ms': the round trip is given twice"),
            ("delay=1ms,distance=2km", "--wan 'distance=2km': give a distance or a round trip, not both"),
            ("rtt=20", "--wan rtt=20: needs a unit (ns, us, ms, s)"),
            (
                "rate=10gbps",
                "--wan rate=10gbps: unknown rate unit 'gbps' (bit, kbit, mbit, gbit, tbit: bits per second)",
            ),
            ("rtt=1ms, tcp_window = 1k", "--wan tcp_window=1k: at least 4k"),
            (
                "bandwidth=1gbit",
                "--wan 'bandwidth' is not a link property (rtt, delay, distance, rate, jitter, loss, tcp_window)",
            ),
            ("jitter=1ms", "--wan 'jitter=1ms': give at least rtt= (or distance=) or rate="),
            ("rtt=11s", "--wan rtt 11s: at most 10 s"),
            // Twice this one way does not fit a Duration (it used to panic).
            ("delay=10000000000000000000s", "--wan delay=10000000000000000000s: out of range"),
        ] {
            assert_eq!(LinkSpec::parse(text).map_err(|e| e.to_string()), Err(message.to_string()), "{text}");
        }
    }
}
