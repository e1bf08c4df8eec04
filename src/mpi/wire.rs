//! What rank 0 and the other ranks send each other, as bytes: the engine calls ([`Command`],
//! one vocabulary for the engines of every model) and their answers ([`Reply`]), in the words of
//! [`bytes`].

mod bytes;

use std::sync::Arc;

use crate::config::{Boundaries, Boundary, ClusterOptions, ClusterUpdate, Disorder, ReplicaMoves};
use crate::engine::annealing::{Keyed, PopulationHistograms, ResamplingTable, TableHead};
use crate::engine::vector::VectorSweeps;
use crate::engine::{Betas, Lattices, Measurements, Observation, Plan, SpinBits, Step};
use crate::error::Result;
use crate::model::couplings::Instance;
use crate::model::ising::IsingSystems;
use crate::model::systems::SystemIndex;
use crate::model::vacancies::Vacancies;
use crate::model::vector::states::{StateModel, States};
use crate::model::vector::{VectorCouplings, VectorSystems};
use crate::model::{Lattice, Shape};

use super::{Share, Split};
use bytes::{Reader, Writer, truncated};

/// An engine call from rank 0.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Open an engine for the whole run's `systems` under `config` (RON, engine resolved), on
    /// this rank's share of `split`.
    Open {
        config: String,
        systems: IsingSystems,
        betas: Betas,
        split: Split,
    },
    HotStart,
    /// This rank's lattices.
    SetSpins(Lattices),
    Spins,
    Execute(Plan),
    /// This rank's tempering state.
    SetTempering(Vec<u32>),
    Tempering,
    SetBetas(Vec<f64>),
    /// This rank's copy map, in its own system numbers.
    CopySystems(Vec<u32>),
    /// This rank's blocks of the resampling table.
    SetResampling(ResamplingTable),
    /// Measure the populations as histograms: `slots` systems a block, this rank's blocks'
    /// sizes.
    CountPopulations {
        slots: u32,
        sizes: Vec<u32>,
    },
    /// Open a vector-spin engine of `systems`, this rank's sample slice with its couplings (so
    /// that every rank runs rank 0's, drawn once), under `config` (RON), swept by `updates`.
    OpenVector {
        config: String,
        systems: VectorSystems,
        updates: VectorSweeps,
    },
    /// The proposal widths per temperature ([`crate::engine::Proposals`]).
    SetWidths(Vec<i32>),
    /// A tempering exchange ([`crate::engine::Exchanges`]): each of the rank's systems'
    /// partner, in its numbering.
    Exchange(Vec<u32>),
    /// Drop the engine.
    Close,
    /// The run is over: exit with this status.
    Finish(u8),
}

/// A rank's answer to a command other than `Close` and `Finish`.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Done,
    Spins(Lattices),
    Measurements(Box<Measurements>),
    Tempering(Vec<u32>),
    /// Whether the engine counts populations as histograms.
    Counting(bool),
}

