//! The loop: sweep to the next measurement, tuning stop or checkpoint, record, repeat; then
//! summarise and write the files. A checkpoint every `checkpoint_every` sweeps, at a stop
//! ([`crate::stop`]) and at the end lets `--resume` continue a run to the same bits.

use std::time::{Duration, Instant};

use super::outputs::write_vector_outputs;
use super::record::{acceptance_rates, record_observations, record_overlaps};
use super::resume::{VectorState, resume_state, save_checkpoint};
use super::summary::{VectorSummary, summarize};
use super::tuning::ConeTuning;
use crate::config::{Config, Sweeps};
use crate::engine::vector::{VectorEngine, VectorSweeps};
use crate::error::Result;
use crate::io::checkpoint::fingerprint;
use crate::io::output::write_file;
use crate::io::provenance::ProvenanceClock;
use crate::io::run_dir::{
    CHECKPOINT, CONFIG, Ended, RunOptions, checkpoint_between_plans, start_line,
};
use crate::model::vector::{VectorSystems, vector_systems};
use crate::mpi::open_vector_engine;
use crate::stop::Stops;

/// Run the sweeps of the vector-spin `config` (validated; `config_text` its RON, whose
/// fingerprint the checkpoints carry), writing everything into `options.out`, or continue the
/// run of its checkpoint there (`options.resume`). A signal or the wall time stops it at the
/// next chunk's end with a checkpoint.
pub fn run_vector(
    config: &Config,
    engine_choice: &str,
    options: &RunOptions,
    config_text: &str,
) -> Result<Ended<VectorSummary>> {
    let clock = ProvenanceClock::start(options.resume);
    let checkpoint_path = options.out.join(CHECKPOINT);
    let config_fingerprint = fingerprint(config_text);
    let systems = vector_systems(config);
    let updates = VectorSweeps::of(&config.updates);
    let tuning = ConeTuning::new(config.updates.proposal, systems.betas.len());
    let schedule = VectorSchedule {
        systems: &systems,
        sweeps: &config.sweeps,
        hits: updates.hits,
        tuning_stops: tuning.stops(config.sweeps.thermalize),
        checkpoint_every: config.checkpoint_every,
    };
    let resumed = match options.resume {
        true => {
            let given = (&config.sweeps, tuning.clone());
            Some(resume_state(
                &options.out,
                config_fingerprint,
                &systems,
                given,
            )?)
        }
        false => None,
    };
    let mut engine = open_vector_engine(config, systems.clone(), updates)?;
    write_file(&options.out, CONFIG, config_text.as_bytes())?;
    let mut state = match resumed {
        Some((state, spins)) => {
            engine.set_spins(&spins)?;
            state
        }
        None => {
            engine.hot_start()?;
            VectorState::new(&systems, tuning)
        }
    };
    let info = engine.info();
    let total = schedule.total();
    if options.progress {
        let sweeps = &config.sweeps;
        let plan = format!(
            "{} + {} sweeps, measuring every {}",
            sweeps.thermalize, sweeps.measure, sweeps.every
        );
        eprintln!("{}", start_line(config, &info, engine_choice, &plan));
        if options.resume {
            let done = state.sweeps_done;
            eprintln!("spinflip: resuming from sweep {done} of {total}");
        }
    }
    let (first_sweep, mut engine_time) = (state.sweeps_done, Duration::ZERO);
    let mut stops = Stops::new(options.deadline);
    while state.sweeps_done < total {
        let from = state.sweeps_done;
        let to = schedule.chunk_end(from);
        let started = Instant::now();
        engine_time += schedule.advance(engine.as_mut(), &mut state, to)?;
        stops.plan_took(started.elapsed());
        if to == total {
            break;
        }
        let every = config.checkpoint_every;
        let ended =
            checkpoint_between_plans((from, to), every, &mut stops, options.halt_after, || {
                let spins = engine.spins()?;
                save_checkpoint(&checkpoint_path, config_fingerprint, &state, spins).map(drop)
            })?;
        if let Some(ended) = ended {
            return Ok(ended);
        }
    }
    // One download of the final lattices serves the last checkpoint and the final state.
    let spins = engine.spins()?;
    let checkpoint = save_checkpoint(&checkpoint_path, config_fingerprint, &state, spins)?;
    let updates_done = (total - first_sweep)
        * u64::from(updates.hits)
        * systems.lattice.sites()
        * u64::from(systems.systems());
    let mut summary = summarize(
        config,
        engine_choice,
        &systems,
        (&state.record, &state.tuning),
        &info,
        updates_done as f64 / engine_time.as_nanos().max(1) as f64,
    );
    summary.provenance = Some(clock.finish(&info));
    write_vector_outputs(
        &options.out,
        &systems,
        config,
        &state.record,
        &summary,
        &checkpoint.spins,
    )?;
    Ok(Ended::Completed(summary))
}

