//! The loop: sweep to the next measurement, tempering round, tuning stop or checkpoint,
//! record, repeat; then summarise and write the files. A checkpoint every `checkpoint_every`
//! sweeps, at a stop ([`crate::stop`]) and at the end lets `--resume` continue a run to the
//! same bits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::finished::VectorFinished;
use super::outputs::write_vector_outputs;
use super::record::{acceptance_rates, record_observations, record_overlaps};
use super::resume::{VectorState, resume_state, save_checkpoint};
use super::summary::summarize;
use super::tempering::finish_vector_tempering;
use super::tuning::ConeTuning;
use crate::config::{ClusterOptions, Config, Sweeps};
use crate::engine::vector::{VectorSweeps, sweeps_plan};
use crate::engine::{Engine, Plan, SweepCut, exchanges_of, proposals_of};
use crate::error::Result;
use crate::io::progress::Progress;
use crate::io::run_dir::{Ended, RunStart};
use crate::model::couplings::Instance;
use crate::model::vacancies::Vacancies;
use crate::model::vector::{VectorSystems, vector_systems};
use crate::mpi::open_vector_engine;
use crate::tempering::{tempering_warnings, tuning_stops};

/// Run the sweeps of `run`'s vector-spin config (`instance` its couplings and `vacancies` its
/// empty sites where it gives them), writing everything into `options.out`, or continue the run of its checkpoint there
/// (`options.resume`). A signal or the wall time stops it at the next chunk's end with a
/// checkpoint.
pub fn run_vector(
    run: &RunStart,
    instance: Option<Arc<Instance>>,
    vacancies: Option<Vacancies>,
) -> Result<Ended<Box<VectorFinished>>> {
    let (config, options) = (run.config, run.options);
    let mut systems = vector_systems(config, instance.as_deref(), vacancies);
    let updates = VectorSweeps::of(&config.updates, &config.algorithm);
    let tuning = ConeTuning::new(config.updates.proposal, systems.betas.len());
    let swap_every = config.algorithm.swap_every();
    let thermalize = config.sweeps.thermalize;
    let schedule = VectorSchedule {
        sweeps: &config.sweeps,
        proposals: updates.proposals(),
        tuning_stops: tuning.stops(thermalize),
        ladder_stops: match config.algorithm.tunes() {
            true => tuning_stops(thermalize),
            false => Vec::new(),
        },
        swap_every,
        checkpoint_every: config.checkpoint_every,
        clusters: updates.clusters.filter(|_| systems.clusters_record_sizes()),
    };
    let resumed = match options.resume {
        true => {
            let given = (tuning.clone(), swap_every);
            Some(resume_state(run, &mut systems, given)?)
        }
        false => None,
    };
    let mut engine = open_vector_engine(config, systems.clone(), updates)?;
    run.write_config()?;
    let mut state = match resumed {
        Some((state, spins)) => {
            engine.set_spins(&spins.into())?;
            state
        }
        None => {
            engine.hot_start()?;
            VectorState::new(&systems, tuning, swap_every)
        }
    };
    // The widths change only where the cone is retuned: the engine keeps them between plans.
    proposals_of(engine.as_mut())?.set_widths(&state.tuning.widths)?;
    let info = engine.info();
    let total = schedule.total();
    let sweeps = &config.sweeps;
    let rounds = swap_every.map_or(String::new(), |n| format!("; a swap round every {n}"));
    let unit = match updates.clusters {
        Some(_) => "steps",
        None => "sweeps",
    };
    let plan = format!(
        "{} + {} {unit}, measuring every {}{rounds}",
        sweeps.thermalize, sweeps.measure, sweeps.every
    );
    run.announce(&info, &plan, state.sweeps_done, Some(total));
    let (first_sweep, mut engine_time) = (state.sweeps_done, Duration::ZERO);
    let updates_per_sweep =
        u64::from(updates.site_updates()) * systems.lattice.sites() * u64::from(systems.systems());
    let progress = Progress::new(
        options.progress,
        options.on_progress.clone(),
        (thermalize, Some(total)),
        first_sweep,
        updates_per_sweep,
    );
    let mut stops = run.stops();
    // Positions count units: pieces of a sweep where the engine cuts sweeps, else sweeps.
    let passes = updates.passes(systems.lattice.colours()).len() as u32;
    let pieces = engine
        .sweep_parts()
        .then_some((passes, systems.lattice.size));
    let cut = SweepCut::new(pieces);
    while state.sweeps_done < total {
        let from_sweep = state.sweeps_done;
        let from = cut.position(from_sweep, state.sweep_units);
        let end = cut.position(schedule.chunk_end(from_sweep), 0);
        let to = stops.piece_end(from, end, cut.units);
        let started = Instant::now();
        engine_time += schedule.advance(engine.as_mut(), &systems, &mut state, (to, &cut))?;
        let ended_sweep = (state.sweep_units == 0).then_some(state.sweeps_done);
        if let Some(stage) = ended_sweep.and_then(|to| schedule.ladder_stage(to)) {
            let tempering = state
                .tempering
                .as_mut()
                .expect("ladder stops come with tempering");
            systems.betas = tempering.retune_ladder(&systems, stage);
            engine = reopen(config, engine, &systems, updates)?;
            proposals_of(engine.as_mut())?.set_widths(&state.tuning.widths)?;
        }
        // Progress counts whole sweeps: a plan of pieces that ends none has nothing to tell.
        if state.sweeps_done > from_sweep {
            progress.update(state.sweeps_done);
        }
        stops.plan_took(to - from, started.elapsed());
        if state.sweeps_done == total {
            break;
        }
        let plan_sweeps = (from_sweep, state.sweeps_done);
        let ended = run.checkpoint_between_plans(plan_sweeps, &mut stops, || {
            let spins = engine.spins()?.into_vector()?;
            let saved = (&state, systems.betas.as_slice());
            save_checkpoint(&run.checkpoint, run.fingerprint, saved, spins).map(drop)
        })?;
        if let Some(ended) = ended {
            progress.finish();
            return Ok(ended);
        }
    }
    progress.finish();
    // One download of the final lattices serves the last checkpoint and the final state.
    let spins = engine.spins()?.into_vector()?;
    let saved = (&state, systems.betas.as_slice());
    let checkpoint = save_checkpoint(&run.checkpoint, run.fingerprint, saved, spins)?;
    let updates_done = (total - first_sweep) * updates_per_sweep;
    let mut summary = summarize(
        config,
        run.engine_choice,
        (&systems, instance.as_deref()),
        (&state.record, &state.tuning),
        &info,
        updates_done as f64 / engine_time.as_nanos().max(1) as f64,
    );
    summary.origin.provenance = Some(run.provenance(&info));
    if let Some(tempering) = &state.tempering {
        // The acceptances count from the ladder's last tuning.
        let counted = (schedule.ladder_stops.last().copied().unwrap_or(0), total);
        let diagnostics = finish_vector_tempering(
            &options.out,
            &systems,
            tempering,
            counted,
            config.sweeps.every,
        )?;
        let scale = summary.run.temperature_scale;
        summary
            .warnings
            .extend(tempering_warnings(&diagnostics, scale));
        summary.tempering = Some(diagnostics);
    }
    write_vector_outputs(
        &options.out,
        &systems,
        config,
        &state.record,
        &summary,
        &checkpoint.spins,
    )?;
    let every = config.sweeps.every;
    let finished = VectorFinished::new(summary, systems, state.record, every, checkpoint.spins);
    Ok(Ended::Completed(finished))
}

