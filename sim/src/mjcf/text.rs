//! MJCF attribute text: numbers that read back exactly, and XML-safe names.

use nalgebra::Vector3;

/// `x y z`, each the shortest text that reads back to the same number.
pub(super) fn vector(v: &Vector3<f64>) -> String {
    format!("{:?} {:?} {:?}", v.x, v.y, v.z)
}

/// `text` safe inside an XML attribute.
pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
