//! The on-disk primitives every run directory is made of: Parquet tables written (`table`) and read ([`reader`]), the
//! column names the readers share ([`columns`]), SHA-256 lists ([`checksum`]), directories
//! written whole or not at all ([`atomic`], [`temporary`]) and their error. A leaf below the
//! simulation: the run and population writers ([`crate::dataset`]) and the recorded-run format
//! ([`crate::dataset::recorded`]) build on it.

pub mod atomic;
pub mod checksum;
pub mod columns;
mod error;
pub mod reader;
pub(crate) mod table;
pub mod temporary;

pub use error::{DatasetError, io};
