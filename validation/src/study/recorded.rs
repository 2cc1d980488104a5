//! Identification on a robot's own recording (a recorded run, [`sim::dataset::recorded`]):
//! the IDIM family identified on the first part of the record and validated by prediction on
//! the rest, and identified on the whole record (in-sample fit). A serializable result that
//! [`crate::report::recorded`] renders.

use serde::{Deserialize, Serialize};

use crate::estimate::engine::{Loaded, run_all};
use crate::estimate::score::Row;
use crate::estimate::{Estimator, EstimatorId, Options, Role, registry};

/// The method whose prediction on the validation stretch is kept as traces.
pub const TRACED: EstimatorId = EstimatorId::IdimWls;

/// The method whose model (identified on the first part) Rapier replays: the physically
/// consistent one, whose links are real bodies a simulator can hold.
pub const REPLAYED: EstimatorId = EstimatorId::IdimConsistent;

/// What [`ReplayCheck::method`] says for the replay of the prior (the maker's URDF, with its
/// own joint friction, if any, and no drive terms).
pub const PRIOR: &str = "prior";

/// Rapier's replay of the recording on a model (`sim replay`, [`sim::replay`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReplayCheck {
    /// The method whose model was replayed, or [`PRIOR`].
    pub method: String,
    /// Its URDF and drive-train files.
    pub files: Vec<String>,
    /// The replay's residual against the recording on the validation stretch.
    pub residual: sim::dataset::manifest::Replayed,
}

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
pub const METHODS: [EstimatorId; 5] = super::IDIM_FAMILY;

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
    pub signal: sim::dataset::recorded::Chain,
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
    /// Replays, where asked for: the prior's (the maker's model as it is), then
    /// [`REPLAYED`]'s model identified on the first part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replays: Vec<ReplayCheck>,
}

impl RecordedStudy {
    /// The estimate of `parameter` by `method` in `rows`.
    pub fn value(rows: &[Row], method: &str, parameter: &str) -> Option<f64> {
        rows.iter()
            .find(|r| r.method == method && r.parameter == parameter)
            .and_then(|r| r.estimate)
    }
}

/// Runs the study on the recorded run in `dir`; `options.prior` (a URDF, e.g. the maker's)
/// enables the standard-parameter identifiers `idim_prior` and `idim_consistent`, and
/// `options.nim_models` (a joint-level model, [`crate::estimate::nim::joint`]) adds `nim`
/// beside [`METHODS`]. With `replay_into`,
/// Rapier replays the recording on the prior (into `replay_into/prior`) and on
/// [`REPLAYED`]'s model identified on the first part (written to `replay_into/model`, replayed
/// into `replay_into/replay`), compared over the validation stretch ([`replay`]).
pub fn study(
    dir: &std::path::Path,
    holdout: f64,
    options: &Options,
    replay_into: Option<&std::path::Path>,
) -> crate::Result<RecordedStudy> {
    let prior = options.prior.clone();
    let run = sim::reading::recorded::read_recorded(dir)?;
    let (run_id, samples) = (run.manifest.run_id.clone(), run.measurements.samples());
    let signal = run.manifest.signal.clone();
    let loaded = Loaded::from(run);
    let estimators = registry(options);
    let learned = options.nim_models.is_some();
    let chosen: Vec<&dyn Estimator> = (estimators.iter())
        .filter(|e| {
            METHODS.iter().any(|m| e.name() == m) || (learned && e.name() == EstimatorId::Nim)
        })
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
    let mut replays = Vec::new();
    if let Some(into) = replay_into {
        if let Some(urdf) = &prior {
            let files = vec![urdf.clone()];
            replays.push(replay(dir, PRIOR, &files, holdout, &into.join("prior"))?);
        }
        let model = (held.models.iter())
            .find(|m| m.method == REPLAYED)
            .ok_or_else(|| crate::Error::Missing {
                estimator: REPLAYED.into(),
                missing: "identified model to replay",
            })?;
        let files = model.write(&into.join("model"), "identified")?;
        replays.push(replay(
            dir,
            REPLAYED.name(),
            &files,
            holdout,
            &into.join("replay"),
        )?);
    }
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
        replays,
    })
}

/// Replays the recorded run `run` on `files` (a URDF, then optionally its drive-train file)
/// into `out`, its residual over the last `holdout` of the settled samples.
pub fn replay(
    run: &std::path::Path,
    method: &str,
    files: &[std::path::PathBuf],
    holdout: f64,
    out: &std::path::Path,
) -> crate::Result<ReplayCheck> {
    let drives = files
        .iter()
        .find(|f| f.extension().is_some_and(|e| e == "toml"));
    let options = sim::replay::Options {
        run: run.to_owned(),
        urdf: Some(files[0].clone()),
        drives: drives.cloned(),
        holdout: Some(holdout),
        out: out.to_owned(),
        force: true,
    };
    let residual = sim::replay::replay(&options, None)?;
    Ok(ReplayCheck {
        method: method.into(),
        files: files.iter().map(|f| f.display().to_string()).collect(),
        residual,
    })
}

/// `estimator`'s torque model, identified on `identify`, evaluated over `validate`.
fn traces(
    estimator: &dyn Estimator,
    identify: &Loaded,
    validate: &Loaded,
) -> crate::Result<Traces> {
    let experiment =
        crate::estimate::Experiment::new(vec![(Role::Excitation, &identify.measurements)]);
    let estimates = crate::estimate::engine::required(estimator, &experiment)?;
    let model = estimates.predictor.ok_or_else(|| crate::Error::Missing {
        estimator: estimator.name().into(),
        missing: "torque model",
    })?;
    Ok(trace(estimator.name(), model.as_ref(), validate))
}

/// `method`'s torque `model` over `validate`, every `stride`-th sample (3000 points at
/// most per joint).
pub fn trace(
    method: &str,
    model: &dyn crate::estimate::idim::TorqueModel,
    validate: &Loaded,
) -> Traces {
    let m = &validate.measurements;
    let stride = m.samples().div_ceil(TRACE_POINTS).max(1);
    let picked: Vec<usize> = (0..m.samples()).step_by(stride).collect();
    let nj = m.joints.len();
    let mut out = Traces {
        method: method.into(),
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
    out
}
