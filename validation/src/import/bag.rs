//! A ROS 2 bag in MCAP (`ros2 bag record -s mcap`) as a wide [`Table`]: the
//! `sensor_msgs/msg/JointState` messages of one topic, read with foxglove's `mcap` crate
//! (chunks uncompressed or zstd-compressed; lz4 is refused by name) and decoded from CDR with
//! `cdr-encoding`.
//!
//! Each message becomes a row: `t` from its header stamp (s, relative to the first message's,
//! counted in integer nanoseconds so that epoch stamps keep their resolution; the log time where
//! every stamp is zero, as some drivers leave them), and per joint `q_<name>` from `position`,
//! `qd_<name>` from `velocity` and `tau_<name>` from `effort` (rad, rad/s, N·m; m, m/s, N),
//! the arrays that the first message fills. The joints are matched by name in every message
//! (drivers list them in their own order); a message without one of them, or with an array of
//! another length, is refused naming the message (its row). The topic is the one JointState
//! topic of the bag, or the one given (`--topic`).

use std::collections::BTreeMap;
use std::path::Path;

use byteorder::{BigEndian, LittleEndian};
use serde::Deserialize;

use super::ImportError;
use super::table::Table;

/// The ROS 2 type read.
pub const JOINT_STATE: &str = "sensor_msgs/msg/JointState";

#[derive(Deserialize)]
struct Time {
    sec: i32,
    nanosec: u32,
}

#[derive(Deserialize)]
struct Header {
    stamp: Time,
    #[allow(dead_code)]
    frame_id: String,
}

/// `sensor_msgs/msg/JointState`, field for field in CDR order.
#[derive(Deserialize)]
struct JointState {
    header: Header,
    name: Vec<String>,
    position: Vec<f64>,
    velocity: Vec<f64>,
    effort: Vec<f64>,
}

/// A column prefix and the message array it is read from.
type Array = (&'static str, fn(&JointState) -> &Vec<f64>);

/// One decoded message: its time (ns) and joint state.
struct Sample {
    stamp_ns: i64,
    log_ns: u64,
    state: JointState,
}

/// Whether `path` names an MCAP file (by its extension).
pub(crate) fn is_bag(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "mcap")
}

