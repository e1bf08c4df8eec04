//! The CPU multispin engine: the reference of the multispin kernels, word for word.

use rayon::prelude::*;

use super::multispin_metropolis::sweep_colour;
use super::{
    CpuTempering, copy_lanes, cpu_description, cpu_tempering, exchange, observe_lanes,
    overlap_planes,
};
use crate::engine::annealing::{HostResampling, ResamplingTable};
use crate::engine::multispin::{LANES, MultispinLayout};
use crate::engine::slabs::{check_slab, exchange_colour, whole_lattices_only};
use crate::engine::tempering::SwapLayout;
use crate::engine::{
    Engine, EngineInfo, Halo, Lattices, Measurements, Plan, Populations, Step, Tempering,
    check_betas, check_copy_map, no_tempering,
};
use crate::error::Result;

/// Multispin coding on the CPU's cores, one word system per task.
pub struct CpuMultispinEngine {
    layout: MultispinLayout,
    tables: Vec<u32>,
    couplings: Vec<u32>,
    words: Vec<u32>,
    tempering: Option<CpuTempering>,
    resampling: HostResampling,
    /// The neighbours of a slab ([`crate::engine::slabs`]); `None` for whole lattices.
    halo: Option<Box<dyn Halo>>,
}

impl CpuMultispinEngine {
    /// An engine for `layout`, every spin down until [`Engine::set_spins`].
    pub fn new(layout: MultispinLayout) -> Self {
        CpuMultispinEngine {
            tables: layout.threshold_tables(),
            couplings: layout.coupling_words(),
            words: vec![0; layout.words() as usize],
            tempering: None,
            resampling: HostResampling::default(),
            halo: None,
            layout,
        }
    }

    /// An engine of the slab `layout.systems` holds, trading its boundary planes
    /// through `halo` ([`crate::engine::slabs`]); every spin down until [`Engine::set_spins`].
    pub fn slab(layout: MultispinLayout, halo: Box<dyn Halo>) -> Result<Self> {
        check_slab(&layout)?;
        Ok(CpuMultispinEngine {
            halo: Some(halo),
            ..CpuMultispinEngine::new(layout)
        })
    }

    /// Colour 0 of every word system, then colour 1, each followed by a slab's exchange of the
    /// colour's boundary planes.
    fn sweep(&mut self, sweep: u32) -> Result<()> {
        let len = self.layout.system_words() as usize;
        for colour in 0..2 {
            let (layout, tables, couplings) = (&self.layout, &self.tables, &self.couplings);
            self.words
                .par_chunks_mut(len)
                .enumerate()
                .for_each(|(g, words)| {
                    sweep_colour(layout, tables, couplings, words, g as u32, sweep, colour);
                });
            self.exchange(colour)?;
        }
        Ok(())
    }

    /// A slab's halo exchange of `colour` (nothing for whole lattices).
    fn exchange(&mut self, colour: u32) -> Result<()> {
        match self.halo.as_deref_mut() {
            Some(halo) => exchange_colour(&self.layout, halo, self.words.as_mut_slice(), colour),
            None => Ok(()),
        }
    }

    /// Make a slab's halos of both colours current (after new spins).
    fn exchange_both(&mut self) -> Result<()> {
        (0..2).try_for_each(|colour| self.exchange(colour))
    }

    /// `[g][lane]` up spins and satisfied bonds of every word system.
    fn observe(&self) -> Vec<[u64; 2]> {
        let (layout, couplings) = (&self.layout, &self.couplings);
        let len = layout.system_words() as usize;
        self.words
            .par_chunks(len)
            .enumerate()
            .flat_map_iter(|(g, words)| observe_lanes(layout, couplings, words, g as u32))
            .collect()
    }

    fn swap(&mut self, sweep: u32, parity: u32) -> Result<()> {
        let counts = self.layout.systems_of_words(&self.observe(), 1);
        let tempering = self.tempering.as_mut().ok_or_else(no_tempering)?;
        let counts = bytemuck::cast_slice(&counts);
        let masks = tempering.round(self.layout.systems.seed, sweep, parity, counts);
        let system_words = self.layout.system_words() as usize;
        exchange(
            &tempering.swaps,
            parity,
            &masks,
            system_words,
            &mut self.words,
        );
        Ok(())
    }

    /// `[pair][pair count]` of every overlap word pair.
    fn overlaps(&self) -> Vec<u32> {
        let (layout, words) = (&self.layout, &self.words);
        let len = layout.system_words() as usize;
        let system = |g: u32| &words[g as usize * len..][..len];
        layout
            .overlap_word_pairs()
            .par_iter()
            .flat_map_iter(|&(a, b)| overlap_planes(layout, system(a), system(b)))
            .collect()
    }
}

