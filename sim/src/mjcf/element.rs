//! How an MJCF file's errors name where they are.

use roxmltree::Node;

/// An element of the file and what is wrong with it.
pub(crate) type Problem = (String, String);

/// How an element is named in errors: its tag, its name where it has one, and its line.
pub(crate) fn element(node: Node) -> String {
    let line = node.document().text_pos_at(node.range().start).row;
    match node.attribute("name") {
        Some(name) => format!("<{} name=\"{name}\"> (line {line})", node.tag_name().name()),
        None => format!("<{}> (line {line})", node.tag_name().name()),
    }
}
