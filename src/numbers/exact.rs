//! Token counts as Python's `int` holds them: Karenina sums `int(x)` of
//! each valid token count with Python's integers, which never overflow, so
//! a sum is never smaller than one of its non-negative parts however large
//! they are. [`ExactSum`] adds in 128 bits and goes on in a big integer
//! past that; [`tokens`] is `int(x)` of a JSON number (an int literal's
//! digits, a float truncated exactly).

use num_bigint::BigInt;
use serde_json::Value;

/// One token count, `int(x)` of a valid number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// Within 128 bits.
    Small(i128),
    /// Past them.
    Big(BigInt),
}

impl Count {
    /// The count clamped to 64 bits, for the medians and deviations (numpy's
    /// `int64` arrays).
    pub(crate) fn clamped(&self) -> i64 {
        match self {
            Count::Small(i) => (*i).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
            Count::Big(b) if b.sign() == num_bigint::Sign::Minus => i64::MIN,
            Count::Big(_) => i64::MAX,
        }
    }

    /// True when the count is above zero.
    pub(crate) fn positive(&self) -> bool {
        match self {
            Count::Small(i) => *i > 0,
            Count::Big(b) => b.sign() == num_bigint::Sign::Plus,
        }
    }
}

/// A float truncated towards zero, exactly (Python's `int(float)`); `None`
/// for NaN and the infinities.
fn truncated(f: f64) -> Option<Count> {
    if !f.is_finite() {
        return None;
    }
    let t = f.trunc();
    if t.abs() < 1.7e38 {
        return Some(Count::Small(t as i128));
    }
    // m * 2^e, exactly.
    let bits = t.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64 - 1075;
    let mant = (bits & ((1 << 52) - 1)) | (1 << 52);
    let mut b = BigInt::from(mant) << (exp as usize);
    if t < 0.0 {
        b = -b;
    }
    Some(Count::Big(b))
}

/// `int(x)` of a number Karenina's `is_valid_number` accepts (an int, a
/// float that is not NaN, a bool); `None` for anything else.
pub(crate) fn tokens(v: &Value) -> Option<Count> {
    match v {
        Value::Bool(b) => Some(Count::Small(i128::from(*b))),
        Value::Number(n) => {
            let s = n.as_str();
            if s.contains(['.', 'e', 'E']) {
                truncated(s.parse().ok()?)
            } else {
                match s.parse::<i128>() {
                    Ok(i) => Some(Count::Small(i)),
                    Err(_) => s.parse::<BigInt>().ok().map(Count::Big),
                }
            }
        }
        _ => None,
    }
}

/// A sum of counts, exact.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ExactSum {
    small: i128,
    big: Option<BigInt>,
}

impl ExactSum {
    /// Adds one count.
    pub(crate) fn add(&mut self, c: &Count) {
        match c {
            Count::Small(i) => match self.small.checked_add(*i) {
                Some(s) => self.small = s,
                None => {
                    *self.big.get_or_insert_with(BigInt::default) += BigInt::from(*i);
                }
            },
            Count::Big(b) => *self.big.get_or_insert_with(BigInt::default) += b,
        }
    }

    /// Adds another sum.
    pub(crate) fn add_sum(&mut self, o: &ExactSum) {
        self.add(&Count::Small(o.small));
        if let Some(b) = &o.big {
            self.add(&Count::Big(b.clone()));
        }
    }

    /// The sum as a count.
    pub(crate) fn count(&self) -> Count {
        match &self.big {
            None => Count::Small(self.small),
            Some(b) => {
                let t = b + BigInt::from(self.small);
                match i128::try_from(&t) {
                    Ok(i) => Count::Small(i),
                    Err(_) => Count::Big(t),
                }
            }
        }
    }

    /// The sum as a JSON integer, every digit.
    pub(crate) fn to_json(&self) -> Value {
        let digits = match self.count() {
            Count::Small(i) => i.to_string(),
            Count::Big(b) => b.to_string(),
        };
        digits
            .parse::<serde_json::Number>()
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sums_are_exact_past_64_and_128_bits() {
        let mut s = ExactSum::default();
        for v in [json!(i64::MAX), json!(i64::MAX), json!(5)] {
            s.add(&tokens(&v).unwrap());
        }
        assert_eq!(s.to_json().to_string(), "18446744073709551619");
        let mut s = ExactSum::default();
        let huge: Value = serde_json::from_str("170141183460469231731687303715884105727").unwrap();
        s.add(&tokens(&huge).unwrap());
        s.add(&tokens(&huge).unwrap());
        s.add(&tokens(&json!(-3)).unwrap());
        assert_eq!(
            s.to_json().to_string(),
            "340282366920938463463374607431768211451"
        );
        // int(1e40) exactly, as Python gives it.
        let f: Value = serde_json::from_str("1e40").unwrap();
        let mut s = ExactSum::default();
        s.add(&tokens(&f).unwrap());
        assert_eq!(
            s.to_json().to_string(),
            "10000000000000000303786028427003666890752"
        );
        assert_eq!(tokens(&json!(12.9)), Some(Count::Small(12)));
        assert_eq!(tokens(&json!(-12.9)), Some(Count::Small(-12)));
        assert_eq!(tokens(&json!(true)), Some(Count::Small(1)));
        assert_eq!(tokens(&json!("3")), None);
    }
}