/// The engine of `systems` (a new ladder) with the spins of `engine`, which it replaces.
fn reopen(
    config: &Config,
    mut engine: Box<dyn Engine>,
    systems: &VectorSystems,
    updates: VectorSweeps,
) -> Result<Box<dyn Engine>> {
    let spins = engine.spins()?;
    drop(engine);
    let mut engine = open_vector_engine(config, systems.clone(), updates)?;
    engine.set_spins(&spins)?;
    Ok(engine)
}

/// Where a run's chunks end and what happens there.
struct VectorSchedule<'a> {
    sweeps: &'a Sweeps,
    /// Metropolis proposals per site of a sweep of the loop.
    proposals: u32,
    /// The sweeps after which the cone is retuned.
    tuning_stops: Vec<u64>,
    /// The sweeps after which the tempering ladder is retuned (none without tuning).
    ladder_stops: Vec<u64>,
    /// Sweeps between tempering rounds; `None` without tempering.
    swap_every: Option<u64>,
    checkpoint_every: u64,
    /// The cluster step of each sweep, whose updates before a measurement record their sizes;
    /// `None` where they record none.
    clusters: Option<ClusterOptions>,
}

impl VectorSchedule<'_> {
    /// Sweeps in all, thermalisation and production.
    fn total(&self) -> u64 {
        self.sweeps.thermalize + self.sweeps.measure
    }

    /// The end of the chunk from sweep `from`: the next measurement, tempering round, tuning
    /// stop (of the cone or the ladder), the thermalisation's end (production acceptances count
    /// after it) or checkpoint (so that checkpoints fall on the sweeps the config names),
    /// whichever comes first.
    fn chunk_end(&self, from: u64) -> u64 {
        let after = |every: u64| (every > 0).then(|| (from / every + 1) * every);
        let next = |stops: &[u64]| stops.iter().copied().find(|&s| s > from);
        let thermalized = Some(self.sweeps.thermalize).filter(|&t| t > from);
        [
            after(self.sweeps.every),
            self.swap_every.and_then(after),
            next(&self.tuning_stops),
            next(&self.ladder_stops),
            thermalized,
            after(self.checkpoint_every),
            Some(self.total()),
        ]
        .into_iter()
        .flatten()
        .min()
        .expect("the total bounds every chunk")
    }

    /// The ladder's tuning stage `(from, to)` that ends at sweep `to`, if one does.
    fn ladder_stage(&self, to: u64) -> Option<(u64, u64)> {
        let previous = self.ladder_stops.iter().copied().filter(|&s| s < to).max();
        self.ladder_stops
            .contains(&to)
            .then(|| (previous.unwrap_or(0), to))
    }

    /// Sweep on to unit `to` of `cut` in one plan: count the accepted moves; where it ends sweep
    /// `to`, measure where that is a measurement's sweep (observe where only a tempering round
    /// follows it), swap there (after the measurement, from the same observation) and retune
    /// the cone where it is a tuning stop, handing the engine its new widths. Returns the time
    /// of the plan.
    fn advance(
        &self,
        engine: &mut dyn Engine,
        systems: &VectorSystems,
        state: &mut VectorState,
        (to_unit, cut): (u64, &SweepCut),
    ) -> Result<Duration> {
        let from = state.sweeps_done;
        let from_unit = cut.position(from, state.sweep_units);
        let (to, units) = (to_unit / cut.units, to_unit % cut.units);
        let ends_sweep = units == 0;
        let measured = ends_sweep && to.is_multiple_of(self.sweeps.every);
        let round = ends_sweep && (state.tempering.as_ref()).is_some_and(|t| t.round_after(to));
        let mut plan = match cut.pieces_of(from_unit, to_unit) {
            Some((pieces, sweep, units)) => {
                let mut plan = Plan::default();
                plan.sweep_units(sweep as u32, pieces, units);
                if measured {
                    plan.measure();
                }
                plan
            }
            None => sweeps_plan(from as u32..to as u32, measured),
        };
        if round && !measured {
            // The round's energies alone: the overlap pairs wait for the next measurement.
            plan.observe();
        }
        let started = Instant::now();
        let measurements = engine.execute(&plan)?;
        let sweeping = started.elapsed();
        let record = &mut state.record;
        for (b, a) in measurements.accepted.iter().enumerate() {
            record.accepted_since_stop[b] += a;
            if from >= self.sweeps.thermalize {
                record.accepted_in_production[b] += a;
            }
        }
        if from >= self.sweeps.thermalize {
            let moves = record.moves_in_production.iter_mut();
            moves
                .zip(&measurements.replica_moves)
                .for_each(|(m, n)| *m += n);
        }
        let observed = (
            &measurements.vector_observations[..],
            &measurements.vector_states[..],
        );
        if measured {
            let clusters =
                (self.clusters).map(|options| (options, &measurements.cluster_sizes[..]));
            record_observations(systems, observed, clusters, record);
            let pairs = &measurements.vector_pair_states;
            record_overlaps(systems, &measurements.vector_overlaps, pairs, record);
            if let Some(tempering) = &mut state.tempering {
                tempering.record_history(systems);
            }
        }
        if round {
            let tempering = state
                .tempering
                .as_mut()
                .expect("rounds come with tempering");
            if let Some(partners) = tempering.round(systems, observed, to) {
                exchanges_of(engine)?.exchange(&partners)?;
            }
        }
        if ends_sweep && self.tuning_stops.contains(&to) {
            let stops = self.tuning_stops.iter().copied();
            let last_stop = stops.filter(|&s| s < to).max().unwrap_or(0);
            let proposals = (to - last_stop) * u64::from(self.proposals);
            let rates = acceptance_rates(systems, &record.accepted_since_stop, proposals);
            state.tuning.retune(&rates);
            proposals_of(engine)?.set_widths(&state.tuning.widths)?;
            record.accepted_since_stop.fill(0);
        }
        (state.sweeps_done, state.sweep_units) = (to, units);
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
        assert!(summary.norm_deviation < 2f64.powi(-24));
        // The equilibration check per temperature: a glass's samples are its units, with e and
        // q2 in every bin.
        assert_eq!(summary.equilibration.len(), 2);
        let last = summary.equilibration[0].bins.last().unwrap();
        let names: Vec<&String> = last.averages.keys().collect();
        assert_eq!(names, ["e", "q2"]);
        assert!(last.averages["e"].err > 0.0, "two samples give a spread");
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

    /// A diluted Blume-Capel run writes its empty sites (`vacancies.npy`, one lattice a sample),
    /// its series with a sample column and NaN on the empty sites of `final_state.npy`; a run
    /// that reads the file back goes the same way, and its config notes the file.
    #[test]
    fn a_diluted_run_writes_its_vacancies_and_a_run_reading_them_repeats_it() {
        let text = |vacancies: &str| {
            format!(
                "(model: BlumeCapel(dims: 2, size: 4, crystal_field: 0.5, dilution: 0.3),
                  temperatures: Temperatures([1.5]), replicas: 2, samples: 3,
                  sweeps: (thermalize: 10, measure: 20, every: 2),
                  seed: 5, backend: Cpu, {vacancies})"
            )
        };
        let (drawn, summary) = run_vector_config(&text(""));
        assert!(summary.runs[0].zeros.is_some());
        let source = summary.origin.vacancies.as_deref();
        assert_eq!(source, Some("drawn from the seed, dilution 0.3"));
        let read = |dir: &tempfile::TempDir, name: &str| std::fs::read(dir.path().join(name));
        let marks = read(&drawn, "vacancies.npy").unwrap();
        let header_len = 10 + usize::from(u16::from_le_bytes([marks[8], marks[9]]));
        let header = String::from_utf8_lossy(&marks[..header_len]);
        assert!(header.contains("'descr': '|u1'") && header.contains("(3, 4, 4)"));
        let empty = marks[header_len..].iter().filter(|&&m| m == 1).count();
        assert!(empty > 0 && empty < 48, "{empty} of 48 sites empty");
        let series = String::from_utf8(read(&drawn, "timeseries_t00_T1.500.csv").unwrap());
        assert!(
            series
                .unwrap()
                .starts_with("measurement,sweep,sample,replica,E,e,m\n")
        );
        let spins = read(&drawn, "final_state.npy").unwrap();
        let header_len = 10 + usize::from(u16::from_le_bytes([spins[8], spins[9]]));
        let values = spins[header_len..].chunks_exact(4);
        let nans = values.filter(|v| f32::from_le_bytes((*v).try_into().unwrap()).is_nan());
        assert_eq!(nans.count(), 2 * empty, "two replicas of every sample");

        let path = drawn.path().join("vacancies.npy").display().to_string();
        let (again, _) = run_vector_config(&text(&format!("vacancies: File({path:?})")));
        for file in [
            "timeseries_t00_T1.500.csv",
            "final_state.npy",
            "vacancies.npy",
        ] {
            assert_eq!(
                read(&drawn, file).unwrap(),
                read(&again, file).unwrap(),
                "{file}"
            );
        }
        let config = String::from_utf8(read(&again, "config.ron").unwrap()).unwrap();
        assert!(config.contains("// vacancies read from "), "{config}");
    }

    /// A diluted Edwards-Anderson glass runs as two discrete states with replica pairs: its
    /// overlaps, couplings and empty sites are written, and its model is named diluted.
    #[test]
    fn a_diluted_edwards_anderson_run_measures_its_overlaps() {
        let text = "(model: EdwardsAnderson(dims: 2, size: 4, dilution: 0.2),
            temperatures: Betas([0.5, 1.0]), replicas: 2, samples: 2,
            algorithm: Tempering(every: 5),
            sweeps: (thermalize: 20, measure: 40, every: 2), seed: 3, backend: Cpu)";
        let (dir, summary) = run_vector_config(text);
        assert!(
            summary
                .run
                .model
                .starts_with("diluted Edwards-Anderson +-J 2D"),
            "{}",
            summary.run.model
        );
        assert_eq!(summary.spin_glass.len(), 2);
        assert!(summary.spin_glass.iter().all(|g| g.q2.mean > 0.0));
        for file in [
            "couplings.npy",
            "vacancies.npy",
            "overlaps_t00_beta0.5000.csv",
        ] {
            assert!(dir.path().join(file).exists(), "{file}");
        }
    }

    /// The Potts ferromagnet by Swendsen-Wang steps alone: its updates described, no Metropolis
    /// acceptance to report, the series of every measured step; with a Metropolis sweep in each
    /// step, the acceptance is back and the run goes another way.
    #[test]
    fn a_potts_cluster_run_describes_its_steps() {
        let text = |algorithm: &str| {
            format!(
                "(model: Potts(q: 3, dims: 2, size: 8),
                  temperatures: Betas([0.8, 1.2]), replicas: 2,
                  algorithm: {algorithm},
                  sweeps: (thermalize: 20, measure: 40, every: 2), seed: 3, backend: Cpu)"
            )
        };
        let (dir, summary) = run_vector_config(&text("Clusters(update: SwendsenWang)"));
        assert_eq!(
            summary.updates,
            "1 Swendsen-Wang cluster update per step (Fortuin-Kasteleyn bonds)"
        );
        assert!(summary.proposals.is_empty());
        assert_eq!(summary.measurements, 20);
        let e =
            |s: &crate::vector::VectorSummary| s.runs.iter().map(|r| r.e.mean).collect::<Vec<_>>();
        let energies = e(&summary);
        assert!(energies[0] > energies[1], "colder is lower: {energies:?}");
        let series = std::fs::read_to_string(dir.path().join("timeseries_t00_beta0.8000.csv"));
        assert_eq!(series.unwrap().lines().count(), 1 + 20 * 2);
        let mixed = text("Clusters(update: Wolff, clusters: 2, metropolis: 1)");
        let (_, with_sweeps) = run_vector_config(&mixed);
        assert!(
            with_sweeps
                .updates
                .starts_with("2 Wolff cluster updates per step (Fortuin-Kasteleyn bonds), then 1 sweep of Metropolis"),
            "{}",
            with_sweeps.updates
        );
        assert!(with_sweeps.proposals.iter().all(|p| p.acceptance > 0.0));
        assert_ne!(e(&with_sweeps), energies);
        // A clock's reflections: described as such, and no improved estimators from them.
        let clock = mixed.replace(
            "Potts(q: 3, dims: 2, size: 8)",
            "Clock(q: 6, dims: 2, size: 8)",
        );
        let (_, clock) = run_vector_config(&clock);
        assert!(
            clock.updates.starts_with(
                "2 Wolff cluster updates per step (Wolff's embedding: reflections), then 1 sweep"
            ),
            "{}",
            clock.updates
        );
        assert!(clock.clusters.is_empty(), "{:?}", clock.clusters);
        assert!(
            e(&clock)[0] > e(&clock)[1],
            "colder is lower: {:?}",
            e(&clock)
        );
    }

    /// The Gaussian Edwards-Anderson glass runs as two discrete states: its couplings written as
    /// float64 and read back by a second run, which goes the same way.
    #[test]
    fn a_gaussian_edwards_anderson_run_writes_couplings_it_reads_back() {
        let text = |couplings: &str| {
            format!(
                "(model: EdwardsAnderson(dims: 3, size: 4, disorder: Gaussian),
                  temperatures: Betas([0.5, 1.0]), replicas: 2, samples: 2,
                  sweeps: (thermalize: 10, measure: 20, every: 2), seed: 13, backend: Cpu,
                  {couplings})"
            )
        };
        let (drawn, summary) = run_vector_config(&text(""));
        assert!(
            summary
                .run
                .model
                .starts_with("Edwards-Anderson Gaussian 3D")
        );
        assert_eq!(summary.spin_glass.len(), 2);
        let read = |dir: &tempfile::TempDir, name: &str| std::fs::read(dir.path().join(name));
        let couplings = read(&drawn, "couplings.npy").unwrap();
        assert!(String::from_utf8_lossy(&couplings[..128]).contains("'descr': '<f8'"));
        let path = drawn.path().join("couplings.npy").display().to_string();
        let (again, _) = run_vector_config(&text(&format!("couplings: File({path:?})")));
        let series = "timeseries_t00_beta0.5000.csv";
        assert_eq!(read(&drawn, series).unwrap(), read(&again, series).unwrap());
    }
}
