//! Identification on a robot's own recording (a recorded run, [`crate::dataset::recorded`]):
//! the IDIM family identified on the first part of the record and validated by prediction on
//! the rest, and identified on the whole record (in-sample fit). A serializable result that
//! [`crate::report::recorded`] renders.

use serde::{Deserialize, Serialize};

use super::estimate::{Loaded, run_all};
use crate::estimate::{Estimator, Options, Role, registry};
use crate::score::Row;

/// The method whose prediction on the validation stretch is kept as traces.
pub const TRACED: &str = "idim_wls";

/// Points per joint kept of a trace (decimated for plotting, not for any figure).
const TRACE_POINTS: usize = 3000;

/// Measured and predicted torques over the validation stretch (every `stride`-th sample).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Traces {
    /// The method.
    pub method: String,
    /// Times (s).
    pub t: Vec<f64>,
    /// Per joint, the torque as measured (N·m or N).
    pub measured: Vec<Vec<f64>>,
    /// Per joint, the torque the identified model predicts.
    pub predicted: Vec<Vec<f64>>,
}

/// The identifiers run on recordings (the last two with a prior model).
pub const METHODS: [&str; 5] = super::IDIM_FAMILY;

/// What the study found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RecordedStudy {
    /// The run's id.
    pub run_id: String,
    /// Samples the identifiers used (past the filter's end transients).
    pub samples: usize,
    /// Sample interval (s).
    pub period: f64,
    /// The signal chain as applied at import.
    pub signal: crate::signal::Chain,
    /// Fraction of the time span held out for validation.
    pub holdout: f64,
    /// Rows of the identification on the first part, with its prediction rows on the rest.
    pub holdout_rows: Vec<Row>,
    /// Rows of the identification on the whole record, with its prediction rows on it.
    pub whole_rows: Vec<Row>,
    /// `(method, reason)` of methods that failed.
    pub failed: Vec<(String, String)>,
    /// `(method, link, why)`: physically inconsistent links of the whole-record estimates.
    pub inconsistent: Vec<(String, usize, String)>,
    /// [`TRACED`]'s prediction on the validation stretch, for the plot.
    pub traces: Traces,
}

impl RecordedStudy {
    /// The estimate of `parameter` by `method` in `rows`.
    pub fn value(rows: &[Row], method: &str, parameter: &str) -> Option<f64> {
        rows.iter()
            .find(|r| r.method == method && r.parameter == parameter)
            .and_then(|r| r.estimate)
    }
}

/// Runs the study on the recorded run in `dir`; `prior` (a URDF, e.g. the maker's) enables the
/// standard-parameter identifiers `idim_prior` and `idim_consistent`.
pub fn study(
    dir: &std::path::Path,
    holdout: f64,
    prior: Option<std::path::PathBuf>,
) -> Result<RecordedStudy, String> {
    let run = crate::dataset::recorded::read_recorded(dir).map_err(|e| e.to_string())?;
    let (run_id, samples) = (run.manifest.run_id.clone(), run.measurements.samples());
    let signal = run.manifest.signal.clone();
    let loaded = Loaded::from(run);
    let estimators = registry(&Options {
        prior,
        ..Options::default()
    });
    let chosen: Vec<&dyn Estimator> = (estimators.iter())
        .filter(|e| METHODS.contains(&e.name()))
        .map(|e| e.as_ref())
        .collect();
    let (identify, validate) = loaded.split(holdout)?;
    let held = run_all(
        &chosen,
        &[(Role::Excitation, &identify), (Role::Validation, &validate)],
    );
    let whole = run_all(
        &chosen,
        &[(Role::Excitation, &loaded), (Role::Validation, &loaded)],
    );
    let mut failed = held.failed.clone();
    failed.extend(whole.failed);
    let inconsistent = whole.inconsistent;
    let traced = (estimators.iter())
        .find(|e| e.name() == TRACED)
        .expect("registered");
    let traces = traces(traced.as_ref(), &identify, &validate)?;
    Ok(RecordedStudy {
        run_id,
        samples,
        period: signal.period,
        signal,
        holdout,
        holdout_rows: held.rows,
        whole_rows: whole.rows,
        failed,
        inconsistent,
        traces,
    })
}

/// `estimator`'s torque model, identified on `identify`, evaluated over `validate`.
fn traces(
    estimator: &dyn Estimator,
    identify: &Loaded,
    validate: &Loaded,
) -> Result<Traces, String> {
    let experiment =
        crate::estimate::Experiment::new(vec![(Role::Excitation, &identify.measurements)]);
    let estimates = estimator.estimate(&experiment).map_err(|e| e.message)?;
    let model = estimates
        .predictor
        .ok_or_else(|| format!("{} gives no torque model", estimator.name()))?;
    let m = &validate.measurements;
    let stride = m.samples().div_ceil(TRACE_POINTS).max(1);
    let picked: Vec<usize> = (0..m.samples()).step_by(stride).collect();
    let nj = m.joints.len();
    let mut out = Traces {
        method: estimator.name().into(),
        t: picked.iter().map(|&k| m.t[k]).collect(),
        measured: vec![Vec::new(); nj],
        predicted: vec![Vec::new(); nj],
    };
    for &k in &picked {
        let [q, qd, qdd] = m.state(k);
        let tau = model.torque(&q, &qd, &qdd);
        for (j, joint) in m.joints.iter().enumerate() {
            out.measured[j].push(joint.tau[k]);
            out.predicted[j].push(tau[j]);
        }
    }
    Ok(out)
}
