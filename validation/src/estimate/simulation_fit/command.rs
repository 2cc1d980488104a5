//! `armid fit-servos`: a servo arm's terms fitted to its logs by simulation, written as a drive
//! train (`drives.toml`) that `armid rollout --drives` rolls the model out with.

use std::path::PathBuf;

use sim::drive_train::{DriveTerms, DriveTrain, ServoTerms};
use sim::friction::Friction;
use sim::rollout::{Windows, prepare, servo_driven};

use super::{Options as FitOptions, Prior, SimulationFit, Term, TermKind, fit};

/// The options of `armid fit-servos`.
#[derive(Clone, Debug, clap::Args)]
pub struct Options {
    /// Run directories (`armid import` of each log; windows never span two runs).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// The model (MJCF or URDF; default: the file the first run was imported with).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// The start (`drives.toml` with a `[[servo]]` per joint; default: the model's `<position>`
    /// actuators).
    #[arg(long)]
    pub drives: Option<PathBuf>,
    /// The terms fitted on every servo-driven joint.
    #[arg(long, value_delimiter = ',', default_value = "kp,kd,delay")]
    pub terms: Vec<TermKind>,
    /// Length of each rollout window (s).
    #[arg(long, default_value_t = Windows::SERVO.horizon)]
    pub horizon: f64,
    /// Time between window starts (s).
    #[arg(long, default_value_t = Windows::SERVO.spacing)]
    pub spacing: f64,
    /// Most Levenberg–Marquardt iterations.
    #[arg(long, default_value_t = 40)]
    pub iterations: usize,
    /// Stop once an iteration lowers the cost by less than this fraction of it.
    #[arg(long, default_value_t = 1e-6)]
    pub tolerance: f64,
    /// The prior's one σ on a positive term, as a factor of its start (`Prior`: each term kept
    /// near the start unless the logs demand otherwise).
    #[arg(long, default_value_t = Prior::default().factor)]
    pub prior_factor: f64,
    /// The prior's one σ on a command delay (s).
    #[arg(long, default_value_t = Prior::default().delay)]
    pub prior_delay: f64,
    /// Fit from the logs alone, without the prior.
    #[arg(long)]
    pub no_prior: bool,
    /// The drive train to write (`drives.toml`).
    #[arg(long)]
    pub out: PathBuf,
    /// Also write the fitted model as MJCF: the model's bodies, each joint's fitted armature,
    /// damping and friction loss, each servo a `<position>` actuator (delay and dead band in
    /// comments: MJCF has none).
    #[arg(long)]
    pub mjcf: Option<PathBuf>,
}

/// Fits, writes `options.out`; returns the fit.
pub fn run(options: &Options) -> crate::Result<SimulationFit> {
    let mut logs = Vec::with_capacity(options.runs.len());
    let mut model = None;
    for run in &options.runs {
        let p = prepare(run, options.model.as_deref(), options.drives.as_deref())
            .map_err(|e| crate::Error::from(e).within(run.display().to_string()))?;
        model.get_or_insert(p.model);
        logs.push(p.log);
    }
    let model = model.expect("at least one run");
    if !model.coupled.is_empty() {
        return Err(crate::Error::invalid(
            "--model",
            "a model without coupled drives (a servo arm's joints each have their own)",
        ));
    }
    let terms = servo_terms(&model, &logs, &options.terms)?;
    let fit_options = FitOptions {
        windows: Windows {
            horizon: options.horizon,
            spacing: options.spacing,
        },
        iterations: options.iterations,
        tolerance: options.tolerance,
        prior: (!options.no_prior).then_some(prior(options)?),
        verbose: true,
    };
    let fitted = fit(&model, &terms, &logs, fit_options)?;
    let train = drive_train(&fitted, &model);
    let text = toml::to_string(&train).expect("a drive train serializes");
    let header = format!(
        "# armid fit-servos: {} terms on {} windows of {} runs; RMS residual {:.4e} rad\n",
        fitted.terms.len(),
        fitted.windows,
        options.runs.len(),
        fitted.rms
    );
    if let Some(path) = &options.mjcf {
        let names = joint_names(&options.runs[0])?;
        let actuation = sim::mjcf::Actuation {
            drives: &train,
            transmission: None,
        };
        let xml = sim::mjcf::export::with_drives(&model.chain, Some(&names), Some(&actuation));
        std::fs::write(path, xml).map_err(crate::Error::io(path))?;
    }
    std::fs::write(&options.out, header + &text).map_err(crate::Error::io(&options.out))?;
    Ok(fitted)
}

