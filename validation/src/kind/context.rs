//! Where a study writes: the folders under its output root.

use std::path::{Path, PathBuf};

/// The output root of a study run and how paths are shown in its reports.
///
/// Under `out`: `runs/` (simulated and imported run directories), `populations/` and `models/`
/// (cached by a hash of what made them: [`crate::study::cache`]), `report/` (each study's
/// `<name>.json` and report files) and `studies/<name>/` (a sweep's own directory, resumable).
#[derive(Clone, Debug)]
pub struct Context {
    out: PathBuf,
    /// A lone sweep (`armid study`) writes its directory into `out` itself.
    sweep_in_out: bool,
    /// Paths under it are shown relative to it in reports (as a user types them).
    shown_from: Option<PathBuf>,
}

impl Context {
    /// The layout of `cargo xtask reproduce` under `out`; paths in reports are shown relative to
    /// `workspace`.
    pub fn new(out: &Path, workspace: &Path) -> Context {
        Context {
            out: out.to_owned(),
            sweep_in_out: false,
            shown_from: Some(workspace.to_owned()),
        }
    }

    /// The layout of `armid study FILE --out DIR`: as [`Context::new`], but a sweep writes its
    /// files (`sweep.json`, `.md`, `.csv`, `.png`) into `out` itself; paths are shown relative to
    /// the current directory.
    pub(crate) fn standalone(out: &Path) -> Context {
        Context {
            out: out.to_owned(),
            sweep_in_out: true,
            shown_from: std::env::current_dir().ok(),
        }
    }

    /// The output root.
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// Run directories.
    pub fn runs(&self) -> PathBuf {
        self.out.join("runs")
    }

    /// Population directories.
    pub fn populations(&self) -> PathBuf {
        self.out.join("populations")
    }

    /// Trained models.
    pub fn models(&self) -> PathBuf {
        self.out.join("models")
    }

    /// Results and report files.
    pub fn report(&self) -> PathBuf {
        self.out.join("report")
    }

    /// The directory of the sweep `name` (`studies/<name>`, or the root of a lone sweep).
    pub(crate) fn sweep_dir(&self, name: &str) -> PathBuf {
        match self.sweep_in_out {
            true => self.out.clone(),
            false => self.out.join("studies").join(name),
        }
    }

    /// The directory of a part `name` of a study (`studies/<name>`).
    pub(crate) fn part_dir(&self, name: &str) -> PathBuf {
        self.out.join("studies").join(name)
    }

    /// The scenario at `path` simulated (with a progress bar) into `runs/<scenario name>`, written
    /// and read back.
    pub fn simulated(&self, path: &Path) -> crate::Result<sim::reading::Run> {
        let scenario = sim::scenario::Scenario::from_path(path)?;
        let pb = indicatif::ProgressBar::new(scenario.samples as u64);
        pb.set_message(scenario.file.name.clone());
        let result = sim::simulate(&scenario, Some(&pb));
        pb.finish_and_clear();
        let dir = self.runs().join(&scenario.file.name);
        let run = sim::reading::write_and_read(&result, &dir)?;
        println!("wrote {}", dir.display());
        Ok(run)
    }

    /// `path` as a user types it: relative to the workspace (or current directory) where it is
    /// under it.
    pub fn shown(&self, path: &Path) -> String {
        let rel = (self.shown_from.as_deref()).and_then(|from| path.strip_prefix(from).ok());
        rel.unwrap_or(path).display().to_string()
    }
}