impl Writer {
    fn lattice(&mut self, lattice: &Lattice) {
        self.u32(lattice.dims);
        self.u32(lattice.size);
        self.u8(match lattice.shape {
            Shape::Hypercubic => 0,
            Shape::Triangular => 1,
            Shape::Honeycomb => 2,
            Shape::Kagome => 3,
        });
    }
    fn disorder(&mut self, disorder: Disorder) {
        self.u8(match disorder {
            Disorder::Ferromagnet => 0,
            Disorder::Bimodal => 1,
            Disorder::Gaussian => 2,
        });
    }
    /// The field and the systems' temperatures, samples, replicas and seed: what the systems of
    /// every model have.
    fn field_and_index(&mut self, field: f64, index: &SystemIndex) {
        self.f64(field);
        self.f64s(&index.betas);
        self.disorder(index.disorder);
        self.u32(index.samples);
        self.u32(index.replicas);
        self.u64(index.seed);
    }
    fn systems(&mut self, systems: &IsingSystems) {
        self.lattice(&systems.lattice);
        self.field_and_index(systems.field, &systems.index);
        self.instance(systems);
        self.boundaries(systems.boundaries);
        self.u8(u8::from(systems.antiferromagnet));
    }
    /// The couplings the config gives, every sample's bits: ranks need not read the file.
    fn instance(&mut self, systems: &IsingSystems) {
        let Some(instance) = &systems.instance else {
            return self.u8(0);
        };
        self.u8(1);
        self.str(&instance.source);
        self.u64(instance.checksum);
        self.len(instance.samples() as usize);
        for sample in 0..instance.samples() {
            self.words(instance.bonds(sample));
        }
    }
    fn vector_systems(&mut self, systems: &VectorSystems) {
        self.lattice(&systems.lattice);
        self.u32(systems.components);
        self.u32(systems.clock);
        self.states(systems.states.as_ref());
        self.field_and_index(systems.field, &systems.index);
        self.u32(systems.first_sample);
        self.u32(systems.all_samples);
        match &systems.couplings {
            VectorCouplings::Uniform(j) => {
                self.u8(0);
                self.u32(*j as u32);
            }
            VectorCouplings::Bonds(samples) => {
                self.u8(1);
                self.len(samples.len());
                for bonds in samples {
                    self.bytes(bytemuck::cast_slice(bonds));
                }
            }
            VectorCouplings::Gaussian(samples) => {
                self.u8(2);
                self.len(samples.len());
                for words in samples {
                    self.i32s(words);
                }
            }
        }
        self.boundaries(systems.boundaries);
        self.vacancies(systems.vacancies.as_ref());
    }
    /// How a lattice closes along each axis, as many as the config named.
    fn boundaries(&mut self, boundaries: Boundaries) {
        self.u8(boundaries.named() as u8);
        for axis in 0..boundaries.named() {
            self.u8(match boundaries.axis(axis) {
                Boundary::Periodic => 0,
                Boundary::Open => 1,
                Boundary::Antiperiodic => 2,
            });
        }
    }
    /// A diluted model's empty sites, or none.
    fn vacancies(&mut self, vacancies: Option<&Vacancies>) {
        let Some(vacancies) = vacancies else {
            self.u8(0);
            return;
        };
        self.u8(1);
        self.len(vacancies.samples().len());
        for empty in vacancies.samples() {
            self.words(empty);
        }
    }
    /// A discrete model's states and their energies, or none.
    fn states(&mut self, states: Option<&States>) {
        let Some(states) = states else {
            self.u8(0);
            return;
        };
        self.u8(match states.model {
            StateModel::Potts => 1,
            StateModel::BlumeCapel => 2,
            StateModel::Ising => 3,
        });
        self.u32(states.q);
        self.i32s(&states.pair);
        self.i32s(&states.site);
        self.i32s(&states.value);
    }
    /// The tile side 0 where the sweeps have no tiles (a tile has at least 2 sites a side);
    /// the cluster step's update 0 where there is none (1 Swendsen-Wang, 2 Wolff), then its
    /// counts; the replica moves; 1 where discrete states take the heat bath, else 0.
    fn vector_sweeps(&mut self, updates: &VectorSweeps) {
        self.u32(updates.hits);
        self.u32(updates.tile.unwrap_or(0));
        self.u32(updates.overrelaxation);
        match updates.clusters {
            None => self.u8(0),
            Some(step) => {
                self.u8(match step.update {
                    ClusterUpdate::SwendsenWang => 1,
                    ClusterUpdate::Wolff => 2,
                });
                self.u32(step.clusters);
                self.u32(step.metropolis);
            }
        }
        self.replica_moves(updates.moves);
        self.u8(u8::from(updates.heat_bath));
        self.u8(u8::from(updates.planes));
    }
    /// The kind (0 none, 1 Houdayer, 2 isoenergetic), the moves per sweep, the isoenergetic
    /// moves' highest temperature.
    fn replica_moves(&mut self, moves: ReplicaMoves) {
        self.u8(match moves {
            ReplicaMoves::None => 0,
            ReplicaMoves::Houdayer { .. } => 1,
            ReplicaMoves::Isoenergetic { .. } => 2,
        });
        self.u32(moves.per_sweep());
        if let ReplicaMoves::Isoenergetic { below, .. } = moves {
            self.f64(below);
        }
    }
    fn histograms(&mut self, histograms: Option<&PopulationHistograms>) {
        let Some(h) = histograms else {
            return self.u8(0);
        };
        self.u8(1);
        self.u32(h.bond_bins);
        self.u32(h.site_bins);
        self.words(&h.satisfied);
        self.words(&h.up);
    }
    fn spins(&mut self, spins: &Lattices) {
        match spins {
            Lattices::Bits(bits) => {
                self.u8(0);
                self.u32(bits.systems());
                self.u64(bits.sites());
                self.words(bits.words());
            }
            Lattices::Vector(components) => {
                self.u8(1);
                self.i32s(components);
            }
        }
    }
}

