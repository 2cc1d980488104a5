//! What a recording must satisfy before it is used: a time base that increases, no gaps, angles
//! in radians within the joints' limits.

use std::path::Path;

use sim::model::{Chain, JointKind};

use super::ImportError;

/// `Err` naming the first non-finite value of `column` (a gap: an empty cell, `NaN`), with the
/// number of such rows.
pub(crate) fn no_gaps(file: &Path, column: &str, x: &[f64]) -> Result<(), ImportError> {
    if let Some(first) = x.iter().position(|v| !v.is_finite()) {
        let count = x.iter().filter(|v| !v.is_finite()).count();
        return Err(ImportError::Row {
            file: file.to_owned(),
            column: column.to_string(),
            row: first + 1,
            problem: format!(
                "{} ({count} row(s) of {} without a finite value: a gap in the recording; cut \
                 the recording or fill the gap before importing)",
                x[first],
                x.len()
            ),
        });
    }
    Ok(())
}

/// `Err` naming the first row where the stamps `t` do not increase: a duplicated stamp or a
/// step back.
pub fn increasing(file: &Path, column: &str, t: &[f64]) -> Result<(), ImportError> {
    for (k, w) in t.windows(2).enumerate() {
        if w[1] <= w[0] {
            let problem = if w[1] == w[0] {
                format!(
                    "duplicated stamp t = {} s (also at row {}); expected strictly increasing times",
                    w[1],
                    k + 1
                )
            } else {
                format!(
                    "time goes back from {} s (row {}) to {} s; expected strictly increasing times",
                    w[0],
                    k + 1,
                    w[1]
                )
            };
            return Err(ImportError::Row {
                file: file.to_owned(),
                column: column.to_string(),
                row: k + 2,
                problem,
            });
        }
    }
    Ok(())
}

/// `Err` where a revolute joint's coordinate leaves its URDF limits by more than a tenth of
/// their range (the first such row named), saying so when the values read as degrees would fit:
/// a recording in degrees. Joints without limits (continuous) are not checked.
pub fn within_limits(
    file: &Path,
    column: &str,
    chain: &Chain,
    joint: usize,
    q: &[f64],
) -> Result<(), ImportError> {
    let link = &chain.links[joint];
    let Some(l) = link.joint.limits else {
        return Ok(());
    };
    let margin = 0.1 * (l.upper - l.lower).abs();
    let outside = |v: f64| v < l.lower - margin || v > l.upper + margin;
    let Some(row) = q.iter().position(|v| outside(*v)) else {
        return Ok(());
    };
    let unit = if link.joint.kind == JointKind::Revolute {
        "rad"
    } else {
        "m"
    };
    let degrees =
        link.joint.kind == JointKind::Revolute && q.iter().all(|v| !outside(v.to_radians()));
    let hint = if degrees {
        "; the values fit the limits as degrees: expected radians"
    } else {
        ""
    };
    Err(ImportError::Row {
        file: file.to_owned(),
        column: column.to_string(),
        row: row + 1,
        problem: format!(
            "{} {unit} is outside the joint's limits [{}, {}] {unit} (by more than a tenth of \
             their range){hint}",
            q[row], l.lower, l.upper
        ),
    })
}
