//! Kubernetes resource quantities (`resource.ParseQuantity`), enough to validate them with the
//! apimachinery wording and to read a memory limit in whole bytes.

/// `resource.ErrFormatWrong`.
pub const ERR_FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/// `resource.ErrNumeric`.
pub const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
/// `resource.ErrSuffix`.
pub const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

/// Why a string is not a quantity; `Display` is the apimachinery message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    #[error("{}", ERR_FORMAT_WRONG)]
    FormatWrong,
    #[error("{}", ERR_NUMERIC)]
    Numeric,
    #[error("{}", ERR_SUFFIX)]
    Suffix,
}

/// A parsed quantity: `sign × digits × 10^-fraction_digits × base^exponent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantity {
    negative: bool,
    /// Integer and fraction digits concatenated, leading zeros stripped.
    digits: String,
    fraction_digits: u32,
    base: u32,
    exponent: i32,
    format: Format,
    /// The text as written; kept when upstream keeps it (see [`Quantity::canonical`]).
    original: String,
    keeps_original: bool,
}

/// apimachinery's quantity formats, chosen by the suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    BinarySi,
    DecimalSi,
    DecimalExponent,
}

const NANO_PER_UNIT: i128 = 1_000_000_000;

impl Quantity {
    /// Parses like apimachinery's `ParseQuantity` (same accepted forms and error classes).
    pub fn parse(text: &str) -> Result<Self, QuantityError> {
        if text.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        let parts = split_quantity(text)?;
        let (base, exponent, format) =
            interpret_suffix(parts.suffix).ok_or(QuantityError::Suffix)?;
        if needs_exact_decimal(&parts, base, exponent)
            && !parts.value.bytes().any(|c| c.is_ascii_digit())
        {
            // Upstream falls back to an arbitrary-precision decimal, which rejects a digit-less
            // numeric part such as `.`.
            return Err(QuantityError::Numeric);
        }
        let mut digits = format!("{}{}", parts.num, parts.denom);
        let trimmed = digits.trim_start_matches('0');
        digits = if trimmed.is_empty() {
            "0".to_string()
        } else {
            trimmed.to_string()
        };
        let keeps_original = text == "0" || keeps_original_text(&parts, base, exponent);
        Ok(Quantity {
            negative: parts.negative,
            digits,
            fraction_digits: parts.denom.len() as u32,
            base,
            exponent,
            format,
            original: text.to_string(),
            keeps_original,
        })
    }

