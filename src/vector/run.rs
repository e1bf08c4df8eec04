//! The loop: sweep to the next measurement or tuning stop, record, repeat; then summarise and
//! write the files.

use std::time::{Duration, Instant};

use super::outputs::write_vector_outputs;
use super::record::{VectorRecord, acceptance_rates, record_observations, record_overlaps};
use super::summary::{VectorSummary, summarize};
use super::tuning::ConeTuning;
use crate::config::Config;
use crate::engine::open::open_vector_engine;
use crate::engine::vector::VectorSweeps;
use crate::error::{Error, Result};
use crate::io::output::write_file;
use crate::io::provenance::ProvenanceClock;
use crate::io::run_dir::{CONFIG, RunOptions, start_line};
use crate::model::vector::vector_systems;

/// Run the sweeps of the vector-spin `config` (validated; `config_text` its RON), writing
/// everything into `options.out`.
pub fn run_vector(
    config: &Config,
    engine_choice: &str,
    options: &RunOptions,
    config_text: &str,
) -> Result<VectorSummary> {
    if options.resume {
        return Err(Error::Usage(format!(
            "--resume: {} runs write no checkpoint yet; run them again from the start",
            config.model.name()
        )));
    }
    let clock = ProvenanceClock::start(false);
    let systems = vector_systems(config);
    let updates = VectorSweeps::of(&config.updates);
    let mut engine = open_vector_engine(config, systems.clone(), updates)?;
    write_file(&options.out, CONFIG, config_text.as_bytes())?;
    engine.hot_start()?;
    let info = engine.info();
    let sweeps = &config.sweeps;
    let total = sweeps.thermalize + sweeps.measure;
    if options.progress {
        let plan = format!(
            "{} + {} sweeps, measuring every {}",
            sweeps.thermalize, sweeps.measure, sweeps.every
        );
        eprintln!("{}", start_line(config, &info, engine_choice, &plan));
    }
    let mut tuning = ConeTuning::new(config.updates.proposal, systems.betas.len());
    let stops = tuning.stops(sweeps.thermalize);
    let mut record = VectorRecord {
        accepted_since_stop: vec![0; systems.systems() as usize],
        accepted_in_production: vec![0; systems.systems() as usize],
        ..VectorRecord::default()
    };
    let (mut done, mut last_stop, mut engine_time) = (0u64, 0u64, Duration::ZERO);
    while done < total {
        let next_measurement = (done / sweeps.every + 1) * sweeps.every;
        let next_stop = stops.iter().copied().find(|&s| s > done);
        // The thermalisation's end is a boundary too: production acceptances count after it.
        let thermalized = Some(sweeps.thermalize).filter(|&t| t > done);
        let to = next_measurement
            .min(next_stop.unwrap_or(u64::MAX))
            .min(thermalized.unwrap_or(u64::MAX))
            .min(total);
        let started = Instant::now();
        let accepted = engine.sweeps(done as u32..to as u32, &tuning.widths)?;
        engine_time += started.elapsed();
        for (b, a) in accepted.iter().enumerate() {
            record.accepted_since_stop[b] += a;
            if done >= sweeps.thermalize {
                record.accepted_in_production[b] += a;
            }
        }
        if to % sweeps.every == 0 {
            record_observations(&systems, &engine.observe()?, &mut record);
            record_overlaps(&systems, &engine.overlaps()?, &mut record);
        }
        if next_stop == Some(to) {
            let proposals = (to - last_stop) * u64::from(updates.hits);
            let rates = acceptance_rates(&systems, &record.accepted_since_stop, proposals);
            tuning.retune(&rates);
            record.accepted_since_stop.fill(0);
            last_stop = to;
        }
        done = to;
    }
    let updates_done =
        total * u64::from(updates.hits) * systems.lattice.sites() * u64::from(systems.systems());
    let mut summary = summarize(
        config,
        engine_choice,
        &systems,
        (&record, &tuning),
        &info,
        updates_done as f64 / engine_time.as_nanos().max(1) as f64,
    );
    summary.provenance = Some(clock.finish(&info));
    write_vector_outputs(
        &options.out,
        &systems,
        config,
        &record,
        &summary,
        &engine.spins()?,
    )?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::io::run_dir::RunOptions;
    use crate::model::Lattice;
    use crate::model::vector::gaussian::{coupling_value, gaussian_couplings};
    use crate::run::{RunOutcome, run};

    /// A tiny XY spin glass from its config to its files: the same loop and outputs as the
    /// example config, in a few hundredths of a second; its Metropolis sweeps the double
    /// checkerboard's, two hits on tiles of 2^2.
    #[test]
    fn a_vector_run_writes_its_summary_series_and_final_spins() {
        let text = "(
            model: XY(dims: 2, size: 4, field: 0.5, disorder: Bimodal),
            temperatures: Temperatures([0.2, 2.0]),
            replicas: 2, samples: 2,
            updates: (
                proposal: Cone(acceptance: 0.5),
                metropolis: DoubleCheckerboard(tile: 2, hits: 2),
                overrelaxation: 1,
            ),
            sweeps: (thermalize: 40, measure: 60, every: 3),
            seed: 7, backend: Cpu,
        )";
        let config = Config::from_ron_str(text).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let summary = match run(&config, &RunOptions::new(dir.path())).unwrap() {
            RunOutcome::Vector(summary) => summary,
            other => panic!("not a vector run: {other:?}"),
        };
        assert_eq!((summary.runs.len(), summary.measurements), (2, 20));
        assert!(
            summary
                .updates
                .contains("double checkerboard of 2^2 tiles, 2 hits per site"),
            "{}",
            summary.updates
        );
        assert!(summary.proposals.iter().all(|p| p.acceptance < 1.0));
        assert_eq!(summary.thermalization_measurements, 13);
        assert!(
            summary
                .runs
                .iter()
                .all(|r| r.helicity.is_some() && r.e.mean < 0.0)
        );
        let widths: Vec<_> = summary.proposals.iter().map(|p| p.width.unwrap()).collect();
        assert!(widths[0] < widths[1], "hotter cones open wider: {widths:?}");
        assert!(summary.norm_deviation < 2f64.powi(-26));
        let series = std::fs::read_to_string(dir.path().join("timeseries_t00_T0.200.csv"));
        let series = series.unwrap();
        assert!(series.starts_with("measurement,sweep,sample,replica,E,e,mx,my\n"));
        assert_eq!(series.lines().count(), 1 + 20 * 4);
        for file in [
            "summary.json",
            "config.ron",
            "final_state.npy",
            "couplings.npy",
        ] {
            assert!(dir.path().join(file).exists(), "{file}");
        }
    }

    /// A tiny Heisenberg Gaussian glass writes its files, its couplings as `float64`: the
    /// fixed-point values the run drew, two samples of 4^3 sites and three directions.
    #[test]
    fn a_gaussian_glass_run_writes_its_couplings_as_float64() {
        let text = "(
            model: Heisenberg(dims: 3, size: 4, field: 3.0, disorder: Gaussian),
            temperatures: Betas([0.5, 2.0]),
            replicas: 2, samples: 2,
            updates: (overrelaxation: 1),
            sweeps: (thermalize: 10, measure: 20, every: 2),
            seed: 11, backend: Cpu,
        )";
        let config = Config::from_ron_str(text).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let summary = match run(&config, &RunOptions::new(dir.path())).unwrap() {
            RunOutcome::Vector(summary) => summary,
            other => panic!("not a vector run: {other:?}"),
        };
        assert!(
            summary
                .run
                .model
                .starts_with("Heisenberg Gaussian spin glass 3D")
        );
        assert_eq!(summary.spin_glass.len(), 2);
        assert!(summary.runs.iter().all(|r| r.e.mean < 0.0));
        let bytes = std::fs::read(dir.path().join("couplings.npy")).unwrap();
        let header_len = 10 + usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
        let header = String::from_utf8_lossy(&bytes[..header_len]);
        assert!(header.contains("'descr': '<f8'") && header.contains("(2, 4, 4, 4, 3)"));
        assert_eq!(bytes.len(), header_len + 2 * 64 * 3 * 8);
        let values = &bytes[header_len..];
        let drawn = gaussian_couplings(&Lattice::new(3, 4), 11, 1);
        let last = f64::from_le_bytes(values[values.len() - 8..].try_into().unwrap());
        assert_eq!(last, coupling_value(drawn[drawn.len() - 1]));
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        for file in [
            "summary.json",
            "final_state.npy",
            "overlaps_t00",
            "samples_t01",
        ] {
            assert!(
                names.iter().any(|n| n.starts_with(file)),
                "{file}: {names:?}"
            );
        }
    }
}
