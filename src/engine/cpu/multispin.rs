//! The CPU multispin engine: the reference of the multispin kernels, word for word. Its plans
//! and population calls are the multispin engines' (`engine::backend::multispin`); here the
//! sweeps, measurements, swap rounds, copies and the resampling step on the host.

use std::ops::Range;

use rayon::prelude::*;

use super::multispin_metropolis::sweep_pass;
use super::{
    CpuTempering, copy_lanes, cpu_description, cpu_tempering, exchange, observe_lanes,
    overlap_planes, tempering_state,
};
use crate::engine::annealing::{PopulationHistograms, Resampled, ResamplingTable, resample};
use crate::engine::backend::multispin::{
    MultispinAnnealing, MultispinBackend, MultispinHost, MultispinLattices,
};
use crate::engine::multispin::{LANES, MultispinLayout};
use crate::engine::slabs::{SlabPass, check_slab, exchange_colour, whole_lattices_only};
use crate::engine::tempering::SwapLayout;
use crate::engine::{Halo, Measurements, Plan, Populations, Step, Tempering};
use crate::error::Result;

/// Multispin coding on the CPU's cores, one word system per task.
pub struct CpuMultispinEngine {
    /// The layout, a slab's neighbours and the plan bookkeeping every backend keeps alike.
    host: MultispinHost,
    tables: Vec<u32>,
    couplings: Vec<u32>,
    words: Vec<u32>,
    tempering: Option<CpuTempering>,
    /// The table of the next resampling step, each used once.
    table: Option<ResamplingTable>,
    /// What the last plan measured, as the device kernels leave it in their buffers; the next
    /// plan's resampling step reads its last measurement.
    measured: Measured,
}

/// A plan's measurements, slot after slot.
#[derive(Default)]
struct Measured {
    /// `[slot][g][lane]` up spins and satisfied bonds.
    per_word: Vec<[u64; 2]>,
    /// `[slot][pair][pair count]` of every overlap word pair.
    overlaps: Vec<u32>,
    /// Tempering's labels.
    labels: Vec<u32>,
}

impl CpuMultispinEngine {
    /// An engine for `layout`, every spin down until [`crate::engine::Engine::set_spins`].
    pub fn new(layout: MultispinLayout) -> Self {
        CpuMultispinEngine {
            tables: layout.threshold_tables(),
            couplings: layout.coupling_words(),
            words: vec![0; layout.words() as usize],
            tempering: None,
            table: None,
            measured: Measured::default(),
            host: MultispinHost::new(layout),
        }
    }

    /// An engine of the slab `layout.systems` holds, trading its boundary planes
    /// through `halo` ([`crate::engine::slabs`]); every spin down until
    /// [`crate::engine::Engine::set_spins`].
    pub fn slab(layout: MultispinLayout, halo: Box<dyn Halo>) -> Result<Self> {
        check_slab(&layout)?;
        let mut engine = CpuMultispinEngine::new(layout);
        engine.host.halo = Some(halo);
        Ok(engine)
    }

    /// The passes of update step `step` ([`SlabPass`]): each on its planes of every word
    /// system, then a slab's exchange of the colour's boundary planes where the pass is
    /// complete.
    fn update(&mut self, step: &Step) -> Result<()> {
        for pass in SlabPass::of(&self.host.layout, step) {
            // The dispatch's colour is the pass (MultispinLayout::sweep_passes).
            let sweep_pass = (pass.params.sweep, pass.params.colour);
            self.update_planes(sweep_pass, pass.planes.clone());
            if pass.exchange {
                self.exchange(pass.colour())?;
            }
        }
        Ok(())
    }

    /// Pass `pass` of sweep `sweep` on the own planes `planes` of every word system.
    fn update_planes(&mut self, pass: (u32, u32), planes: Range<u32>) {
        let len = self.layout().system_words() as usize;
        let layout = &self.host.layout;
        let arrays = (self.tables.as_slice(), self.couplings.as_slice());
        self.words
            .par_chunks_mut(len)
            .enumerate()
            .for_each(|(g, words)| {
                sweep_pass(layout, arrays, words, g as u32, pass, planes.clone());
            });
    }

