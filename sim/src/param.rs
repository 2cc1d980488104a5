//! Checks of numeric parameters in scenario sections (profiles, signals, friction, noise).
//!
//! Each returns `Err((field, expected))`, which the scenario reader turns into an error naming
//! the file and the full field path.

/// A failed check: the offending field (relative to its section) and what was expected.
pub type ParamError = (String, String);

/// `v` must be finite.
pub fn finite(field: &str, v: f64) -> Result<(), ParamError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err((
            field.to_string(),
            format!("expected a finite number, got {v}"),
        ))
    }
}

/// `v` must be finite and positive; `what` names the expected quantity (e.g. "frequency in Hz").
pub fn positive(field: &str, v: f64, what: &str) -> Result<(), ParamError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err((
            field.to_string(),
            format!("expected a positive {what}, got {v}"),
        ))
    }
}

/// `v` must be finite and not negative.
pub fn non_negative(field: &str, v: f64) -> Result<(), ParamError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err((
            field.to_string(),
            format!("expected a non-negative finite number, got {v}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_name_the_field_and_the_expectation() {
        assert!(finite("a", 1.0).is_ok() && finite("a", f64::NAN).is_err());
        assert_eq!(positive("f", 0.0, "frequency in Hz").unwrap_err().0, "f");
        assert!(
            positive("f", -1.0, "number")
                .unwrap_err()
                .1
                .contains("positive number")
        );
        assert!(non_negative("s", 0.0).is_ok() && non_negative("s", -1e-9).is_err());
        assert!(non_negative("s", f64::INFINITY).is_err());
    }
}

/// A value of a command-line argument or a file's field that does not parse: what was expected
/// and what was given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected}, got {got:?}")]
pub struct Unparsed {
    /// What was expected.
    pub expected: String,
    /// The text given.
    pub got: String,
}

impl Unparsed {
    /// `got` was not `expected`.
    pub fn new(expected: impl Into<String>, got: &str) -> Self {
        Unparsed {
            expected: expected.into(),
            got: got.to_string(),
        }
    }
}
