//! Plots and snapshots: every run writes them (unless `plots: false`), Ising and vector spins
//! alike; they are valid SVG and PNG, the plotted points are the summary's numbers (read from the
//! `<desc>` each SVG carries, with the drawn markers counted), the snapshots are the final
//! lattices, and `spinflip plot` redraws the same files from a run directory or overlays runs of
//! different L.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use spinflip::exact::kaufman;
use spinflip::io::output::{npy_f32_header, npy_i8_header};
use spinflip::io::run_dir::RunOptions;
use spinflip::plot::KEY_HEIGHT;
use spinflip::run::{RunOutcome, run};

fn spinflip(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spinflip"))
        .args(args)
        .output()
        .expect("spinflip runs")
}

/// `spinflip args`, which must succeed (its stderr otherwise).
fn spinflip_succeeds(args: &[&str]) -> Output {
    let output = spinflip(args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn run_into(dir: &Path, ron: &str) -> Value {
    common::completed(run(&common::config(ron), &RunOptions::new(dir)).unwrap());
    serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap()
}

/// A vector-spin run of `ron` into `dir`; its `summary.json`.
fn vector_run_into(dir: &Path, ron: &str) -> Value {
    match run(&common::config(ron), &RunOptions::new(dir)).unwrap() {
        RunOutcome::Vector(_) => {}
        other => panic!("not a completed vector run: {other:?}"),
    }
    serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap()
}

const FERROMAGNET: &str = r#"(
    model: Ising(dims: 2, size: 8, field: 0.0),
    temperatures: Betas([0.40, 0.44]),
    replicas: 2,
    engine: Simple,
    sweeps: (thermalize: 20, measure: 200, every: 2),
    seed: 7,
    backend: Cpu,
)"#;

fn spin_glass(size: u32) -> String {
    format!(
        r#"(
    model: EdwardsAnderson(dims: 3, size: {size}, field: 0.0),
    temperatures: Temperatures([1.0, 1.5]),
    replicas: 2,
    samples: 32,
    engine: Multispin(layout: Amsc(lanes: Samples), randoms: Exact),
    sweeps: (thermalize: 10, measure: 40, every: 2),
    seed: 3,
    backend: Cpu,
)"#
    )
}

/// The figure an SVG file describes, after checking that the file is well-formed XML with an
/// `<svg>` root and counting its drawn markers.
fn svg_figure(path: &Path) -> (Value, usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let document = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{}: not XML: {e}", path.display()));
    assert_eq!(document.root_element().tag_name().name(), "svg");
    let desc = document
        .descendants()
        .find(|n| n.has_tag_name("desc"))
        .and_then(|n| n.text())
        .unwrap_or_else(|| panic!("{}: no <desc>", path.display()));
    // plotters outlines each filled circle with an unfilled one.
    let markers = document
        .descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("fill") != Some("none"))
        .count();
    (serde_json::from_str(desc).unwrap(), markers)
}

/// Curve `c` of the figure's first panel.
fn curve(figure: &Value, c: usize) -> &Value {
    &figure["panels"][0]["curves"][c]
}

/// The pixels of a PNG, after checking that it decodes: `(width, height, palette index per
/// pixel)`.
fn png_pixels(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!(info.color_type, png::ColorType::Indexed);
    buffer.truncate(info.buffer_size());
    (info.width, info.height, buffer)
}

/// `final_state.npy` as its shape and values.
fn final_state(dir: &Path) -> (Vec<usize>, Vec<i8>) {
    let bytes = std::fs::read(dir.join("final_state.npy")).unwrap();
    let (shape, offset) = npy_i8_header(&bytes).unwrap();
    (shape, bytes[offset..].iter().map(|&b| b as i8).collect())
}

