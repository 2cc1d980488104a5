//! The serialized result of a study whose own result type borrows and is not serialized (the
//! NIM studies): its report's text, rendered when it was computed.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// A report's Markdown and CSV, and its headline line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tables {
    /// The report (`<name>.md`).
    pub markdown: String,
    /// Its rows (`<name>.csv`).
    pub csv: String,
    /// Its headline figures, one line.
    pub summary: String,
}

impl Tables {
    /// Writes `<name>.md` and `<name>.csv` into `report`.
    pub fn write(&self, name: &str, report: &Path) -> crate::Result<()> {
        for (ext, text) in [("md", &self.markdown), ("csv", &self.csv)] {
            let path = report.join(format!("{name}.{ext}"));
            crate::files::write_atomic(&path, text).map_err(crate::Error::io(&path))?;
        }
        Ok(())
    }
}
