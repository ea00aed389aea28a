//! Measured against modelled: how far apart, and when that is worth a flag.

/// A measurement more than 25% above or below the model is flagged. Repetitions of one cell on the lab
/// VM spread by about ±7% (compare's 95% intervals) and the model leaves out headers (1–5%) and CPU
/// contention the LAN baseline did not see; beyond a factor of 1.25 something the model does not
/// know about binds (or the measurement is wrong), and that is worth a look.
pub const FLAG_RATIO: f64 = 1.25;

/// The factor between `measured` and `modelled` (any unit, both the same): the larger over the
/// smaller, so 1.0 is agreement and 2.0 a factor of two either way. Infinite when one of them is zero
/// or not a number and the other is not.
pub fn disagreement(measured: f64, modelled: f64) -> f64 {
    let usable = |x: f64| x.is_finite() && x > 0.0;
    match (usable(measured), usable(modelled)) {
        (true, true) => measured.max(modelled) / measured.min(modelled),
        (false, false) if measured == modelled => 1.0,
        _ => f64::INFINITY,
    }
}

/// Whether `measured` and `modelled` disagree by more than [`FLAG_RATIO`].
pub fn is_flagged(measured: f64, modelled: f64) -> bool {
    disagreement(measured, modelled) > FLAG_RATIO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_factor_is_symmetric_and_flags_beyond_a_quarter() {
        assert_eq!(disagreement(100.0, 50.0), 2.0);
        assert_eq!(disagreement(50.0, 100.0), 2.0);
        assert_eq!(disagreement(0.0, 0.0), 1.0);
        assert_eq!(disagreement(0.0, 10.0), f64::INFINITY);
        assert!(!is_flagged(120.0, 100.0));
        assert!(!is_flagged(100.0, 120.0));
        assert!(is_flagged(130.0, 100.0));
        assert!(is_flagged(100.0, 130.0));
    }
}
