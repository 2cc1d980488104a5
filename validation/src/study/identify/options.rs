//! What `identify` is given: the command's arguments.

use std::path::PathBuf;

/// What to identify, and how (the `identify` command's arguments).
#[derive(Clone, Debug, clap::Args)]
pub struct Options {
    /// The logs: wide CSV or Parquet tables, ROS 2 bags (`.mcap`, `.db3` or its directory) or
    /// LeRobot datasets (each episode a log), as `import` reads them. A torque-logging arm takes
    /// one log; a servo arm's (commands, no torque) may take many, fitted as one arm.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// The robot's URDF or MJCF (`.xml`): its kinematics, and the prior its bodies start from.
    #[arg(long)]
    pub model: PathBuf,
    /// How the log is read, as `import` reads it.
    #[command(flatten)]
    pub reading: crate::import::Reading,
    /// The share of the log's time span held out for validation, at its end.
    #[arg(long, default_value_t = 0.3)]
    pub holdout: f64,
    /// Only these estimators (comma-separated names; default: every one that applies).
    #[arg(long, value_delimiter = ',')]
    pub only: Option<Vec<String>>,
    /// A servo arm's fit: its start (`drives.toml` with a `[[servo]]` per joint; default: a
    /// regression on the logs, `simulation_fit::start`).
    #[arg(long)]
    pub start: Option<PathBuf>,
    /// A servo arm's fit: the terms fitted on every commanded joint.
    #[arg(long, value_delimiter = ',', default_value = "kp,kd,delay,coulomb")]
    pub terms: Vec<crate::estimate::simulation_fit::TermKind>,
    /// A servo arm's fit: time between the starts of its 1 s rollout windows (s).
    #[arg(long, default_value_t = 4.0)]
    pub spacing: f64,
    /// A servo arm's fit: most Levenberg–Marquardt iterations.
    #[arg(long, default_value_t = 10)]
    pub iterations: usize,
    /// The directory to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing output directory.
    #[arg(long)]
    pub force: bool,
}
