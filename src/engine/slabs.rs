//! Engines holding a slab of every lattice (a band of planes of the slowest axis,
//! [`IsingSystems::plane_slab`]) and the halo planes they trade through a [`Halo`].
//!
//! Storage (see [`MultispinLayout::stored_planes`]): the slab's `P` planes, then the upper halo,
//! then the lower halo, in every colour array of every word system. Updates and measurements
//! cover the own planes only, with the lattice's (the run's) Philox word indices
//! ([`MultispinLayout::word_offset`]) and couplings, so a slab's planes end bit for bit as in an
//! engine of the whole lattices. After the update of each colour (on the triangular lattice,
//! each half of a colour's rows: [`SlabPass`]) the engine sends its first and last plane of
//! that colour and takes the neighbours' into its halos ([`exchange_colour`]); it
//! exchanges both colours after `set_spins` and `hot_start` too, so the first update and every
//! measurement see current neighbours.
//!
//! Pieces of a sweep ([`Step::Part`]) name planes of the whole lattice: a slab updates those
//! among its own (perhaps none), and every slab exchanges the colour's planes after the piece
//! that ends the pass, when the pass is complete on all of them ([`SlabPass`]). Until then the
//! pass reads only the other colour, whose halos are current.
//!
//! The planes given to [`Halo::exchange`]: for every word system `g` in order, the plane's words
//! of that colour in storage order (its rows in order, 1 in 2D and `L` (y) in 3D, `L / 64` words
//! each): `g`-major, `plane_rows * row_words` words per word system.
//!
//! Measurements of a slab count its own planes' sites and each site's forward bonds (the last
//! plane's `+` bond of the slowest axis reaches the upper halo): observations, overlap planes
//! and link overlaps are the slab's partial sums, which add up over the slabs to the whole
//! lattices'.
//!
//! The multispin engines (AMSC and SMSC) hold slabs; tempering swaps, annealing (`set_betas`,
//! `copy_systems`) and the simple engine refuse them ([`check_slab`], [`refuse`]).

use std::ops::Range;
use std::sync::mpsc::{Receiver, Sender, channel};

use crate::engine::dispatch::{Dispatch, DispatchParams, submissions};
use crate::engine::multispin::MultispinLayout;
use crate::engine::{Halo, Plan, Step};
use crate::error::{Error, Result};
#[cfg(doc)]
use crate::model::ising::IsingSystems;

/// Refuse a layout that is not of a slab.
pub fn check_slab(layout: &MultispinLayout) -> Result<()> {
    match layout.systems.slab {
        Some(_) => Ok(()),
        None => Err(Error::State(
            "a slab engine needs the systems of a slab (IsingSystems::plane_slab)".into(),
        )),
    }
}

/// The error of an engine call that slabs do not support (`what`: tempering, annealing).
pub fn refuse(what: &str) -> Error {
    Error::State(format!(
        "{what} is not supported on lattices split into slabs"
    ))
}

/// Refuse `what` on an engine holding a slab (one with a `halo`).
pub fn whole_lattices_only(halo: &Option<Box<dyn Halo>>, what: &str) -> Result<()> {
    match halo {
        Some(_) => Err(refuse(what)),
        None => Ok(()),
    }
}

/// A pass of a plan's update step ([`Step::Sweep`], [`Step::Part`]) as an engine of a slab runs
/// it (or one of whole lattices, a slab of every plane).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlabPass {
    /// The pass's dispatch (seed, sweep, colour, word systems) over every own plane.
    pub params: DispatchParams,
    /// The own planes it updates (counted from the slab's first): every one for a colour of a
    /// sweep; for a piece, those among the piece's planes of the lattice, perhaps none.
    pub planes: Range<u32>,
    /// Whether the pass is then complete on every slab, which then exchange their boundary
    /// planes of its colour: after each pass of a sweep (but the kagome lattice's holes pass,
    /// which changes nothing), and after the piece that ends the pass (its planes reach the
    /// lattice's last), whatever this slab's share of that piece.
    pub exchange: bool,
}

impl SlabPass {
    /// The colour the pass updates, whose boundary planes its exchange trades (the dispatch's
    /// colour is the pass, [`MultispinLayout::pass_colour`]).
    pub fn colour(&self) -> u32 {
        MultispinLayout::pass_colour(self.params.colour)
    }

