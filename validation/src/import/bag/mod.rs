//! A ROS 2 bag as a wide [`Table`]: the `sensor_msgs/msg/JointState` messages of one topic or
//! of several, whatever storage the recorder wrote: MCAP or sqlite3 (`.db3`, Humble's default),
//! a storage file or the bag's directory ([`storage`]); decoded from CDR ([`joint_state`]).
//!
//! Each message becomes a row: `t` from its header stamp (s, relative to the first row's; the
//! log time where one topic's stamps are all zero, as some drivers leave them), and per joint
//! `q_<name>` from `position`, `qd_<name>` from `velocity` and `tau_<name>` from `effort` (rad,
//! rad/s, N·m; m, m/s, N), the arrays that the topic's first message fills. A message without one
//! of the first message's joints, or with an array of another length, is refused naming the
//! message (its row).
//!
//! The topics read are those given (`--topic`, one or several), else every JointState topic of
//! the bag; several are merged by joint name ([`merge`]: an arm and its gripper on two topics).
//! A bag with no JointState messages (on a topic asked for) is refused with the list of its
//! topics, their types and message counts.

pub mod joint_state;
pub mod merge;
pub mod storage;

use std::collections::BTreeMap;
use std::path::Path;

pub use joint_state::JOINT_STATE;

use super::ImportError;
use super::table::Table;
use merge::{Sample, TopicSamples};

/// Whether `path` is a bag (`.mcap`, `.db3`, or a directory holding them).
pub(crate) fn is_bag(path: &Path) -> bool {
    storage::is_bag(path)
}

/// A topic seen in the bag: its type and how many messages it has.
struct Seen {
    type_name: String,
    messages: usize,
}

/// Reads the JointState messages of `topics` (none: every JointState topic of the bag) into
/// one table; returns it with the topics read.
pub fn read(path: &Path, topics: &[String]) -> Result<(Table, Vec<String>), ImportError> {
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    let mut states: BTreeMap<String, Vec<Sample>> = BTreeMap::new();
    for file in storage::files(path)? {
        storage::visit(&file, &mut |topic, log_ns, data| {
            let entry = seen.entry(topic.name.to_owned()).or_insert_with(|| Seen {
                type_name: topic.type_name.to_owned(),
                messages: 0,
            });
            entry.messages += 1;
            let wanted = topics.is_empty() || topics.iter().any(|t| t == topic.name);
            if topic.type_name != JOINT_STATE || !wanted {
                return Ok(());
            }
            let format = |message: String| ImportError::Format {
                file: file.clone(),
                message: format!("topic `{}`: {message}", topic.name),
            };
            if topic.encoding != "cdr" {
                let got = topic.encoding;
                return Err(format(format!(
                    "expected CDR-encoded messages (ROS 2), got {got:?}"
                )));
            }
            let state = joint_state::decode(data)
                .map_err(|e| format(format!("message {}: {e}", entry.messages)))?;
            states
                .entry(topic.name.to_owned())
                .or_default()
                .push(Sample {
                    stamp_ns: state.stamp_ns(),
                    log_ns,
                    state,
                });
            Ok(())
        })?;
    }
    let missing = |what: String| ImportError::Format {
        file: path.to_owned(),
        message: format!("{what}; the bag has {}", listing(&seen)),
    };
    if let Some(t) = topics.iter().find(|t| !states.contains_key(*t)) {
        return Err(missing(format!("no {JOINT_STATE} messages on topic `{t}`")));
    }
    if states.is_empty() {
        return Err(missing(format!("no {JOINT_STATE} messages")));
    }
    let topics: Vec<TopicSamples> = (states.into_iter())
        .map(|(name, samples)| TopicSamples { name, samples })
        .collect();
    let names = topics.iter().map(|t| t.name.clone()).collect();
    Ok((merge::table(path, &topics)?, names))
}

/// The bag's topics, types and message counts, for an error.
fn listing(seen: &BTreeMap<String, Seen>) -> String {
    if seen.is_empty() {
        return "no messages".into();
    }
    let topics: Vec<String> = (seen.iter())
        .map(|(name, s)| format!("`{name}` ({}, {} messages)", s.type_name, s.messages))
        .collect();
    format!("the topics {}", topics.join(", "))
}