    /// A slab's halo exchange of `colour` (nothing for whole lattices).
    fn exchange(&mut self, colour: u32) -> Result<()> {
        match self.host.halo.as_deref_mut() {
            Some(halo) => {
                exchange_colour(&self.host.layout, halo, self.words.as_mut_slice(), colour)
            }
            None => Ok(()),
        }
    }

    /// `[g][lane]` up spins and satisfied bonds of every word system.
    fn observe(&self) -> Vec<[u64; 2]> {
        let (layout, couplings) = (self.layout(), &self.couplings);
        let len = layout.system_words() as usize;
        self.words
            .par_chunks(len)
            .enumerate()
            .flat_map_iter(|(g, words)| observe_lanes(layout, couplings, words, g as u32))
            .collect()
    }

    fn swap(&mut self, sweep: u32, parity: u32) {
        let counts = self.layout().systems_of_words(&self.observe(), 1);
        let tempering = self
            .tempering
            .as_mut()
            .expect("swap rounds without tempering are refused by prepare_slots");
        let counts = bytemuck::cast_slice(&counts);
        let masks = tempering.round(self.host.layout.systems.seed, sweep, parity, counts);
        let system_words = self.host.layout.system_words() as usize;
        exchange(
            &tempering.swaps,
            parity,
            &masks,
            system_words,
            &mut self.words,
        );
    }

    /// `[pair][pair count]` of every overlap word pair.
    fn overlaps(&self) -> Vec<u32> {
        let (layout, words) = (self.layout(), &self.words);
        let len = layout.system_words() as usize;
        let system = |g: u32| &words[g as usize * len..][..len];
        layout
            .overlap_word_pairs()
            .par_iter()
            .flat_map_iter(|&(a, b)| overlap_planes(layout, system(a), system(b)))
            .collect()
    }

    /// A measurement: the observations, the overlaps and tempering's labels.
    fn measure(&mut self) {
        let per_word = self.observe();
        let overlaps = self.overlaps();
        self.measured.per_word.extend(per_word);
        self.measured.overlaps.extend(overlaps);
        if let Some(tempering) = &self.tempering {
            self.measured.labels.extend(tempering.history_labels());
        }
    }
}

impl MultispinLattices for CpuMultispinEngine {
    const BACKEND: &'static str = "cpu";

    fn layout(&self) -> &MultispinLayout {
        &self.host.layout
    }

    fn adapter_and_driver(&self) -> (String, String) {
        (cpu_description(), String::new())
    }

    fn write_words(&mut self, words: &[u32]) -> Result<()> {
        self.words.copy_from_slice(words);
        Ok(())
    }

    fn read_words(&mut self) -> Result<Vec<u32>> {
        Ok(self.words.clone())
    }

    fn hot_start_words(&mut self) -> Result<()> {
        super::hot_start::hot_start_words(&self.host.layout, &mut self.words);
        Ok(())
    }

    fn exchange_both(&mut self) -> Result<()> {
        (0..2).try_for_each(|colour| self.exchange(colour))
    }
}

impl Tempering for CpuMultispinEngine {
    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        whole_lattices_only(&self.host.halo, "parallel tempering")?;
        let swaps = SwapLayout::multispin(self.layout());
        self.tempering = Some(cpu_tempering(&self.layout().systems, swaps, state)?);
        Ok(())
    }

    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        Ok(tempering_state(&self.tempering))
    }
}

impl MultispinBackend for CpuMultispinEngine {
    const NAME: &'static str = "multispin CPU";

    fn host(&mut self) -> &mut MultispinHost {
        &mut self.host
    }

    fn prepare_slots(&mut self, plan: &Plan) -> Result<()> {
        plan.swaps(self.tempering.is_some())?;
        let pairs = plan.slots as usize * (self.layout().word_systems() * LANES) as usize;
        self.measured = Measured {
            per_word: Vec::with_capacity(pairs),
            ..Measured::default()
        };
        Ok(())
    }

    /// The plan's steps one after another, each over every word system in parallel.
    fn launch_plan(&mut self, plan: &Plan) -> Result<()> {
        for step in &plan.steps {
            match *step {
                // Replayed before the plan's launches (`MultispinAnnealing::enqueue_resample`).
                Step::Resample { .. } => {}
                Step::Observe { .. } | Step::Cluster { .. } | Step::ClusterPart { .. } => {
                    unreachable!("refused by multispin::execute")
                }
                Step::Sweep { .. } | Step::Part { .. } => self.update(step)?,
                Step::Swap { sweep, parity } => self.swap(sweep, parity),
                Step::Measure { .. } => self.measure(),
            }
        }
        Ok(())
    }

