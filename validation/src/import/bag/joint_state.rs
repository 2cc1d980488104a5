//! `sensor_msgs/msg/JointState`, decoded from CDR with `cdr-encoding`.

use byteorder::{BigEndian, LittleEndian};
use serde::Deserialize;

/// The ROS 2 type read.
pub const JOINT_STATE: &str = "sensor_msgs/msg/JointState";

/// `builtin_interfaces/msg/Time`.
#[derive(Deserialize)]
struct Time {
    sec: i32,
    nanosec: u32,
}

/// `std_msgs/msg/Header`.
#[derive(Deserialize)]
struct Header {
    stamp: Time,
    #[allow(dead_code)]
    frame_id: String,
}

/// `sensor_msgs/msg/JointState`, field for field in CDR order.
#[derive(Deserialize)]
pub struct JointState {
    header: Header,
    /// Joint names, in the driver's order.
    pub name: Vec<String>,
    /// Coordinates (rad or m), one per name, or empty.
    pub position: Vec<f64>,
    /// Rates (rad/s or m/s), one per name, or empty.
    pub velocity: Vec<f64>,
    /// Efforts (N·m or N), one per name, or empty.
    pub effort: Vec<f64>,
}

impl JointState {
    /// A message stamped `stamp_ns` with one value per name in each array.
    #[cfg(test)]
    pub fn at(stamp_ns: i64, name: &[&str], position: &[f64], effort: &[f64]) -> Self {
        let stamp = Time {
            sec: (stamp_ns / 1_000_000_000) as i32,
            nanosec: (stamp_ns % 1_000_000_000) as u32,
        };
        JointState {
            header: Header {
                stamp,
                frame_id: String::new(),
            },
            name: name.iter().map(|n| n.to_string()).collect(),
            position: position.to_vec(),
            velocity: Vec::new(),
            effort: effort.to_vec(),
        }
    }

    /// The header stamp (ns since the epoch, or since whatever clock the driver stamps with).
    pub fn stamp_ns(&self) -> i64 {
        i64::from(self.header.stamp.sec) * 1_000_000_000 + i64::from(self.header.stamp.nanosec)
    }
}

/// A CDR message: its 4-byte encapsulation header (`00 01` little-endian, `00 00` big-endian),
/// then the fields, aligned from the end of that header.
pub fn decode(data: &[u8]) -> Result<JointState, CdrError> {
    let (header, body) = data.split_at_checked(4).ok_or(CdrError::Short)?;
    let decoded = match header {
        [0, 1, ..] => cdr_encoding::from_bytes::<JointState, LittleEndian>(body),
        [0, 0, ..] => cdr_encoding::from_bytes::<JointState, BigEndian>(body),
        [0x28, 0xb5, 0x2f, 0xfd] => return Err(CdrError::Compressed),
        _ => return Err(CdrError::Encapsulation([header[0], header[1]])),
    };
    decoded
        .map(|(state, _)| state)
        .map_err(|e| CdrError::NotJointState(e.to_string()))
}

/// Why a message's bytes are not a CDR-encoded JointState.
#[derive(Debug, thiserror::Error)]
pub enum CdrError {
    /// Fewer than the 4 bytes of the encapsulation header.
    #[error("shorter than the CDR encapsulation header")]
    Short,
    /// A zstd frame: rosbag2's `message` compression mode.
    #[error(
        "zstd-compressed (rosbag2's `message` compression mode): decompress the bag first \
         (`ros2 bag decompress`)"
    )]
    Compressed,
    /// An encapsulation other than plain CDR (little- or big-endian).
    #[error("unknown CDR encapsulation {0:02x?}")]
    Encapsulation([u8; 2]),
    /// The fields do not decode as a JointState (the decoder's message).
    #[error("not a sensor_msgs/msg/JointState: {0}")]
    NotJointState(String),
}