/// The snapshot of temperature `t` shows plane `z` of its first system, one `scale`-pixel block
/// per site, +1 as palette index 1.
fn assert_snapshot_shows(dir: &Path, file: &str, t: usize, z: usize) {
    let (shape, spins) = final_state(dir);
    let size = *shape.last().unwrap();
    let per_temperature: usize = shape[1..].iter().product();
    let plane = &spins[t * per_temperature + z * size * size..][..size * size];
    let (width, height, pixels) = png_pixels(&dir.join(file));
    assert_eq!(
        (width, height),
        (512, 512 + KEY_HEIGHT),
        "{file}: the lattice, then its key"
    );
    let scale = 512 / size;
    for y in 0..size {
        for x in 0..size {
            let pixel = pixels[(y * scale + scale / 2) * 512 + x * scale + scale / 2];
            assert_eq!(
                pixel,
                u8::from(plane[y * size + x] > 0),
                "{file} site {x}, {y}"
            );
        }
    }
}

/// The overlays `spinflip plot` draws of the runs in `dirs`, in a directory of their own.
fn overlays_of(dirs: &[&str]) -> tempfile::TempDir {
    let overlays = tempfile::tempdir().unwrap();
    let out = ["--out", overlays.path().to_str().unwrap()];
    spinflip_succeeds(&[&["plot"], dirs, &out].concat());
    overlays
}

/// `spinflip plot DIR --out OTHER` draws every plot and snapshot of the run in `dir` again, byte
/// for byte, from its files; returns how many there are.
fn assert_redrawn_identically(dir: &Path) -> usize {
    let redrawn = tempfile::tempdir().unwrap();
    spinflip_succeeds(&[
        "plot",
        dir.to_str().unwrap(),
        "--out",
        redrawn.path().to_str().unwrap(),
    ]);
    let mut plots = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".svg") || name.ends_with(".png") {
            plots += 1;
            assert_eq!(
                std::fs::read(redrawn.path().join(&name)).unwrap(),
                std::fs::read(dir.join(&name)).unwrap(),
                "{name} redrawn from the files"
            );
        }
    }
    plots
}

/// The measured points of `curve` are `(x_of(beta), key's mean, key's err)` of every temperature
/// of `temperatures`; returns how many are finite (drawn as a marker each).
fn assert_measured(
    file: &str,
    curve: &Value,
    temperatures: &[Value],
    key: &str,
    x_of: fn(f64) -> f64,
) -> usize {
    let points = curve["points"].as_array().unwrap();
    assert_eq!(points.len(), temperatures.len(), "{file}");
    for (point, t) in points.iter().zip(temperatures) {
        let beta = t["beta"].as_f64().unwrap();
        assert_eq!(point["x"].as_f64(), Some(x_of(beta)), "{file}");
        assert_eq!(point["y"], t[key]["mean"], "{file} at beta {beta}");
        assert_eq!(point["err"], t[key]["err"], "{file} at beta {beta}");
    }
    points.iter().filter(|p| p["y"].is_f64()).count()
}

#[test]
fn ferromagnet_plots_show_the_summary_and_are_redrawn_from_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let summary = run_into(dir.path(), FERROMAGNET);
    let runs = summary["runs"].as_array().unwrap();
    for key in ["e", "c", "abs_m", "chi", "u4"] {
        let file = format!("plot_{key}.svg");
        let (figure, markers) = svg_figure(&dir.path().join(&file));
        let measured = assert_measured(&file, curve(&figure, 0), runs, key, |beta| beta);
        assert_eq!(
            markers,
            measured + 1,
            "{file}: one marker per finite point, one in the legend"
        );
        let exact = curve(&figure, 1);
        if key == "e" || key == "c" {
            let points = exact["points"].as_array().unwrap();
            assert!(points.len() > 100, "{file}: a dense exact curve");
            for p in points {
                let (beta, y) = (p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap());
                let want = if key == "e" {
                    kaufman(8, beta).e
                } else {
                    kaufman(8, beta).c
                };
                assert_eq!(y, want, "{file}: Kaufman at {beta}");
            }
        } else {
            assert!(exact.is_null(), "{file}: no exact curve");
        }
    }
    for (t, suffix) in ["t00_beta0.4000", "t01_beta0.4400"].iter().enumerate() {
        let (figure, _) = svg_figure(&dir.path().join(format!("timeseries_{suffix}.svg")));
        let read = |kind: &str| {
            std::fs::read_to_string(dir.path().join(format!("{kind}_{suffix}.csv"))).unwrap()
        };
        // The thermalisation, then the production run. Columns measurement, sweep, replica, E,
        // M, e, m: replica 0 is the first system.
        let (thermalization, production) = (read("thermalization"), read("timeseries"));
        let first: Vec<(f64, f64)> = thermalization
            .lines()
            .skip(1)
            .chain(production.lines().skip(1))
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|f| f[2] == "0")
            .map(|f| (f[1].parse().unwrap(), f[5].parse().unwrap()))
            .collect();
        let drawn: Vec<(f64, f64)> = figure["panels"][0]["curves"][0]["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap()))
            .collect();
        assert_eq!(drawn, first, "E/N of the first system");
        let last_thermalization = thermalization.lines().last().unwrap().split(',').nth(1);
        assert_eq!(
            figure["production_from"].as_f64(),
            last_thermalization.and_then(|sweep| sweep.parse().ok()),
            "the line where production starts"
        );
        assert_snapshot_shows(dir.path(), &format!("snapshot_{suffix}.png"), t, 0);
    }
    let plots = assert_redrawn_identically(dir.path());
    assert_eq!(plots, 5 + 2 + 2, "figures, time series, snapshots");
}

