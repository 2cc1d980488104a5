//! URDF in and out: [`read`] / [`from_str`] turn a serial-chain URDF into the zero-configuration
//! description of [`crate::model`] ([`import`] states the rules), [`to_string`] writes any chain
//! back as URDF ([`export`]).

pub mod export;
pub mod format;
pub mod import;
pub mod lock;

pub use export::to_string;
pub use format::{UNBOUNDED, URDF_FRICTION_SMOOTHING, UrdfError};
pub use import::{from_str, from_str_locked, read, read_locked, read_named};
pub use lock::Locks;