/// The terms `kinds` of every joint of `model` that a servo drives on `logs` (its first log's
/// commands: `sim::rollout::servo_driven`).
pub fn servo_terms(
    model: &sim::rollout::Model,
    logs: &[sim::rollout::Logged],
    kinds: &[TermKind],
) -> crate::Result<Vec<Term>> {
    let joints: Vec<u8> = (0..model.chain.links.len())
        .filter(|&j| {
            logs.first()
                .is_some_and(|l| servo_driven(model, l, j).is_some())
        })
        .map(|j| j as u8 + 1)
        .collect();
    if joints.is_empty() {
        return Err(crate::Error::invalid(
            "--model, --drives",
            "a position servo on some joint whose commands the logs hold (MJCF <position>, or \
             drives.toml [[servo]]: the fit's start)",
        ));
    }
    Ok((joints.iter())
        .flat_map(|&joint| kinds.iter().map(move |&kind| Term { joint, kind }))
        .collect())
}

/// The joint names of the run in `dir` (its manifest's, chain order).
pub fn joint_names(dir: &std::path::Path) -> crate::Result<Vec<String>> {
    let manifest = sim::dataset::recorded::RecordedManifest::read(dir)
        .map_err(|e| crate::Error::from(e).within(dir.display().to_string()))?
        .ok_or_else(|| crate::Error::invalid(dir.display().to_string(), "a recorded run"))?;
    Ok(manifest.joints.iter().map(|j| j.name.clone()).collect())
}

/// The prior of `--prior-factor` and `--prior-delay`, checked.
fn prior(options: &Options) -> crate::Result<Prior> {
    if !(options.prior_factor > 1.0 && options.prior_factor.is_finite()) {
        return Err(crate::Error::invalid(
            "--prior-factor",
            "a finite factor above 1 (one σ of a positive term)",
        ));
    }
    if !(options.prior_delay > 0.0 && options.prior_delay.is_finite()) {
        return Err(crate::Error::invalid(
            "--prior-delay",
            "a positive, finite time in seconds (one σ of a command delay)",
        ));
    }
    Ok(Prior {
        factor: options.prior_factor,
        delay: options.prior_delay,
    })
}

/// The fitted model's drive train: every joint's terms and servo, the fit's values in place.
pub fn drive_train(fitted: &SimulationFit, start: &sim::rollout::Model) -> DriveTrain {
    let mut model = start.clone();
    for (t, v) in fitted.terms.iter().zip(&fitted.values) {
        t.set(&mut model, *v);
    }
    let joint = |j: usize| u8::try_from(j + 1).unwrap_or(u8::MAX);
    DriveTrain {
        min_speed: 0.0,
        coupling: None,
        drive: (model.chain.links.iter().enumerate())
            .map(|(j, l)| DriveTerms {
                joint: joint(j),
                coulomb: match &l.joint.friction {
                    Some(Friction::CoulombViscous { coulomb, .. }) => *coulomb,
                    _ => 0.0,
                },
                viscous: l.joint.damping,
                offset: 0.0,
                armature: l.joint.armature,
            })
            .collect(),
        servo: (0..model.chain.links.len())
            .filter_map(|j| model.servo(j).map(|s| ServoTerms::of(joint(j), s)))
            .collect(),
    }
}