    /// The string apimachinery serializes (`Quantity.String()`): the text as written when its
    /// parse kept it (already canonical-looking, e.g. `500m`, `1Gi`, `32`), otherwise the
    /// canonical form (`1.5Gi` → `1536Mi`, `0.5` → `500m`, `1000` → `1k`), after rounding up
    /// to nano units.
    pub fn canonical(&self) -> String {
        if self.keeps_original {
            return self.original.clone();
        }
        let nano = self.nano_rounded_up();
        if nano == 0 {
            return "0".into();
        }
        let sign = if self.negative { "-" } else { "" };
        let mut format = self.format;
        if format == Format::BinarySi && (nano < 1024 * NANO_PER_UNIT || nano % NANO_PER_UNIT != 0)
        {
            // Small or fractional binary amounts print in decimal, as upstream does.
            format = Format::DecimalSi;
        }
        if format == Format::BinarySi {
            let (mut amount, mut power) = (nano / NANO_PER_UNIT, 0);
            while amount % 1024 == 0 && power < 6 {
                amount /= 1024;
                power += 1;
            }
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][power];
            return format!("{sign}{amount}{suffix}");
        }
        let (mut amount, mut exponent) = (nano, -9_i32);
        while amount % 10 == 0 {
            amount /= 10;
            exponent += 1;
        }
        match exponent % 3 {
            1 | -2 => {
                amount = amount.saturating_mul(10);
                exponent -= 1;
            }
            2 | -1 => {
                amount = amount.saturating_mul(100);
                exponent -= 2;
            }
            _ => {}
        }
        let suffix = match (format, exponent) {
            (Format::DecimalExponent, 0) => String::new(),
            (Format::DecimalExponent, e) => format!("e{e}"),
            (_, -9) => "n".into(),
            (_, -6) => "u".into(),
            (_, -3) => "m".into(),
            (_, 0) => String::new(),
            (_, 3) => "k".into(),
            (_, 6) => "M".into(),
            (_, 9) => "G".into(),
            (_, 12) => "T".into(),
            (_, 15) => "P".into(),
            (_, 18) => "E".into(),
            (_, e) => format!("e{e}"),
        };
        format!("{sign}{amount}{suffix}")
    }

    /// The magnitude in units of 10^-9, rounded up (upstream rounds to nano precision).
    fn nano_rounded_up(&self) -> i128 {
        let digits: i128 = self.digits.parse().unwrap_or(i128::MAX);
        let mut numerator = digits.saturating_mul(NANO_PER_UNIT);
        let mut denominator: i128 = 1;
        for _ in 0..self.fraction_digits {
            denominator = denominator.saturating_mul(10);
        }
        let base = i128::from(self.base);
        for _ in 0..self.exponent.unsigned_abs() {
            if self.exponent >= 0 {
                numerator = numerator.saturating_mul(base);
            } else {
                denominator = denominator.saturating_mul(base);
            }
        }
        let whole = numerator / denominator;
        if numerator % denominator == 0 {
            whole
        } else {
            whole + 1
        }
    }

    /// The value in whole units, rounded up (apimachinery `Quantity.Value()`), saturating at the
    /// `i128` range.
    pub fn value_rounded_up(&self) -> i128 {
        let mut numerator: i128 = self.digits.parse().unwrap_or(i128::MAX);
        let mut denominator: i128 = 1;
        let scale = |n: i128, factor: i128, times: i32| {
            (0..times)
                .try_fold(n, |acc, _| acc.checked_mul(factor))
                .unwrap_or(i128::MAX)
        };
        for _ in 0..self.fraction_digits {
            denominator = denominator.saturating_mul(10);
        }
        let base = i128::from(self.base);
        if self.exponent >= 0 {
            numerator = scale(numerator, base, self.exponent);
        } else {
            denominator = scale(denominator, base, -self.exponent);
        }
        let mut value = numerator / denominator;
        if numerator % denominator != 0 {
            value += 1;
        }
        if self.negative {
            // Rounding "up" for a negative amount moves towards zero after negation.
            let truncated = numerator / denominator;
            -truncated
        } else {
            value
        }
    }
}

/// Whether upstream leaves its int64 fast path for `inf.Dec` parsing of the numeric part.
fn needs_exact_decimal(parts: &QuantityParts<'_>, base: u32, exponent: i32) -> bool {
    let digit_count = (parts.num.len() + parts.denom.len()) as i32;
    if base == 10 {
        let precision = 18 - digit_count;
        let scale = exponent - parts.denom.len() as i32;
        precision < 0 || scale < -9
    } else if exponent >= 0 && parts.denom.is_empty() {
        let precision = 15 - parts.num.len() as i32 - (exponent as f32 * 3.0 / 10.0) as i32 - 1;
        precision < 0
    } else {
        true
    }
}

struct QuantityParts<'a> {
    negative: bool,
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// apimachinery `parseQuantityString`.
fn split_quantity(s: &str) -> Result<QuantityParts<'_>, QuantityError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut negative = false;
    if pos < end {
        match b[0] {
            b'-' => {
                negative = true;
                pos += 1;
            }
            b'+' => pos += 1,
            _ => {}
        }
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(QuantityParts {
            negative,
            value: "0",
            num: "0",
            denom: "",
            suffix: "",
        });
    }
    let num_start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let num = if pos == num_start {
        "0"
    } else {
        &s[num_start..pos]
    };
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let denom_start = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[denom_start..pos];
    }
    let value = &s[..pos];
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos >= end {
        return Ok(QuantityParts {
            negative,
            value,
            num,
            denom,
            suffix: &s[suffix_start..],
        });
    }
    if b[pos] == b'-' || b[pos] == b'+' {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos >= end {
        return Ok(QuantityParts {
            negative,
            value,
            num,
            denom,
            suffix: &s[suffix_start..],
        });
    }
    Err(QuantityError::FormatWrong)
}

/// Whether upstream's int64 fast path keeps the text as written (its cached string).
fn keeps_original_text(parts: &QuantityParts<'_>, base: u32, exponent: i32) -> bool {
    if needs_exact_decimal(parts, base, exponent) {
        return false;
    }
    let shifted = format!("{}{}", parts.num, parts.denom);
    let Ok(value) = shifted.parse::<i64>() else {
        return false;
    };
    if base == 2 {
        // Fast path only without a fraction; the shifted value must not overflow int64.
        let fits = exponent < 63 && value.checked_mul(1_i64 << exponent).is_some();
        fits && exponent % 10 == 0 && value & 0x07 != 0
    } else {
        let scale = exponent - parts.denom.len() as i32;
        scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
    }
}

