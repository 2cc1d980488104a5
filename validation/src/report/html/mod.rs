//! One self-contained HTML page a person opens in a browser (`validation report RUN_OR_STUDY
//! --html OUT.html`): the serialized result embedded as JSON, drawn by the page's own script on
//! canvases — no network, no external file. A run's page shows the arm moving through the run in
//! 3D (its link frames and shapes), its joint trajectories, its torques (measured, predicted by
//! an identified model, residual) and every estimate with its std beside the truth
//! ([`crate::study::run_view`]); `armid identify`'s page the model it chose and why, its
//! prediction of the held-out stretch, Rapier's replay and the arm moving
//! ([`crate::study::identify`]); a sweep's page shows error against noise with the Cramér–Rao
//! bound ([`sweep::panels`]).
//!
//! The page marks itself for tests and tools: `<body data-status="ready">` once everything is
//! drawn (`failed` if drawing threw), `data-errors` the number of script errors and console
//! errors, `data-arm-pixels` the pixels the 3D view painted.

pub mod sweep;

use serde::Serialize;

use crate::study::identify::{Identification, ServoIdentification};
use crate::study::run_view::RunView;
use crate::study::sweep::SweepResult;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// What the page's script draws.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Content<'a> {
    Run {
        view: &'a RunView,
    },
    Identify {
        found: &'a Identification,
    },
    ServoIdentify {
        found: &'a ServoIdentification,
    },
    Sweep {
        study: &'a str,
        seeds: usize,
        panels: Vec<sweep::Panel>,
        skipped: &'a [(String, String, String)],
    },
}

/// Text safe inside an HTML element or attribute.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page around `content`.
fn page(title: &str, content: &Content) -> String {
    // JSON inside <script>: only `</` could end the element early.
    let json = serde_json::to_string(content)
        .expect("serializes")
        .replace("</", "<\\/");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n\
         <body data-status=\"loading\">\n<header><h1>{title}</h1></header>\n<main id=\"main\"></main>\n\
         <script type=\"application/json\" id=\"data\">{json}</script>\n<script>\n{SCRIPT}</script>\n\
         </body>\n</html>\n",
        title = escape(title),
    )
}

/// The page of one run.
pub fn run_page(view: &RunView) -> String {
    page(&format!("Run {}", view.run_id), &Content::Run { view })
}

/// The page of `armid identify`'s outcome: the model chosen and why, its fit per joint over
/// the held-out stretch, Rapier's replay, the arm moving, its links and parameters beside the
/// file's, and every choice made.
pub fn identify_page(found: &Identification) -> String {
    page(
        &format!("Identified model of {}", found.run_id),
        &Content::Identify { found },
    )
}

/// The page of `armid identify`'s outcome on a servo arm's logs: the held-out rollouts with the
/// file's servos, the fitted ones and the commands, and the fit.
pub fn servo_identify_page(found: &ServoIdentification) -> String {
    page(
        &format!("Identified servos of {}", found.runs.join(", ")),
        &Content::ServoIdentify { found },
    )
}

/// The page of a noise sweep (`sweep.json`).
pub fn sweep_page(result: &SweepResult) -> String {
    page(
        &format!("Study {}", result.study),
        &Content::Sweep {
            study: &result.study,
            seeds: result.seeds,
            panels: sweep::panels(result),
            skipped: &result.skipped,
        },
    )
}
