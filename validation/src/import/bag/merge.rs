//! The rows of one JointState topic, or of several merged by joint name.
//!
//! Each topic gives per joint `q_<name>`, `qd_<name>` and `tau_<name>` from the arrays its first
//! message fills, its joints matched by name in every message (drivers list them in their own
//! order). Several topics (an arm and its gripper, each with its driver) merge onto the stamps
//! of the topic with the most messages (the fastest; the first by name on a tie): the rows are
//! those within every other topic's first and last stamps, and the other topics' values are
//! interpolated linearly in time at them. A joint on two topics is refused, naming both.

use std::path::Path;

use super::super::ImportError;
use super::super::table::Table;
use super::joint_state::JointState;

/// One decoded message: its header stamp and log time, and its joint state.
pub struct Sample {
    /// Header stamp (ns).
    pub stamp_ns: i64,
    /// Log time (ns since the epoch, when the recorder received it).
    pub log_ns: u64,
    /// The message.
    pub state: JointState,
}

/// The messages of one topic, in the bag's order.
pub struct TopicSamples {
    /// The topic.
    pub name: String,
    /// Its messages.
    pub samples: Vec<Sample>,
}

/// One topic's columns at its own times.
struct Series<'a> {
    topic: &'a str,
    ns: Vec<i64>,
    names: Vec<String>,
    columns: Vec<Vec<f64>>,
}

/// A column prefix and the message array it is read from.
type Array = (&'static str, fn(&JointState) -> &Vec<f64>);

/// The table of `topics` (each with at least one message) read from the bag `path`. Times are
/// header stamps, or log times for every topic where one topic's stamps are all zero (as some
/// drivers leave them); `t` counts from the first row, in integer nanoseconds before the
/// conversion to seconds, so that epoch stamps keep their resolution.
pub fn table(path: &Path, topics: &[TopicSamples]) -> Result<Table, ImportError> {
    let log_time = (topics.iter()).any(|t| t.samples.iter().all(|s| s.stamp_ns == 0));
    let series = (topics.iter())
        .map(|t| series(path, t, log_time))
        .collect::<Result<Vec<_>, _>>()?;
    distinct(path, &series)?;
    let fastest = (0..series.len())
        .rev()
        .max_by_key(|&k| series[k].ns.len())
        .expect("a topic");
    let base = &series[fastest];
    for (k, s) in series.iter().enumerate() {
        if k != fastest {
            increasing(path, s)?;
        }
    }
    let spans = |x: i64| (series.iter()).all(|s| s.ns[0] <= x && x <= *s.ns.last().expect("a row"));
    let kept: Vec<bool> = base.ns.iter().map(|&x| spans(x)).collect();
    let keep = |c: &[f64]| -> Vec<f64> {
        (kept.iter().zip(c))
            .filter(|(k, _)| **k)
            .map(|(_, v)| *v)
            .collect()
    };
    let rows: Vec<i64> = (kept.iter().zip(&base.ns))
        .filter(|(k, _)| **k)
        .map(|(_, x)| *x)
        .collect();
    let Some(&t0) = rows.first() else {
        let names: Vec<&str> = series.iter().map(|s| s.topic).collect();
        return Err(ImportError::Format {
            file: path.to_owned(),
            message: format!("the JointState topics {names:?} do not overlap in time"),
        });
    };
    let mut names = vec!["t".to_string()];
    let mut columns = vec![rows.iter().map(|&x| (x - t0) as f64 * 1e-9).collect()];
    for (k, s) in series.iter().enumerate() {
        names.extend(s.names.iter().cloned());
        if k == fastest {
            columns.extend(s.columns.iter().map(|c| keep(c)));
        } else {
            columns.extend(s.columns.iter().map(|c| interpolate(&s.ns, c, &rows)));
        }
    }
    Table::checked(path, names, columns)
}

/// The columns of one topic, its joints by its first message's names.
fn series<'a>(
    path: &Path,
    topic: &'a TopicSamples,
    log_time: bool,
) -> Result<Series<'a>, ImportError> {
    let samples = &topic.samples;
    let first = &samples[0].state;
    let arrays: [Array; 3] = [
        ("q", |s| &s.position),
        ("qd", |s| &s.velocity),
        ("tau", |s| &s.effort),
    ];
    let mut names = Vec::new();
    let mut columns = Vec::new();
    for (prefix, field) in arrays
        .iter()
        .filter(|(_, f)| f(first).len() == first.name.len())
    {
        for (j, joint) in first.name.iter().enumerate() {
            let wrong = |row: usize, problem: String| ImportError::Row {
                file: path.to_owned(),
                column: format!("{}: {prefix}_{joint}", topic.name),
                row: row + 1,
                problem,
            };
            let mut column = Vec::with_capacity(samples.len());
            for (row, s) in samples.iter().enumerate() {
                let names = &s.state.name;
                let values = field(&s.state);
                let k = if names.get(j) == Some(joint) {
                    Some(j)
                } else {
                    names.iter().position(|m| m == joint)
                };
                match k {
                    Some(k) if values.len() == names.len() => column.push(values[k]),
                    Some(_) => {
                        let problem = format!(
                            "expected as many values as names ({}), got {}",
                            names.len(),
                            values.len()
                        );
                        return Err(wrong(row, problem));
                    }
                    None => {
                        let problem = format!(
                            "expected joint `{joint}` in the message, as in the first (it has \
                             {names:?})"
                        );
                        return Err(wrong(row, problem));
                    }
                }
            }
            names.push(format!("{prefix}_{joint}"));
            columns.push(column);
        }
    }
    let ns = (samples.iter())
        .map(|s| {
            if log_time {
                s.log_ns as i64
            } else {
                s.stamp_ns
            }
        })
        .collect();
    Ok(Series {
        topic: &topic.name,
        ns,
        names,
        columns,
    })
}

