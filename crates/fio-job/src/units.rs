//! fio's value syntax: integers with size suffixes (`kb_base` rules), times, booleans, floats and the
//! integer arithmetic fio hands to `bc` / its expression parser. Stricter than fio where fio silently
//! misreads: `4q`, `1.5g`, `4 k` and `10min` are errors here (fio takes them as 4, 1, 4 and 10 µs).

/// Why a value did not parse: `what` names the kind of value ("size", "time"...), `detail` says more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ValueError {
    pub what: &'static str,
    pub detail: String,
}

impl ValueError {
    pub fn new(what: &'static str, detail: impl Into<String>) -> Self {
        ValueError { what, detail: detail.into() }
    }
}

/// A parsed size: bytes, or a percentage (`20%`) where the option allows one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Size {
    Bytes(u64),
    Percent(u64),
}

/// Parses an fio integer with an optional size suffix. With `kb_base=1024` (fio's default "compatibility
/// mode") `k`, `kb`, `K`, `KB` and `Ki` mean 1024 while `KiB` means 1000; with `kb_base=1000` it is the
/// other way round (`Ki` still follows `k`: fio 3.33 only recognises the three-letter IEC forms).
/// `0x` hexadecimal takes no suffix; `(...)` is integer arithmetic.
pub(crate) fn parse_size(s: &str, kb_base: u32) -> Result<Size, ValueError> {
    let bad = |detail: &str| ValueError::new("size", detail);
    if s.is_empty() {
        return Err(bad("empty value"));
    }
    if s.starts_with('(') {
        let v = eval_expr(s).map_err(|e| ValueError::new("size", e.to_string()))?;
        return u64::try_from(v).map(Size::Bytes).map_err(|_| bad("negative result"));
    }
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map(Size::Bytes).map_err(|_| bad("not a hexadecimal number"));
    }
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits_end == 0 {
        return Err(bad("expected a number"));
    }
    let number: u64 = s[..digits_end].parse().map_err(|_| bad("number too large"))?;
    let suffix = s[digits_end..].to_ascii_lowercase();
    if suffix == "%" {
        return Ok(Size::Percent(number));
    }
    if suffix == "z" {
        return Err(bad("zone counts ('z') need fio's zoned block device mode"));
    }
    let mult = size_multiplier(&suffix, kb_base).ok_or_else(|| bad(&format!("unknown unit '{}'", &s[digits_end..])))?;
    number.checked_mul(mult).map(Size::Bytes).ok_or_else(|| bad("too large for 64 bits"))
}

/// Bytes per unit for a lower-cased suffix, or None for one fio does not define.
fn size_multiplier(suffix: &str, kb_base: u32) -> Option<u64> {
    if suffix.is_empty() || suffix == "b" {
        return Some(1);
    }
    let mut chars = suffix.chars();
    let prefix = chars.next()?;
    let power = match prefix {
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        'p' => 5,
        _ => return None,
    };
    let base = u64::from(kb_base);
    let base = match chars.as_str() {
        "" | "b" | "i" => base,
        // The IEC spelling means the "other" base (fio's compatibility rule).
        "ib" => {
            if kb_base == 1000 {
                1024
            } else {
                1000
            }
        }
        _ => return None,
    };
    Some(base.pow(power))
}

/// Parses an fio time into microseconds. Without a unit the value is seconds when `default_seconds`
/// (runtime, ramp_time, startdelay), microseconds otherwise. Units: d, h, m, s/sec, ms/msec, us/usec.
pub(crate) fn parse_time_us(s: &str, default_seconds: bool) -> Result<u64, ValueError> {
    let bad = |detail: &str| ValueError::new("time", detail);
    let default_mult = if default_seconds { 1_000_000 } else { 1 };
    if s.starts_with('(') {
        let v = eval_expr(s).map_err(|e| ValueError::new("time", e.to_string()))?;
        let v = u64::try_from(v).map_err(|_| bad("negative result"))?;
        return v.checked_mul(default_mult).ok_or_else(|| bad("too large"));
    }
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits_end == 0 {
        return Err(bad("expected a number"));
    }
    let number: u64 = s[..digits_end].parse().map_err(|_| bad("number too large"))?;
    let mult: u64 = match s[digits_end..].to_ascii_lowercase().as_str() {
        "" => default_mult,
        "us" | "usec" => 1,
        "ms" | "msec" => 1_000,
        "s" | "sec" => 1_000_000,
        "m" => 60 * 1_000_000,
        "h" => 3_600 * 1_000_000,
        "d" => 86_400 * 1_000_000,
        _ => return Err(bad(&format!("unknown unit '{}' (use us, ms, s, m, h or d)", &s[digits_end..]))),
    };
    number.checked_mul(mult).ok_or_else(|| bad("too large"))
}