    fn wait(&mut self) -> Result<()> {
        Ok(())
    }

    fn read_measurements(&mut self, slots: u32) -> Result<Measurements> {
        let measured = &mut self.measured;
        let mut measurements =
            (self.host.layout).measurements(&measured.per_word, &measured.overlaps, slots);
        measurements.labels = std::mem::take(&mut measured.labels);
        Ok(measurements)
    }
}

/// Population annealing on the host: the resampling step from the last measurement's counts
/// ([`resample`], the device kernels' reference), its copies made at once.
impl MultispinAnnealing for CpuMultispinEngine {
    type PendingStep = Resampled;

    fn enqueue_resample(&mut self, step: u32, base: u32) -> Result<Resampled> {
        let table = self
            .table
            .take()
            .ok_or_else(crate::engine::annealing::no_table)?;
        let layout = self.layout();
        let words = (layout.word_systems() * LANES) as usize;
        let measured = &self.measured.per_word[base as usize..][..words];
        let satisfied: Vec<u64> = (layout.systems_of_words(measured, 1).iter())
            .map(|o| o.satisfied)
            .collect();
        let resampled = resample(&table, layout.systems.seed, step, &satisfied)?;
        self.copy_systems(&resampled.sources)?;
        Ok(resampled)
    }

    /// The host resamples without kernels.
    fn resamples(&self) -> bool {
        true
    }

    fn enqueue_histograms(&mut self, _base: u32) -> Result<()> {
        unreachable!("the CPU engine counts no histograms (set_population_sizes)")
    }

    fn read_resampled(
        &mut self,
        step: Option<Resampled>,
        _histograms: bool,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)> {
        Ok((step.map(|r| r.copies).unwrap_or_default(), None))
    }

    fn thresholds_compiled(&self) -> bool {
        false
    }

    fn write_thresholds(&mut self) -> Result<()> {
        self.tables = self.layout().threshold_tables();
        Ok(())
    }

    fn copy_lanes(&mut self, map: &[u32]) -> Result<()> {
        copy_lanes(&self.host.layout, map, &mut self.words);
        Ok(())
    }

    fn set_resampling_table(&mut self, table: &ResamplingTable) -> Result<()> {
        table.check(self.layout().systems.systems())?;
        self.table = Some(table.clone());
        Ok(())
    }

    /// Every system's counts come back, as from the simple engines: no histograms.
    fn set_population_sizes(&mut self, _slots: u32, _sizes: &[u32]) -> Result<bool> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::multispin::fixtures::all_layouts;
    use crate::engine::{Engine, Observation};
    use crate::model::ising::IsingSystems;
    use crate::model::lattices::is_kagome_hole;

    /// What a measurement counts, computed site by site.
    #[derive(Default)]
    struct Direct {
        observations: Vec<Observation>,
        /// Per-plane overlap differences.
        planes: Vec<u32>,
        /// Bonds with `q_i q_j = -1`.
        links: Vec<u64>,
    }

    fn direct(systems: &IsingSystems, spins: &[i32]) -> Direct {
        let lattice = systems.lattice;
        let n = lattice.sites() as usize;
        let lattice_of = |b: u32| &spins[b as usize * n..][..n];
        let observations = (0..systems.systems())
            .map(|b| {
                let sample = systems.sample_of(b);
                let j = systems.coupling_signs(sample);
                let s = lattice_of(b);
                let mut o = Observation::default();
                let spins = (0..n as u64).filter(|&site| !is_kagome_hole(&lattice, site));
                for site in spins {
                    o.up += u64::from(s[site as usize] > 0);
                    let forward = lattice.forward_neighbours(site).enumerate();
                    for (d, f) in forward.filter(|&(_, f)| !is_kagome_hole(&lattice, f)) {
                        let bond = i32::from(j[site as usize * lattice.directions() as usize + d]);
                        o.satisfied += u64::from(bond * s[site as usize] * s[f as usize] > 0);
                    }
                }
                o
            })
            .collect();
        let mut measured = Direct {
            observations,
            ..Direct::default()
        };
        // Bonds that join two spins (none across an open edge).
        let j = systems.coupling_signs(0);
        let joined =
            |site: u64, d: usize| j[site as usize * lattice.directions() as usize + d] != 0;
        for k in 0..systems.overlaps() {
            let (a, b) = systems.overlap_systems(k);
            let (a, b) = (lattice_of(a), lattice_of(b));
            let q = |site: u64| a[site as usize] * b[site as usize];
            let mut counts = vec![0u32; lattice.size as usize];
            let mut links = 0;
            for site in (0..n as u64).filter(|&site| !is_kagome_hole(&lattice, site)) {
                if q(site) < 0 {
                    counts[lattice.coords(site)[0] as usize] += 1;
                }
                let differing = (lattice.forward_neighbours(site).enumerate()).filter(|&(d, f)| {
                    !is_kagome_hole(&lattice, f) && joined(site, d) && q(site) != q(f)
                });
                links += differing.count() as u64;
            }
            measured.planes.extend(counts);
            measured.links.push(links);
        }
        measured
    }

