//! The `xtask` command line, run as a user runs it (`cargo xtask …`).

use std::process::Command;

/// A study `reproduce` does not list is refused, naming the list's studies, before anything
/// runs or is written.
#[test]
fn an_unknown_study_is_refused_before_anything_runs() {
    let out = std::env::temp_dir().join(format!("xtask-reproduce-{}", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["reproduce", "--only", "nope", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "an unknown study ran");
    assert!(
        stderr.contains("--only nope") && stderr.contains("mim, ") && stderr.contains("real_tx40"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing may be written for a refused study");
}