    /// The passes of `step` on the own planes of `layout`: a sweep's
    /// ([`MultispinLayout::sweep_passes`]: its two colours, on the triangular lattice each in
    /// two halves), a piece's pass; none for a step that updates no spins.
    pub fn of(layout: &MultispinLayout, step: &Step) -> Vec<SlabPass> {
        let run = DispatchParams::of_run(layout.systems.seed, layout.word_systems());
        let own = layout.own_planes();
        let first = layout.systems.slab.map_or(0, |slab| slab.first);
        let pass = |sweep, colour, planes, exchange| SlabPass {
            params: DispatchParams {
                sweep,
                colour,
                ..run
            },
            planes,
            exchange,
        };
        match *step {
            Step::Sweep { sweep } => (0..layout.sweep_passes())
                .map(|p| pass(sweep, p, 0..own, !layout.holes_pass(p)))
                .collect(),
            Step::Part {
                sweep,
                pass: colour,
                planes: [start, end],
            } => {
                let own_plane = |plane: u32| plane.clamp(first, first + own) - first;
                let planes = own_plane(start)..own_plane(end);
                vec![pass(sweep, colour, planes, end == layout.lattice().size)]
            }
            _ => Vec::new(),
        }
    }
}

/// A step of a slab's plan as the device engines run it: a pass of an update ([`SlabPass`]),
/// with its exchange, or a dispatch of the plan's other steps (measurements).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlabStep {
    Pass(SlabPass),
    Dispatch(Dispatch),
}

/// `plan` on the slab of `layout`, one step at a time: its updates' passes, and its other
/// steps lowered as on whole lattices ([`submissions`]).
pub fn slab_steps(layout: &MultispinLayout, plan: &Plan) -> Vec<SlabStep> {
    let (seed, systems) = (layout.systems.seed, layout.word_systems());
    let mut steps = Vec::new();
    for step in &plan.steps {
        let passes = SlabPass::of(layout, step);
        if !passes.is_empty() {
            steps.extend(passes.into_iter().map(SlabStep::Pass));
            continue;
        }
        let alone = Plan {
            steps: vec![*step],
            slots: plan.slots,
        };
        let whole = (usize::MAX, u64::MAX);
        let passes = (systems, layout.sweep_passes());
        let dispatches = submissions(&alone, seed, passes, whole, &|_, planes| planes);
        steps.extend(dispatches.concat().into_iter().map(SlabStep::Dispatch));
    }
    steps
}

/// A slab's pass in the order that hides its halo exchange (Lulli et al. 2015): the edge planes
/// first (the first and the last own plane, whose words the neighbours need), then the bulk
/// between them, which the engine updates while the edges travel. Each part is the pass's
/// dispatch restricted to the update threads of its planes among the pass's; the sites and
/// their random words are those of the whole pass, so the split changes no bit.
pub struct SlabSweep {
    pub edges: Vec<DispatchParams>,
    pub bulk: Option<DispatchParams>,
}

impl SlabSweep {
    pub fn new(layout: &MultispinLayout, pass: &SlabPass) -> Self {
        let own = layout.own_planes();
        let part = |range: Range<u32>| {
            let planes = range.start.max(pass.planes.start)..range.end.min(pass.planes.end);
            let threads = layout.plane_threads(pass.params.colour, planes);
            (!threads.is_empty()).then(|| pass.params.planes(threads))
        };
        match own {
            0..=2 => SlabSweep {
                edges: part(0..own).into_iter().collect(),
                bulk: None,
            },
            _ => SlabSweep {
                edges: [part(0..1), part(own - 1..own)]
                    .into_iter()
                    .flatten()
                    .collect(),
                bulk: part(1..own - 1),
            },
        }
    }
}

/// Per word system, the storage ranges of stored plane `plane` of `colour`.
pub fn plane_ranges(layout: &MultispinLayout, colour: u32, plane: u32) -> Vec<Range<usize>> {
    (0..layout.word_systems())
        .map(|g| layout.plane_words(g, colour, plane))
        .collect()
}

/// Where an engine keeps its spin words (host memory, a device buffer), as the exchange
/// reads and writes them: word ranges of the storage.
pub trait PlaneStore {
    /// The words of `ranges`, concatenated.
    fn read(&mut self, ranges: &[Range<usize>]) -> Result<Vec<u32>>;
    /// Write `words` from word `start` on.
    fn write(&mut self, start: usize, words: &[u32]) -> Result<()>;
}

