//! What a storage file hands its reader: each message with its topic.

use super::super::super::ImportError;

/// A topic as its storage file states it.
#[derive(Clone, Copy, Debug)]
pub struct Topic<'a> {
    /// Its name (`/joint_states`).
    pub name: &'a str,
    /// Its message type (`sensor_msgs/msg/JointState`).
    pub type_name: &'a str,
    /// How its messages are serialized (`cdr` for ROS 2).
    pub encoding: &'a str,
}

/// What a storage file's messages are handed to, in the file's order: the message's topic, log
/// time (ns since the epoch, when the recorder received it) and serialized bytes.
pub type Visitor<'v> = dyn FnMut(Topic<'_>, u64, &[u8]) -> Result<(), ImportError> + 'v;
