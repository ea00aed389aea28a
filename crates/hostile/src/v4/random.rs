//! Numbers nobody should be able to guess from the server's side — forged session ids, stateids and client
//! owners — from splitmix64 over a process-wide counter seeded by the clock and the pid. Not for secrets:
//! only so that what an attack forges differs from run to run and from what the server issued.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

static STATE: AtomicU64 = AtomicU64::new(0);
static SEEDED: OnceLock<()> = OnceLock::new();

/// The next 64 random bits.
pub fn next_u64() -> u64 {
    SEEDED.get_or_init(|| {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        STATE.store(now ^ (u64::from(std::process::id()) << 32), Relaxed);
    });
    let mut z = STATE.fetch_add(0x9e37_79b9_7f4a_7c15, Relaxed).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub fn next_u32() -> u32 {
    (next_u64() >> 32) as u32
}

/// `N` random bytes.
pub fn bytes<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    for chunk in out.chunks_mut(8) {
        let word = next_u64().to_be_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn successive_draws_differ() {
        let (a, b) = (super::bytes::<16>(), super::bytes::<16>());
        assert_ne!(a, b);
        assert_ne!(super::next_u64(), super::next_u64());
    }
}