/// fio booleans are unsigned integers (decimal or `0x` hex): 0 is false, anything else true.
pub(crate) fn parse_bool(s: &str) -> Result<bool, ValueError> {
    let bad = || ValueError::new("boolean", "use 0 or 1");
    let n = if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16).map_err(|_| bad())?
    } else {
        s.parse::<u32>().map_err(|_| bad())?
    };
    Ok(n != 0)
}

/// A plain decimal floating-point number (no exponent tricks needed, but Rust's syntax is accepted).
pub(crate) fn parse_float(s: &str) -> Result<f64, ValueError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(ValueError::new("number", "expected a decimal number")),
    }
}

/// Why an arithmetic value (`(...)`, or a line with `$ncpus*2`) could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ArithmeticError {
    /// Something after a complete expression.
    #[error("cannot evaluate '{0}': only integers, + - * / % and parentheses are allowed")]
    Unparsed(String),
    /// A result outside i64.
    #[error("'{0}' is too large")]
    ResultTooLarge(String),
    #[error("arithmetic overflow")]
    Overflow,
    #[error("division by zero")]
    DivisionByZero,
    #[error("unbalanced parentheses")]
    UnbalancedParentheses,
    /// A literal outside i128.
    #[error("number too large")]
    NumberTooLarge,
    /// A character that is no digit, operator or parenthesis where an operand belongs.
    #[error("only integers, + - * / % and parentheses are allowed in arithmetic")]
    NotAnOperand,
}

/// Integer arithmetic as fio gets it from `bc` (scale 0): `+ - * / %`, parentheses, unary minus.
pub(crate) fn eval_expr(s: &str) -> Result<i64, ArithmeticError> {
    let tokens: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    let mut p = ExprParser { t: &tokens, i: 0 };
    let v = p.sum()?;
    if p.i != tokens.len() {
        return Err(ArithmeticError::Unparsed(s.to_string()));
    }
    i64::try_from(v).map_err(|_| ArithmeticError::ResultTooLarge(s.to_string()))
}

struct ExprParser<'a> {
    t: &'a [char],
    i: usize,
}

