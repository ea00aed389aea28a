//! Numbers as the kernel prints them in these files.

/// A counter printed with `%d` from an `atomic_t` (fs/smb/client/cifs_debug.c, smb2ops.c
/// `smb2_print_stats`): past 2^31 it prints negative, so a negative value is read back as the 32-bit
/// pattern the kernel holds. Anything that is not an integer, or is beyond u64, gives `None`.
pub(crate) fn counter(text: &str) -> Option<u64> {
    if let Some(magnitude) = text.strip_prefix('-') {
        let value: i64 = magnitude.parse::<i64>().ok()?.checked_neg()?;
        let wrapped = i32::try_from(value).ok()?;
        return Some(u64::from(wrapped as u32));
    }
    if text.starts_with('+') {
        return None;
    }
    text.parse().ok()
}

/// A `%x` field (no `0x`), or one with `0x` where the kernel prints `0x%x`.
pub(crate) fn hex_u32(text: &str) -> Option<u32> {
    let digits = text.strip_prefix("0x").unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

/// The `key: value` pairs of a line such as `Conn receive_credit_max: ff send_credit_target: ff
/// max_send_size: 554` or `... max_receive_size:554` (cifs_debug.c prints that one without a space).
pub(crate) fn pairs(line: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut tokens = line.split_whitespace();
    while let Some(token) = tokens.next() {
        if let Some(key) = token.strip_suffix(':') {
            if let Some(value) = tokens.next() {
                out.push((key, value));
            }
        } else if let Some((key, value)) = token.split_once(':') {
            if !key.is_empty() && !value.is_empty() {
                out.push((key, value));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_wrap_like_the_kernels_int() {
        assert_eq!(counter("160"), Some(160));
        assert_eq!(counter("-1"), Some(u64::from(u32::MAX)));
        assert_eq!(counter("-2147483648"), Some(1 << 31));
        assert_eq!(counter("-2147483649"), None);
        assert_eq!(counter("99999999999999999999999"), None);
        assert_eq!(counter("+5"), None);
        assert_eq!(counter(""), None);
        assert_eq!(counter("1x"), None);
    }

    #[test]
    fn hex_fields_and_pairs() {
        assert_eq!(hex_u32("2a756"), Some(0x2a756));
        assert_eq!(hex_u32("0x311"), Some(0x311));
        assert_eq!(hex_u32("+1"), None);
        assert_eq!(hex_u32("123456789"), None);
        let p = pairs("Conn max_fragmented_recv_size: 2a756 max_fragmented_send_size: 2a756 max_receive_size:554");
        assert_eq!(
            p,
            [("max_fragmented_recv_size", "2a756"), ("max_fragmented_send_size", "2a756"), ("max_receive_size", "554")]
        );
    }
}
