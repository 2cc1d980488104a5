//! `armid export-lerobot`: a servo arm's runs (simulated from a command stream, or imported) as
//! one LeRobot v3.0 dataset ([`crate::dataset::lerobot`]), each run an episode: the data a
//! LeRobot policy trains on and an identifier reads, made by the simulator.
//!
//! Each run gives its positions as measured (`q_meas` where the run has it, else `q`) as
//! `observation.state` and its commands (`q_cmd`) as `action`; a run without commands on every
//! joint is refused by name. Motors are named by the run's joint names (an imported run's), or
//! by `--model`'s (a simulated run of that model), else `joint_<id>`. The frame rate is the
//! first run's sample rate; every run must share it.

use std::path::{Path, PathBuf};

use crate::dataset::lerobot::{Episode, Layout, write};
use crate::dataset::recorded::LeRobotUnits;
use crate::recording::JointColumn;

/// The options of `armid export-lerobot`.
#[derive(Clone, Debug, clap::Args)]
pub struct Options {
    /// Run directories, one episode each (commands `q_cmd` on every joint).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// The model whose joint names name the motors (default: an imported run's own names).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// The values' unit: `degrees` (LeRobot's, as its SO-100/SO-101 recorder writes with
    /// `use_degrees`) or `radians`.
    #[arg(long, default_value = "degrees", value_parser = units)]
    pub units: LeRobotUnits,
    /// Encoder ticks per turn (LeRobot's degree is `360/(resolution − 1)` of a tick's).
    #[arg(long, default_value_t = 4096.0)]
    pub resolution: f64,
    /// The dataset directory to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing output directory.
    #[arg(long)]
    pub force: bool,
}

fn units(text: &str) -> Result<LeRobotUnits, String> {
    match text {
        "degrees" => Ok(LeRobotUnits::Degrees),
        "radians" => Ok(LeRobotUnits::Radians),
        _ => Err(format!("expected `degrees` or `radians`, got `{text}`")),
    }
}

/// Writes the dataset; returns the episodes' frame counts.
pub fn export(o: &Options) -> Result<Vec<usize>, crate::Error> {
    let mut episodes = Vec::with_capacity(o.runs.len());
    let mut names: Option<Vec<String>> = None;
    let mut period = None;
    for run in &o.runs {
        let (episode, own) = episode(run)?;
        let p = (episode.t[episode.t.len() - 1] - episode.t[0]) / (episode.t.len() - 1) as f64;
        let first = *period.get_or_insert(p);
        if (p - first).abs() > 1e-6 * first {
            return Err(invalid(
                run,
                format!("a sample period of {first} s (the first run's), not {p} s"),
            ));
        }
        names.get_or_insert(own);
        episodes.push(episode);
    }
    let motors = match &o.model {
        Some(model) => crate::description::read_named(model, &Default::default())?.1,
        None => names.unwrap_or_default(),
    };
    let layout = Layout {
        motors,
        fps: 1.0 / period.unwrap_or(1.0),
        units: o.units,
        resolution: o.resolution,
    };
    write(&o.out, &layout, &episodes, o.force)?;
    Ok(episodes.iter().map(|e| e.t.len()).collect())
}

/// The run in `dir` as an episode, with its joints' names (`joint_<id>` where it has none).
fn episode(dir: &Path) -> Result<(Episode, Vec<String>), crate::Error> {
    let (m, names) = if crate::reading::recorded::is_recorded(dir)? {
        let run = crate::reading::recorded::read_recorded(dir)?;
        let names = run.manifest.joints.iter().map(|j| j.name.clone()).collect();
        (run.measurements, names)
    } else {
        let m = crate::reading::read_run(dir)?.measurements;
        let names = m.joints.iter().map(|j| format!("joint_{}", j.id)).collect();
        (m, names)
    };
    let mut action = Vec::with_capacity(m.joints.len());
    for j in &m.joints {
        let c = j.q_cmd.clone().ok_or_else(|| {
            invalid(
                dir,
                format!("a command (q_cmd) on every joint; joint {} has none", j.id),
            )
        })?;
        action.push(c);
    }
    let state = (m.joints.iter())
        .map(|j| j.measured_or_clean(JointColumn::Q).to_vec())
        .collect();
    let task = m.run_id.clone();
    Ok((
        Episode {
            task,
            t: m.t,
            state,
            action,
        },
        names,
    ))
}

fn invalid(dir: &Path, expected: String) -> crate::Error {
    crate::Error::from(crate::dataset::DatasetError::Column {
        path: dir.to_owned(),
        column: "q_cmd".into(),
        expected,
    })
}
