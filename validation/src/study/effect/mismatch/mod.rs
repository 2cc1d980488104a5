//! The model-mismatch effects: the scenario runs as written (the truth the estimators are
//! scored against is the simulated arm's), and what the estimators are told of the measured run
//! is changed. The table of what each tells is in [`super`].

pub(super) mod joint_offset_error;
pub(super) mod link_length_error;
