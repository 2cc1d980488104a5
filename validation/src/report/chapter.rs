//! The user guide's results chapters (`book/src/results-<stem>.md`), each a report rendered from
//! the serialized result a study wrote (`generated/report/<stem>.json`), so that no figure of the
//! guide is typed by hand: `cargo xtask reproduce` renders the chapters of the parts it ran, and
//! `cargo xtask book` renders every chapter whose result is there.
//!
//! A chapter is the report's Markdown behind a banner naming its source; its figures are the
//! report's PNGs, copied beside it by the caller (they are outputs, not committed).

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::study::industrial::IndustrialStudy;
use crate::study::joint_level::JointLevelStudy;
use crate::study::mim::MimStudy;
use crate::study::multisine::MultisineStudy;
use crate::study::paper_sensing::PaperSensingStudy;
use crate::study::sweep::SweepResult;
use crate::study::teaching::TeachingStudy;

/// A results chapter of the guide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chapter {
    /// MIM on `paper_rail` (`mim.json`, [`MimStudy`]).
    Mim,
    /// The frequency-domain paper on `link2` (`multisine.json`, [`MultisineStudy`]).
    Multisine,
    /// The teaching paper's pipeline (`teaching.json`, [`TeachingStudy`]).
    Teaching,
    /// The Franka Emika Panda (`industrial.json`, [`IndustrialStudy`]).
    Industrial,
    /// The MIM noise study, with NIM where `--full` ran it (`mim_noise.json`, [`SweepResult`]).
    MimNoise,
    /// Which whole-arm identifier survives what (`realism.json`, [`SweepResult`] with effects).
    Realism,
    /// Which MIM survives what on arm6's F/T sensors (`realism_ft.json`, the same form).
    RealismFt,
    /// Which whole-arm identifier survives an elastic gear or its play (`realism_gear.json`,
    /// the same form).
    RealismGear,
    /// Joint-level identification across a population of robots (`joint_level.json`,
    /// [`JointLevelStudy`]).
    JointLevel,
    /// The run-level NIM under the MIM paper's sensing (`paper_sensing.json`,
    /// [`PaperSensingStudy`]).
    PaperSensing,
}

impl Chapter {
    /// Every chapter, in the guide's order.
    pub const ALL: [Chapter; 10] = [
        Chapter::Mim,
        Chapter::Multisine,
        Chapter::Teaching,
        Chapter::Industrial,
        Chapter::MimNoise,
        Chapter::Realism,
        Chapter::RealismFt,
        Chapter::RealismGear,
        Chapter::JointLevel,
        Chapter::PaperSensing,
    ];

    /// The file stem of its result (`<stem>.json`) and of its chapter (`results-<stem>.md`).
    pub fn stem(self) -> &'static str {
        match self {
            Chapter::Mim => "mim",
            Chapter::Multisine => "multisine",
            Chapter::Teaching => "teaching",
            Chapter::Industrial => "industrial",
            Chapter::MimNoise => "mim_noise",
            Chapter::Realism => "realism",
            Chapter::RealismFt => "realism_ft",
            Chapter::RealismGear => "realism_gear",
            Chapter::JointLevel => "joint_level",
            Chapter::PaperSensing => "paper_sensing",
        }
    }

    /// The part of `cargo xtask reproduce` that writes its result.
    pub fn part(self) -> &'static str {
        self.stem()
    }

    /// The chapter's file name in `book/src`.
    pub fn file_name(self) -> String {
        format!("results-{}.md", self.stem())
    }

    /// The chapter rendered from the text of its serialized result; `source` names that file in
    /// errors.
    pub fn render(self, json: &str, source: &Path) -> crate::Result<String> {
        let body = match self {
            Chapter::Mim => super::mim::markdown(&parse::<MimStudy>(json, source)?),
            Chapter::Multisine => parse::<MultisineStudy>(json, source)?.markdown(),
            Chapter::Teaching => parse::<TeachingStudy>(json, source)?.markdown(),
            Chapter::Industrial => {
                super::industrial::markdown(&parse::<IndustrialStudy>(json, source)?)
            }
            Chapter::MimNoise => super::sweep::markdown(&parse::<SweepResult>(json, source)?),
            Chapter::Realism | Chapter::RealismFt | Chapter::RealismGear => {
                super::survival::markdown(&parse::<SweepResult>(json, source)?)
            }
            Chapter::JointLevel => {
                super::joint_level::markdown(&parse::<JointLevelStudy>(json, source)?)
            }
            Chapter::PaperSensing => {
                super::paper_sensing::markdown(&parse::<PaperSensingStudy>(json, source)?)
            }
        };
        Ok(format!(
            "<!-- Rendered by `cargo xtask reproduce` (or `cargo xtask book`) from \
             generated/report/{stem}.json; do not edit: rerun `cargo xtask reproduce --only {part}`. -->\n\n\
             {body}",
            stem = self.stem(),
            part = self.part(),
        ))
    }
}

fn parse<T: DeserializeOwned>(json: &str, source: &Path) -> crate::Result<T> {
    serde_json::from_str(json).map_err(|e| crate::Error::Format {
        path: source.to_path_buf(),
        message: e.to_string(),
    })
}

/// The images a Markdown text links (`![…](file)`), in order.
pub fn figures(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = markdown;
    while let Some(k) = rest.find("![") {
        let Some((_, after)) = rest[k + 2..].split_once("](") else {
            break;
        };
        let Some((link, tail)) = after.split_once(')') else {
            break;
        };
        out.push(link.to_string());
        rest = tail;
    }
    out
}

impl Chapter {
    /// Renders the chapter from its result in `report` into `book_src` (written atomically, its
    /// figures copied beside it where the report has them); the chapter's path. A missing
    /// result is an error naming the file and the part of `reproduce` that writes it.
    pub fn render_into(self, report: &Path, book_src: &Path) -> crate::Result<PathBuf> {
        let source = report.join(format!("{}.json", self.stem()));
        let json = std::fs::read_to_string(&source).map_err(|e| crate::Error::Format {
            path: source.clone(),
            message: format!(
                "{e}: no result to render (written by `cargo xtask reproduce --only {}`)",
                self.part()
            ),
        })?;
        let text = self.render(&json, &source)?;
        for figure in figures(&text) {
            let (from, to) = (report.join(&figure), book_src.join(&figure));
            if from.exists() {
                std::fs::copy(&from, &to).map_err(crate::Error::io(&to))?;
            }
        }
        let path = book_src.join(self.file_name());
        super::write_atomic(&path, &text).map_err(crate::Error::io(&path))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_the_image_links_only() {
        let md =
            "see [the csv](a.csv)\n\n![friction fit](f.png)\n\ntext ![adaptive](g.png) and [x](y)";
        assert_eq!(figures(md), vec!["f.png".to_string(), "g.png".to_string()]);
    }

    #[test]
    fn a_bad_result_is_refused_naming_its_file() {
        let err = Chapter::Teaching
            .render("{\"rows\": 3}", Path::new("generated/report/teaching.json"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("generated/report/teaching.json"), "{err}");
    }
}