/// `(base, exponent, format)` of a suffix: binary SI, decimal SI, or a decimal exponent
/// `eN`/`EN`.
fn interpret_suffix(suffix: &str) -> Option<(u32, i32, Format)> {
    let binary = match suffix {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(exp) = binary {
        return Some((2, exp, Format::BinarySi));
    }
    let decimal = match suffix {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(exp) = decimal {
        return Some((10, exp, Format::DecimalSi));
    }
    let rest = suffix.strip_prefix(['e', 'E'])?;
    let exp: i64 = rest.strip_prefix('+').unwrap_or(rest).parse().ok()?;
    Some((10, exp as i32, Format::DecimalExponent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_binary_and_decimal_suffixes() {
        assert_eq!(
            Quantity::parse("2Gi").expect("ok").value_rounded_up(),
            2_147_483_648
        );
        assert_eq!(
            Quantity::parse("1.5Gi").expect("ok").value_rounded_up(),
            1_610_612_736
        );
        assert_eq!(
            Quantity::parse("500M").expect("ok").value_rounded_up(),
            500_000_000
        );
        assert_eq!(Quantity::parse("1e3").expect("ok").value_rounded_up(), 1000);
        assert_eq!(Quantity::parse("32").expect("ok").value_rounded_up(), 32);
        assert_eq!(Quantity::parse("+8").expect("ok").value_rounded_up(), 8);
    }

    #[test]
    fn fractional_values_round_up_to_whole_units() {
        assert_eq!(Quantity::parse("500m").expect("ok").value_rounded_up(), 1);
        assert_eq!(
            Quantity::parse("1.0000001").expect("ok").value_rounded_up(),
            2
        );
        assert_eq!(Quantity::parse("1001m").expect("ok").value_rounded_up(), 2);
    }

    #[test]
    fn canonical_form_matches_apimachinery_string() {
        let canonical = |s: &str| Quantity::parse(s).expect(s).canonical();
        // Kept as written by upstream's fast path.
        for kept in ["32", "500m", "50m", "1Gi", "3Mi", "0", "1e3", "+5", "2Gi"] {
            assert_eq!(canonical(kept), kept);
        }
        assert_eq!(canonical("1.5Gi"), "1536Mi");
        assert_eq!(canonical("2000Gi"), "2000Gi");
        assert_eq!(canonical("40Ti"), "40Ti");
        assert_eq!(canonical("256Gi"), "256Gi");
        assert_eq!(canonical("64Mi"), "64Mi");
        assert_eq!(canonical("384Mi"), "384Mi");
        assert_eq!(canonical("0.5"), "500m");
        assert_eq!(canonical("1.5"), "1500m");
        assert_eq!(canonical("1000"), "1k");
        assert_eq!(canonical("1000m"), "1");
        assert_eq!(canonical("0.5Ki"), "512");
        assert_eq!(canonical("1024Ki"), "1Mi");
        assert_eq!(canonical("100Ki"), "100Ki");
        assert_eq!(canonical("0.1n"), "1n");
        assert_eq!(canonical("12e6"), "12e6");
        assert_eq!(canonical("1.5e3"), "1500");
        assert_eq!(canonical("-1.5"), "-1500m");
    }

    #[test]
    fn rejects_with_apimachinery_error_classes() {
        assert_eq!(Quantity::parse(""), Err(QuantityError::FormatWrong));
        assert_eq!(
            Quantity::parse("not-a-quantity"),
            Err(QuantityError::FormatWrong)
        );
        assert_eq!(Quantity::parse("1Gb"), Err(QuantityError::FormatWrong));
        assert_eq!(Quantity::parse("1kk"), Err(QuantityError::Suffix));
        assert_eq!(Quantity::parse("1Gi "), Err(QuantityError::FormatWrong));
        assert_eq!(Quantity::parse(".").expect("zero").value_rounded_up(), 0);
        assert_eq!(Quantity::parse(".e-20"), Err(QuantityError::Numeric));
        assert_eq!(
            QuantityError::Suffix.to_string(),
            "unable to parse quantity's suffix"
        );
    }
}
