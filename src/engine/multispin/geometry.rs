//! Where the words of a [`MultispinLayout`] sit: word systems, the rows and planes of a colour
//! (a slab's with its halos), a word's index in storage, its site and its neighbours.

use super::MultispinLayout;
use crate::model::Shape;

/// A count or index within one word system, which the kernels hold in a `u32`; a validated
/// config keeps it below [`crate::config::MAX_MULTISPIN_WORDS`], so this only fails for a
/// layout built around the config's checks.
pub(super) fn within_a_word_system(value: u64, what: &str) -> u32 {
    u32::try_from(value).unwrap_or_else(|_| {
        panic!("{what} of a word system: {value} exceeds the 32-bit indices of the kernels")
    })
}

/// The x-neighbour word that comes from the adjacent word: AMSC takes it as it is; SMSC shifts
/// `same` by one bit towards the neighbour, carrying in the end bit of `adjacent`.
pub fn shift_in(smsc: bool, same: u32, adjacent: u32, p: u32) -> u32 {
    match (smsc, p) {
        (false, _) => adjacent,
        (true, 0) => (same << 1) | (adjacent >> 31),
        (true, _) => (same >> 1) | (adjacent << 31),
    }
}

impl MultispinLayout {
    /// Number of word systems.
    pub fn word_systems(&self) -> u32 {
        self.temperature_words * self.sample_words * self.replica_words
    }

    /// Rows of one colour stored: `L^(d-1)`, and in a slab its planes' and the two halos'.
    pub fn rows(&self) -> u32 {
        let rows = u64::from(self.stored_planes()) * u64::from(self.plane_rows());
        within_a_word_system(rows, "rows")
    }

    /// Rows of one plane of the slowest axis: 1 in 2D (a plane is a row), `L` in 3D.
    pub fn plane_rows(&self) -> u32 {
        let lattice = self.lattice();
        within_a_word_system(u64::from(lattice.size).pow(lattice.dims - 2), "plane rows")
    }

    /// Planes of the slowest axis that this layout updates and measures: `L`, or a slab's
    /// (see [`Self::stored_planes`]).
    pub fn own_planes(&self) -> u32 {
        self.systems
            .slab
            .map_or(self.lattice().size, |slab| slab.planes)
    }

    /// Planes of the slowest axis stored: `L`; in a slab its `P` planes at `0 .. P`, the upper
    /// halo (the upper neighbour's first plane) at `P` and the lower halo (the lower
    /// neighbour's last plane) at `P + 1`. The slowest axis wraps modulo this, so the -1
    /// neighbour of plane 0 is the lower halo and the +1 neighbour of plane `P - 1` the upper
    /// one, and the other axes wrap as in the whole lattice. Slabs start at even planes and hold
    /// an even number, so every stored plane has the parity of its plane in the lattice.
    pub fn stored_planes(&self) -> u32 {
        self.systems
            .slab
            .map_or(self.lattice().size, |slab| slab.planes + 2)
    }

    /// Rows of one colour updated and measured: the own planes' (see [`Self::stored_planes`]).
    pub fn own_rows(&self) -> u32 {
        self.own_planes() * self.plane_rows()
    }

    /// Words of one colour updated and measured (the rest are halos).
    pub fn own_colour_words(&self) -> u32 {
        self.own_rows() * self.row_words()
    }

    /// The lattice's row of stored row 0: a slab's first plane's; 0 for whole lattices.
    pub fn row_offset(&self) -> u32 {
        self.systems.slab.map_or(0, |slab| slab.first) * self.plane_rows()
    }

    /// What the Philox counter's word index adds to a colour word's index here to make the
    /// lattice's (the run's) index of that word: the words of the planes before a slab.
    pub fn word_offset(&self) -> u32 {
        self.row_offset() * self.row_words()
    }

    /// `(y, z)` of stored row `row` (counted in the slab's planes in a slab).
    pub fn row_coords(&self, row: u32) -> (u32, u32) {
        let l = self.lattice().size;
        match self.lattice().dims {
            2 => (row, 0),
            _ => (row % l, row / l),
        }
    }

    /// The lattice's site of stored site `site` (`row L + x`): the same for whole lattices; in
    /// a slab, stored plane `q` is the lattice's plane `first + q`, the upper halo `first + P`
    /// and the lower halo `first - 1` (modulo `L`).
    pub fn lattice_site(&self, site: u64) -> u64 {
        let Some(slab) = self.systems.slab else {
            return site;
        };
        let lattice = self.lattice();
        let plane_sites = u64::from(lattice.size).pow(lattice.dims - 1);
        let (q, rest) = ((site / plane_sites) as u32, site % plane_sites);
        let plane = match q.checked_sub(slab.planes) {
            None | Some(0) => slab.first + q,
            Some(_) => slab.first + lattice.size - 1,
        } % lattice.size;
        u64::from(plane) * plane_sites + rest
    }