impl PlaneStore for [u32] {
    fn read(&mut self, ranges: &[Range<usize>]) -> Result<Vec<u32>> {
        Ok(ranges
            .iter()
            .flat_map(|range| &self[range.clone()])
            .copied()
            .collect())
    }

    fn write(&mut self, start: usize, words: &[u32]) -> Result<()> {
        self[start..start + words.len()].copy_from_slice(words);
        Ok(())
    }
}

/// After the update of `colour`: send this slab's first and last plane of that colour (every
/// word system's, in order) through `halo` and write the planes that come back into its lower
/// and upper halo. Refuses a plane of another length (a neighbour of another geometry).
pub fn exchange_colour<S: PlaneStore + ?Sized>(
    layout: &MultispinLayout,
    halo: &mut dyn Halo,
    store: &mut S,
    colour: u32,
) -> Result<()> {
    let planes = layout.own_planes();
    let [first, last] = [0, planes - 1].map(|plane| plane_ranges(layout, colour, plane));
    let plane_len: usize = first.iter().map(Range::len).sum();
    let mut lower = store.read(&[first, last].concat())?;
    let upper = lower.split_off(plane_len);
    let received = halo.exchange(colour, lower, upper)?;
    let halos = [planes + 1, planes].map(|plane| plane_ranges(layout, colour, plane));
    for (ranges, plane) in halos.iter().zip(&received) {
        if plane.len() != plane_len {
            return Err(Error::State(format!(
                "a halo plane of {} words, expected {plane_len}: the neighbouring slab holds \
                 other systems or another lattice",
                plane.len()
            )));
        }
        let mut rest = plane.as_slice();
        for range in ranges {
            let (part, tail) = rest.split_at(range.len());
            store.write(range.start, part)?;
            rest = tail;
        }
    }
    Ok(())
}

/// A plane in flight between two [`LocalHalos`]: its colour and words.
type Message = (u32, Vec<u32>);

/// The single-process [`Halo`]: slab engines of one process (threads) trading planes over
/// channels, in a ring (slab `i`'s neighbours are `i - 1` and `i + 1` modulo the slabs). The
/// form the tests use; an MPI job uses `ranks`' halo instead.
pub struct LocalHalos {
    to_lower: Sender<Message>,
    to_upper: Sender<Message>,
    from_lower: Receiver<Message>,
    from_upper: Receiver<Message>,
}

impl LocalHalos {
    /// The halos of `slabs` slabs in a ring, slab `i`'s at `i` (one slab trades with itself).
    pub fn ring(slabs: usize) -> Vec<Box<dyn Halo>> {
        // Channel `i` of `down` carries slab `i`'s first plane to slab `i - 1` (its upper
        // halo), of `up` slab `i`'s last plane to slab `i + 1` (its lower halo).
        let (down_tx, mut down_rx): (Vec<_>, Vec<_>) = (0..slabs).map(|_| channel()).unzip();
        let (up_tx, mut up_rx): (Vec<_>, Vec<_>) = (0..slabs).map(|_| channel()).unzip();
        let mut halos: Vec<Box<dyn Halo>> = Vec::with_capacity(slabs);
        for i in 0..slabs {
            let (below, above) = ((i + slabs - 1) % slabs, (i + 1) % slabs);
            halos.push(Box::new(LocalHalos {
                to_lower: down_tx[i].clone(),
                to_upper: up_tx[i].clone(),
                // What the slab below sends up, what the slab above sends down.
                from_lower: std::mem::replace(&mut up_rx[below], channel().1),
                from_upper: std::mem::replace(&mut down_rx[above], channel().1),
            }));
        }
        halos
    }

    fn receive(from: &Receiver<Message>, colour: u32, side: &str) -> Result<Vec<u32>> {
        let (sent, plane) = from.recv().map_err(|_| {
            Error::State(format!("the slab {side} stopped before the halo exchange"))
        })?;
        if sent != colour {
            return Err(Error::State(format!(
                "the slab {side} sent colour {sent} where this slab exchanges colour {colour}"
            )));
        }
        Ok(plane)
    }
}

