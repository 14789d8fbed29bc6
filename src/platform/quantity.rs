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
}

impl Quantity {
    /// Parses like apimachinery's `ParseQuantity` (same accepted forms and error classes).
    pub fn parse(text: &str) -> Result<Self, QuantityError> {
        if text.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        let parts = split_quantity(text)?;
        let (base, exponent) = interpret_suffix(parts.suffix).ok_or(QuantityError::Suffix)?;
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
        Ok(Quantity {
            negative: parts.negative,
            digits,
            fraction_digits: parts.denom.len() as u32,
            base,
            exponent,
        })
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

/// `(base, exponent)` of a suffix: binary SI, decimal SI, or a decimal exponent `eN`/`EN`.
fn interpret_suffix(suffix: &str) -> Option<(u32, i32)> {
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
        return Some((2, exp));
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
        return Some((10, exp));
    }
    let rest = suffix.strip_prefix(['e', 'E'])?;
    let exp: i64 = rest.strip_prefix('+').unwrap_or(rest).parse().ok()?;
    Some((10, exp as i32))
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