    /// The words of stored plane `plane` of `colour` of word system `g` in storage: the
    /// plane's rows, in order (the halo exchange's unit, see [`crate::engine::slabs`]).
    pub fn plane_words(&self, g: u32, colour: u32, plane: u32) -> std::ops::Range<usize> {
        let start = self.word_index(g, colour, plane * self.plane_rows(), 0);
        start..start + (self.plane_rows() * self.row_words()) as usize
    }

    /// Words per row of one colour.
    pub fn row_words(&self) -> u32 {
        let l = self.lattice().size;
        if self.smsc() { l / 64 } else { l / 2 }
    }

    /// Words of one colour of one word system (below 2^30 for a validated config: see
    /// [`crate::config::MAX_MULTISPIN_WORDS`]; 2^26 for the 65536^2 SMSC lattice).
    pub fn colour_words(&self) -> u32 {
        within_a_word_system(self.colour_words_u64(), "words of one colour")
    }

    fn colour_words_u64(&self) -> u64 {
        u64::from(self.rows()) * u64::from(self.row_words())
    }

    /// Spin words of one word system, both colours.
    pub fn system_words(&self) -> u64 {
        2 * self.colour_words_u64()
    }

    /// Spin words of every word system.
    pub fn words(&self) -> u64 {
        self.system_words() * u64::from(self.word_systems())
    }

    /// Index of word `w` of row `row`, colour `colour`, word system `g`.
    pub fn word_index(&self, g: u32, colour: u32, row: u32, w: u32) -> usize {
        let colour_words = self.colour_words() as usize;
        (g as usize * 2 + colour as usize) * colour_words
            + row as usize * self.row_words() as usize
            + w as usize
    }
}

/// Where a word of one colour sits and where its neighbours are; twin of
/// `shaders/wgsl/multispin_lattice.wgsl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordSite {
    pub row: u32,
    pub w: u32,
    /// `x` offset of the colour in this row: `(y + z + colour) mod 2`.
    pub p: u32,
    /// The adjacent word that supplies the shifted x-neighbour: `w - 1` (p = 0) or `w + 1`.
    pub adjacent: u32,
    /// Rows of the -y and -z neighbours (the z entry is unused in 2D).
    pub minus_rows: [u32; 2],
    /// Rows of the +y and +z neighbours.
    pub plus_rows: [u32; 2],
}

impl MultispinLayout {
    /// The site of word `w` in row `row` of colour `colour`.
    pub fn word_site(&self, colour: u32, row: u32, w: u32) -> WordSite {
        let l = self.lattice().size;
        let wr = self.row_words();
        let (y, z) = self.row_coords(row);
        let p = (y + z + colour) & 1;
        // The slowest axis wraps over the stored planes (a slab's halos), the others over L.
        let (y_size, z_size) = match self.lattice().dims {
            2 => (self.stored_planes(), 1),
            _ => (l, self.stored_planes()),
        };
        let wrap = |v: u32, step: i32, size: u32| (v as i32 + step).rem_euclid(size as i32) as u32;
        let layer = z * l;
        let plane = |zz: u32| zz * l + y;
        WordSite {
            row,
            w,
            p,
            adjacent: if p == 0 {
                (w + wr - 1) % wr
            } else {
                (w + 1) % wr
            },
            minus_rows: [layer + wrap(y, -1, y_size), plane(wrap(z, -1, z_size))],
            plus_rows: [layer + wrap(y, 1, y_size), plane(wrap(z, 1, z_size))],
        }
    }

    /// The `-x` and `+x` neighbours of the word at `site`, from the other colour's `words`:
    /// one is the word at `w`, the other comes from the adjacent word (twin of `x_neighbours`
    /// in `multispin_lattice.wgsl`).
    pub fn x_neighbours(&self, words: &[u32], site: &WordSite) -> [u32; 2] {
        let row = (site.row * self.row_words()) as usize;
        let same = words[row + site.w as usize];
        let shifted = shift_in(
            self.smsc(),
            same,
            words[row + site.adjacent as usize],
            site.p,
        );
        if site.p == 0 {
            [shifted, same]
        } else {
            [same, shifted]
        }
    }

    /// The triangular lattice's neighbours of the word at `site` along its diagonal, at
    /// `(x - 1, y - 1)` and `(x + 1, y + 1)`, from the words of the site's own colour (the twin
    /// of `unsatisfied_diagonal` in `multispin_metropolis.wgsl`): in the rows next to the
    /// site's the colour sits at the offset `1 - p`, as the other colour does in the site's
    /// row, so they are the `-x` neighbour in the row below and the `+x` one in the row above.
    pub fn diagonal_neighbours(&self, own: &[u32], site: &WordSite) -> [u32; 2] {
        let below = WordSite {
            row: site.minus_rows[0],
            ..*site
        };
        let above = WordSite {
            row: site.plus_rows[0],
            ..*site
        };
        [
            self.x_neighbours(own, &below)[0],
            self.x_neighbours(own, &above)[1],
        ]
    }

