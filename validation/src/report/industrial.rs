//! `industrial.md`: the industrial-arm study
//! ([`crate::study::industrial`]) rendered; nothing is computed here.

use std::path::Path;

use crate::study::industrial::{IndustrialStudy, METHODS, MethodResult};

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn std(v: &[f64]) -> f64 {
    let m = mean(v);
    let n = v.len();
    if n < 2 {
        return 0.0;
    }
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NAN, f64::max)
}

/// One table row of a method.
fn row(r: &MethodResult, seeds: usize) -> String {
    let pct = |x: f64| format!("{:.3} %", 100.0 * x);
    let consistent =
        r.inconsistent_links
            .as_ref()
            .map_or("– (base parameters only)".into(), |k| {
                let ok = k.iter().filter(|&&n| n == 0).count();
                format!(
                    "{ok}/{} (most inconsistent links in a run: {})",
                    k.len(),
                    k.iter().max().unwrap_or(&0)
                )
            });
    format!(
        "| `{}` | {} ± {} (max {}) | {} | {} | {} |\n",
        r.method,
        pct(mean(&r.nrms)),
        pct(std(&r.nrms)),
        pct(max(&r.nrms)),
        pct(mean(&r.base_error)),
        consistent,
        if r.failures.is_empty() {
            format!("0/{seeds}")
        } else {
            format!("{}/{seeds}: {}", r.failures.len(), r.failures[0])
        },
    )
}

/// The Markdown text.
pub fn markdown(s: &IndustrialStudy) -> String {
    let mut md = format!(
        "# Identification of an industrial arm: the Franka Emika Panda\n\n\
         Written by `cargo xtask reproduce` (`--only industrial`) from the study in \
         `validation::study::industrial`; every number below is recomputed by that command.\n\n\
         **Arm**: `models/panda.urdf`, {} links, {} base parameters: Franka's kinematics and \
         limits with the physically feasible inertial parameters Gaz et al. (2019) identified on \
         a real Panda (sources in the file). **Runs**: `scenarios/panda_excitation.toml` \
         (identification) and `panda_validation.toml` (validation only), simulated once in \
         Rapier under computed-torque control with Coulomb joint friction; noise is re-drawn per \
         seed ({} seeds per case), never re-simulated.\n\n\
         ## Excitation design\n\n\
         | trajectory | cond(W_b) | log det(W_bᵀW_b) |\n|---|---|---|\n\
         | excitation (D-optimal) | {:.1} | {:.1} |\n| validation (random) | {:.1} | {:.1} |\n\n\
         The excitation maximizes D-optimality; `cargo xtask excite` prints the \
         minimum-condition-number design beside it (also in the scenario's header). The \
         condition number counts only the two extreme singular values; D-optimality weighs \
         every direction of the information matrix.\n\n",
        s.links,
        s.base_parameters,
        s.seeds,
        s.design[0].0,
        s.design[0].1,
        s.design[1].0,
        s.design[1].1,
    );
    for (c, case) in s.cases.iter().enumerate() {
        md += &format!(
            "## {}\n\n| method | validation torque NRMS (mean ± sd) | base-parameter error ‖β̂−β‖/‖β‖ \
             | runs with every link a real body | failed runs |\n|---|---|---|---|---|\n",
            case
        );
        for m in METHODS {
            if let Some(r) = s.result(c, m.name()) {
                md += &row(r, s.seeds);
            }
        }
        md += "\n";
    }
    md += "Methods: `idim_ols`, `idim_wls`, `idim_tls`: IDIM on the base parameters with Coulomb + \
           viscous friction columns (no friction sweeps); `idim_prior`: the ten standard \
           parameters of every link with a weak prior (the stated CAD model \
           `panda_prior.urdf`: masses ±20 %, centroids 10 % toward the joints, inertias +30 %), \
           unconstrained; `idim_consistent`: the same objective with every link constrained to a \
           real body (the convex problem solved to its optimum on the boundary of the consistent set by \
           ADMM). A link is a real body \
           when its pseudo-inertia matrix is positive semidefinite (Wensing et al. 2017): positive \
           mass and central moments obeying the triangle inequalities. Base-parameter OLS has no \
           standard parameters to check.\n\n";
    if let Some((path, reported, loaded)) = &s.exported {
        md += &format!(
            "## The identified model as URDF\n\n`idim_consistent`'s model of the first seed \
             (first case) is written as `{}`. Read back and given the identified friction, it \
             predicts the validation torques with NRMS {:.4} %; the estimator reported {:.4} %.\n\n",
            path.file_name()
                .map_or(String::new(), |f| f.to_string_lossy().into_owned()),
            100.0 * loaded,
            100.0 * reported
        );
    }
    md += "Friction: Gaz et al.'s model is a sigmoid per joint of width 0.1–0.4 rad/s without a \
           viscous term; the scenarios keep their Coulomb levels (half the sigmoid's swing) with a \
           0.01 rad/s smoothing, which IDIM's Coulomb column describes at the speeds it keeps \
           (|q̇| ≥ 0.05 rad/s). Their sigmoid's offset (an asymmetry of a few hundredths of N·m) \
           is left out.\n";
    md
}

/// Writes `dir/industrial.md` atomically (the serialized study it is rendered from is the study
/// engine's, `crate::kind`).
pub fn write(study: &IndustrialStudy, dir: &Path) -> crate::Result<()> {
    let path = dir.join("industrial.md");
    super::write_atomic(&path, &markdown(study)).map_err(crate::Error::io(&path))
}