impl ExprParser<'_> {
    fn peek(&self) -> Option<char> {
        self.t.get(self.i).copied()
    }

    fn sum(&mut self) -> Result<i128, ArithmeticError> {
        let mut v = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.i += 1;
            let r = self.product()?;
            v = if op == '+' { v.checked_add(r) } else { v.checked_sub(r) }.ok_or(ArithmeticError::Overflow)?;
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<i128, ArithmeticError> {
        let mut v = self.unary()?;
        while let Some(op @ ('*' | '/' | '%')) = self.peek() {
            self.i += 1;
            let r = self.unary()?;
            v = match op {
                '*' => v.checked_mul(r).ok_or(ArithmeticError::Overflow)?,
                _ if r == 0 => return Err(ArithmeticError::DivisionByZero),
                '/' => v / r,
                _ => v % r,
            };
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<i128, ArithmeticError> {
        match self.peek() {
            Some('-') => {
                self.i += 1;
                Ok(-self.unary()?)
            }
            Some('+') => {
                self.i += 1;
                self.unary()
            }
            Some('(') => {
                self.i += 1;
                let v = self.sum()?;
                if self.peek() != Some(')') {
                    return Err(ArithmeticError::UnbalancedParentheses);
                }
                self.i += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.i;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.i += 1;
                }
                let text: String = self.t[start..self.i].iter().collect();
                text.parse::<i128>().map_err(|_| ArithmeticError::NumberTooLarge)
            }
            _ => Err(ArithmeticError::NotAnOperand),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(s: &str, kb_base: u32) -> u64 {
        match parse_size(s, kb_base) {
            Ok(Size::Bytes(b)) => b,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn size_suffixes_are_powers_of_1024_by_default() {
        assert_eq!(bytes("4096", 1024), 4096);
        for s in ["4k", "4K", "4kb", "4kB", "4KB", "4Ki", "4096b", "4096B"] {
            assert_eq!(bytes(s, 1024), 4096, "{s}");
        }
        assert_eq!(bytes("1m", 1024), 1 << 20);
        assert_eq!(bytes("1M", 1024), 1 << 20);
        assert_eq!(bytes("1g", 1024), 1 << 30);
        assert_eq!(bytes("1t", 1024), 1 << 40);
        assert_eq!(bytes("1p", 1024), 1 << 50);
    }

    #[test]
    fn iec_suffixes_mean_powers_of_1000_in_fio_compatibility_mode() {
        assert_eq!(bytes("4KiB", 1024), 4000);
        assert_eq!(bytes("1MiB", 1024), 1_000_000);
        assert_eq!(bytes("1gib", 1024), 1_000_000_000);
    }

    #[test]
    fn kb_base_1000_swaps_the_meanings() {
        assert_eq!(bytes("4k", 1000), 4000);
        assert_eq!(bytes("4KB", 1000), 4000);
        assert_eq!(bytes("4KiB", 1000), 4096);
        assert_eq!(bytes("1TiB", 1000), 1 << 40);
    }

    #[test]
    fn hex_and_arithmetic_are_accepted() {
        assert_eq!(bytes("0x1000", 1024), 4096);
        assert_eq!(bytes("(4*1024)", 1024), 4096);
        assert_eq!(bytes("(1 + 2) * 3", 1024), 9);
    }

    #[test]
    fn percentages_are_returned_as_such() {
        assert_eq!(parse_size("50%", 1024), Ok(Size::Percent(50)));
    }

    #[test]
    fn sizes_fio_would_misread_are_rejected() {
        for s in ["4q", "1.5g", "4 k", "", "k", "4kk", "0xfk", "-1", "99999999999999999999", "16777216t", "3z"] {
            assert!(parse_size(s, 1024).is_err(), "{s}");
        }
    }

    #[test]
    fn times_default_to_seconds_and_take_fio_units() {
        assert_eq!(parse_time_us("60", true), Ok(60_000_000));
        assert_eq!(parse_time_us("60", false), Ok(60));
        assert_eq!(parse_time_us("10us", true), Ok(10));
        assert_eq!(parse_time_us("10usec", true), Ok(10));
        assert_eq!(parse_time_us("250ms", true), Ok(250_000));
        assert_eq!(parse_time_us("250MSEC", true), Ok(250_000));
        assert_eq!(parse_time_us("5s", true), Ok(5_000_000));
        assert_eq!(parse_time_us("2m", true), Ok(120_000_000));
        assert_eq!(parse_time_us("1h", true), Ok(3_600_000_000));
        assert_eq!(parse_time_us("1D", true), Ok(86_400_000_000));
        assert_eq!(parse_time_us("(2*30)", true), Ok(60_000_000));
        for s in ["10min", "1.5s", "s", "", "0x10"] {
            assert!(parse_time_us(s, true).is_err(), "{s}");
        }
    }

    #[test]
    fn booleans_are_unsigned_integers() {
        assert_eq!(parse_bool("0"), Ok(false));
        assert_eq!(parse_bool("1"), Ok(true));
        assert_eq!(parse_bool("2"), Ok(true));
        assert_eq!(parse_bool("0x0"), Ok(false));
        assert!(parse_bool("true").is_err());
        assert!(parse_bool("").is_err());
    }

    #[test]
    fn arithmetic_follows_bc_integer_rules() {
        assert_eq!(eval_expr("7/2"), Ok(3));
        assert_eq!(eval_expr("-(3-5)*2"), Ok(4));
        assert_eq!(eval_expr("7%4"), Ok(3));
        assert_eq!(eval_expr("1/0"), Err(ArithmeticError::DivisionByZero));
        assert_eq!(eval_expr("2k*2"), Err(ArithmeticError::Unparsed("2k*2".into())));
        assert_eq!(eval_expr("(1+2"), Err(ArithmeticError::UnbalancedParentheses));
        assert_eq!(eval_expr("*2"), Err(ArithmeticError::NotAnOperand));
        assert_eq!(
            eval_expr("99999999999*99999999999"),
            Err(ArithmeticError::ResultTooLarge("99999999999*99999999999".into()))
        );
        let huge = "9".repeat(20);
        assert_eq!(eval_expr(&format!("{huge}*{huge}")), Err(ArithmeticError::Overflow));
        assert_eq!(eval_expr(&"9".repeat(50)), Err(ArithmeticError::NumberTooLarge));
    }
}
