//! rosbag2's sqlite3 storage (`.db3`): the `topics` table (`id`, `name`, `type`,
//! `serialization_format`, …) and the `messages` table (`topic_id`, `timestamp` in ns since the
//! epoch, `data`: the serialized message), read in timestamp order (ties in insertion order).
//! These columns are those of every rosbag2 release from Foxy on; newer ones add tables
//! (`schema`, `metadata`, `message_definitions`) and columns that are not needed here. Read with
//! `rusqlite` on the system's SQLite, read-only.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::super::super::ImportError;
use super::{Topic, Visitor};

/// A topic row: name, type, serialization format.
type TopicRow = (String, String, String);

/// Hands every message of the `.db3` file `file` to `visit`.
pub fn visit(file: &Path, visit: &mut Visitor<'_>) -> Result<(), ImportError> {
    let format = |e: rusqlite::Error| ImportError::Format {
        file: file.to_owned(),
        message: format!(
            "not a rosbag2 sqlite3 bag (expected its `topics` and `messages` tables): {e}"
        ),
    };
    if !file.is_file() {
        return Err(ImportError::Io {
            file: file.to_owned(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        });
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = Connection::open_with_flags(file, flags).map_err(format)?;
    let mut rows = db
        .prepare("SELECT id, name, type, serialization_format FROM topics")
        .map_err(format)?;
    let topics: HashMap<i64, TopicRow> = rows
        .query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))
        .map_err(format)?
        .collect::<Result<_, _>>()
        .map_err(format)?;
    let mut rows = db
        .prepare("SELECT topic_id, timestamp, data FROM messages ORDER BY timestamp, id")
        .map_err(format)?;
    let mut messages = rows.query([]).map_err(format)?;
    let mut k = 0usize;
    while let Some(row) = messages.next().map_err(format)? {
        k += 1;
        let id: i64 = row.get(0).map_err(format)?;
        let log_ns: i64 = row.get(1).map_err(format)?;
        let data = row
            .get_ref(2)
            .and_then(|v| Ok(v.as_blob()?))
            .map_err(format)?;
        let (name, type_name, encoding) = topics.get(&id).ok_or_else(|| ImportError::Format {
            file: file.to_owned(),
            message: format!("message {k} names topic id {id}, which the `topics` table lacks"),
        })?;
        let topic = Topic {
            name,
            type_name,
            encoding,
        };
        visit(topic, log_ns as u64, data)?;
    }
    Ok(())
}