impl Reader<'_> {
    /// A flag, one byte 0 or 1.
    fn flag(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(truncated()),
        }
    }
    fn lattice(&mut self) -> Result<Lattice> {
        let (dims, size) = (self.u32()?, self.u32()?);
        let shape = match (dims, self.u8()?) {
            (2 | 3, 0) => Shape::Hypercubic,
            (2, 1) => Shape::Triangular,
            (2, 2) => Shape::Honeycomb,
            (2, 3) => Shape::Kagome,
            _ => return Err(truncated()),
        };
        Ok(Lattice::shaped(shape, dims, size))
    }
    fn disorder(&mut self) -> Result<Disorder> {
        match self.u8()? {
            0 => Ok(Disorder::Ferromagnet),
            1 => Ok(Disorder::Bimodal),
            2 => Ok(Disorder::Gaussian),
            _ => Err(truncated()),
        }
    }
    /// [`Writer::field_and_index`], the index of a whole run.
    fn field_and_index(&mut self) -> Result<(f64, SystemIndex)> {
        let (field, betas, disorder) = (self.f64()?, self.f64s()?, self.disorder()?);
        let (samples, replicas, seed) = (self.u32()?, self.u32()?, self.u64()?);
        let index = SystemIndex::new(betas, disorder, samples, replicas, seed);
        Ok((field, index))
    }
    fn systems(&mut self) -> Result<IsingSystems> {
        let lattice = self.lattice()?;
        let (field, index) = self.field_and_index()?;
        let (betas, replicas, seed) = (index.betas, index.replicas, index.seed);
        let systems = match index.disorder {
            Disorder::Ferromagnet => {
                IsingSystems::ferromagnet(lattice, field, betas, replicas, seed)
            }
            _ => IsingSystems::spin_glass(lattice, field, betas, index.samples, replicas, seed),
        };
        Ok(IsingSystems {
            instance: self.instance()?,
            boundaries: self.boundaries()?,
            antiferromagnet: self.u8()? == 1,
            ..systems
        })
    }
    fn instance(&mut self) -> Result<Option<Arc<Instance>>> {
        if self.u8()? == 0 {
            return Ok(None);
        }
        let (source, checksum) = (self.str()?, self.u64()?);
        let samples = self.len(8)?;
        let bonds = (0..samples).map(|_| self.u32s()).collect::<Result<_>>()?;
        Ok(Some(Arc::new(Instance::from_bonds(
            source, checksum, bonds,
        ))))
    }
    fn vector_systems(&mut self) -> Result<VectorSystems> {
        let lattice = self.lattice()?;
        let components = self.u32()?;
        let clock = self.u32()?;
        let states = self.states()?;
        let expected = match states {
            Some(_) => 1..=1,
            None => 2..=3,
        };
        if !expected.contains(&components) {
            return Err(truncated());
        }
        let (field, mut index) = self.field_and_index()?;
        (index.first_sample, index.all_samples) = (self.u32()?, self.u32()?);
        let couplings = match self.u8()? {
            0 => VectorCouplings::Uniform(self.u32()? as i32),
            1 => VectorCouplings::Bonds(
                self.per_sample(|r| Ok(bytemuck::cast_slice(r.bytes()?).to_vec()))?,
            ),
            2 => VectorCouplings::Gaussian(self.per_sample(Reader::i32s)?),
            _ => return Err(truncated()),
        };
        let boundaries = self.boundaries()?;
        let vacancies = match self.u8()? {
            0 => None,
            1 => Some(Vacancies::of_samples(self.per_sample(Reader::u32s)?)),
            _ => return Err(truncated()),
        };
        Ok(VectorSystems {
            index,
            lattice,
            components,
            clock,
            states,
            field,
            couplings,
            boundaries,
            vacancies,
        })
    }
    fn boundaries(&mut self) -> Result<Boundaries> {
        let named = self.u8()?;
        if named > 3 {
            return Err(truncated());
        }
        let axes = (0..named)
            .map(|_| match self.u8()? {
                0 => Ok(Boundary::Periodic),
                1 => Ok(Boundary::Open),
                2 => Ok(Boundary::Antiperiodic),
                _ => Err(truncated()),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Boundaries::new(&axes))
    }
    fn states(&mut self) -> Result<Option<States>> {
        let model = match self.u8()? {
            0 => return Ok(None),
            1 => StateModel::Potts,
            2 => StateModel::BlumeCapel,
            3 => StateModel::Ising,
            _ => return Err(truncated()),
        };
        let q = self.u32()?;
        let (pair, site, value) = (self.i32s()?, self.i32s()?, self.i32s()?);
        let q_words = q as usize;
        if pair.len() != q_words * q_words || site.len() != q_words || value.len() != q_words {
            return Err(truncated());
        }
        Ok(Some(States {
            model,
            q,
            pair,
            site,
            value,
        }))
    }
    /// The couplings of each sample, each read by `read`.
    fn per_sample<T>(&mut self, read: impl Fn(&mut Self) -> Result<Vec<T>>) -> Result<Vec<Vec<T>>> {
        let samples = self.len(8)?;
        (0..samples).map(|_| read(self)).collect()
    }
    fn vector_sweeps(&mut self) -> Result<VectorSweeps> {
        let (hits, tile, overrelaxation) = (self.u32()?, self.u32()?, self.u32()?);
        let update = match self.u8()? {
            0 => None,
            1 => Some(ClusterUpdate::SwendsenWang),
            2 => Some(ClusterUpdate::Wolff),
            _ => return Err(truncated()),
        };
        let clusters = match update {
            Some(update) => Some(ClusterOptions {
                update,
                clusters: self.u32()?,
                metropolis: self.u32()?,
            }),
            None => None,
        };
        Ok(VectorSweeps {
            hits,
            tile: (tile != 0).then_some(tile),
            overrelaxation,
            clusters,
            moves: self.replica_moves()?,
            heat_bath: self.flag()?,
            planes: self.flag()?,
        })
    }
    fn replica_moves(&mut self) -> Result<ReplicaMoves> {
        let (kind, per_sweep) = (self.u8()?, self.u32()?);
        Ok(match kind {
            0 => ReplicaMoves::None,
            1 => ReplicaMoves::Houdayer { per_sweep },
            2 => ReplicaMoves::Isoenergetic {
                per_sweep,
                below: self.f64()?,
            },
            _ => return Err(truncated()),
        })
    }
    fn histograms(&mut self) -> Result<Option<Box<PopulationHistograms>>> {
        if self.u8()? == 0 {
            return Ok(None);
        }
        Ok(Some(Box::new(PopulationHistograms {
            bond_bins: self.u32()?,
            site_bins: self.u32()?,
            satisfied: self.u32s()?,
            up: self.u32s()?,
        })))
    }
    fn spins(&mut self) -> Result<Lattices> {
        Ok(match self.u8()? {
            0 => {
                let (systems, sites) = (self.u32()?, self.u64()?);
                SpinBits::from_words(systems, sites, self.u64s()?)?.into()
            }
            _ => self.i32s()?.into(),
        })
    }
}

