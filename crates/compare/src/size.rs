//! Sizes as fio and plan files write them: `4k`, `1m`, `16MiB`, `1g`, or a plain number of bytes.
//! k/m/g/t are powers of 1024, as fio's default `kb_base=1024`.

/// Parse a size; `None` when it is not one.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let number: u64 = t[..digits].parse().ok()?;
    let shift = match t[digits..].trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    number.checked_mul(1u64 << shift)
}

/// A size for people and for fio's command line: "4KiB", "1MiB", "1536KiB", "100B" (whole units only).
pub fn format_size(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    format!("{bytes}B")
}

/// The same size in fio's option syntax ("4k", "1m").
pub fn fio_size(bytes: u64) -> String {
    for (shift, unit) in [(40, "t"), (30, "g"), (20, "m"), (10, "k")] {
        if bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_fio_units_and_format_back() {
        assert_eq!(parse_size("4k"), Some(4096));
        assert_eq!(parse_size("1MiB"), Some(1 << 20));
        assert_eq!(parse_size("16m"), Some(16 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("1x"), None);
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("99999999999999999999t"), None);
        assert_eq!(format_size(4096), "4KiB");
        assert_eq!(format_size(1536 << 10), "1536KiB");
        assert_eq!(format_size(100), "100B");
        assert_eq!(fio_size(1 << 20), "1m");
        assert_eq!(fio_size(3000), "3000");
    }
}
