//! The sensor chain's laws in a run (`[[noise]]` `anti_aliasing`, `delay`, `saturate`, and an F/T
//! sensor's `chain` in its own frame): a joint column filtered then delayed, a body group clipped
//! to its converter's range, an F/T sensor's six channels filtered and delayed in the sensor's
//! frame, and the errors that name the field. (The filter against its analog prototype: `sim::noise`'s tests.)

use nalgebra::Vector3;
use sim::butterworth::Butterworth;
use sim::recording::JointColumn;
use sim::scenario::Scenario;

fn link2(noise: &str) -> String {
    format!(
        r#"name = "chain"
model = "link2"
[time]
end = 2.0
step = 5e-4
sample_period = 0.01
[[joint]]
id = 1
torque = {{ type = "multisine", base_frequency = 1.0, harmonics = [1, 3], amplitudes = [20.0, 5.0] }}
[[joint]]
id = 2
free = true
{noise}"#
    )
}

#[test]
fn a_filtered_delayed_and_clipped_chain_reads_what_its_laws_say() {
    let text = link2(
        r#"[[noise]]
column = "q"
model = [{ type = "anti_aliasing", order = 2, cutoff = 10.0 }, { type = "delay", samples = 3 }]
[[noise]]
column = "f"
model = [{ type = "saturate", min = -5.0, max = 5.0 }]
"#,
    );
    let run = sim::simulate(&Scenario::from_toml(&text, "chain").unwrap(), None);
    let rec = &run.recording;
    let column = |name: &str| &rec.measured.iter().find(|(n, _)| n == name).expect(name).1;
    let q_meas = column("q_meas");
    let filter = Butterworth::new(2, 10.0, 100.0).unwrap();
    let nj = rec.joint_ids.len();
    for k in 0..nj {
        let q = rec.joint_series(JointColumn::Q, k);
        let filtered = filter.filter(&q);
        for s in 0..rec.samples() {
            let expected = filtered[s.saturating_sub(3)];
            assert_eq!(q_meas[s * nj + k], expected, "joint {k}, sample {s}");
        }
    }
    let f_meas = &rec
        .measured_bodies
        .iter()
        .find(|(n, _)| n == "f_z_meas")
        .expect("f_z")
        .1;
    let clipped = f_meas.iter().filter(|v| v.abs() == 5.0).count();
    assert!(
        f_meas.iter().all(|v| v.abs() <= 5.0) && clipped > 0,
        "{clipped}"
    );
}

#[test]
fn a_bad_chain_is_refused_naming_the_field() {
    for (law, field) in [
        (
            r#"{ type = "anti_aliasing", order = 2, cutoff = 80.0 }"#,
            "noise[0].model[0].cutoff",
        ),
        (
            r#"{ type = "anti_aliasing", order = 0, cutoff = 10.0 }"#,
            "noise[0].model[0].order",
        ),
        (
            r#"{ type = "saturate", min = 1.0, max = -1.0 }"#,
            "noise[0].model[0].max",
        ),
    ] {
        let text = link2(&format!("[[noise]]\ncolumn = \"q\"\nmodel = [{law}]\n"));
        let e = Scenario::from_toml(&text, "bad").unwrap_err().to_string();
        assert!(e.contains(field), "{field}: {e}");
    }
}

/// An F/T sensor's cross-talk (`cross_talk`, a 6×6 calibration error `C` in the sensor frame):
/// with no other error, its readings are `(I + C)` times the body-frame wrench, written here
/// apart from the simulator from the clean columns and the body's orientation.
#[test]
fn force_torque_cross_talk_mixes_the_wrench_in_the_sensor_frame() {
    let c = [
        [0.01, 0.02, 0.0, 0.0, 0.5, 0.0],
        [0.0, -0.01, 0.0, 0.0, 0.0, 0.3],
        [0.03, 0.0, 0.02, 0.1, 0.0, 0.0],
        [0.0, 0.0, 0.004, 0.01, 0.0, 0.0],
        [0.002, 0.0, 0.0, 0.0, -0.02, 0.05],
        [0.0, 0.001, 0.0, 0.0, 0.0, 0.03],
    ];
    let rows: Vec<String> = c.iter().map(|r| format!("{r:?}")).collect();
    let text = link2(&format!(
        "[[sensor]]\ntype = \"force_torque\"\nbodies = [2]\ncross_talk = [{}]\n",
        rows.join(", ")
    ));
    let run = sim::simulate(&Scenario::from_toml(&text, "cross talk").unwrap(), None);
    let rec = &run.recording;
    let worst = worst_body2_reading(rec, |s| {
        let body = rec.body(s, 2);
        let local = body.quat.inverse();
        let w: Vec<f64> = (local * body.force)
            .iter()
            .chain((local * body.moment).iter())
            .copied()
            .collect();
        let mixed: Vec<f64> = (0..6)
            .map(|i| w[i] + (0..6).map(|j| c[i][j] * w[j]).sum::<f64>())
            .collect();
        let f = body.quat * Vector3::new(mixed[0], mixed[1], mixed[2]);
        let n = body.quat * Vector3::new(mixed[3], mixed[4], mixed[5]);
        (f, n)
    });
    assert!(worst < 1e-12, "{worst:e}");
}

