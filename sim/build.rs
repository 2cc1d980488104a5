//! Records the versions of the engine and format crates (from the workspace's Cargo.lock) so
//! that every manifest names them.

fn main() {
    let lock =
        std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    for (krate, var) in [
        ("rapier3d-f64", "SIM_RAPIER_VERSION"),
        ("parquet", "SIM_PARQUET_VERSION"),
        ("arrow-array", "SIM_ARROW_VERSION"),
        ("nalgebra", "SIM_NALGEBRA_VERSION"),
    ] {
        let needle = format!("name = \"{krate}\"\nversion = \"");
        let version = text
            .find(&needle)
            .and_then(|i| text[i + needle.len()..].split('"').next())
            .unwrap_or("unknown");
        println!("cargo:rustc-env={var}={version}");
    }
}
