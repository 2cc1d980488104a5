//! The user guide's results chapters (`book/src/results-<name>.md`): each the report's Markdown
//! of a study, rendered from the result it wrote (`generated/report/<name>.json`) behind a
//! banner naming that source, so that no figure of the guide is typed by hand. `cargo xtask
//! reproduce` renders the chapters of the studies it ran, `cargo xtask book` every chapter whose
//! result is there (which studies have one: [`super::tiers`]). Figures are the report's PNGs,
//! copied beside the chapter (outputs, not committed).

use std::path::{Path, PathBuf};

use super::Plan;

/// The banner above a chapter rendered from `generated/report/<name>.json`.
pub fn banner(name: &str) -> String {
    format!(
        "<!-- Rendered by `cargo xtask reproduce` (or `cargo xtask book`) from \
         generated/report/{name}.json; do not edit: rerun `cargo xtask reproduce --only {name}`. -->\n\n"
    )
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

/// Renders `plan`'s guide chapter from its result in `report` into `book_src`
/// (`results-<name>.md`, written atomically, its figures copied beside it); the chapter's path.
/// A missing result is an error naming the file and the command that writes it.
pub fn render_into(plan: &Plan, report: &Path, book_src: &Path) -> crate::Result<PathBuf> {
    let name = plan.name();
    let source = report.join(format!("{name}.json"));
    let json = std::fs::read_to_string(&source).map_err(|e| crate::Error::Format {
        path: source.clone(),
        message: format!(
            "{e}: no result to render (written by `cargo xtask reproduce --only {name}`)"
        ),
    })?;
    let text = banner(name) + &plan.markdown(&json, &source)?;
    for figure in figures(&text) {
        let (from, to) = (report.join(&figure), book_src.join(&figure));
        if from.exists() {
            std::fs::copy(&from, &to).map_err(crate::Error::io(&to))?;
        }
    }
    let path = book_src.join(format!("results-{name}.md"));
    crate::files::write_atomic(&path, &text).map_err(crate::Error::io(&path))?;
    Ok(path)
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
}