#[test]
fn spin_glass_plots_versus_t_and_overlays_of_sizes() {
    let dirs = [4, 6].map(|_| tempfile::tempdir().unwrap());
    let summaries =
        [(&dirs[0], 4), (&dirs[1], 6)].map(|(dir, size)| run_into(dir.path(), &spin_glass(size)));
    let small = dirs[0].path();
    let temperatures = summaries[0]["spin_glass"].as_array().unwrap();
    for key in ["e", "c", "q2", "g", "chi_sg", "xi_over_l"] {
        let file = format!("plot_{key}.svg");
        let (figure, markers) = svg_figure(&small.join(&file));
        let measured = assert_measured(&file, curve(&figure, 0), temperatures, key, |b| 1.0 / b);
        assert_eq!(
            markers,
            measured + 1,
            "{file}: one marker per finite point, one in the legend"
        );
    }
    // 3D: the mid-plane z = L/2 of sample 0, replica 0.
    assert_snapshot_shows(small, "snapshot_t01_T1.500.png", 1, 2);
    assert_eq!(assert_redrawn_identically(small), 6 + 2 + 2);

    let dir_args = dirs.each_ref().map(|d| d.path().to_str().unwrap());
    let overlays = overlays_of(&[dir_args[1], dir_args[0]]);
    for key in ["g", "xi_over_l"] {
        let file = format!("overlay_{key}.svg");
        let (figure, markers) = svg_figure(&overlays.path().join(&file));
        let mut drawn = 0;
        for (c, (size, summary)) in [4, 6].iter().zip(&summaries).enumerate() {
            assert_eq!(curve(&figure, c)["label"], format!("L = {size}"), "{file}");
            let temperatures = summary["spin_glass"].as_array().unwrap();
            drawn += assert_measured(&file, curve(&figure, c), temperatures, key, |b| 1.0 / b);
        }
        assert_eq!(markers, drawn + 2, "{file}: and one per run in the legend");
    }

    // Two runs of one L, into the first directory (no --out): told apart by their directories.
    let again = tempfile::tempdir().unwrap();
    run_into(again.path(), &spin_glass(4));
    let again_arg = again.path().to_str().unwrap();
    let output = spinflip_succeeds(&["plot", again_arg, dir_args[0]]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("plots in {again_arg}")),
        "{stdout}"
    );
    let (figure, _) = svg_figure(&again.path().join("overlay_g.svg"));
    for (c, dir) in [again_arg, dir_args[0]].iter().enumerate() {
        assert_eq!(curve(&figure, c)["label"], format!("L = 4, {dir}"));
    }

    let ferromagnet = tempfile::tempdir().unwrap();
    let without_plots = FERROMAGNET
        .replace("Betas([0.40, 0.44])", "Betas([0.4])")
        .replace("backend: Cpu,", "backend: Cpu, plots: false,");
    run_into(ferromagnet.path(), &without_plots);
    let drawn_files = std::fs::read_dir(ferromagnet.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".svg") || name.ends_with(".png"))
        .count();
    assert_eq!(drawn_files, 0, "plots: false writes no plots");
    let mixed = spinflip(&["plot", dir_args[0], ferromagnet.path().to_str().unwrap()]);
    assert!(!mixed.status.success());
    let stderr = String::from_utf8_lossy(&mixed.stderr);
    assert!(stderr.contains("different models"), "{stderr}");
}

