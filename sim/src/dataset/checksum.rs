//! SHA-256 digests of a run's files, listed in the format of `sha256sum` (one `<hex>  <path>`
//! line per file, paths relative to the list's base directory), so that `sha256sum -c` checks a
//! run directory as the readers do. Parquet files carry no checksum of their own (parquet-rs
//! writes no page CRCs) and a flipped byte in a float column, or one digit of the manifest's
//! truth, would otherwise read as a different, plausible value.
//!
//! A run directory holds `SHA256SUMS` over its four files; a population holds
//! `checksums/shard=NNNNN.sha256` per shard, over the shard's files relative to the population
//! directory. The readers verify a list where there is one (a run assembled by hand need not
//! have one).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{DatasetError, io};

/// File name of a run directory's checksum list.
pub const CHECKSUMS_FILE: &str = "SHA256SUMS";

/// The SHA-256 of a file, lowercase hex.
pub fn digest(path: &Path) -> Result<String, DatasetError> {
    digest_all(&[path])
}

/// The SHA-256 of the files' bytes one after another, in the order given, lowercase hex (a
/// ROS 2 bag split over several storage files is one recording).
pub fn digest_all(paths: &[&Path]) -> Result<String, DatasetError> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    for path in paths {
        let mut file = std::fs::File::open(path).map_err(io(path))?;
        loop {
            let n = file.read(&mut buf).map_err(io(path))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
    }
    Ok(hex(&hasher.finalize()))
}

/// The list's text for `(path relative to the base, digest)` entries.
pub fn render<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    entries
        .into_iter()
        .map(|(path, hex)| format!("{hex}  {path}\n"))
        .collect()
}

/// Writes the list `list` of the files `names` (relative to `base`).
pub fn write(list: &Path, base: &Path, names: &[&str]) -> Result<(), DatasetError> {
    let digests = names
        .iter()
        .map(|n| digest(&base.join(n)))
        .collect::<Result<Vec<_>, _>>()?;
    let text = render(
        names
            .iter()
            .copied()
            .zip(digests.iter().map(String::as_str)),
    );
    std::fs::write(list, text).map_err(io(list))
}

/// Reads a list: path → digest. `Err` names the list and the line that is not `<64 hex>  <path>`.
pub fn read(list: &Path) -> Result<BTreeMap<String, String>, DatasetError> {
    let text = std::fs::read_to_string(list).map_err(io(list))?;
    let mut out = BTreeMap::new();
    for (k, line) in text.lines().enumerate() {
        let parsed = line
            .split_once("  ")
            .or_else(|| line.split_once(" *"))
            .filter(|(hex, path)| {
                hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) && !path.is_empty()
            });
        let Some((hex, path)) = parsed else {
            return Err(DatasetError::Format {
                path: list.to_owned(),
                message: format!("line {}: expected `<64 hex digits>  <file>`", k + 1),
            });
        };
        out.insert(path.to_string(), hex.to_ascii_lowercase());
    }
    Ok(out)
}

/// Checks every file of the list `list` against its digest; `required` are paths the list must
/// name. `Err` names the first file that differs, is missing or is not listed.
pub fn verify(list: &Path, base: &Path, required: &[&str]) -> Result<(), DatasetError> {
    let entries = read(list)?;
    if let Some(missing) = required.iter().find(|r| !entries.contains_key(**r)) {
        return Err(DatasetError::Format {
            path: list.to_owned(),
            message: format!("expected a line for `{missing}`"),
        });
    }
    for (name, expected) in &entries {
        let path = base.join(name);
        let found = digest(&path)?;
        if &found != expected {
            return Err(DatasetError::Corrupt {
                path,
                list: list.to_owned(),
            });
        }
    }
    Ok(())
}

/// A file being written whose SHA-256 is taken on the way ([`Self::finish`]), so a large file
/// is not read back to be listed.
pub struct HashingFile {
    file: std::io::BufWriter<std::fs::File>,
    hasher: Sha256,
}

impl HashingFile {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path) -> Result<Self, DatasetError> {
        let file = std::fs::File::create(path).map_err(io(path))?;
        Ok(HashingFile {
            file: std::io::BufWriter::with_capacity(1 << 20, file),
            hasher: Sha256::new(),
        })
    }

    /// Flushes the file and returns its digest (lowercase hex).
    pub fn finish(mut self, path: &Path) -> Result<String, DatasetError> {
        use std::io::Write;
        self.file.flush().map_err(io(path))?;
        Ok(hex(&self.hasher.finalize()))
    }
}

impl std::io::Write for HashingFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
