//! The scenario of a replay: written as TOML text (it goes into the run's manifest, so
//! `sim run` on that text makes the same run) and read back through [`Scenario`]'s checks.

use std::path::{Path, PathBuf};

use crate::dataset::recorded::Header;
use crate::friction::Friction;
use crate::profile::{Profile, RecordedMotion};
use crate::scenario::{
    JointSection, Scenario, ScenarioError, ScenarioFile, SolverSection, TimeSection,
};

/// The replay of the recorded run in `run` (its `header`) on the URDF `urdf`: every joint
/// prescribed by its recorded motion over the whole grid, sampled on it, one integrator step
/// per sample (every joint prescribed: the readings are exact at any step, see
/// [`crate::simulation`]). With `no_friction` each joint states zero friction, replacing the
/// URDF's (a drive-train file then states it, see [`super`]).
pub fn scenario(
    run: &Path,
    header: &Header,
    urdf: &Path,
    no_friction: bool,
) -> Result<Scenario, ScenarioError> {
    let period = header.signal.period;
    let samples = header.samples.max(1);
    let joint = header
        .joints
        .iter()
        .map(|j| JointSection {
            motion: Some(Profile::Recorded(RecordedMotion {
                run: absolute(run),
                joint: j.id,
                series: None,
            })),
            damping: no_friction.then_some(0.0),
            friction: no_friction.then_some(Friction::CoulombViscous {
                coulomb: 0.0,
                viscous: 0.0,
                smoothing: 1.0,
            }),
            ..JointSection::new(j.id)
        })
        .collect();
    let file = ScenarioFile {
        name: format!("{}.replay", header.run_id),
        description: format!(
            "Replay of the recorded run `{}` on `{}` (sim replay)",
            absolute(run).display(),
            urdf.display()
        ),
        model: absolute(urdf).display().to_string(),
        seed: 0,
        torque_scale: 1.0,
        time: TimeSection {
            end: period * (samples - 1) as f64,
            step: period,
            sample_period: period,
            steady_state: false,
        },
        solver: SolverSection::default(),
        joint,
        noise: Vec::new(),
        sensor: Vec::new(),
        population: None,
        lock: header.config.lock.clone(),
        gravity: (header.model.gravity != crate::model::STANDARD_GRAVITY)
            .then_some(header.model.gravity),
        payload: None,
    };
    let origin = format!("replay of `{}`", run.display());
    let scenario = Scenario::from_file(file, &origin, Path::new("."))?;
    let model_joints = scenario.chain.joint_ids().len();
    if model_joints != header.joints.len() {
        return Err(ScenarioError::Invalid {
            path: origin,
            field: "model".into(),
            expected: format!(
                "a URDF with the recording's {} joints (after its locks), got {model_joints} in `{}`",
                header.joints.len(),
                urdf.display()
            ),
        });
    }
    Ok(scenario)
}

/// `p` made absolute against the current directory (the scenario text names paths so).
pub(super) fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_owned())
}