const STEP_SWEEP: u32 = 0;
const STEP_MEASURE: u32 = 1;
const STEP_SWAP: u32 = 2;
const STEP_RESAMPLE: u32 = 3;
/// A cluster update (refused over ranks, but carried like any step).
const STEP_CLUSTER: u32 = 4;
const STEP_OBSERVE: u32 = 5;
const STEP_PART: u32 = 6;
/// Words of a step on the wire: its kind and up to four fields (a piece of a sweep's).
const STEP_WORDS: usize = 5;
/// A cluster step's record slot where it records none.
const NO_SLOT: u32 = u32::MAX;

impl Command {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        match self {
            Command::Open {
                config,
                systems,
                betas,
                split,
            } => {
                w.u8(0);
                w.str(config);
                w.systems(systems);
                w.u8(match betas {
                    Betas::Fixed => 0,
                    Betas::Changing => 1,
                });
                w.u8(match split {
                    Split::Samples(_) => 0,
                    Split::Slabs(_) => 1,
                });
                let bounds: Vec<u32> = split
                    .shares()
                    .iter()
                    .flat_map(|s| [s.first, s.count])
                    .collect();
                w.words(&bounds);
            }
            Command::HotStart => w.u8(1),
            Command::SetSpins(spins) => {
                w.u8(2);
                w.spins(spins);
            }
            Command::Spins => w.u8(3),
            Command::Execute(plan) => {
                w.u8(4);
                w.u32(plan.slots);
                let steps: Vec<u32> = plan
                    .steps
                    .iter()
                    .flat_map(|step| match *step {
                        Step::Sweep { sweep } => [STEP_SWEEP, sweep, 0, 0, 0],
                        Step::Part {
                            sweep,
                            pass,
                            planes: [first, end],
                        } => [STEP_PART, sweep, pass, first, end],
                        Step::ClusterPart { .. } => {
                            unreachable!("refused by RankedEngine::execute")
                        }
                        Step::Measure { slot } => [STEP_MEASURE, slot, 0, 0, 0],
                        Step::Observe { slot } => [STEP_OBSERVE, slot, 0, 0, 0],
                        Step::Swap { sweep, parity } => [STEP_SWAP, sweep, parity, 0, 0],
                        Step::Resample { step } => [STEP_RESAMPLE, step, 0, 0, 0],
                        Step::Cluster { update, sizes } => {
                            let slot = sizes.map_or(NO_SLOT, |slot| slot);
                            [STEP_CLUSTER, update, slot, 0, 0]
                        }
                    })
                    .collect();
                w.words(&steps);
            }
            Command::SetTempering(state) => {
                w.u8(5);
                w.words(state);
            }
            Command::Tempering => w.u8(6),
            Command::SetBetas(betas) => {
                w.u8(7);
                w.f64s(betas);
            }
            Command::CopySystems(sources) => {
                w.u8(8);
                w.words(sources);
            }
            Command::SetResampling(table) => {
                w.u8(11);
                w.u8(table.keyed as u8);
                w.u32(table.slots);
                let heads: &[u32] = bytemuck::cast_slice(&table.heads);
                w.words(heads);
                w.words(table.entries.as_flattened());
            }
            Command::CountPopulations { slots, sizes } => {
                w.u8(12);
                w.u32(*slots);
                w.words(sizes);
            }
            Command::OpenVector {
                config,
                systems,
                updates,
            } => {
                w.u8(13);
                w.str(config);
                w.vector_systems(systems);
                w.vector_sweeps(updates);
            }
            Command::SetWidths(widths) => {
                w.u8(14);
                w.i32s(widths);
            }
            Command::Exchange(partners) => {
                w.u8(15);
                w.words(partners);
            }
            Command::Close => w.u8(9),
            Command::Finish(status) => {
                w.u8(10);
                w.u8(*status);
            }
        }
        w.0
    }

    pub fn decode(bytes: &[u8]) -> Result<Command> {
        let mut r = Reader { bytes };
        let command = match r.u8()? {
            0 => {
                let config = r.str()?;
                let systems = r.systems()?;
                let betas = match r.u8()? {
                    0 => Betas::Fixed,
                    _ => Betas::Changing,
                };
                let slabs = r.u8()? == 1;
                let shares = r
                    .u32s()?
                    .chunks_exact(2)
                    .map(|s| Share {
                        first: s[0],
                        count: s[1],
                    })
                    .collect();
                let split = match slabs {
                    true => Split::Slabs(shares),
                    false => Split::Samples(shares),
                };
                Command::Open {
                    config,
                    systems,
                    betas,
                    split,
                }
            }
            1 => Command::HotStart,
            2 => Command::SetSpins(r.spins()?),
            3 => Command::Spins,
            4 => {
                let slots = r.u32()?;
                let steps = r
                    .u32s()?
                    .chunks_exact(STEP_WORDS)
                    .map(|s| match s[0] {
                        STEP_SWEEP => Ok(Step::Sweep { sweep: s[1] }),
                        STEP_PART => Ok(Step::Part {
                            sweep: s[1],
                            pass: s[2],
                            planes: [s[3], s[4]],
                        }),
                        STEP_MEASURE => Ok(Step::Measure { slot: s[1] }),
                        STEP_OBSERVE => Ok(Step::Observe { slot: s[1] }),
                        STEP_SWAP => Ok(Step::Swap {
                            sweep: s[1],
                            parity: s[2],
                        }),
                        STEP_RESAMPLE => Ok(Step::Resample { step: s[1] }),
                        STEP_CLUSTER => Ok(Step::Cluster {
                            update: s[1],
                            sizes: (s[2] != NO_SLOT).then_some(s[2]),
                        }),
                        _ => Err(truncated()),
                    })
                    .collect::<Result<_>>()?;
                Command::Execute(Plan { steps, slots })
            }
            5 => Command::SetTempering(r.u32s()?),
            6 => Command::Tempering,
            7 => Command::SetBetas(r.f64s()?),
            8 => Command::CopySystems(r.u32s()?),
            9 => Command::Close,
            10 => Command::Finish(r.u8()?),
            11 => {
                let keyed = match r.u8()? {
                    0 => Keyed::BondLevel,
                    _ => Keyed::Replica,
                };
                let slots = r.u32()?;
                let heads = r.u32s()?;
                let entries = r.u32s()?;
                if heads.len() % 5 != 0 || entries.len() % 2 != 0 {
                    return Err(truncated());
                }
                Command::SetResampling(ResamplingTable {
                    keyed,
                    slots,
                    heads: bytemuck::pod_collect_to_vec::<u32, TableHead>(&heads),
                    entries: entries.chunks_exact(2).map(|e| [e[0], e[1]]).collect(),
                })
            }
            12 => Command::CountPopulations {
                slots: r.u32()?,
                sizes: r.u32s()?,
            },
            13 => Command::OpenVector {
                config: r.str()?,
                systems: r.vector_systems()?,
                updates: r.vector_sweeps()?,
            },
            14 => Command::SetWidths(r.i32s()?),
            15 => Command::Exchange(r.u32s()?),
            _ => return Err(truncated()),
        };
        r.end()?;
        Ok(command)
    }
}

