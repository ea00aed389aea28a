//! The figures a baseline gives.

/// A bandwidth measurement.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stream {
    /// Bytes that arrived (TCP: as counted by the receiver; RDMA: Writes whose completion says placed).
    pub bytes: u64,
    pub seconds: f64,
}

impl Stream {
    /// MB/s (10^6 bytes per second).
    pub fn mbs(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes as f64 / self.seconds / 1e6
        } else {
            0.0
        }
    }
}

/// A round-trip measurement, one message outstanding.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PingPong {
    pub round_trips: u64,
    pub median_us: f64,
    pub mean_us: f64,
    pub p99_us: f64,
}

impl PingPong {
    /// From round-trip times in nanoseconds.
    pub fn from_samples(mut ns: Vec<u64>) -> PingPong {
        if ns.is_empty() {
            return PingPong::default();
        }
        ns.sort_unstable();
        let at = |q: f64| ns[((ns.len() - 1) as f64 * q).round() as usize] as f64 / 1e3;
        PingPong {
            round_trips: ns.len() as u64,
            median_us: at(0.5),
            mean_us: ns.iter().sum::<u64>() as f64 / ns.len() as f64 / 1e3,
            p99_us: at(0.99),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_from_samples() {
        let p = PingPong::from_samples(vec![3000, 1000, 2000]);
        assert_eq!((p.round_trips, p.median_us, p.mean_us, p.p99_us), (3, 2.0, 2.0, 3.0));
        assert_eq!(PingPong::from_samples(Vec::new()).round_trips, 0);
        assert_eq!(Stream { bytes: 2_000_000, seconds: 2.0 }.mbs(), 1.0);
        assert_eq!(Stream::default().mbs(), 0.0);
    }
}