    #[test]
    fn measurements_equal_site_by_site_counts() {
        let engines = all_layouts().into_iter().map(CpuMultispinEngine::new);
        for mut engine in engines {
            let systems = engine.host.layout.systems.clone();
            let spins = crate::engine::cpu::hot_start::initial_spins(&systems);
            engine.set_spins(&spins.clone().into()).unwrap();
            let mut plan = Plan::default();
            plan.sweep(0);
            plan.measure();
            plan.sweep(1);
            plan.measure();
            let measured = engine.execute(&plan).unwrap();
            let mut expected = Direct::default();
            let mut one = Plan::default();
            for sweep in 0..2 {
                let mut fresh = CpuMultispinEngine::new(engine.host.layout.clone());
                fresh.set_spins(&spins.clone().into()).unwrap();
                for s in 0..=sweep {
                    one.steps = vec![Step::Sweep { sweep: s }];
                    fresh.execute(&one).unwrap();
                }
                let one = direct(
                    &systems,
                    &fresh.spins().unwrap().into_bits().unwrap().to_signs(),
                );
                expected.observations.extend(one.observations);
                expected.planes.extend(one.planes);
                expected.links.extend(one.links);
            }
            let case = engine.host.layout.describe();
            assert_eq!(measured.observations, expected.observations, "{case}");
            assert_eq!(measured.overlap_planes, expected.planes, "{case}");
            let glass = systems.overlaps() > 0;
            assert_eq!(!measured.overlap_planes.is_empty(), glass, "{case}");
            assert_eq!(measured.link_overlaps, expected.links, "{case}");
            // Hot-start lattices have differing bonds but not every bond differing.
            let bonds = systems.links();
            assert!(
                measured.link_overlaps.iter().all(|&b| 0 < b && b < bonds),
                "{case}"
            );
        }
    }

    /// One swap round on unpacked lattices: every accepted pair exchanges whole lattices.
    fn reference_swap(systems: &IsingSystems, spins: &mut [i32], sweep: u32, parity: u32) -> u32 {
        use crate::engine::cpu::swap_uniforms;
        use crate::engine::tempering::{Chains, accept_swap, swap_tables};
        let tables = swap_tables(systems).unwrap();
        let chains = Chains::of(systems);
        let counts: Vec<[u64; 2]> = direct(systems, spins)
            .observations
            .iter()
            .map(|o| [o.up, o.satisfied])
            .collect();
        let n = systems.lattice.sites() as usize;
        let mut accepted = 0;
        for c in 0..chains.sets {
            for k in (parity..chains.temperatures - 1).step_by(2) {
                let (a, b) = (
                    chains.system(k, c) as usize,
                    chains.system(k + 1, c) as usize,
                );
                let u = swap_uniforms(systems.seed, sweep, k, c);
                if accept_swap(&tables, k, counts[a], counts[b], u) {
                    accepted += 1;
                    let (low, high) = spins.split_at_mut(b * n);
                    low[a * n..][..n].swap_with_slice(&mut high[..n]);
                }
            }
        }
        accepted
    }

