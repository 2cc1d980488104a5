//! Which study files `cargo xtask reproduce` runs: the one list `studies/reproduce.toml`.
//!
//! ```toml
//! [[study]]
//! file = "mim.toml"      # relative to the list
//! tier = "default"       # "default": every run; "full": with --full (or --only NAME)
//! chapter = true         # its result renders book/src/results-<name>.md
//! ```
//!
//! Entries run in the list's order. A `full` entry with the name of a `default` one runs in its
//! place under `--full` and `--only NAME` (the same study at its full size).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Checks, Plan};
use crate::study::file::StudyError;

/// When `reproduce` runs a study.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Every run (the five-minute default).
    Default,
    /// With `--full`, or alone with `--only`.
    Full,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListFile {
    study: Vec<EntryFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryFile {
    file: PathBuf,
    tier: Tier,
    #[serde(default)]
    chapter: bool,
}

/// One study of the list, read and checked.
#[derive(Clone, Debug)]
pub struct Listed {
    /// The study file (resolved).
    pub file: PathBuf,
    /// Its tier.
    pub tier: Tier,
    /// Whether its result renders a guide chapter.
    pub chapter: bool,
    /// The study.
    pub plan: Plan,
}

/// The list of `reproduce`'s studies.
#[derive(Clone, Debug)]
pub struct Tiers {
    /// The studies in the list's order.
    pub studies: Vec<Listed>,
}

impl Tiers {
    /// Reads the list at `path` and every study file it names; `known` are the registry's
    /// estimator names.
    pub fn from_path(path: &Path, known: &[String]) -> Result<Tiers, StudyError> {
        let at = Checks { path, known };
        let text = std::fs::read_to_string(path).map_err(|source| StudyError::Io {
            path: path.to_owned(),
            source,
        })?;
        let list: ListFile = at.parse(&text)?;
        let mut studies: Vec<Listed> = Vec::new();
        for (k, e) in list.study.into_iter().enumerate() {
            let file = at.existing(&format!("study[{k}].file"), &e.file, "study file")?;
            let plan = Plan::from_path(&file, known)?;
            let twin = studies.iter().find(|s| s.plan.name() == plan.name());
            if twin.is_some_and(|t| t.tier == e.tier || t.tier == Tier::Full) {
                return Err(at.invalid(
                    &format!("study[{k}]"),
                    format!(
                        "expected one study named `{}` per tier, a full one after its default one",
                        plan.name()
                    ),
                ));
            }
            studies.push(Listed {
                file,
                tier: e.tier,
                chapter: e.chapter,
                plan,
            });
        }
        Ok(Tiers { studies })
    }

    /// The studies' names, each once, in the list's order.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for s in &self.studies {
            if !names.contains(&s.plan.name()) {
                names.push(s.plan.name());
            }
        }
        names
    }

    /// The study that runs under the name `name`: its full entry when `full`, else its default.
    fn pick(&self, name: &str, full: bool) -> Option<&Listed> {
        let of = |tier| (self.studies.iter()).find(|s| s.plan.name() == name && s.tier == tier);
        match full {
            true => of(Tier::Full).or_else(|| of(Tier::Default)),
            false => of(Tier::Default),
        }
    }

    /// What a run selects, in order: `only` alone (its full entry where it has one), else every
    /// default study, or with `full` every study (full entries in their default's place). An
    /// unknown `only` is an error naming the list's studies.
    pub fn selected(&self, full: bool, only: Option<&str>) -> crate::Result<Vec<&Listed>> {
        if let Some(name) = only {
            return self
                .pick(name, true)
                .map(|s| vec![s])
                .ok_or_else(|| crate::Error::Invalid {
                    what: format!("--only {name}"),
                    expected: format!("one of {}", self.names().join(", ")),
                });
        }
        Ok(self
            .names()
            .into_iter()
            .filter_map(|n| self.pick(n, full))
            .collect())
    }

    /// The studies with a chapter, each name once (its full entry where it has one).
    pub fn chapters(&self) -> Vec<&Listed> {
        let all = self.names().into_iter().filter_map(|n| self.pick(n, true));
        all.filter(|s| s.chapter).collect()
    }
}
