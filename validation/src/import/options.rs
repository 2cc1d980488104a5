//! What to import and how: the `import` command's arguments, and the reading options `identify`
//! shares.

use std::path::PathBuf;

use sim::dataset::recorded::Lowpass;

/// What to import, and how (also the `validation import` command's arguments).
#[derive(Clone, Debug, clap::Args)]
pub struct Options {
    /// The recording: `.csv` with a header row, `.parquet`, a ROS 2 bag (`.mcap`, `.db3`,
    /// or the bag's directory), or a LeRobot dataset's directory ([`super::lerobot`]).
    pub recording: PathBuf,
    /// The robot's URDF or MJCF (`.xml`; [`sim::description`]): joints named in the columns
    /// by the file's name or 1-based index. `--model` is the same option.
    #[arg(long, visible_alias = "model")]
    pub urdf: PathBuf,
    /// How the recording is read.
    #[command(flatten)]
    pub reading: Reading,
    /// The episode to import from a LeRobot dataset (its `episode_index`; needed where the
    /// dataset has more than one).
    #[arg(long)]
    pub episode: Option<i64>,
    /// Run id (default: the output directory's name).
    #[arg(long)]
    pub run_id: Option<String>,
    /// The run directory to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing output directory.
    #[arg(long)]
    pub force: bool,
}

/// How a recording is read: its configuration, rate, low-pass and bag topics (`import`'s and
/// `identify`'s options alike).
#[derive(Clone, Debug, clap::Args)]
pub struct Reading {
    /// Drive gains, transmission, offsets and locked joints (TOML; [`sim::dataset::recorded::Config`]).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Sample rate (Hz) of a recording without a `t` column.
    #[arg(long)]
    pub rate: Option<f64>,
    /// Low-pass of the kinematics: `none`, `auto` (4th order, cut-off from the spectrum),
    /// `auto:ORDER`, or `ORDER:CUTOFF_HZ` (zero-phase Butterworth).
    #[arg(long, default_value = "auto")]
    pub lowpass: Lowpass,
    /// The JointState topics of a bag to read, merged by joint name (repeat the option, or
    /// separate them with commas; default: every JointState topic of the bag).
    #[arg(long = "topic", value_delimiter = ',')]
    pub topics: Vec<String>,
}
