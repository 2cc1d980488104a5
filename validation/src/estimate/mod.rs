//! The estimation API: one trait for every estimator of the project, over an [`Experiment`],
//! returning estimates keyed by typed parameter identifiers ([`ParamId`]).
//!
//! Every estimator sees only what the sensors gave ([`sim::reading::Run::measurements`]) and
//! the experiment's design (drive references, torque signals, the stated sensor models: a
//! datasheet, not the noise drawn). The truth is read only by the scorer
//! ([`crate::param::truth_table`]).
//!
//! One folder per estimator family holds its algorithms and their bindings to this API: [`mim`] (the MIM paper's method, per body, whole-arm, GLS, standard
//! parameters, encoder-only), [`frequency`] and [`time_domain`] (the multisine paper's
//! estimators on a known geometry), [`idim`] (whole-arm identification from joint torques: the
//! teaching paper's pipeline, IDIM-OLS/WLS/TLS, with a prior, physically consistent) and [`nim`]
//! (the MIM paper's neural identifier); in [`idim`] each registry name is one type in its own
//! file. Adding an estimator is one new file in its family and one line in [`registry`].
//! [`engine`] runs them ([`engine::run`]: the one place an estimator is applied) and
//! [`score`] scores what they give. [`simulation_fit`] fits a model's drive terms (a servo's
//! stiffness, damping and delay; joint damping, friction, armature) by simulating its rollouts: the
//! building block of the estimator a servo arm's log needs (not yet in the registry).
pub mod choice;
pub mod discretization;
pub mod drift;
pub mod engine;
pub mod estimator;
pub mod experiment;
pub mod external;
pub mod frequency;
pub mod id;
pub mod idim;
pub mod known_geometry;
pub mod mim;
pub mod nim;
pub mod registry;
pub mod score;
pub mod simulation_fit;
pub mod time_domain;

pub use crate::param::{Estimate, ParamId, Values};
pub use estimator::{EstimateError, Estimates, Estimator, Family, NotApplicable, TorqueModel};
pub(crate) use estimator::{enough_samples, from_values, single, standard_values};
pub use experiment::{Experiment, Role};
pub use id::EstimatorId;
pub use registry::{Options, by_id, by_name, chosen, registry, registry_names};