/// The per-temperature files in `dir`, sorted.
fn temperature_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.contains("_t0"))
        .collect();
    names.sort();
    names
}

#[test]
fn files_carry_short_temperature_tags_and_old_names_still_plot() {
    let dir = tempfile::tempdir().unwrap();
    run_into(dir.path(), FERROMAGNET);
    let tags = ["t00_beta0.4000", "t01_beta0.4400"];
    let mut want: Vec<String> = tags
        .iter()
        .flat_map(|tag| {
            [
                format!("snapshot_{tag}.png"),
                format!("thermalization_{tag}.csv"),
                format!("timeseries_{tag}.csv"),
                format!("timeseries_{tag}.svg"),
            ]
        })
        .collect();
    want.sort();
    assert_eq!(temperature_files(dir.path()), want);

    // A run directory as spinflip wrote it before the short tags: the full beta in the names,
    // no temperature scale in the summary.
    let old = tempfile::tempdir().unwrap();
    for name in ["config.ron", "final_state.npy"] {
        std::fs::copy(dir.path().join(name), old.path().join(name)).unwrap();
    }
    let mut summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("summary.json")).unwrap()).unwrap();
    summary.as_object_mut().unwrap().remove("temperature_scale");
    std::fs::write(old.path().join("summary.json"), summary.to_string()).unwrap();
    for (tag, legacy) in tags.iter().zip(["t00_beta_0.4", "t01_beta_0.44"]) {
        for kind in ["thermalization", "timeseries"] {
            std::fs::copy(
                dir.path().join(format!("{kind}_{tag}.csv")),
                old.path().join(format!("{kind}_{legacy}.csv")),
            )
            .unwrap();
        }
    }
    let redrawn = tempfile::tempdir().unwrap();
    spinflip_succeeds(&[
        "plot",
        old.path().to_str().unwrap(),
        "--out",
        redrawn.path().to_str().unwrap(),
    ]);
    for entry in std::fs::read_dir(redrawn.path()).unwrap() {
        let name = entry.unwrap().file_name();
        assert_eq!(
            std::fs::read(redrawn.path().join(&name)).unwrap(),
            std::fs::read(dir.path().join(&name)).unwrap(),
            "{name:?} drawn from the old names"
        );
    }
    assert_eq!(
        std::fs::read_dir(redrawn.path()).unwrap().count(),
        5 + 2 + 2
    );
}

/// A small 2D anneal with reweighting, so that its figure has all three curves.
const ANNEAL: &str = r#"(
    model: Ising(dims: 2, size: 4, field: 0.0),
    replicas: 64,
    engine: Simple,
    algorithm: Annealing(theta: 2, schedule: Linear(beta_max: 0.5, count: 5), runs: 2,
        reweighting: Some(10)),
    seed: 5,
    backend: Cpu,
)"#;

#[test]
fn annealing_figure_shows_ln_z_per_site_and_is_redrawn_from_annealing_json() {
    let dir = tempfile::tempdir().unwrap();
    match run(&common::config(ANNEAL), &RunOptions::new(dir.path())).unwrap() {
        RunOutcome::Annealed(_) => {}
        other => panic!("not a finished anneal: {other:?}"),
    }
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("annealing.json")).unwrap()).unwrap();
    let (figure, _) = svg_figure(&dir.path().join("annealing.svg"));
    let panel = &figure["panels"][2];
    assert_eq!(panel["y_label"], "ln Z / N");
    let steps = summary["steps"].as_array().unwrap();
    let measured = panel["curves"][0]["points"].as_array().unwrap();
    assert_eq!(measured.len(), steps.len());
    for (point, step) in measured.iter().zip(steps) {
        assert_eq!(point["x"], step["beta"]);
        assert_eq!(point["y"], step["ln_z"]["mean"]);
    }
    for point in panel["curves"][2]["points"].as_array().unwrap() {
        let beta = point["x"].as_f64().unwrap();
        let want = -beta * kaufman(4, beta).f;
        assert!(
            (point["y"].as_f64().unwrap() - want).abs() < 1e-12,
            "exact ln Z / N at {beta}"
        );
    }
    assert_eq!(assert_redrawn_identically(dir.path()), 1, "annealing.svg");
    let other = tempfile::tempdir().unwrap();
    let output = spinflip(&[
        "plot",
        dir.path().to_str().unwrap(),
        other.path().to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("population anneal"),
        "an anneal is not overlaid: {stderr}"
    );
}

