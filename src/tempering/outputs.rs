//! The files and warnings of a finished parallel-tempering run: its diagnostics (swap
//! acceptance per pair, round trips), `temperature_history.csv` and `round_trips.csv`.

use std::path::Path;

use super::{LOW_ACCEPTANCE, TemperingDiagnostics, round_trips_of, tempering_diagnostics};
use crate::config::TemperatureScale;
use crate::engine::tempering::Chains;
use crate::error::Result;
use crate::io::output::write_file;
use crate::model::systems::SystemIndex;

/// File names in the output directory.
const TEMPERATURE_HISTORY: &str = "temperature_history.csv";
const ROUND_TRIPS: &str = "round_trips.csv";

/// The files a tempering run writes besides those of every run.
pub const TEMPERING_FILES: [&str; 2] = [TEMPERATURE_HISTORY, ROUND_TRIPS];

/// The diagnostics of a tempering run of `systems` (Ising or vector spins, their betas the
/// ladder, bottom to top) that has swapped every `every` sweeps, from the engine's
/// tempering state `state` with the acceptances counted over the sweeps `counted`
/// (`(from, to)`: from the ladder's last tuning to the end), and logged where they make the
/// run untrustworthy; with `temperature_history.csv` (from `history`, the recorded walker
/// labels; measurement `m` followed sweep `sweep_of(m)`) and `round_trips.csv` in `out`.
pub fn finish_tempering(
    out: &Path,
    systems: &SystemIndex,
    (state, history): (&[u32], &[u32]),
    every: u64,
    counted: (u64, u64),
    sweep_of: impl Fn(u64) -> u64,
) -> Result<TemperingDiagnostics> {
    let chains = Chains::of(systems);
    let diagnostics = tempering_diagnostics(&chains, state, &systems.betas, every, counted);
    write_file(
        out,
        TEMPERATURE_HISTORY,
        temperature_history_csv(systems, history, sweep_of).as_bytes(),
    )?;
    write_file(
        out,
        ROUND_TRIPS,
        round_trips_csv(systems, state, counted.1).as_bytes(),
    )?;
    Ok(diagnostics)
}

/// What makes a tempering run untrustworthy, in words: pairs that hardly swap, chains that
/// never crossed the ladder (the run's equilibration verdict fails on these); temperatures in
/// `scale`.
pub fn tempering_warnings(d: &TemperingDiagnostics, scale: TemperatureScale) -> Vec<String> {
    let mut warnings: Vec<String> = (d.acceptance.iter().enumerate())
        .filter(|&(_, &a)| a < LOW_ACCEPTANCE)
        .map(|(k, &a)| {
            format!(
                "tempering: swaps between {} and {} were accepted {:.1}% of the time; \
                 add temperatures between them",
                scale.show(d.betas[k]),
                scale.show(d.betas[k + 1]),
                100.0 * a
            )
        })
        .collect();
    if d.chain_sets_without_round_trip > 0 {
        warnings.push(format!(
            "tempering: {} chains had no walker cross the ladder and back (round trip); \
             their low-temperature results are not in equilibrium: run longer",
            d.chain_sets_without_round_trip
        ));
    }
    warnings
}

/// `temperature_history.csv`: at each measurement, the temperature of every walker of every
/// chain of sample 0; measurement `m` followed sweep `sweep_of(m)`.
fn temperature_history_csv(
    systems: &SystemIndex,
    history: &[u32],
    sweep_of: impl Fn(u64) -> u64,
) -> String {
    use std::fmt::Write as _;
    let temperatures = systems.betas.len();
    let mut csv = String::from("measurement,sweep,chain,walker,temperature_index,beta\n");
    let per_measurement = systems.replicas as usize * temperatures;
    for (m, labels) in history.chunks(per_measurement.max(1)).enumerate() {
        let sweep = sweep_of(m as u64);
        for (r, walkers) in labels.chunks(temperatures).enumerate() {
            for (k, walker) in walkers.iter().enumerate() {
                let beta = systems.betas[k];
                let _ = writeln!(csv, "{m},{sweep},{r},{walker},{k},{beta}");
            }
        }
    }
    csv
}

/// `round_trips.csv`: per chain (sample, replica) the round trips of its walkers and the sweeps
/// per round trip (`sweeps x walkers / trips`, empty without any).
fn round_trips_csv(systems: &SystemIndex, state: &[u32], sweeps: u64) -> String {
    use std::fmt::Write as _;
    let chains = Chains::of(systems);
    let mut csv = String::from("sample,chain,round_trips,sweeps_per_round_trip\n");
    for c in 0..chains.sets {
        let trips = round_trips_of(&chains, state, c);
        let per_trip = match trips {
            0 => String::new(),
            _ => format!(
                "{}",
                (sweeps * u64::from(chains.temperatures)) as f64 / trips as f64
            ),
        };
        let (sample, chain) = (c / systems.replicas, c % systems.replicas);
        let _ = writeln!(csv, "{sample},{chain},{trips},{per_trip}");
    }
    csv
}
