//! Studies: estimators run over experiments and noise levels, with their statistics. Reports
//! render study results; they compute nothing themselves.

pub mod estimate;
pub mod stats;