/// Where a run's chunks end and what happens there.
struct VectorSchedule<'a> {
    systems: &'a VectorSystems,
    sweeps: &'a Sweeps,
    hits: u32,
    /// The sweeps after which the cone is retuned.
    tuning_stops: Vec<u64>,
    checkpoint_every: u64,
}

impl VectorSchedule<'_> {
    /// Sweeps in all, thermalisation and production.
    fn total(&self) -> u64 {
        self.sweeps.thermalize + self.sweeps.measure
    }

    /// The end of the chunk from sweep `from`: the next measurement, tuning stop, the
    /// thermalisation's end (production acceptances count after it) or checkpoint (so that
    /// checkpoints fall on the sweeps the config names), whichever comes first.
    fn chunk_end(&self, from: u64) -> u64 {
        let after = |every: u64| (every > 0).then(|| (from / every + 1) * every);
        let next_stop = self.tuning_stops.iter().copied().find(|&s| s > from);
        let thermalized = Some(self.sweeps.thermalize).filter(|&t| t > from);
        [
            after(self.sweeps.every),
            next_stop,
            thermalized,
            after(self.checkpoint_every),
            Some(self.total()),
        ]
        .into_iter()
        .flatten()
        .min()
        .expect("the total bounds every chunk")
    }

    /// Sweep on to sweep `to`: count the accepted moves, measure where `to` is a measurement's
    /// sweep and retune the cone where it is a tuning stop. Returns the time of the sweeps.
    fn advance(
        &self,
        engine: &mut dyn VectorEngine,
        state: &mut VectorState,
        to: u64,
    ) -> Result<Duration> {
        let from = state.sweeps_done;
        let started = Instant::now();
        let accepted = engine.sweeps(from as u32..to as u32, &state.tuning.widths)?;
        let sweeping = started.elapsed();
        let record = &mut state.record;
        for (b, a) in accepted.iter().enumerate() {
            record.accepted_since_stop[b] += a;
            if from >= self.sweeps.thermalize {
                record.accepted_in_production[b] += a;
            }
        }
        if to.is_multiple_of(self.sweeps.every) {
            record_observations(self.systems, &engine.observe()?, record);
            record_overlaps(self.systems, &engine.overlaps()?, record);
        }
        if self.tuning_stops.contains(&to) {
            let stops = self.tuning_stops.iter().copied();
            let last_stop = stops.filter(|&s| s < to).max().unwrap_or(0);
            let proposals = (to - last_stop) * u64::from(self.hits);
            let rates = acceptance_rates(self.systems, &record.accepted_since_stop, proposals);
            state.tuning.retune(&rates);
            record.accepted_since_stop.fill(0);
        }
        state.sweeps_done = to;
        Ok(sweeping)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::io::run_dir::RunOptions;
    use crate::model::Lattice;
    use crate::model::vector::gaussian::{coupling_value, gaussian_couplings};
    use crate::run::{RunOutcome, run};
    use crate::vector::VectorSummary;

    /// The summary of the vector run of config `text`, and the directory of its files.
    fn run_vector_config(text: &str) -> (tempfile::TempDir, VectorSummary) {
        let config = Config::from_ron_str(text).unwrap();
        let dir = tempfile::tempdir().unwrap();
        match run(&config, &RunOptions::new(dir.path())).unwrap() {
            RunOutcome::Vector(summary) => (dir, *summary),
            other => panic!("not a vector run: {other:?}"),
        }
    }

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
        let (dir, summary) = run_vector_config(text);
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
        let (dir, summary) = run_vector_config(text);
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
