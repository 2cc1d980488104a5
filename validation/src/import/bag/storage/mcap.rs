//! MCAP storage (`.mcap`), read with foxglove's `mcap` crate: chunks uncompressed or
//! zstd-compressed (lz4 is refused by the crate, naming it); a message's type is its channel's
//! schema name, its encoding the channel's message encoding.

use std::path::Path;

use super::super::super::ImportError;
use super::{Topic, Visitor};

/// Hands every message of the MCAP file `file` to `visit`.
pub fn visit(file: &Path, visit: &mut Visitor<'_>) -> Result<(), ImportError> {
    let format = |message: String| ImportError::Format {
        file: file.to_owned(),
        message,
    };
    let bytes = std::fs::read(file).map_err(|source| ImportError::Io {
        file: file.to_owned(),
        source,
    })?;
    let stream = ::mcap::MessageStream::new(&bytes).map_err(|e| format(e.to_string()))?;
    for (k, message) in stream.enumerate() {
        let message = message.map_err(|e| format(format!("message {}: {e}", k + 1)))?;
        let channel = &message.channel;
        let topic = Topic {
            name: &channel.topic,
            type_name: channel.schema.as_ref().map_or("", |s| s.name.as_str()),
            encoding: &channel.message_encoding,
        };
        visit(topic, message.log_time, &message.data)?;
    }
    Ok(())
}