/// The largest difference, relative to `1 + |expected|`, between body 2's measured F/T columns
/// and `expected(sample)`'s world-frame `(f, n)`.
fn worst_body2_reading(
    rec: &sim::recording::Recording,
    expected: impl Fn(usize) -> (Vector3<f64>, Vector3<f64>),
) -> f64 {
    let meas = |name: &str| {
        &rec.measured_bodies
            .iter()
            .find(|(n, _)| n == name)
            .expect(name)
            .1
    };
    let columns = [
        "f_x_meas", "f_y_meas", "f_z_meas", "n_x_meas", "n_y_meas", "n_z_meas",
    ]
    .map(meas);
    let mut worst = 0.0f64;
    for s in 0..rec.samples() {
        let (f, n) = expected(s);
        let row = s * rec.n_bodies + 1;
        for (got, want) in columns.iter().zip(f.iter().chain(n.iter())) {
            worst = worst.max((got[row] - want).abs() / (1.0 + want.abs()));
        }
    }
    worst
}

/// An F/T sensor's analog chain (`chain`): each of its six channels filtered then delayed in
/// the sensor's frame, so that a reading at sample `k` is the body-frame wrench's filtered
/// series at `k − n` rotated by the body's orientation at `k` (written here apart from the
/// simulator, from the clean columns and the recorded orientations).
#[test]
fn force_torque_chain_filters_and_delays_in_the_sensor_frame() {
    let delay = 2;
    let text = link2(&format!(
        "[[sensor]]\ntype = \"force_torque\"\nbodies = [2]\n\
         chain = [{{ type = \"anti_aliasing\", order = 2, cutoff = 10.0 }}, {{ type = \"delay\", samples = {delay} }}]\n"
    ));
    let run = sim::simulate(&Scenario::from_toml(&text, "ft chain").unwrap(), None);
    let rec = &run.recording;
    let filter = Butterworth::new(2, 10.0, 100.0).unwrap();
    let local: Vec<Vec<f64>> = (0..6)
        .map(|i| {
            let series: Vec<f64> = (0..rec.samples())
                .map(|s| {
                    let body = rec.body(s, 2);
                    let v = if i < 3 { body.force } else { body.moment };
                    (body.quat.inverse() * v)[i % 3]
                })
                .collect();
            filter.filter(&series)
        })
        .collect();
    let expected = |s: usize| {
        let at = s.saturating_sub(delay);
        let r = rec.body(s, 2).quat;
        let f = r * Vector3::new(local[0][at], local[1][at], local[2][at]);
        let n = r * Vector3::new(local[3][at], local[4][at], local[5][at]);
        (f, n)
    };
    let worst = worst_body2_reading(rec, expected);
    assert!(worst < 1e-12, "{worst:e}");
    // The chain does change the readings (else the check above would hold vacuously).
    let clean = |s: usize| (rec.body(s, 2).force, rec.body(s, 2).moment);
    let lag = worst_body2_reading(rec, clean);
    assert!(lag > 1e-3, "{lag:e}");
}

#[test]
fn a_bad_force_torque_chain_is_refused_naming_the_field() {
    for (law, field) in [
        (
            r#"{ type = "gaussian", sigma = 0.1 }"#,
            "sensor[0].chain[0]",
        ),
        (
            r#"{ type = "anti_aliasing", order = 2, cutoff = 80.0 }"#,
            "sensor[0].chain[0].cutoff",
        ),
    ] {
        let text = link2(&format!(
            "[[sensor]]\ntype = \"force_torque\"\nchain = [{law}]\n"
        ));
        let e = Scenario::from_toml(&text, "bad").unwrap_err().to_string();
        assert!(e.contains(field), "{field}: {e}");
    }
}