/// Refuses a joint on two topics.
fn distinct(path: &Path, series: &[Series<'_>]) -> Result<(), ImportError> {
    for (k, a) in series.iter().enumerate() {
        for b in &series[k + 1..] {
            if let Some(column) = a.names.iter().find(|n| b.names.contains(n)) {
                return Err(ImportError::Column {
                    file: path.to_owned(),
                    column: column.clone(),
                    problem: format!(
                        "on topics `{}` and `{}`: choose the topics to merge with --topic",
                        a.topic, b.topic
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Refuses stamps that do not increase on a topic interpolated at another's.
fn increasing(path: &Path, s: &Series<'_>) -> Result<(), ImportError> {
    match s.ns.windows(2).position(|w| w[1] <= w[0]) {
        None => Ok(()),
        Some(k) => Err(ImportError::Row {
            file: path.to_owned(),
            column: format!("{}: t", s.topic),
            row: k + 2,
            problem: format!(
                "the stamp {} ns does not follow {} ns: a topic merged onto another's stamps \
                 needs increasing ones",
                s.ns[k + 1],
                s.ns[k]
            ),
        }),
    }
}

/// `values` (at the increasing times `ns`) linearly interpolated at `at`, each within
/// `ns[0]..=ns[last]`.
fn interpolate(ns: &[i64], values: &[f64], at: &[i64]) -> Vec<f64> {
    at.iter()
        .map(|&x| {
            let i = ns.partition_point(|&n| n < x);
            if ns[i] == x {
                return values[i];
            }
            let w = (x - ns[i - 1]) as f64 / (ns[i] - ns[i - 1]) as f64;
            values[i - 1] + w * (values[i] - values[i - 1])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A topic `name` of the joints `joints`, a message at each of `stamps` (ms) whose values are
    /// the stamp in seconds.
    fn topic(name: &str, joints: &[&str], stamps: &[i64]) -> TopicSamples {
        let samples = (stamps.iter())
            .map(|&ms| {
                let v = vec![ms as f64 * 1e-3; joints.len()];
                Sample {
                    stamp_ns: ms * 1_000_000,
                    log_ns: 0,
                    state: JointState::at(ms * 1_000_000, joints, &v, &v),
                }
            })
            .collect();
        TopicSamples {
            name: name.into(),
            samples,
        }
    }

    #[test]
    fn a_slower_topic_is_interpolated_onto_the_fastest_within_its_span() {
        let arm = topic("/arm", &["a"], &[0, 10, 20, 30, 40]);
        let gripper = topic("/gripper", &["g"], &[5, 35]);
        let table = table(Path::new("bag"), &[gripper, arm]).unwrap();
        assert_eq!(table.names, ["t", "q_g", "tau_g", "q_a", "tau_a"]);
        assert_eq!(table.column("t").unwrap(), [0.0, 0.01, 0.02]);
        assert_eq!(table.column("q_a").unwrap(), [0.01, 0.02, 0.03]);
        let g = table.column("q_g").unwrap();
        assert!(
            g.iter()
                .zip([0.01, 0.02, 0.03])
                .all(|(a, b)| (a - b).abs() < 1e-15)
        );
    }

    #[test]
    fn a_joint_on_two_topics_and_topics_apart_in_time_are_refused() {
        let a = topic("/a", &["x", "y"], &[0, 10]);
        let b = topic("/b", &["y"], &[0, 10]);
        let e = table(Path::new("bag"), &[a, b]).unwrap_err().to_string();
        assert!(
            e.contains("q_y") && e.contains("`/a` and `/b`") && e.contains("--topic"),
            "{e}"
        );
        let a = topic("/a", &["x"], &[0, 10]);
        let b = topic("/b", &["y"], &[20, 30, 40]);
        let e = table(Path::new("bag"), &[a, b]).unwrap_err().to_string();
        assert!(e.contains("do not overlap in time"), "{e}");
        let a = topic("/a", &["x"], &[0, 10, 20]);
        let b = topic("/b", &["y"], &[0, 10, 10]);
        let e = table(Path::new("bag"), &[a, b]).unwrap_err().to_string();
        assert!(e.contains("/b: t") && e.contains("row 3"), "{e}");
    }
}
