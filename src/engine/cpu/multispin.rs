//! The CPU multispin engine: the reference of the multispin kernels, word for word.

use rayon::prelude::*;

use super::multispin_metropolis::sweep_colour;
use super::{cpu_description, observe_lanes, overlap_planes};
use crate::engine::multispin::{LANES, MultispinLayout};
use crate::engine::{Engine, EngineInfo, Measurements, Plan, Step, check_spin_count};
use crate::error::Result;

/// Multispin coding on the CPU's cores, one word system per task.
pub struct CpuMultispinEngine {
    layout: MultispinLayout,
    tables: Vec<u32>,
    couplings: Vec<u32>,
    words: Vec<u32>,
}

impl CpuMultispinEngine {
    /// An engine for `layout`, every spin down until [`Engine::set_spins`].
    pub fn new(layout: MultispinLayout) -> Self {
        CpuMultispinEngine {
            tables: layout.threshold_tables(),
            couplings: layout.coupling_words(),
            words: vec![0; layout.words() as usize],
            layout,
        }
    }

    fn word_systems(&mut self) -> impl IndexedParallelIterator<Item = (u32, &mut [u32])> {
        let len = self.layout.system_words() as usize;
        self.words
            .par_chunks_mut(len)
            .enumerate()
            .map(|(g, words)| (g as u32, words))
    }

    fn sweep(&mut self, sweep: u32) {
        let layout = self.layout.clone();
        let (tables, couplings) = (
            std::mem::take(&mut self.tables),
            std::mem::take(&mut self.couplings),
        );
        self.word_systems().for_each(|(g, words)| {
            for colour in 0..2 {
                sweep_colour(&layout, &tables, &couplings, words, g, sweep, colour);
            }
        });
        (self.tables, self.couplings) = (tables, couplings);
    }

    /// `[g][lane]` up spins and satisfied bonds of every word system.
    fn observe(&self) -> Vec<[u64; 2]> {
        let len = self.layout.system_words() as usize;
        self.words
            .par_chunks(len)
            .enumerate()
            .flat_map_iter(|(g, words)| {
                observe_lanes(&self.layout, &self.couplings, words, g as u32)
            })
            .collect()
    }

    /// `[pair][overlap slot]` of every overlap word pair.
    fn overlaps(&self) -> Vec<u32> {
        let len = self.layout.system_words() as usize;
        let system = |g: u32| &self.words[g as usize * len..][..len];
        self.layout
            .overlap_word_pairs()
            .par_iter()
            .flat_map_iter(|&(a, b)| overlap_planes(&self.layout, system(a), system(b)))
            .collect()
    }
}

impl Engine for CpuMultispinEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            backend: "cpu".into(),
            engine: self.layout.describe(),
            adapter: cpu_description(),
        }
    }

    fn set_spins(&mut self, spins: &[i32]) -> Result<()> {
        check_spin_count(&self.layout.systems, spins)?;
        self.words = self.layout.pack(spins);
        Ok(())
    }

    fn spins(&mut self) -> Result<Vec<i32>> {
        Ok(self.layout.unpack(&self.words))
    }

    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        let words = self.layout.word_systems() as usize;
        let mut per_word = Vec::with_capacity(plan.slots as usize * words * LANES as usize);
        let mut overlaps = Vec::new();
        for step in &plan.steps {
            match *step {
                Step::Sweep { sweep } => self.sweep(sweep),
                Step::Measure { .. } => {
                    per_word.extend(self.observe());
                    overlaps.extend(self.overlaps());
                }
            }
        }
        Ok(self.layout.measurements(&per_word, &overlaps, plan.slots))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Observation;
    use crate::engine::multispin::fixtures::all_layouts;
    use crate::model::couplings::coupling_values;
    use crate::model::ising::IsingSystems;

    /// Up spins, satisfied bonds and per-plane overlap differences computed site by site.
    fn direct(systems: &IsingSystems, spins: &[i32]) -> (Vec<Observation>, Vec<u32>) {
        let lattice = systems.lattice;
        let n = lattice.sites() as usize;
        let lattice_of = |b: u32| &spins[b as usize * n..][..n];
        let observations = (0..systems.systems())
            .map(|b| {
                let sample = (b / systems.replicas) % systems.samples;
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
        let mut planes = Vec::new();
        for ts in 0..systems.betas.len() as u32 * systems.samples {
            for p in 0..systems.overlap_pairs() {
                let a = lattice_of(ts * systems.replicas + p);
                let b = lattice_of(ts * systems.replicas + p + systems.replicas / 2);
                let mut counts = vec![0u32; lattice.size as usize];
                for site in 0..n {
                    if a[site] != b[site] {
                        counts[lattice.coords(site as u64)[0] as usize] += 1;
                    }
                }
                planes.extend(counts);
            }
        }
        (observations, planes)
    }

    #[test]
    fn measurements_equal_site_by_site_counts() {
        let engines = all_layouts().into_iter().map(CpuMultispinEngine::new);
        for mut engine in engines {
            let systems = engine.layout.systems.clone();
            let spins = crate::sim::initial_spins(&systems);
            engine.set_spins(&spins).unwrap();
            let mut plan = Plan::default();
            plan.sweep(0);
            plan.measure();
            plan.sweep(1);
            plan.measure();
            let measured = engine.execute(&plan).unwrap();
            let mut expected = (Vec::new(), Vec::new());
            let mut one = Plan::default();
            for sweep in 0..2 {
                let mut fresh = CpuMultispinEngine::new(engine.layout.clone());
                fresh.set_spins(&spins).unwrap();
                for s in 0..=sweep {
                    one.steps = vec![Step::Sweep { sweep: s }];
                    fresh.execute(&one).unwrap();
                }
                let (o, p) = direct(&systems, &fresh.spins().unwrap());
                expected.0.extend(o);
                expected.1.extend(p);
            }
            let case = engine.layout.describe();
            assert_eq!(measured.observations, expected.0, "{case}");
            assert_eq!(measured.overlap_planes, expected.1, "{case}");
            assert!(!measured.overlap_planes.is_empty(), "{case}");
        }
    }
}