impl Engine for CpuMultispinEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            backend: "cpu".into(),
            engine: self.layout.describe(),
            adapter: cpu_description(),
            driver: String::new(),
        }
    }

    fn set_spins(&mut self, spins: &Lattices) -> Result<()> {
        let spins = spins.bits()?;
        spins.check_fits(&self.layout.systems)?;
        self.words = self.layout.pack(spins);
        self.exchange_both()
    }

    fn hot_start(&mut self) -> Result<()> {
        super::hot_start::hot_start_words(&self.layout, &mut self.words);
        self.exchange_both()
    }

    fn spins(&mut self) -> Result<Lattices> {
        Ok(self.layout.unpack(&self.words).into())
    }

    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        let words = self.layout.word_systems() as usize;
        let mut per_word = Vec::with_capacity(plan.slots as usize * words * LANES as usize);
        let mut overlaps = Vec::new();
        let mut labels = Vec::new();
        plan.refuse_observe()?;
        let (resample, steps) = plan.split_resample()?;
        if resample.is_some() {
            whole_lattices_only(&self.halo, "population annealing (resampling)")?;
        }
        let resampled = self.resampling.replay(self.layout.systems.seed, resample)?;
        if let Some(resampled) = &resampled {
            copy_lanes(&self.layout, &resampled.sources, &mut self.words);
        }
        for step in steps {
            match *step {
                Step::Resample { .. } => unreachable!("split off above"),
                Step::Observe { .. } => unreachable!("refused above"),
                Step::Sweep { sweep } => self.sweep(sweep)?,
                Step::Swap { sweep, parity } => self.swap(sweep, parity)?,
                Step::Cluster { .. } => return Err(crate::engine::clusters::no_clusters()),
                Step::Measure { .. } => {
                    per_word.extend(self.observe());
                    overlaps.extend(self.overlaps());
                    if let Some(tempering) = &self.tempering {
                        labels.extend(tempering.history_labels());
                    }
                }
            }
        }
        let mut measurements = self.layout.measurements(&per_word, &overlaps, plan.slots);
        measurements.labels = labels;
        measurements.copies = resampled.map(|r| r.copies).unwrap_or_default();
        self.resampling.record(&measurements, plan.slots);
        Ok(measurements)
    }

    fn tempering(&mut self) -> Option<&mut dyn Tempering> {
        Some(self)
    }

    fn populations(&mut self) -> Option<&mut dyn Populations> {
        Some(self)
    }
}

impl Tempering for CpuMultispinEngine {
    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        whole_lattices_only(&self.halo, "parallel tempering")?;
        let swaps = SwapLayout::multispin(&self.layout);
        self.tempering = Some(cpu_tempering(&self.layout.systems, swaps, state)?);
        Ok(())
    }

    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        Ok(self
            .tempering
            .as_ref()
            .map_or_else(Vec::new, |t| t.state.clone()))
    }
}

impl Populations for CpuMultispinEngine {
    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        whole_lattices_only(&self.halo, "population annealing (set_betas)")?;
        check_betas(&self.layout.systems, betas)?;
        self.layout.systems.betas = betas.to_vec();
        self.tables = self.layout.threshold_tables();
        Ok(())
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        whole_lattices_only(&self.halo, "population annealing (copy_systems)")?;
        check_copy_map(&self.layout.systems, sources)?;
        copy_lanes(&self.layout, sources, &mut self.words);
        Ok(())
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        whole_lattices_only(&self.halo, "population annealing (resampling)")?;
        self.resampling
            .set_table(table, self.layout.systems.systems())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Observation;
    use crate::engine::multispin::fixtures::all_layouts;
    use crate::model::couplings::coupling_values;
    use crate::model::ising::IsingSystems;

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
                let j = coupling_values(systems.disorder, &lattice, systems.seed, sample);
                let s = lattice_of(b);
                let mut o = Observation::default();
                for site in 0..n as u64 {
                    o.up += u64::from(s[site as usize] > 0);
                    for (d, f) in lattice.forward_neighbours(site).enumerate() {
                        let bond = i32::from(j[site as usize * lattice.dims as usize + d]);
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
        for k in 0..systems.overlaps() {
            let (a, b) = systems.overlap_systems(k);
            let (a, b) = (lattice_of(a), lattice_of(b));
            let q = |site: u64| a[site as usize] * b[site as usize];
            let mut counts = vec![0u32; lattice.size as usize];
            let mut links = 0;
            for site in 0..n as u64 {
                if q(site) < 0 {
                    counts[lattice.coords(site)[0] as usize] += 1;
                }
                let differing = lattice
                    .forward_neighbours(site)
                    .filter(|&f| q(site) != q(f));
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
            let systems = engine.layout.systems.clone();
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
                let mut fresh = CpuMultispinEngine::new(engine.layout.clone());
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
            let case = engine.layout.describe();
            assert_eq!(measured.observations, expected.observations, "{case}");
            assert_eq!(measured.overlap_planes, expected.planes, "{case}");
            assert!(!measured.overlap_planes.is_empty(), "{case}");
            assert_eq!(measured.link_overlaps, expected.links, "{case}");
            // Hot-start lattices have differing bonds but not every bond differing.
            let bonds = u64::from(systems.lattice.dims) * systems.lattice.sites();
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
        assert_eq!(tested.len(), 4, "every exchange kind: {tested:?}");
    }
}
