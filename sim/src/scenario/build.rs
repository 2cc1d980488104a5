//! From a file to a checked [`Scenario`]: TOML text is parsed into a [`ScenarioFile`], and a
//! [`ScenarioFile`] value (read, or built by a test, a population or a study) is checked as a
//! whole into the scenario the simulator runs. Every error names the file and the field.

use std::path::{Path, PathBuf};

use super::bounds::{MAX_STEPS, check_population, check_size};
use super::check::{carrying, simulable, validate_measurement};
use super::joint::{Invalid, JointContext, joint_drive};
use super::{JointSection, ModelSource, Scenario, ScenarioError, ScenarioFile};
use crate::model::{Chain, reference};
use crate::param::{finite, positive};

impl Scenario {
    /// Reads and checks a scenario file.
    pub fn from_path(path: &Path) -> Result<Self, ScenarioError> {
        let source = std::fs::read_to_string(path).map_err(|source| ScenarioError::Io {
            path: path.to_owned(),
            source,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut s = Self::from_toml_in(&source, &path.display().to_string(), dir)?;
        s.path = Some(path.to_owned());
        Ok(s)
    }

    /// Parses and checks scenario text; `origin` names it in error messages. A URDF `model`
    /// path is taken relative to the current directory.
    pub fn from_toml(source: &str, origin: &str) -> Result<Self, ScenarioError> {
        Self::from_toml_in(source, origin, Path::new("."))
    }

    /// [`Scenario::from_toml`] with a URDF `model` path relative to `dir` (the scenario file's
    /// directory).
    pub fn from_toml_in(source: &str, origin: &str, dir: &Path) -> Result<Self, ScenarioError> {
        Self::parse(source, origin, ModelSource::Dir(dir))
    }

    /// [`Scenario::from_toml`] with the model given instead of the one `model` names: for a
    /// scenario recorded in a manifest, whose model (a URDF file then) travels with it.
    pub fn from_toml_with_model(
        source: &str,
        origin: &str,
        model: &Chain,
    ) -> Result<Self, ScenarioError> {
        Self::parse(source, origin, ModelSource::Given(model))
    }

    /// The typed builder: `file` checked as a whole, as if it had been read from a file in `dir`
    /// (a URDF `model` path is taken relative to it); `origin` names it in errors. Its
    /// [`Scenario::source`] is the file written as TOML. Tests, populations and studies make their
    /// variants so (or through [`Scenario::edited`]), never by editing TOML text.
    pub fn from_file(file: ScenarioFile, origin: &str, dir: &Path) -> Result<Self, ScenarioError> {
        let source = Self::text_of(&file, origin)?;
        Self::build(file, source, origin, ModelSource::Dir(dir))
    }

    /// [`Scenario::from_file`] with the model given instead of the one `model` names.
    pub fn from_file_with_model(
        file: ScenarioFile,
        origin: &str,
        model: &Chain,
    ) -> Result<Self, ScenarioError> {
        let source = Self::text_of(&file, origin)?;
        Self::build(file, source, origin, ModelSource::Given(model))
    }

    /// `file` as TOML (what a manifest records of a scenario made in code).
    pub(super) fn text_of(file: &ScenarioFile, origin: &str) -> Result<String, ScenarioError> {
        toml::to_string(file).map_err(|e| ScenarioError::Parse {
            path: origin.to_string(),
            message: format!("the scenario cannot be written as TOML: {e}"),
        })
    }

    pub(super) fn parse(
        source: &str,
        origin: &str,
        model: ModelSource,
    ) -> Result<Self, ScenarioError> {
        let file: ScenarioFile = toml::from_str(source).map_err(|e| ScenarioError::Parse {
            path: origin.to_string(),
            message: e.to_string().trim_end().replace('\n', "\n  "),
        })?;
        Self::build(file, source.to_string(), origin, model)
    }

    /// `file` checked into a scenario; `source` is the text it came from.
    pub(super) fn build(
        file: ScenarioFile,
        source: String,
        origin: &str,
        model: ModelSource,
    ) -> Result<Self, ScenarioError> {
        let invalid = |field: &str, expected: String| ScenarioError::Invalid {
            path: origin.to_string(),
            field: field.to_string(),
            expected,
        };
        // A recorded scenario's model may be one arm drawn from its population: the section is
        // kept for the record, not checked against that arm.
        let recorded = matches!(model, ModelSource::Given(_));
        // Where relative paths in the file (a recorded motion's run) start.
        let base = match model {
            ModelSource::Dir(dir) => dir.to_path_buf(),
            ModelSource::Given(_) => PathBuf::from("."),
        };
        let chain = model_chain(&file, model, &invalid)?;
        let (steps_per_sample, samples) = timing(&file, &chain, &invalid)?;
        let ids = chain.joint_ids();
        let mut drives = Vec::with_capacity(ids.len());
        let mut recordings = crate::profile::recorded::Recordings::new();
        for &id in &ids {
            let (k, j) = section(&file, id, &ids, &chain, &invalid)?;
            let cx = JointContext {
                k,
                id,
                chain: &chain,
                file: &file,
                base: &base,
                steps: samples * steps_per_sample,
            };
            drives.push(joint_drive(&cx, j, &mut recordings, &invalid)?);
        }
        let mut chain = chain;
        for d in &drives {
            if d.id > 0 {
                chain.links[d.id as usize - 1].joint.damping = d.damping;
                chain.links[d.id as usize - 1].joint.friction = d.friction.clone();
            }
        }
        validate_measurement(&file, &ids, chain.len(), &invalid)?;
        if let Some(p) = file.population.as_ref().filter(|_| !recorded) {
            if p.random.is_some() {
                p.validate_random(&chain)
            } else if crate::scenario::population::is_arm6(&chain) {
                p.validate(chain.len())
            } else {
                p.validate_scaled(chain.len())
            }
            .and_then(|()| p.validate_motion(&file.time))
            .map_err(|(f, e)| invalid(&format!("population.{f}"), e))?;
            check_population(p.arms, samples, &chain, &file).map_err(|(f, e)| invalid(f, e))?;
        }
        if let Some((k, j)) = (file.joint.iter().enumerate()).find(|(_, j)| !ids.contains(&j.id)) {
            return Err(invalid(
                &format!("joint[{k}].id"),
                format!(
                    "expected one of {ids:?} (model `{}`), got {}",
                    chain.name, j.id
                ),
            ));
        }
        let scenario = Self {
            path: None,
            source,
            file,
            chain,
            drives,
            steps_per_sample,
            samples,
            motion_family: None,
            noise_scale: None,
            coupled: Vec::new(),
            model_dir: match model {
                ModelSource::Dir(dir) => Some(dir.to_path_buf()),
                ModelSource::Given(_) => None,
            },
        };
        scenario.check_limits().map_err(|(f, e)| invalid(f, e))?;
        Ok(scenario)
    }
}

/// The model `file` names (a reference model, or a URDF with its locks) or the one given, with
/// the file's payload on its last link, checked as a chain Rapier can simulate.
fn model_chain(
    file: &ScenarioFile,
    model: ModelSource,
    invalid: &Invalid,
) -> Result<Chain, ScenarioError> {
    let chain = match model {
        ModelSource::Given(chain) => chain.clone(),
        ModelSource::Dir(dir) if file.model.ends_with(".urdf") => {
            crate::urdf::read_locked(&dir.join(&file.model), &file.lock)
                .map_err(|e| invalid("model", format!("expected a serial-chain URDF: {e}")))?
        }
        ModelSource::Dir(dir) if crate::mjcf::is_mjcf(&file.model) => {
            let read = crate::mjcf::read(&dir.join(&file.model), &file.lock)
                .map_err(|e| invalid("model", format!("expected a serial-chain MJCF: {e}")))?;
            if let Some(drives) = read.drives.as_ref().filter(|d| d.coupling.is_some()) {
                let n = read.joints.len();
                let coupled = (0..n)
                    .filter(|&m| drives.coupled(m, n))
                    .map(|m| read.joints[m].as_str())
                    .collect::<Vec<_>>();
                return Err(invalid(
                    "model",
                    format!(
                        "the drives of joints {coupled:?} are tendons coupling several joints, \
                         which a simulation cannot apply (expected a model without them; `sim \
                         replay --drives` adds a coupled drive train to a recorded motion)"
                    ),
                ));
            }
            read.chain
        }
        ModelSource::Dir(_) if !file.lock.is_empty() => {
            return Err(invalid(
                "lock",
                format!(
                    "expected no locks for the built-in model {:?} (locks name joints of a \
                     URDF model)",
                    file.model
                ),
            ));
        }
        ModelSource::Dir(_) => reference::by_name(&file.model).ok_or_else(|| {
            invalid(
                "model",
                format!(
                    "expected one of {:?}, a URDF file path (….urdf) or an MJCF file path (….xml), \
                     relative to the scenario file, got {:?}",
                    reference::NAMES,
                    file.model
                ),
            )
        })?,
    };
    // A given chain is the arm simulated, payload included.
    let mut chain = match (&file.payload, model) {
        (Some(payload), ModelSource::Dir(_)) => {
            carrying(chain, payload).map_err(|(f, e)| invalid(&format!("payload.{f}"), e))?
        }
        _ => chain,
    };
    if let Some(g) = file.gravity {
        if !g.iter().all(|v| v.is_finite()) {
            let problem =
                format!("expected three finite components (m/s², world frame), got {g:?}");
            return Err(invalid("gravity", problem));
        }
        chain.gravity = g;
    }
    chain
        .validate()
        .map_err(|e| invalid("model", e.to_string()))?;
    simulable(&chain, invalid)?;
    Ok(chain)
}

/// The time span checked: `(steps_per_sample, samples)`.
fn timing(
    file: &ScenarioFile,
    chain: &Chain,
    invalid: &Invalid,
) -> Result<(usize, usize), ScenarioError> {
    let t = &file.time;
    for (name, v) in [
        ("time.end", t.end),
        ("time.step", t.step),
        ("time.sample_period", t.sample_period),
    ] {
        positive(name, v, "duration in s").map_err(|(f, e)| invalid(&f, e))?;
    }
    finite("torque_scale", file.torque_scale).map_err(|(f, e)| invalid(&f, e))?;
    let ratio = t.sample_period / t.step;
    let steps_per_sample = ratio.round() as usize;
    if steps_per_sample == 0 || (ratio - steps_per_sample as f64).abs() > 1e-9 * ratio {
        return Err(invalid(
            "time.step",
            format!(
                "expected a step that divides sample_period = {} s exactly, got {} s",
                t.sample_period, t.step
            ),
        ));
    }
    let periods = t.end / t.sample_period;
    if (periods - periods.round()).abs() > 1e-9 * periods.max(1.0) {
        return Err(invalid(
            "time.end",
            format!(
                "expected a whole number of sample periods ({} s), got {} s",
                t.sample_period, t.end
            ),
        ));
    }
    // Counted in f64 first: a huge time.end must not wrap the sample count.
    let steps = (periods.round() + 1.0) * steps_per_sample as f64;
    if steps.is_nan() || steps > MAX_STEPS as f64 {
        let field = if periods.round() + 1.0 > MAX_STEPS as f64 {
            "time.end"
        } else {
            "time.step"
        };
        return Err(invalid(
            field,
            format!(
                "expected at most {MAX_STEPS:e} integrator steps, got {steps:.3e} \
                 (time.end / time.step)"
            ),
        ));
    }
    let samples = periods.round() as usize + 1;
    check_size(samples, chain, file).map_err(|(f, e)| invalid(f, e))?;
    for (name, n) in [("solver.pgs_iterations", file.solver.pgs_iterations)] {
        if n == 0 || n > 100_000 {
            return Err(invalid(name, format!("expected 1..=100000, got {n}")));
        }
    }
    Ok((steps_per_sample, samples))
}

/// The one `[[joint]]` section of joint `id`, and its position.
fn section<'f>(
    file: &'f ScenarioFile,
    id: u8,
    ids: &[u8],
    chain: &Chain,
    invalid: &Invalid,
) -> Result<(usize, &'f JointSection), ScenarioError> {
    let matching: Vec<(usize, &JointSection)> = file
        .joint
        .iter()
        .enumerate()
        .filter(|(_, j)| j.id == id)
        .collect();
    match matching.as_slice() {
        [one] => Ok(*one),
        [] => Err(invalid(
            "joint",
            format!(
                "expected an entry with id = {id} (model `{}` has joints {ids:?})",
                chain.name
            ),
        )),
        _ => Err(invalid(
            "joint",
            format!("expected one entry with id = {id}, found several"),
        )),
    }
}