    #[test]
    fn swaps_exchange_the_lattices_of_accepted_pairs_in_every_layout() {
        use crate::config::{Lanes, Layout};
        use crate::engine::multispin::fixtures::layout;
        use crate::engine::tempering::Chains;
        let replica_lanes = Layout::Amsc {
            lanes: Lanes::Replicas,
        };
        let layouts = all_layouts()
            .into_iter()
            .chain([layout(2, 4, replica_lanes, 2, 64, 3)])
            .filter(|l| l.systems.betas.len() > 1);
        let mut tested = Vec::new();
        for layout in layouts {
            let systems = layout.systems.clone();
            let case = layout.describe();
            let mut engine = CpuMultispinEngine::new(layout);
            let mut expected = crate::engine::cpu::hot_start::initial_spins(&systems).to_signs();
            let bits = |signs: &[i32]| {
                crate::engine::SpinBits::from_signs(
                    systems.systems(),
                    systems.lattice.sites(),
                    signs,
                )
            };
            engine.set_spins(&bits(&expected).into()).unwrap();
            engine
                .set_tempering(&Chains::of(&systems).initial_state())
                .unwrap();
            let mut accepted = 0;
            for sweep in 0..4 {
                let mut plan = Plan::default();
                plan.sweep(sweep);
                engine.execute(&plan).unwrap();
                expected = engine.spins().unwrap().into_bits().unwrap().to_signs();
                plan.steps = vec![Step::Swap {
                    sweep,
                    parity: sweep % 2,
                }];
                engine.execute(&plan).unwrap();
                accepted += reference_swap(&systems, &mut expected, sweep, sweep % 2);
                assert_eq!(
                    engine.spins().unwrap().into_bits().unwrap(),
                    bits(&expected),
                    "{case} sweep {sweep}"
                );
            }
            let state = engine.tempering_state().unwrap();
            let chains = Chains::of(&systems);
            let counted: u32 = state[3 * chains.section_words()..].iter().sum();
            assert_eq!(counted, accepted, "{case}");
            assert!(
                accepted > 0,
                "{case}: no swap was accepted, so nothing was tested"
            );
            tested.push(case);
        }
        assert_eq!(tested.len(), 12, "every exchange kind: {tested:?}");
    }

    /// Pieces of sweeps ([`Step::Part`]) give the whole sweeps' lattices, measurements and
    /// tempering bit for bit. Each sweep is cut into two plans at another unit (pass `p` on
    /// plane `k` is unit `p L + k`, [`Plan::sweep_units`]), the first ending with an empty piece:
    /// at the start, inside and between the colours, at the end; the measurement and the swap
    /// round follow the sweep's last piece. In every layout, with packed randoms (runs of four and
    /// of two words), and on a lattice whose pieces of many planes update their rows in parallel.
    #[test]
    fn pieces_of_sweeps_equal_whole_sweeps() {
        use crate::config::{Lanes, Layout, MultispinOptions, Randoms};
        use crate::engine::multispin::fixtures::{ferromagnet_layout, layout};
        use crate::engine::tempering::Chains;
        let packed = |layout: MultispinLayout| {
            let randoms = Randoms::Packed;
            let options = MultispinOptions {
                layout: layout.layout,
                randoms,
            };
            MultispinLayout::new(layout.systems, options)
        };
        let samples = Layout::Amsc {
            lanes: Lanes::Samples,
        };
        // The triangular lattice's sweeps are whole (MultispinLayout::sweep_parts).
        let layouts = all_layouts().into_iter().filter(|l| l.sweep_parts());
        let layouts = layouts.chain([
            packed(ferromagnet_layout(2, 256, Layout::Smsc, 2)),
            packed(layout(3, 4, samples, 64, 2, 2)),
            // 65536 words a colour: a piece of all planes but one goes parallel.
            ferromagnet_layout(2, 2048, Layout::Smsc, 1),
        ]);
        let mut accepted = 0;
        for layout in layouts {
            let (case, systems) = (layout.describe(), layout.systems.clone());
            let tempering = systems.betas.len() > 1;
            let spins = crate::engine::cpu::hot_start::initial_spins(&systems).into();
            let open = || {
                let mut engine = CpuMultispinEngine::new(layout.clone());
                engine.set_spins(&spins).unwrap();
                if tempering {
                    let state = Chains::of(&systems).initial_state();
                    engine.set_tempering(&state).unwrap();
                }
                engine
            };
            let (mut whole, mut pieces) = (open(), open());
            let l = systems.lattice.size;
            for (sweep, cut) in (0..).zip([0, 1, l - 1, l, l + 1, 2 * l - 1, 2 * l]) {
                let [mut first, mut last, mut reference] = [(); 3].map(|()| Plan::default());
                first.sweep_units(sweep, (2, l), 0..cut.into());
                let pass = (cut / l).min(1);
                let plane = cut - pass * l;
                first.part(sweep, pass, plane..plane);
                last.sweep_units(sweep, (2, l), cut.into()..(2 * l).into());
                reference.sweep(sweep);
                for plan in [&mut last, &mut reference] {
                    plan.measure();
                    if tempering {
                        plan.swap(sweep, sweep % 2);
                    }
                }
                let expected = whole.execute(&reference).unwrap();
                pieces.execute(&first).unwrap();
                let got = pieces.execute(&last).unwrap();
                assert_eq!(got, expected, "{case}: sweep {sweep} cut at {cut}");
                assert_eq!(
                    pieces.words, whole.words,
                    "{case}: sweep {sweep} cut at {cut}"
                );
            }
            assert_ne!(pieces.spins().unwrap(), spins, "{case}: nothing moved");
            let state = pieces.tempering_state().unwrap();
            assert_eq!(state, whole.tempering_state().unwrap(), "{case}");
            if tempering {
                let chains = Chains::of(&systems);
                accepted += state[3 * chains.section_words()..].iter().sum::<u32>();
            }
        }
        assert!(
            accepted > 0,
            "no swap was accepted, so rounds were not tested"
        );
    }

