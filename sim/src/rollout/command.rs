//! `sim rollout`: a model rolled out on a run directory's log ([`super`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::prepared::{Prepared, option, prepare};
use super::{Fidelity, Windows, fidelity};

/// The options of `sim rollout`.
#[derive(Clone, Debug, clap::Args)]
pub struct Options {
    /// The run directory: a recorded run (`armid import`; `armid identify`'s `run/`) or a
    /// simulated one.
    pub run: PathBuf,
    /// The model (URDF or MJCF; default: the URDF a recorded run was imported with).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Drive terms (`drives.toml`, as `armid identify` writes): each drive's reading offset is
    /// taken off the logged torque, and each drive that turns one joint only sets that joint's
    /// armature, damping and Coulomb friction (replacing the model's own); its `[[servo]]`
    /// entries, where it has them, replace the model's position servos.
    #[arg(long)]
    pub drives: Option<PathBuf>,
    /// Roll out on the last FRACTION of the log only (the part `--holdout` held out).
    #[arg(long)]
    pub holdout: Option<f64>,
    /// Length of each rollout (s); default 0.3 s for a torque-driven model, 1 s where some
    /// joint is driven by a position servo (`sim::rollout::Windows`).
    #[arg(long)]
    pub horizon: Option<f64>,
    /// Time between the starts of consecutive rollouts (s); default half the default horizon.
    #[arg(long)]
    pub spacing: Option<f64>,
    /// Write the figures as JSON to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// What `sim rollout` measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RolledOut {
    /// The model file.
    pub model: String,
    /// The run directory.
    pub run: String,
    /// The first time rolled out from (s).
    pub from: f64,
    /// Joints (dataset ids) turned by a drive that turns several (a coupled wrist: simulated
    /// as `crate::simulation` applies coupled drives).
    pub coupled: Vec<u8>,
    /// Joints (dataset ids) driven by a position servo from the log's commands (the others by
    /// the logged torque).
    #[serde(default)]
    pub servo_driven: Vec<u8>,
    /// The figures.
    pub fidelity: Fidelity,
    /// Where the log has commands: the error of taking each command for the position, over the
    /// same windows ([`super::CommandBaseline`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commanded: Option<super::CommandBaseline>,
}

/// Rolls the model out on the run (module docs); writes `options.out` if given.
pub fn rollout(options: &Options) -> Result<RolledOut, crate::Error> {
    let Prepared {
        log,
        model: rolled,
        model_path: model,
    } = prepare(
        &options.run,
        options.model.as_deref(),
        options.drives.as_deref(),
    )?;
    let from = match options.holdout {
        None => log.t[0],
        Some(f) if f > 0.0 && f < 1.0 => {
            let (t0, t1) = (log.t[0], log.t[log.t.len() - 1]);
            t0 + (1.0 - f) * (t1 - t0)
        }
        Some(f) => {
            let expected = format!("a fraction in (0, 1), got {f}");
            return Err(option("--holdout", &expected).into());
        }
    };
    let default = Windows::for_rollout(&rolled, &log);
    let windows = Windows {
        horizon: options.horizon.unwrap_or(default.horizon),
        spacing: options.spacing.unwrap_or(default.spacing),
    };
    let fidelity = fidelity(&rolled, &log, windows, from)?;
    if fidelity.per_window.is_empty() {
        let expected = format!("a horizon that fits in the log from {from:.3} s on");
        return Err(option("--horizon", &expected).into());
    }
    let out = RolledOut {
        model: model.display().to_string(),
        run: options.run.display().to_string(),
        from,
        coupled: (rolled.coupled.iter())
            .flat_map(|d| d.row.iter().enumerate().filter(|(_, r)| **r != 0.0))
            .map(|(j, _)| j as u8 + 1)
            .collect::<std::collections::BTreeSet<u8>>()
            .into_iter()
            .collect(),
        servo_driven: (0..rolled.chain.links.len())
            .filter(|&j| super::servo_driven(&rolled, &log, j).is_some())
            .map(|j| j as u8 + 1)
            .collect(),
        commanded: super::command_baseline(&log, windows, from),
        fidelity,
    };
    if let Some(path) = &options.out {
        let text = serde_json::to_string_pretty(&out).expect("serializes") + "\n";
        std::fs::write(path, text).map_err(|source| crate::Error::Io {
            path: path.clone(),
            source,
        })?;
    }
    Ok(out)
}