    /// Bonds of a site: the lattice's coordination, but 4 on the kagome lattice, whose sites
    /// keep four of the triangular lattice's six ([`Self::has_bonds`]).
    pub fn site_bonds(&self) -> u32 {
        match self.is_kagome() {
            true => 4,
            false => self.lattice().coordination(),
        }
    }

    /// Whether the site of `site` (2D, whole lattices: `y` is its row, `x` has the parity
    /// `p`) has its bonds along direction `d` (0 x, 1 y, 2 the diagonal), both ways: every
    /// site, but on the kagome lattice only bonds neither end of which is a hole (odd `x` and
    /// odd `y`): the x bonds of even rows, the y bonds of even columns, the diagonals of sites
    /// of odd `x + y`; a hole has none.
    pub fn has_bonds(&self, site: &WordSite, d: u32) -> bool {
        let (p, h) = (site.p, site.row & 1);
        match (self.is_kagome(), d) {
            (false, _) => true,
            (true, 0) => h == 0,
            (true, 1) => p == 0,
            (true, _) => p != h,
        }
    }

    /// The open axes as bits (bit `d` set where axis `d` is open): the sites on either edge of
    /// such an axis lack the bond across it.
    pub fn open_axes(&self) -> u32 {
        self.systems.boundaries.open_axes()
    }

    /// Lanes of the word at `site` whose bond towards the `-d` (`side` 0) or `+d` (`side` 1)
    /// neighbour crosses an open edge: sites at coordinate 0 or `L - 1` of an open axis `d`,
    /// and on the triangular lattice, whose diagonal (`d` 2) steps along x and y both, at
    /// coordinate 0 or `L - 1` of either open axis. The twin of `open_lanes` in
    /// `multispin_lattice.wgsl`.
    pub fn open_lanes(&self, site: &WordSite, d: u32, side: u32) -> u32 {
        match d {
            2 if self.is_triangular() => {
                self.axis_open_lanes(site, 0, side) | self.axis_open_lanes(site, 1, side)
            }
            _ => self.axis_open_lanes(site, d, side),
        }
    }

    /// Lanes of the word at `site` on the `-` (`side` 0) or `+` (`side` 1) edge of axis `axis`
    /// where that axis is open. A row's coordinates are the lattice's (a slab's planes counted
    /// from its first), and along x the edge sites are the first bit of a row's first word and
    /// the last bit of its last word (SMSC), or those whole words (AMSC).
    fn axis_open_lanes(&self, site: &WordSite, axis: u32, side: u32) -> u32 {
        if self.open_axes() >> axis & 1 == 0 {
            return 0;
        }
        let edge = side * (self.lattice().size - 1);
        let (y, z) = self.lattice_row_coords(site.row);
        match axis {
            0 if site.p != side || site.w != side * (self.row_words() - 1) => 0,
            0 if self.smsc() => 1 << (31 * side),
            0 => !0,
            1 if y == edge => !0,
            2 if z == edge => !0,
            _ => 0,
        }
    }

    /// The lattice's `(y, z)` of stored row `row` of a slab's own planes: [`Self::row_coords`],
    /// the slowest axis counted from the slab's first plane.
    fn lattice_row_coords(&self, row: u32) -> (u32, u32) {
        let first = self.systems.slab.map_or(0, |slab| slab.first);
        let (y, z) = self.row_coords(row);
        match self.lattice().dims {
            2 => (y + first, z),
            _ => (y, z + first),
        }
    }

    /// Whether the site of `site` is a kagome hole: odd `x` and odd `y` (see
    /// [`Self::has_bonds`]).
    pub fn is_hole(&self, site: &WordSite) -> bool {
        self.is_kagome() && site.p == 1 && site.row & 1 == 1
    }

    /// Whether the lattice is the honeycomb's brick wall, whose sites keep one of their y bonds
    /// ([`crate::model::Lattice::y_bonds`]).
    pub fn is_honeycomb(&self) -> bool {
        self.lattice().shape == Shape::Honeycomb
    }

    /// Which of the bonds to the `-d` and `+d` neighbours the sites of `colour` have: both, but
    /// of the honeycomb's y bonds one ([`crate::model::Lattice::y_bonds`]).
    pub fn bond_sides(&self, colour: u32, d: u32) -> [bool; 2] {
        match d {
            1 => self.lattice().y_bonds(colour),
            _ => [true, true],
        }
    }