#[test]
fn plot_of_bad_input_fails_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let cases = [
        (vec![missing.to_str().unwrap()], "is not a directory"),
        (vec![dir.path().to_str().unwrap()], "summary.json"),
    ];
    for (args, needle) in cases {
        let output = spinflip(&[&["plot"], &args[..]].concat());
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    std::fs::write(dir.path().join("summary.json"), "{\"model\": 3}").unwrap();
    let output = spinflip(&["plot", dir.path().to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not a spinflip summary"), "{stderr}");
    assert!(
        !spinflip(&["plot"]).status.success(),
        "a directory is required"
    );
}

fn xy(size: u32) -> String {
    format!(
        r#"(
    model: XY(dims: 2, size: {size}, field: 0.0),
    temperatures: Betas([0.9, 1.1]),
    replicas: 2,
    sweeps: (thermalize: 20, measure: 80, every: 2),
    seed: 5,
    backend: Cpu,
)"#
    )
}

const HEISENBERG_GLASS: &str = r#"(
    model: Heisenberg(dims: 3, size: 4, field: 0.0, disorder: Bimodal),
    temperatures: Temperatures([0.3, 0.6]),
    replicas: 2,
    samples: 2,
    sweeps: (thermalize: 10, measure: 40, every: 2),
    seed: 9,
    backend: Cpu,
)"#;

/// The hue in degrees of an RGB pixel of full saturation.
fn hue([r, g, b]: [f64; 3]) -> f64 {
    (3f64.sqrt() * (g - b))
        .atan2(2.0 * r - g - b)
        .to_degrees()
        .rem_euclid(360.0)
}

