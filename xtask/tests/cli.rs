//! The `xtask` command line, run as a user runs it (`cargo xtask …`).

use std::process::Command;

/// Bad noise levels and learning rates of `nim-motion-study` are refused, naming the flag,
/// before anything runs or is written.
#[test]
fn bad_noise_levels_and_learning_rates_are_refused_before_anything_runs() {
    let out = std::env::temp_dir().join(format!("xtask-motion-{}", std::process::id()));
    for (args, flag) in [
        (vec!["--ft-noise", "1e-2,1e-2"], "--ft-noise"),
        (vec!["--ft-noise=-1e-3"], "--ft-noise"),
        (vec!["--ft-noise", "NaN"], "--ft-noise"),
        (vec!["--learning-rate", "0"], "--learning-rate"),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .arg("nim-motion-study")
            .arg("--out")
            .arg(&out)
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?}: a bad study ran");
        let said = format!("error: {flag}: expected");
        assert!(stderr.contains(&said), "{args:?}: {stderr}");
    }
    assert!(!out.exists(), "nothing may be written for a refused study");
}