    /// The neighbours in directions `-d` and `+d` of the word at `site`, from the other
    /// colour's `words`.
    pub fn neighbours(&self, words: &[u32], site: &WordSite, d: u32) -> [u32; 2] {
        let wr = self.row_words();
        let at = |row: u32| words[(row * wr + site.w) as usize];
        match d {
            0 => self.x_neighbours(words, site),
            _ => [
                at(site.minus_rows[d as usize - 1]),
                at(site.plus_rows[d as usize - 1]),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{Lanes, Layout};
    use crate::engine::multispin::fixtures::ferromagnet_layout;

    /// The benchmark target, 65536^2 = 2^32 sites with SMSC, without allocating it: sizes,
    /// word indices and site numbers past `u32`.
    #[test]
    fn index_arithmetic_holds_at_65536_squared_smsc() {
        let layout = ferromagnet_layout(2, 65536, Layout::Smsc, 64);
        let n = layout.lattice().sites();
        assert_eq!(n, 1 << 32);
        assert_eq!(layout.systems.spin_count() as u64, 64 << 32);
        assert_eq!((layout.rows(), layout.row_words()), (65536, 1024));
        assert_eq!(layout.colour_words(), 1 << 26);
        assert_eq!(layout.system_words(), 1 << 27);
        assert_eq!(layout.words(), 64 << 27);
        assert_eq!(layout.lines(), 2048);
        assert_eq!(layout.overlap_slots(), 65536);
        // The last word of the last word system.
        let last = layout.word_index(63, 1, 65535, 1023) as u64;
        assert_eq!(last, layout.words() - 1);
        assert_eq!(layout.word_index(32, 0, 0, 0) as u64, 64 << 26);
        // Its sites: row y = 65535, colour 1, so x = 2 (32 * 1023 + bit).
        let mut sites = Vec::new();
        layout.for_each_bit(63, 1, 65535, 1023, |bit, system, site| {
            assert_eq!(system, 63);
            sites.push((bit, site));
        });
        assert_eq!(sites.len(), 32);
        assert_eq!(sites[0], (0, 65535 * 65536 + 2 * 32 * 1023));
        assert_eq!(sites[31], (31, n - 2));
        let mut colour_0 = Vec::new();
        layout.for_each_bit(63, 0, 65535, 1023, |_, _, site| colour_0.push(site));
        assert_eq!(colour_0[31], n - 1);
        // The spin index pack and unpack compute for it, past 2^32 and 2^38.
        assert_eq!(u64::from(63u32) * n + (n - 1), (64 << 32) - 1);
        // Neighbours wrap at the far edges; indices within a colour stay below colour_words.
        let site = layout.word_site(0, 65535, 1023);
        assert_eq!((site.p, site.adjacent), (1, 0));
        assert_eq!((site.minus_rows[0], site.plus_rows[0]), (65534, 0));
        let (colour, end) = layout.line_site(layout.lines() - 1, 65535);
        assert_eq!((colour, end.row, end.w, end.p), (0, 65535, 1023, 1));
        assert_eq!(layout.line_position(layout.lines() - 1), (0, 1023, 1));
        let cw = u64::from(end.row) * u64::from(layout.row_words()) + u64::from(end.w);
        assert_eq!(cw, u64::from(layout.colour_words()) - 1);
        assert_eq!(layout.overlap_slot(1023, 1, 31), 65535);
    }

    #[test]
    fn index_arithmetic_holds_at_the_largest_lattices() {
        // SMSC: the largest 2D and 3D sizes below 2^34 sites.
        let smsc_2d = ferromagnet_layout(2, 131_008, Layout::Smsc, 1);
        assert_eq!(smsc_2d.colour_words(), 131_008 * 2047);
        assert_eq!(smsc_2d.system_words(), 131_008 * 131_008 / 32);
        let smsc_3d = ferromagnet_layout(3, 2560, Layout::Smsc, 1);
        assert_eq!(smsc_3d.rows(), 2560 * 2560);
        assert_eq!(smsc_3d.lines(), 2560 * 40 * 2);
        assert_eq!(smsc_3d.system_words(), 2560u64.pow(3) / 32);
        // AMSC: one site per word, below 2^31 sites.
        let amsc = ferromagnet_layout(
            2,
            46340,
            Layout::Amsc {
                lanes: Lanes::Replicas,
            },
            32,
        );
        assert_eq!(amsc.colour_words(), 46340 * 23170);
        assert!(amsc.system_words() < crate::config::MAX_MULTISPIN_WORDS);
    }

    #[test]
    #[should_panic(expected = "exceeds the 32-bit indices")]
    fn word_counts_beyond_u32_are_refused_not_wrapped() {
        let too_big = ferromagnet_layout(
            2,
            131_072,
            Layout::Amsc {
                lanes: Lanes::Replicas,
            },
            32,
        );
        too_big.colour_words();
    }
}