/// The snapshot of temperature `t` of a vector run shows plane `z` of its first system, one
/// block per site: the spin's in-plane angle as the hue, its z as the lightness.
fn assert_vector_snapshot_shows(dir: &Path, file: &str, t: usize, z: usize) {
    let bytes = std::fs::read(dir.join("final_state.npy")).unwrap();
    let (shape, offset) = npy_f32_header(&bytes).unwrap();
    let spins: Vec<f32> = bytes[offset..]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let n = *shape.last().unwrap();
    let size = shape[shape.len() - 2];
    let per_temperature: usize = shape[1..].iter().product();
    let plane = &spins[t * per_temperature + z * size * size * n..][..size * size * n];
    let file = std::io::BufReader::new(std::fs::File::open(dir.join(file)).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!((info.width, info.height), (512, 512 + KEY_HEIGHT));
    let scale = 512 / size;
    for y in 0..size {
        for x in 0..size {
            let at = 3 * ((y * scale + scale / 2) * 512 + x * scale + scale / 2);
            let rgb = [0, 1, 2].map(|c| f64::from(pixels[at + c]));
            let spin = &plane[(y * size + x) * n..][..n];
            let angle = f64::from(spin[1])
                .atan2(f64::from(spin[0]))
                .to_degrees()
                .rem_euclid(360.0);
            let lightness = (rgb.iter().copied().fold(0.0, f64::max)
                + rgb.iter().copied().fold(255.0, f64::min))
                / 510.0;
            let z = spin.get(2).copied().unwrap_or(0.0);
            assert!(
                (lightness - (1.0 + f64::from(z)) / 2.0).abs() < 0.01,
                "site {x}, {y}: lightness {lightness} of z {z}"
            );
            // Near white or black the hue is lost in the rounding to bytes.
            if (0.1..0.9).contains(&lightness) {
                let off = (hue(rgb) - angle).rem_euclid(360.0);
                assert!(
                    off.min(360.0 - off) < 3.0,
                    "site {x}, {y}: {rgb:?} at {angle}"
                );
            }
        }
    }
}

#[test]
fn vector_plots_show_the_summary_and_are_redrawn_from_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let summary = vector_run_into(dir.path(), &xy(8));
    let runs = summary["runs"].as_array().unwrap();
    for key in ["e", "c", "abs_m", "chi", "u4", "xi_over_l", "helicity"] {
        let file = format!("plot_{key}.svg");
        let (figure, markers) = svg_figure(&dir.path().join(&file));
        let measured = assert_measured(&file, curve(&figure, 0), runs, key, |beta| beta);
        assert_eq!(markers, measured + 1, "{file}: and one in the legend");
    }
    for (t, suffix) in ["t00_beta0.9000", "t01_beta1.1000"].iter().enumerate() {
        let (figure, _) = svg_figure(&dir.path().join(format!("timeseries_{suffix}.svg")));
        let read = |kind: &str| {
            std::fs::read_to_string(dir.path().join(format!("{kind}_{suffix}.csv"))).unwrap()
        };
        // Columns measurement, sweep, replica, E, e, mx, my: replica 0 is the first system.
        let (thermalization, production) = (read("thermalization"), read("timeseries"));
        let first: Vec<Vec<f64>> = thermalization
            .lines()
            .skip(1)
            .chain(production.lines().skip(1))
            .map(|l| {
                l.split(',')
                    .map(|f| f.parse().unwrap())
                    .collect::<Vec<f64>>()
            })
            .filter(|f| f[2] == 0.0)
            .collect();
        let drawn = |panel: usize| -> Vec<(f64, f64)> {
            let points = figure["panels"][panel]["curves"][0]["points"].as_array();
            let point = |p: &Value| (p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap());
            points.unwrap().iter().map(point).collect()
        };
        let energies: Vec<(f64, f64)> = first.iter().map(|f| (f[1], f[3] / 64.0)).collect();
        assert_eq!(drawn(0), energies, "E/N of the first system");
        let abs_m: Vec<(f64, f64)> = first.iter().map(|f| (f[1], f[5].hypot(f[6]))).collect();
        for ((sweep, m), (at, want)) in drawn(1).into_iter().zip(abs_m) {
            assert_eq!(sweep, at);
            assert!((m - want).abs() < 1e-12, "|m| at sweep {sweep}: {m} {want}");
        }
        assert_eq!(figure["production_from"].as_f64(), Some(20.0));
        assert_vector_snapshot_shows(dir.path(), &format!("snapshot_{suffix}.png"), t, 0);
    }
    let plots = assert_redrawn_identically(dir.path());
    assert_eq!(plots, 7 + 2 + 2, "figures, time series, snapshots");
}

