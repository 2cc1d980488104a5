//! Names of the temporary files and directories that writers rename into place, and the removal
//! of those a killed writer left behind.
//!
//! A temporary is named `<prefix><host>-<pid>`: a writer killed mid-way (`SIGKILL`, power loss)
//! leaves it, never a half-written output, and the next writer into the same place removes the
//! temporaries of processes of this host that no longer run. Temporaries of other hosts (shards
//! of one population on a shared file system) and of live processes are left alone.

use std::path::Path;

/// This host's name (`/proc/sys/kernel/hostname`, else `$HOSTNAME`, else `host`), with
/// characters other than ASCII alphanumerics, `.` and `_` replaced by `_`.
pub fn host() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(read_host)
}

fn read_host() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "host".into());
    name.trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The name of this process's temporary with `prefix`.
pub fn name(prefix: &str) -> String {
    format!("{prefix}{}-{}", host(), std::process::id())
}

/// Whether process `pid` of this host has ended. Where processes cannot be looked up (no
/// `/proc`), every process counts as running.
fn ended(pid: u32) -> bool {
    let proc = Path::new("/proc");
    proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

/// Removes the entries of `dir` named `<prefix><this host>-<pid>` whose process has ended;
/// best effort (an entry another process removes first is fine).
pub(crate) fn remove_stale(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mine = format!("{prefix}{}-", host());
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&mine))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && ended(pid) {
            let path = entry.path();
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}
