//! Layouts for the tests of the multispin engine: every lane meaning and both layouts, 2D and
//! 3D, the spin glass with overlaps, the triangular and kagome lattices (the glass, the
//! antiferromagnet), open edges on every lattice;
//! and ferromagnets of any size, for index arithmetic that allocates nothing.

use super::MultispinLayout;
use crate::config::{Lanes, Layout, MultispinOptions, Randoms};
use crate::model::ising::IsingSystems;
use crate::model::{Lattice, Shape};

pub fn layout(
    dims: u32,
    size: u32,
    layout: Layout,
    samples: u32,
    replicas: u32,
    betas: usize,
) -> MultispinLayout {
    let betas = (0..betas).map(|i| 0.2 + 0.01 * i as f64).collect();
    let lattice = Lattice::new(dims, size);
    let systems = IsingSystems::spin_glass(lattice, 0.1, betas, samples, replicas, 3);
    MultispinLayout::new(
        systems,
        MultispinOptions {
            layout,
            randoms: Randoms::Exact,
        },
    )
}

pub fn all_layouts() -> Vec<MultispinLayout> {
    vec![
        layout(
            2,
            6,
            Layout::Amsc {
                lanes: Lanes::Samples,
            },
            64,
            2,
            2,
        ),
        layout(
            3,
            4,
            Layout::Amsc {
                lanes: Lanes::Temperatures,
            },
            3,
            2,
            5,
        ),
        layout(
            2,
            4,
            Layout::Amsc {
                lanes: Lanes::Replicas,
            },
            2,
            64,
            1,
        ),
        layout(2, 64, Layout::Smsc, 2, 2, 2),
        layout(3, 64, Layout::Smsc, 1, 2, 1),
        triangular(
            6,
            Layout::Amsc {
                lanes: Lanes::Samples,
            },
            (32, 2),
            false,
        ),
        triangular(
            6,
            Layout::Amsc {
                lanes: Lanes::Replicas,
            },
            (1, 64),
            true,
        ),
        triangular(192, Layout::Smsc, (1, 2), false),
        kagome(triangular(
            6,
            Layout::Amsc {
                lanes: Lanes::Samples,
            },
            (32, 2),
            false,
        )),
        kagome(triangular(192, Layout::Smsc, (1, 2), true)),
        open(layout(
            2,
            6,
            Layout::Amsc {
                lanes: Lanes::Samples,
            },
            32,
            2,
            1,
        )),
        open(layout(2, 64, Layout::Smsc, 2, 2, 2)),
        open(layout(3, 64, Layout::Smsc, 1, 2, 1)),
        open(honeycomb(layout(
            2,
            6,
            Layout::Amsc {
                lanes: Lanes::Samples,
            },
            32,
            2,
            1,
        ))),
        open(triangular(
            6,
            Layout::Amsc {
                lanes: Lanes::Replicas,
            },
            (1, 64),
            true,
        )),
        open(kagome(triangular(192, Layout::Smsc, (1, 2), false))),
    ]
}

/// `layout` on the honeycomb lattice's brick wall drawn on its square lattice.
fn honeycomb(layout: MultispinLayout) -> MultispinLayout {
    shaped(layout, Shape::Honeycomb)
}

/// `layout` with open x and y axes (and a periodic z).
pub fn open(layout: MultispinLayout) -> MultispinLayout {
    use crate::config::{Boundaries, Boundary};
    let mut systems = layout.systems;
    systems.boundaries = Boundaries::new(&[Boundary::Open, Boundary::Open]);
    let options = MultispinOptions {
        layout: layout.layout,
        randoms: layout.randoms,
    };
    MultispinLayout::new(systems, options)
}

/// `layout` on the kagome lattice drawn on its triangular lattice.
pub fn kagome(layout: MultispinLayout) -> MultispinLayout {
    shaped(layout, Shape::Kagome)
}

/// `layout` on the 2D lattice of shape `shape` and its size.
pub fn shaped(layout: MultispinLayout, shape: Shape) -> MultispinLayout {
    let mut systems = layout.systems;
    systems.lattice = Lattice::shaped(shape, 2, systems.lattice.size);
    let options = MultispinOptions {
        layout: layout.layout,
        randoms: layout.randoms,
    };
    MultispinLayout::new(systems, options)
}

/// The triangular lattice of `size`: the +-J glass of `samples` samples with `replicas`
/// replicas each, or with one sample the antiferromagnet (`antiferromagnet`) or ferromagnet.
fn triangular(
    size: u32,
    layout: Layout,
    (samples, replicas): (u32, u32),
    antiferromagnet: bool,
) -> MultispinLayout {
    let lattice = Lattice::shaped(Shape::Triangular, 2, size);
    let betas = vec![0.2, 0.2002];
    let mut systems = match samples {
        1 => IsingSystems::ferromagnet(lattice, 0.1, betas, replicas, 3),
        _ => IsingSystems::spin_glass(lattice, 0.1, betas, samples, replicas, 3),
    };
    systems.antiferromagnet = antiferromagnet;
    let randoms = Randoms::Exact;
    MultispinLayout::new(systems, MultispinOptions { layout, randoms })
}

pub fn ferromagnet_layout(dims: u32, size: u32, layout: Layout, replicas: u32) -> MultispinLayout {
    let systems = IsingSystems::ferromagnet(Lattice::new(dims, size), 0.0, vec![0.44], replicas, 1);
    let randoms = Randoms::Exact;
    MultispinLayout::new(systems, MultispinOptions { layout, randoms })
}