/// Discrete states: the Potts model's figures, Blume-Capel's with the density of s = 0, neither
/// with the helicity modulus, both with the energy's distribution; their snapshots draw each state's value in its own hue, and every file is
/// redrawn identically from the run's files.
#[test]
fn discrete_state_plots_show_their_estimates_and_states() {
    for (model, keys, missing, values) in [
        (
            "Potts(q: 3, dims: 2, size: 8)",
            &["e", "c", "abs_m", "chi", "u4", "xi_over_l"][..],
            "zeros",
            &[0, 1, 2][..],
        ),
        (
            "BlumeCapel(dims: 2, size: 8, crystal_field: 0.5)",
            &["e", "c", "abs_m", "chi", "u4", "xi_over_l", "zeros"][..],
            "helicity",
            &[-1, 0, 1][..],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let summary = vector_run_into(
            dir.path(),
            &xy(8).replace("XY(dims: 2, size: 8, field: 0.0)", model),
        );
        let runs = summary["runs"].as_array().unwrap();
        for key in keys {
            let file = format!("plot_{key}.svg");
            let (figure, _) = svg_figure(&dir.path().join(&file));
            assert_measured(&file, curve(&figure, 0), runs, key, |beta| beta);
        }
        let missing = dir.path().join(format!("plot_{missing}.svg"));
        assert!(!missing.exists(), "{model}: {missing:?}");
        let png = std::fs::read(dir.path().join("snapshot_t00_beta0.9000.png")).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        // The lattice's pixels (the square above the key), each one value's hue.
        let width = info.width as usize;
        let hues: Vec<f64> = values
            .iter()
            .map(|&v| (f64::from(v) * 137.507_764).rem_euclid(360.0))
            .collect();
        for pixel in pixels[..3 * width * width].chunks_exact(3) {
            let rgb = [0, 1, 2].map(|c| f64::from(pixel[c]));
            let off = |h: &f64| {
                (hue(rgb) - h)
                    .rem_euclid(360.0)
                    .min((h - hue(rgb)).rem_euclid(360.0))
            };
            assert!(hues.iter().any(|h| off(h) < 3.0), "{model}: {pixel:?}");
        }
        // Each temperature's energy distribution: a density over the energies measured.
        let (histogram, _) = svg_figure(&dir.path().join("plot_energy_histogram.svg"));
        for c in 0..2 {
            let points = curve(&histogram, c)["points"].as_array().unwrap();
            let x = |k: usize| points[k]["x"].as_f64().unwrap();
            let width = x(1) - x(0);
            let mass: f64 = points
                .iter()
                .map(|p| p["y"].as_f64().unwrap() * width)
                .sum();
            assert!((mass - 1.0).abs() < 1e-9, "{model}: {mass}");
        }
        let plots = assert_redrawn_identically(dir.path());
        assert_eq!(
            plots,
            keys.len() + 1 + 2 + 2,
            "{model}: figures, the energy histogram, time series, snapshots"
        );
    }
}

#[test]
fn vector_glass_plots_versus_t_and_vector_overlays_of_sizes() {
    let glass = tempfile::tempdir().unwrap();
    let summary = vector_run_into(glass.path(), HEISENBERG_GLASS);
    let runs = summary["runs"].as_array().unwrap();
    let temperatures = summary["spin_glass"].as_array().unwrap();
    for (key, entries) in [
        ("e", runs),
        ("q2", temperatures),
        ("g", temperatures),
        ("xi_over_l", temperatures),
    ] {
        let file = format!("plot_{key}.svg");
        let (figure, _) = svg_figure(&glass.path().join(&file));
        assert_measured(&file, curve(&figure, 0), entries, key, |b| 1.0 / b);
        assert_eq!(figure["x_label"], "T", "{file}");
    }
    assert!(
        !glass.path().join("plot_helicity.svg").exists(),
        "Heisenberg spins have no helicity modulus"
    );
    // 3D: the mid-plane z = L/2 of sample 0, replica 0.
    assert_vector_snapshot_shows(glass.path(), "snapshot_t01_T0.600.png", 1, 2);
    assert_eq!(assert_redrawn_identically(glass.path()), 4 + 2 + 2);

    let dirs = [4, 8].map(|_| tempfile::tempdir().unwrap());
    let summaries =
        [(&dirs[0], 4), (&dirs[1], 8)].map(|(dir, size)| vector_run_into(dir.path(), &xy(size)));
    let dir_args = dirs.each_ref().map(|d| d.path().to_str().unwrap());
    let overlays = overlays_of(&[dir_args[1], dir_args[0]]);
    for key in ["u4", "xi_over_l", "helicity"] {
        let file = format!("overlay_{key}.svg");
        let (figure, _) = svg_figure(&overlays.path().join(&file));
        for (c, (size, summary)) in [4, 8].iter().zip(&summaries).enumerate() {
            assert_eq!(curve(&figure, c)["label"], format!("L = {size}"), "{file}");
            let runs = summary["runs"].as_array().unwrap();
            assert_measured(&file, curve(&figure, c), runs, key, |b| b);
        }
    }
    let mixed = spinflip(&["plot", dir_args[0], glass.path().to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&mixed.stderr);
    assert!(stderr.contains("different models"), "{stderr}");
}