    /// Pieces of a sweep that are no colour's update on planes of the lattice are refused before
    /// anything runs.
    #[test]
    fn pieces_of_no_colour_or_beyond_the_planes_are_refused() {
        let layout = all_layouts().swap_remove(0);
        let l = layout.lattice().size;
        let mut engine = CpuMultispinEngine::new(layout);
        assert!(engine.sweep_parts());
        for (pass, planes) in [(2, [0, 1]), (1, [3, 2]), (0, [l - 1, l + 1])] {
            let mut plan = Plan::default();
            plan.steps.push(Step::Part {
                sweep: 0,
                pass,
                planes,
            });
            let error = engine.execute(&plan).unwrap_err().to_string();
            assert!(
                error.contains("is no piece of a sweep of 2 passes"),
                "{error}"
            );
        }
    }

    fn bytes<T>(v: &[T]) -> u64 {
        std::mem::size_of_val(v) as u64
    }

    /// What the engine holds after a plan of sweeps, swap rounds and measurements stays within
    /// its footprint, whose lattices are its spin words exactly, in every layout.
    #[test]
    fn the_footprint_bounds_what_the_engine_holds() {
        use crate::engine::memory::{Footprint, Uses};
        use crate::engine::tempering::Chains;
        for layout in all_layouts() {
            let mut engine = CpuMultispinEngine::new(layout.clone());
            let state = Chains::of(&layout.systems).initial_state();
            engine.set_tempering(&state).unwrap();
            let mut plan = Plan::default();
            for sweep in 0..3 {
                plan.sweep(sweep);
                plan.measure();
                plan.swap(sweep, sweep % 2);
            }
            engine.prepare_slots(&plan).unwrap();
            engine.launch_plan(&plan).unwrap();
            let uses = Uses {
                tempering: true,
                ..Uses::default()
            };
            let footprint = Footprint::multispin(&layout, uses);
            let what = layout.describe();
            assert_eq!(footprint.lattices, bytes(&engine.words), "{what}");
            let tempering = engine.tempering.as_ref().unwrap();
            let tables = bytes(&engine.tables)
                + bytes(&engine.couplings)
                + bytes(&tempering.tables)
                + bytes(&tempering.state);
            assert!(
                tables <= footprint.tables,
                "{what}: {tables} > {footprint:?}"
            );
            let measured = &engine.measured;
            let slots =
                bytes(&measured.per_word) + bytes(&measured.overlaps) + bytes(&measured.labels);
            assert!(slots <= footprint.slots, "{what}: {slots} > {footprint:?}");
            let read = bytes(&engine.read_words().unwrap());
            let bits = layout.systems.spin_count().div_ceil(8) as u64;
            assert!(read + bits <= footprint.travel, "{what}: {footprint:?}");
        }
    }
}
