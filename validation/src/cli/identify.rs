//! `identify`: a log to a model in one command ([`crate::study::identify`]), its report
//! rendered, and a one-screen summary printed.

use std::path::Path;

use crate::report::html::{identify_page, servo_identify_page};
use crate::study::identify::{self, Found, Identification, Options, REPORT};

/// Runs `identify` and prints its summary.
pub(super) fn run(o: &Options) -> crate::Result<()> {
    let t0 = std::time::Instant::now();
    let render = |found: &Found, dir: &Path| {
        let path = dir.join(REPORT);
        let page = match found {
            Found::Torque(f) => identify_page(f),
            Found::Servo(f) => servo_identify_page(f),
        };
        crate::report::write_atomic(&path, &page).map_err(crate::Error::io(&path))
    };
    match identify::identify(o, &render)? {
        Found::Torque(f) => print!("{}", summary(&f, &o.out)),
        Found::Servo(f) => print!("{}", super::identify_servo::summary(&f, &o.out)),
    }
    println!("in {:.1} s", t0.elapsed().as_secs_f64());
    Ok(())
}

/// A candidate's rollout drift, in a few words.
fn drift(d: Option<&crate::estimate::drift::Drift>) -> String {
    let Some(d) = d else {
        return "no rollouts".into();
    };
    match d.mean_horizon {
        None => format!("{} s rollouts: all {} blew up", d.horizon, d.windows),
        Some(m) if d.blown_up > 0 => format!(
            "drift at {} s {m:.3e} rad, {} of {} rollouts blew up",
            d.horizon, d.blown_up, d.windows
        ),
        Some(m) => format!("drift at {} s {m:.3e} rad", d.horizon),
    }
}

/// What a person reads on the terminal: what was chosen and why, how well it fits per joint,
/// and where the files are.
fn summary(f: &Identification, out: &Path) -> String {
    let pct = |x: Option<f64>| x.map_or("–".into(), |v| format!("{:.1} %", 100.0 * v));
    let mut s = format!(
        "{}: {} samples at {:.0} Hz, low-pass {}; identified on the first {:.0} %, validated on \
         the last {:.0} % (from t = {:.3} s)\n",
        f.run_id,
        f.samples,
        1.0 / f.signal.period,
        f.signal
            .filter
            .map_or("none".into(), |(o, c)| format!("order {o} at {c:.1} Hz")),
        100.0 * (1.0 - f.holdout),
        100.0 * f.holdout,
        f.split_at
    );
    s += "\nholdout torque NRMS (pooled) and rollout drift by estimator:\n";
    for c in &f.choice.candidates {
        let mark = if c.method == f.choice.method {
            "  ← chosen"
        } else if !c.consistent_model {
            "  (no consistent whole model)"
        } else {
            ""
        };
        s += &format!(
            "  {:<18} {:>8}  {:>3} parameters  {}{mark}\n",
            c.method,
            pct(c.holdout_nrms),
            c.parameters,
            drift(c.drift.as_ref())
        );
    }
    s += &format!("rule: {}\n", f.rule);
    s += &format!(
        "\n{:<12} {:>10} {:>9} {:>14} {:>8} {:>8}\n",
        "joint", "torque RMS", "NRMS", "above low-pass", "at rest", "replay"
    );
    for j in &f.joints {
        s += &format!(
            "{:<12} {:>10.3} {:>9} {:>14} {:>7.0} % {:>8}\n",
            j.name,
            j.rms,
            pct(j.nrms),
            pct(j.above_bandwidth),
            100.0 * j.at_rest,
            pct(j.replay_nrms)
        );
    }
    for r in &f.replays {
        s += &format!(
            "replayed in Rapier on {}: {} (moving joints {})\n",
            r.method,
            pct(Some(r.residual.torque_nrms)),
            pct(Some(r.residual.torque_nrms_moving))
        );
    }
    for l in f.links.iter().filter(|l| !l.moved_far.is_empty()) {
        s += &format!(
            "moved far from the file's: {}: {}\n",
            l.name,
            l.moved_far.join(", ")
        );
    }
    s += &format!("\nwrote {}: {}\n", out.display(), f.files.join(", "));
    s
}
