//! `cargo xtask excite` for the Franka Emika Panda of `models/panda.urdf` (the industrial study,
//! `studies/industrial.toml`): designs its excitation and validation trajectories (scenarios
//! `panda_excitation`, `panda_validation`).

use std::path::Path;

use sim::drive::{Control, Servo};
use sim::model::Chain;
use validation::excitation::{self, Criterion, FourierDesign};
use validation::regressor::BaseParameters;

use crate::excite_link2::inline;

/// The identification trajectory.
pub const EXCITATION: &str = "panda_excitation";
/// The validation trajectory (never used for identification).
pub const VALIDATION: &str = "panda_validation";

/// Coulomb friction levels of the Panda's joints (N·m): half the swing `φ₁` of the sigmoid
/// friction model Gaz et al. (2019) identified (their `get_FrictionTorque.m`), so that
/// `F_c tanh(q̇/ε)` has their high-speed levels; the smoothing `ε` is ours (below).
pub const COULOMB: [f64; 7] = [
    0.54615 / 2.0,
    0.87224 / 2.0,
    0.64068 / 2.0,
    1.2794 / 2.0,
    0.83904 / 2.0,
    0.30301 / 2.0,
    0.56489 / 2.0,
];

/// The trajectory family: 0.1 Hz fundamental, five harmonics, within 1.5 rad/s and 6 rad/s², and
/// ±(the narrowest half-range − 0.1 rad) about each joint's range centre (Franka's limits).
pub fn design(chain: &Chain) -> FourierDesign {
    let (centres, half) = excitation::centres(chain, 0.1);
    FourierDesign {
        base_frequency: 0.1,
        harmonics: 5,
        position_limit: half,
        velocity_limit: 1.5,
        acceleration_limit: 6.0,
        samples: 100,
        centres,
    }
}

/// Writes the two Panda scenarios: the D-optimal trajectory for identification (beside it the
/// condition-number design, whose numbers go into the file's header) and a random one for
/// validation.
pub fn excite(root: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let chain = sim::urdf::read(&root.join("models/panda.urdf"))?;
    let design = design(&chain);
    let base = BaseParameters::of_chain(&chain);
    let both = |p: &[sim::profile::Profile]| {
        (
            excitation::condition_number(&chain, &base, &design, p),
            excitation::log_det_information(&chain, &base, &design, p),
        )
    };
    let (d_optimal, _) = excitation::optimize(&chain, &design, Criterion::DOptimal, 2026, 40);
    let (conditioned, _) = excitation::optimize(&chain, &design, Criterion::Condition, 2026, 40);
    let random = excitation::random(&chain, &design, 7);
    let (cd, dd) = both(&d_optimal);
    let (cc, dc) = both(&conditioned);
    let (cr, dr) = both(&random);
    let header = format!(
        "# Designs over 100 instants of a period (base regressor W_b, {} base parameters):\n\
         #   D-optimal (this project's choice):  cond(W_b) = {cd:.1}, log det(W_bᵀW_b) = {dd:.1}\n\
         #   minimum condition number:           cond(W_b) = {cc:.1}, log det(W_bᵀW_b) = {dc:.1}\n\
         #   random (seed 7, the validation run): cond(W_b) = {cr:.1}, log det(W_bᵀW_b) = {dr:.1}\n",
        base.len()
    );
    for (name, profiles, what, seed) in [
        (
            EXCITATION,
            &d_optimal,
            "maximizes the D-optimality log det(W_bᵀW_b)",
            31,
        ),
        (
            VALIDATION,
            &random,
            "is random (seed 7), for validation only",
            32,
        ),
    ] {
        let mut text = format!(
            "# Written by `cargo xtask excite`: do not edit by hand.\n\
             # The Franka Emika Panda (models/panda.urdf: Gaz et al. 2019's identified inertial\n\
             # parameters) on a periodic finite-Fourier-series trajectory (Swevers et al. 1997) whose\n\
             # coefficient set {what}.\n{header}\
             # Each joint moves within ±{half:.3} rad of its range centre, |q̇| ≤ 1.5 rad/s, |q̈| ≤ 6 rad/s².\n\
             # Computed-torque servos (ω = 50 rad/s, critically damped) track it (closed loop); joint friction F_c tanh(q̇/ε) with Gaz et\n\
             # al.'s Coulomb levels (half their sigmoid's swing) and ε = 0.01 rad/s (theirs is a sigmoid\n\
             # of width 0.1-0.4 rad/s with no viscous term; a sharp sign is what IDIM's Coulomb column\n\
             # describes). Torque-sensing joints: gain 1, so the current column is the joint torque.\n\
             # Sensors at BIRDy's noise levels: σ_q = 1e-4 ° on the encoders, σ_τ = 0.05 N·m.\n\
             # Four periods of 10 s: the first is dropped as transient.\n\
             name = \"{name}\"\n\
             description = \"Identification of the Franka Emika Panda: Fourier trajectory, computed torque, Coulomb friction\"\n\
             model = \"../models/panda.urdf\"\nseed = {seed}\n\n\
             [time]\nend = 40.0\n\
             # Integrator step: Rapier integrates the servo dynamics at first order; the recorded\n\
             # columns are exact at the recorded state whatever the step.\n\
             step = 5e-4\nsample_period = 0.01\n\n",
            half = design.position_limit,
        );
        for (k, p) in profiles.iter().enumerate() {
            let servo = Servo {
                reference: p.clone(),
                control: Control::ComputedTorque {
                    kp: 2500.0,
                    kd: 100.0,
                },
            };
            let friction = sim::friction::Friction::CoulombViscous {
                coulomb: COULOMB[k],
                viscous: 0.0,
                smoothing: 0.01,
            };
            text += &format!(
                "[[joint]]\nid = {}\nservo = {{ reference = {}, control = {} }}\ngain = 1.0\nfriction = {}\n\n",
                k + 1,
                inline(&servo.reference)?,
                inline(&servo.control)?,
                inline(&friction)?,
            );
        }
        text += "# Sensors: BIRDy's levels (σ_q ≈ 1e-4 °, σ_τ = 0.05 N·m).\n\
                 [[noise]]\ncolumn = \"q\"\nmodel = [{ type = \"gaussian\", sigma = 1.7453292519943296e-6 }]\n\n\
                 [[noise]]\ncolumn = \"i\"\nmodel = [{ type = \"gaussian\", sigma = 0.05 }]\n";
        let path = root.join(format!("scenarios/{name}.toml"));
        sim::scenario::Scenario::from_toml_in(
            &text,
            &path.display().to_string(),
            &root.join("scenarios"),
        )?;
        std::fs::write(&path, text)?;
        println!("wrote {}", path.display());
    }
    print!("{header}");
    Ok(())
}