impl Halo for LocalHalos {
    fn exchange(&mut self, colour: u32, lower: Vec<u32>, upper: Vec<u32>) -> Result<[Vec<u32>; 2]> {
        let gone = |_| Error::State("a neighbouring slab stopped before the halo exchange".into());
        self.to_lower.send((colour, lower)).map_err(gone)?;
        self.to_upper.send((colour, upper)).map_err(gone)?;
        Ok([
            Self::receive(&self.from_lower, colour, "below")?,
            Self::receive(&self.from_upper, colour, "above")?,
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every slab gets its lower neighbour's last plane and its upper neighbour's first one,
    /// in rings of 1, 2 and 3.
    #[test]
    fn a_ring_hands_each_slab_its_neighbours_planes() {
        for slabs in 1..=3usize {
            let handles: Vec<_> = LocalHalos::ring(slabs)
                .into_iter()
                .enumerate()
                .map(|(i, mut halo)| {
                    std::thread::spawn(move || {
                        let (lower, upper) = (vec![10 * i as u32], vec![10 * i as u32 + 1]);
                        halo.exchange(1, lower, upper).unwrap()
                    })
                })
                .collect();
            for (i, handle) in handles.into_iter().enumerate() {
                let [below, above] = handle.join().unwrap();
                let (b, a) = ((i + slabs - 1) % slabs, (i + 1) % slabs);
                assert_eq!(below, vec![10 * b as u32 + 1], "{slabs} slabs, slab {i}");
                assert_eq!(above, vec![10 * a as u32], "{slabs} slabs, slab {i}");
            }
        }
    }

    /// How often the edges and bulk of `passes` ([`SlabSweep`]) launch each update thread, and
    /// the first threads of the edges.
    fn coverage(layout: &MultispinLayout, passes: &[SlabPass]) -> (Vec<u32>, Vec<u32>) {
        let mut covered = vec![0u32; layout.update_threads() as usize];
        let mut edges = Vec::new();
        for pass in passes {
            let parts = SlabSweep::new(layout, pass);
            edges.extend(parts.edges.iter().map(|part| part.first_thread));
            for part in parts.edges.iter().chain(&parts.bulk) {
                assert_eq!((part.sweep, part.colour), (7, 1));
                let start = part.first_thread as usize;
                for count in &mut covered[start..start + part.threads as usize] {
                    *count += 1;
                }
            }
        }
        (covered, edges)
    }

    /// A slab's colour split into edges and bulk covers each update thread once, the edges
    /// being the first and the last plane's, and keeps the sweep's other parameters; so do the
    /// pieces of the pass (planes of the lattice, some beside the slab, one empty), of which
    /// only the one ending the pass exchanges.
    #[test]
    fn edges_and_bulk_cover_the_sweep_once() {
        use crate::config::{Layout, MultispinOptions, Randoms};
        use crate::model::Lattice;
        use crate::model::ising::IsingSystems;
        let systems = IsingSystems::ferromagnet(Lattice::new(2, 256), 0.0, vec![0.4], 1, 1);
        let options = MultispinOptions {
            layout: Layout::Smsc,
            randoms: Randoms::Packed,
        };
        let cuts = [0, 1, 4, 7, 7, 12, 200, 256];
        for planes in [2, 4, 10] {
            let layout = MultispinLayout::new(systems.plane_slab(4, planes), options);
            let colours = SlabPass::of(&layout, &Step::Sweep { sweep: 7 });
            assert!(colours.iter().all(|pass| pass.exchange));
            let (covered, edges) = coverage(&layout, &colours[1..]);
            assert!(covered.iter().all(|&c| c == 1), "{planes} planes");
            let per_plane = layout.update_threads() / planes;
            let expected = match planes {
                2 => vec![0],
                _ => vec![0, (planes - 1) * per_plane],
            };
            assert_eq!(edges, expected, "{planes} planes");
            let pieces: Vec<SlabPass> = (cuts.windows(2))
                .flat_map(|cut| {
                    let planes = [cut[0], cut[1]];
                    SlabPass::of(
                        &layout,
                        &Step::Part {
                            sweep: 7,
                            pass: 1,
                            planes,
                        },
                    )
                })
                .collect();
            let exchanges: Vec<bool> = pieces.iter().map(|pass| pass.exchange).collect();
            assert_eq!(exchanges, [false, false, false, false, false, false, true]);
            let (covered, _) = coverage(&layout, &pieces);
            assert!(covered.iter().all(|&c| c == 1), "{planes} planes in pieces");
        }
    }

    /// On the triangular lattice a pass updates every other row of its colour: its edges and
    /// bulk cover the pass's threads once, the first plane's edge in the passes of even rows
    /// and the last plane's in those of odd rows; each pass trades its colour's planes, but the
    /// kagome lattice's holes pass, which changes nothing.
    #[test]
    fn triangular_passes_split_into_their_own_rows() {
        use crate::config::{Layout, MultispinOptions, Randoms};
        use crate::model::ising::IsingSystems;
        use crate::model::{Lattice, Shape};
        let options = MultispinOptions {
            layout: Layout::Smsc,
            randoms: Randoms::Exact,
        };
        for shape in [Shape::Triangular, Shape::Kagome] {
            let lattice = Lattice::shaped(shape, 2, 192);
            let systems = IsingSystems::ferromagnet(lattice, 0.0, vec![0.4], 1, 1);
            let layout = MultispinLayout::new(systems.plane_slab(4, 10), options);
            let per_row = layout.row_words() / layout.word_run();
            let passes = SlabPass::of(&layout, &Step::Sweep { sweep: 3 });
            assert_eq!(passes.len(), 4);
            for (p, pass) in (0..).zip(&passes) {
                assert_eq!(pass.colour(), p % 2);
                assert_eq!(pass.exchange, !layout.holes_pass(p), "{shape:?} pass {p}");
                let parts = SlabSweep::new(&layout, pass);
                let mut covered = vec![0u32; layout.update_threads() as usize];
                for part in parts.edges.iter().chain(&parts.bulk) {
                    let start = part.first_thread as usize;
                    for count in &mut covered[start..start + part.threads as usize] {
                        *count += 1;
                    }
                }
                assert!(covered.iter().all(|&c| c == 1), "{shape:?} pass {p}");
                let edges: Vec<u32> = parts.edges.iter().map(|e| e.first_thread).collect();
                // Rows 0, 2, .. 8 or 1, 3, .. 9: the last plane is the odd half's fifth row.
                let edge = if p < 2 { 0 } else { 4 * per_row };
                assert_eq!(edges, vec![edge], "{shape:?} pass {p}");
            }
        }
    }

    /// A halo that answers every exchange with planes of `len` words.
    struct Fixed(usize);

    impl Halo for Fixed {
        fn exchange(&mut self, _: u32, _: Vec<u32>, _: Vec<u32>) -> Result<[Vec<u32>; 2]> {
            Ok([vec![7; self.0], vec![9; self.0]])
        }
    }

    /// The halos take what comes back, the own planes stay; a plane of another length is
    /// refused.
    #[test]
    fn exchanged_planes_fill_the_halos() {
        use crate::config::{Layout, MultispinOptions, Randoms};
        use crate::model::Lattice;
        use crate::model::ising::IsingSystems;
        let systems = IsingSystems::ferromagnet(Lattice::new(3, 64), 0.0, vec![0.4], 2, 1);
        let options = MultispinOptions {
            layout: Layout::Smsc,
            randoms: Randoms::Exact,
        };
        let layout = MultispinLayout::new(systems.plane_slab(4, 2), options);
        let plane = 2 * 64;
        let mut words = vec![1u32; layout.words() as usize];
        exchange_colour(&layout, &mut Fixed(plane), words.as_mut_slice(), 1).unwrap();
        for g in 0..2 {
            for colour in 0..2 {
                let at = |p| words[layout.plane_words(g, colour, p)].to_vec();
                let ([low, high], own) = ([vec![7; 64], vec![9; 64]], vec![1; 64]);
                let halos = if colour == 1 {
                    [low, high]
                } else {
                    [own.clone(), own.clone()]
                };
                assert_eq!([at(3), at(2)], halos, "g {g} colour {colour}");
                assert_eq!([at(0), at(1)], [own.clone(), own], "g {g} colour {colour}");
            }
        }
        let error = exchange_colour(&layout, &mut Fixed(3), words.as_mut_slice(), 0).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("a halo plane of 3 words, expected 128")
        );
    }
}