/// A rank's answer as bytes: its [`Reply`], or the error its engine gave.
pub fn encode_reply(reply: &Result<Reply>) -> Vec<u8> {
    let mut w = Writer::default();
    match reply {
        Err(error) => {
            w.u8(0);
            w.str(&error.to_string());
        }
        Ok(Reply::Done) => w.u8(1),
        Ok(Reply::Spins(spins)) => {
            w.u8(2);
            w.spins(spins);
        }
        Ok(Reply::Measurements(m)) => {
            w.u8(3);
            let observations: Vec<u64> = m
                .observations
                .iter()
                .flat_map(|o| [o.up, o.satisfied])
                .collect();
            w.words(&observations);
            w.words(&m.overlap_planes);
            w.words(&m.link_overlaps);
            w.words(&m.labels);
            w.words(&m.copies);
            w.histograms(m.histograms.as_deref());
            w.pods(&m.vector_observations);
            w.pods(&m.vector_overlaps);
            w.pods(&m.vector_states);
            w.pods(&m.vector_pair_states);
            w.words(&m.accepted);
            w.words(&m.replica_moves);
            w.words(&m.cluster_sizes);
        }
        Ok(Reply::Tempering(state)) => {
            w.u8(4);
            w.words(state);
        }
        Ok(Reply::Counting(counting)) => {
            w.u8(5);
            w.u8(u8::from(*counting));
        }
    }
    w.0
}