/// Reads the JointState messages of `topic` (or of the bag's only JointState topic).
pub fn read(path: &Path, topic: Option<&str>) -> Result<Table, ImportError> {
    let format = |message: String| ImportError::Format {
        file: path.to_owned(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|source| ImportError::Io {
        file: path.to_owned(),
        source,
    })?;
    let stream = mcap::MessageStream::new(&bytes).map_err(|e| format(e.to_string()))?;
    let mut topics: BTreeMap<String, Vec<Sample>> = BTreeMap::new();
    for (k, message) in stream.enumerate() {
        let message = message.map_err(|e| format(format!("message {}: {e}", k + 1)))?;
        let channel = &message.channel;
        let is_joint_state = channel
            .schema
            .as_ref()
            .is_some_and(|s| s.name == JOINT_STATE);
        if !is_joint_state || topic.is_some_and(|t| t != channel.topic) {
            continue;
        }
        if channel.message_encoding != "cdr" {
            return Err(format(format!(
                "topic `{}`: expected CDR-encoded messages (ROS 2), got {:?}",
                channel.topic, channel.message_encoding
            )));
        }
        let state = decode(&message.data)
            .map_err(|e| format(format!("topic `{}`, message {}: {e}", channel.topic, k + 1)))?;
        let stamp_ns = i64::from(state.header.stamp.sec) * 1_000_000_000
            + i64::from(state.header.stamp.nanosec);
        topics
            .entry(channel.topic.clone())
            .or_default()
            .push(Sample {
                stamp_ns,
                log_ns: message.log_time,
                state,
            });
    }
    let (name, samples) = match (topics.len(), topic) {
        (1, _) => topics.into_iter().next().expect("one topic"),
        (0, Some(t)) => return Err(format(format!("no {JOINT_STATE} messages on topic `{t}`"))),
        (0, None) => return Err(format(format!("no {JOINT_STATE} messages"))),
        _ => {
            let names: Vec<&String> = topics.keys().collect();
            return Err(format(format!(
                "{JOINT_STATE} on several topics {names:?}: choose one with --topic"
            )));
        }
    };
    table(path, &name, &samples)
}

/// A CDR message: its 4-byte encapsulation header (`00 01` little-endian, `00 00` big-endian),
/// then the fields, aligned from the end of that header.
fn decode(data: &[u8]) -> Result<JointState, CdrError> {
    let (header, body) = data.split_at_checked(4).ok_or(CdrError::Short)?;
    let decoded = match header[..2] {
        [0, 1] => cdr_encoding::from_bytes::<JointState, LittleEndian>(body),
        [0, 0] => cdr_encoding::from_bytes::<JointState, BigEndian>(body),
        _ => return Err(CdrError::Encapsulation([header[0], header[1]])),
    };
    decoded
        .map(|(state, _)| state)
        .map_err(|e| CdrError::NotJointState(e.to_string()))
}

/// Why a message's bytes are not a CDR-encoded JointState.
#[derive(Debug, thiserror::Error)]
enum CdrError {
    /// Fewer than the 4 bytes of the encapsulation header.
    #[error("shorter than the CDR encapsulation header")]
    Short,
    /// An encapsulation other than plain CDR (little- or big-endian).
    #[error("unknown CDR encapsulation {0:02x?}")]
    Encapsulation([u8; 2]),
    /// The fields do not decode as a JointState (the decoder's message).
    #[error("not a sensor_msgs/msg/JointState: {0}")]
    NotJointState(String),
}

/// The rows of `samples` (topic `topic`), joints by the first message's names.
fn table(path: &Path, topic: &str, samples: &[Sample]) -> Result<Table, ImportError> {
    let first = &samples[0].state;
    let n = first.name.len();
    let arrays: [Array; 3] = [
        ("q", |s| &s.position),
        ("qd", |s| &s.velocity),
        ("tau", |s| &s.effort),
    ];
    let given: Vec<_> = arrays.iter().filter(|(_, f)| f(first).len() == n).collect();
    let use_log_time = samples.iter().all(|s| s.stamp_ns == 0);
    let ns = |s: &Sample| {
        if use_log_time {
            s.log_ns as i64
        } else {
            s.stamp_ns
        }
    };
    let t0 = ns(&samples[0]);
    let mut names = vec!["t".to_string()];
    let mut columns = vec![samples.iter().map(|s| (ns(s) - t0) as f64 * 1e-9).collect()];
    for (prefix, field) in &given {
        for (j, joint) in first.name.iter().enumerate() {
            let mut column = Vec::with_capacity(samples.len());
            for (row, s) in samples.iter().enumerate() {
                let at = |k: usize| field(&s.state).get(k).copied().unwrap_or(f64::NAN);
                let k = if s.state.name.get(j) == Some(joint) {
                    Some(j)
                } else {
                    s.state.name.iter().position(|m| m == joint)
                };
                let wrong = |problem: String| ImportError::Row {
                    file: path.to_owned(),
                    column: format!("{topic}: {prefix}_{joint}"),
                    row: row + 1,
                    problem,
                };
                match k {
                    Some(k) if field(&s.state).len() == s.state.name.len() => column.push(at(k)),
                    Some(_) => {
                        return Err(wrong(format!(
                            "expected as many values as names ({}), got {}",
                            s.state.name.len(),
                            field(&s.state).len()
                        )));
                    }
                    None => {
                        return Err(wrong(format!(
                            "expected joint `{joint}` in the message, as in the first (it has {:?})",
                            s.state.name
                        )));
                    }
                }
            }
            names.push(format!("{prefix}_{joint}"));
            columns.push(column);
        }
    }
    Table::checked(path, names, columns)
}
