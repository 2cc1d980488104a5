//! Column and file names of the dataset contract.

/// File with one row per (sample, body).
pub const BODIES_FILE: &str = "bodies.parquet";
/// File with one row per (sample, joint).
pub const JOINTS_FILE: &str = "joints.parquet";
/// File with one row per body: the ground truth.
pub const TRUTH_FILE: &str = "truth.parquet";
/// Run metadata.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The four files of a run directory, in the order they are written (manifest last; the
/// checksum list [`super::checksum::CHECKSUMS_FILE`] covers them and is written after).
pub const RUN_FILES: [&str; 4] = [BODIES_FILE, JOINTS_FILE, TRUTH_FILE, MANIFEST_FILE];

/// The commanded position of `joints.parquet` (rad or m; NaN where no position is commanded):
/// written where some joint is a servo (a simulated run) or the log has commands (a recorded
/// run).
pub const Q_CMD: &str = "q_cmd";

/// The f64 columns of `bodies.parquet`, in order (after `run_id, sample, t, body`).
pub(crate) const BODY_F64: [&str; 37] = [
    "pos_x",
    "pos_y",
    "pos_z",
    "quat_w",
    "quat_x",
    "quat_y",
    "quat_z",
    "euler_a",
    "euler_b",
    "euler_g",
    "euler_a_d",
    "euler_b_d",
    "euler_g_d",
    "euler_a_dd",
    "euler_b_dd",
    "euler_g_dd",
    "vel_x",
    "vel_y",
    "vel_z",
    "acc_x",
    "acc_y",
    "acc_z",
    "omega_1",
    "omega_2",
    "omega_3",
    "omega_dot_1",
    "omega_dot_2",
    "omega_dot_3",
    "f_x",
    "f_y",
    "f_z",
    "n_x",
    "n_y",
    "n_z",
    "o_x",
    "o_y",
    "o_z",
];