/// A rank's answer from bytes; `Err(message)` inside where its engine failed.
pub fn decode_reply(bytes: &[u8]) -> Result<std::result::Result<Reply, String>> {
    let mut r = Reader { bytes };
    let reply = match r.u8()? {
        0 => Err(r.str()?),
        1 => Ok(Reply::Done),
        2 => Ok(Reply::Spins(r.spins()?)),
        3 => {
            let observations = r
                .u64s()?
                .chunks_exact(2)
                .map(|o| Observation {
                    up: o[0],
                    satisfied: o[1],
                })
                .collect();
            Ok(Reply::Measurements(Box::new(Measurements {
                observations,
                overlap_planes: r.u32s()?,
                link_overlaps: r.u64s()?,
                labels: r.u32s()?,
                copies: r.u32s()?,
                histograms: r.histograms()?,
                vector_observations: r.pods()?,
                vector_overlaps: r.pods()?,
                vector_states: r.pods()?,
                vector_pair_states: r.pods()?,
                accepted: r.u64s()?,
                replica_moves: r.u64s()?,
                // Of vector spins' cluster steps: the Ising models' are not split over ranks.
                cluster_sizes: r.u64s()?,
            })))
        }
        4 => Ok(Reply::Tempering(r.u32s()?)),
        5 => Ok(Reply::Counting(r.u8()? == 1)),
        _ => return Err(truncated()),
    };
    r.end()?;
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::vector::{VectorObservation, VectorOverlap};
    use crate::error::Error;

    /// The vector-spin engine's calls: opening the slices of a Gaussian and a bimodal glass
    /// (with their couplings), a ferromagnet, a clock model, a Potts glass, a Blume-Capel
    /// model, the kagome Ising antiferromagnet and the honeycomb XY model, with and without
    /// tiles, and the calls of its lattices and capabilities.
    fn vector_commands() -> Vec<Command> {
        let heisenberg = VectorSystems::uniform(Lattice::new(3, 4), 3, (1, -0.5), vec![0.4], 2, 7);
        let xy = VectorSystems::uniform(Lattice::new(2, 4), 2, (0, 0.25), vec![0.1, 2.0], 4, 8);
        let open = |systems: VectorSystems, tile| Command::OpenVector {
            config: "(seed: 7)".into(),
            systems,
            updates: VectorSweeps {
                hits: 3,
                tile,
                overrelaxation: 2,
                clusters: tile.is_none().then_some(ClusterOptions {
                    update: ClusterUpdate::Wolff,
                    clusters: 3,
                    metropolis: 2,
                }),
                moves: match tile {
                    Some(_) => ReplicaMoves::Isoenergetic {
                        per_sweep: 2,
                        below: 0.75,
                    },
                    None => ReplicaMoves::None,
                },
                heat_bath: tile.is_none(),
                planes: false,
            },
        };
        vec![
            open(
                heisenberg
                    .with_disorder(Disorder::Gaussian, 3)
                    .sample_slice(1, 2),
                Some(2),
            ),
            open(
                xy.clone()
                    .with_disorder(Disorder::Bimodal, 2)
                    .sample_slice(1, 1),
                None,
            ),
            open(xy.clone().with_clock(6), None),
            open(
                (xy.clone().with_states(States::potts(5, 0.5))).with_disorder(Disorder::Bimodal, 2),
                None,
            ),
            open(
                xy.clone().with_states(States::blume_capel(-1.5, 0.25)),
                None,
            ),
            open(
                (xy.clone().with_states(States::ising(0.5)))
                    .with_vacancies(Vacancies::draw(&xy.lattice, 5, 3, 0.25))
                    .sample_slice(1, 2),
                None,
            ),
            open(xy, None),
            open(
                VectorSystems::uniform(
                    Lattice::shaped(Shape::Kagome, 2, 6),
                    1,
                    (-1, 0.0),
                    vec![0.7],
                    2,
                    9,
                )
                .with_states(States::ising(0.0))
                .with_missing(None),
                None,
            ),
            open(
                VectorSystems::uniform(
                    Lattice::shaped(Shape::Honeycomb, 2, 4),
                    2,
                    (1, 0.0),
                    vec![0.7],
                    2,
                    9,
                )
                .with_missing(None),
                None,
            ),
            Command::SetSpins(vec![1 << 28, -3, 0].into()),
            Command::SetWidths(vec![0, i32::MIN, i32::MAX]),
            Command::Exchange(vec![2, 1, 0]),
        ]
    }

    #[test]
    fn commands_and_replies_cross_unchanged() {
        let systems =
            IsingSystems::spin_glass(Lattice::new(3, 4), 0.25, vec![0.3, 1.0 / 3.0], 6, 2, 9);
        let bonds = vec![vec![1, 2, 3, 4, 5, 6], vec![u32::MAX; 6]];
        let instance = Instance::from_bonds("j.npy".into(), 0xfeed, bonds);
        let given_couplings = IsingSystems {
            instance: Some(Arc::new(instance)),
            ..IsingSystems::spin_glass(Lattice::new(3, 4), 0.0, vec![0.5], 2, 2, 9)
        };
        let mut plan = Plan::default();
        plan.part(6, 1, 3..64);
        plan.sweep(7);
        plan.swap(7, 1);
        plan.measure();
        plan.part(8, 0, 0..5);
        let mut spins = SpinBits::down(3, 64);
        spins.set(1, 5, true);
        let commands = [
            Command::Open {
                config: "(seed: 1)".into(),
                systems,
                betas: Betas::Changing,
                split: Split::Slabs(vec![
                    Share { first: 0, count: 2 },
                    Share { first: 2, count: 4 },
                ]),
            },
            Command::Open {
                config: "(seed: 2)".into(),
                systems: given_couplings,
                betas: Betas::Fixed,
                split: Split::Samples(vec![Share { first: 0, count: 2 }]),
            },
            Command::HotStart,
            Command::SetSpins(spins.clone().into()),
            Command::Spins,
            Command::Execute(plan),
            Command::SetTempering(vec![1, 2, 3]),
            Command::Tempering,
            Command::SetBetas(vec![0.1, f64::MIN_POSITIVE]),
            Command::CopySystems(vec![0, 0, 2]),
            Command::SetResampling(ResamplingTable {
                keyed: Keyed::Replica,
                slots: 64,
                heads: vec![TableHead {
                    lo: 1,
                    len: 2,
                    offset: 0,
                    size: 2,
                    batch: 3,
                }],
                entries: vec![[1, 2], [3, u32::MAX]],
            }),
            Command::CountPopulations {
                slots: 64,
                sizes: vec![60, 64],
            },
            Command::Close,
            Command::Finish(1),
        ];
        for command in commands.into_iter().chain(vector_commands()) {
            assert_eq!(Command::decode(&command.encode()).unwrap(), command);
        }
        let measurements = Measurements {
            observations: vec![Observation {
                up: 3,
                satisfied: u64::MAX,
            }],
            overlap_planes: vec![4, 5],
            link_overlaps: vec![6],
            labels: vec![7, 8],
            copies: vec![0, 2],
            histograms: None,
            ..Measurements::default()
        };
        let observation = VectorObservation {
            bonds: [-1, 2, i64::MIN],
            fourier: [[[3, -4]; 3]; 3],
            norm_deviation: u64::from(u32::MAX),
            ..VectorObservation::default()
        };
        let overlap = VectorOverlap {
            q: [[5, -6, i64::MAX]; 3],
            ..VectorOverlap::default()
        };
        let vector = Measurements {
            vector_observations: vec![observation, VectorObservation::default()],
            vector_overlaps: vec![overlap, VectorOverlap::default()],
            accepted: vec![0, u64::MAX],
            replica_moves: vec![7, 1 << 40],
            cluster_sizes: vec![u64::MAX, 1 << 50],
            vector_states: vec![-3, i64::MAX, 0],
            vector_pair_states: vec![i64::MIN],
            ..Measurements::default()
        };
        let histograms = Measurements {
            observations: Vec::new(),
            histograms: Some(Box::new(PopulationHistograms {
                bond_bins: 2,
                site_bins: 3,
                satisfied: vec![1, 2, 3, 4],
                up: vec![5, 6, 7, 8, 9, u32::MAX],
            })),
            ..measurements.clone()
        };
        for reply in [
            Reply::Done,
            Reply::Spins(spins.into()),
            Reply::Spins(vec![-1, i32::MIN, 1 << 28].into()),
            Reply::Measurements(Box::new(measurements)),
            Reply::Measurements(Box::new(vector)),
            Reply::Measurements(Box::new(histograms)),
            Reply::Tempering(vec![9]),
            Reply::Counting(true),
        ] {
            let bytes = encode_reply(&Ok(reply.clone()));
            assert_eq!(decode_reply(&bytes).unwrap(), Ok(reply));
        }
        // A partial observation is refused: one word fewer, the empty arrays after it (the
        // overlaps, the state sums of systems and of pairs, the accepted and the replica
        // moves), a length word each.
        let observed = Measurements {
            vector_observations: vec![observation],
            ..Measurements::default()
        };
        let mut partial = encode_reply(&Ok(Reply::Measurements(Box::new(observed))));
        let words = std::mem::size_of::<VectorObservation>();
        let length = partial.len() - 5 * 8 - words - 8;
        partial[length] -= 1;
        partial.drain(length + 8..length + 16);
        assert!(decode_reply(&partial).is_err());
        let failed = encode_reply(&Err(Error::State("no adapter".into())));
        assert!(
            decode_reply(&failed)
                .unwrap()
                .unwrap_err()
                .contains("no adapter")
        );
        assert!(Command::decode(&[4, 1]).is_err());
    }
}
