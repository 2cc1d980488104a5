//! `<include file="…"/>`, as MuJoCo reads it: the element is replaced by the children of the
//! included file's `<mujoco>` root, the file named relative to the main file's directory (the
//! MJCF reference), included files may include others, and a file included twice on one path
//! (a cycle) is refused. MuJoCo Menagerie's `scene.xml` includes its arm's file this way.
//!
//! The expansion is textual, before the tree is read: an error in an included element names
//! the main file and the line in the expanded text, and the included file's name is kept in a
//! comment at the place it was spliced.

use std::path::{Path, PathBuf};

use super::super::urdf::UrdfError;

/// Includes nested deeper than this are refused (MuJoCo has no such limit; a chain of this
/// length is a cycle in all but name).
const MAX_DEPTH: usize = 32;

/// `text` (the file `file`, its includes resolved against `dir`) with every `<include>`
/// replaced by the included file's elements.
pub fn expand(text: &str, file: &Path, dir: &Path) -> Result<String, UrdfError> {
    expand_in(text, file, dir, &mut vec![file.to_owned()])
}

fn expand_in(
    text: &str,
    file: &Path,
    dir: &Path,
    open: &mut Vec<PathBuf>,
) -> Result<String, UrdfError> {
    let fail = |element: String, problem: String| UrdfError::Unsupported {
        file: file.display().to_string(),
        element,
        problem,
    };
    let doc = parse(text, file)?;
    let mut splices: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for node in doc.descendants().filter(|n| n.has_tag_name("include")) {
        let line = doc.text_pos_at(node.range().start).row;
        let element = format!("<include> (line {line})");
        let Some(name) = node.attribute("file") else {
            return Err(fail(element, "expected a `file` attribute".into()));
        };
        let path = dir.join(name);
        if open.contains(&path) || open.len() > MAX_DEPTH {
            let chain: Vec<String> = open.iter().map(|p| p.display().to_string()).collect();
            return Err(fail(
                element,
                format!("`{name}` includes itself (through {chain:?})"),
            ));
        }
        let included = std::fs::read_to_string(&path).map_err(|source| UrdfError::Io {
            file: path.display().to_string(),
            source,
        })?;
        open.push(path.clone());
        let expanded = expand_in(&included, &path, dir, open)?;
        open.pop();
        let inner = children(&expanded, &path)?;
        let said = name.replace("--", "- -"); // `--` may not appear in an XML comment
        let text = format!("<!-- from {said} -->{inner}<!-- end of {said} -->");
        splices.push((node.range(), text));
    }
    let mut out = text.to_owned();
    for (range, text) in splices.into_iter().rev() {
        out.replace_range(range, &text);
    }
    Ok(out)
}

/// The text between the `<mujoco>` root's tags of `text` (the file `path`).
fn children(text: &str, path: &Path) -> Result<String, UrdfError> {
    let doc = parse(text, path)?;
    let root = doc.root_element();
    if !root.has_tag_name("mujoco") {
        return Err(UrdfError::Unsupported {
            file: path.display().to_string(),
            element: format!("<{}>", root.tag_name().name()),
            problem: "an included file's root must be <mujoco>".into(),
        });
    }
    Ok(match (root.first_child(), root.last_child()) {
        (Some(first), Some(last)) => text[first.range().start..last.range().end].to_owned(),
        _ => String::new(),
    })
}

/// The XML tree of `text` (the file `file`).
fn parse<'a>(text: &'a str, file: &Path) -> Result<roxmltree::Document<'a>, UrdfError> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(text, options).map_err(|e| UrdfError::Unsupported {
        file: file.display().to_string(),
        element: "XML".into(),
        problem: format!("not readable XML: {e} (expected an MJCF <mujoco> file)"),
    })
}
