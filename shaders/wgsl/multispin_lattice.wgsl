// Storage and neighbours of multispin words, the twin of src/engine/multispin/. Word system g
// holds two colour arrays of rows() * row_words() words; row = z L + y; in a row of colour c the
// sites sit at x = 2k + p, p = (y + z + c) mod 2. Word systems are numbered
// g = (tw * SAMPLE_WORDS + sw) * REPLICA_WORDS + rw.
// Slabs (src/engine/slabs.rs): of the slowest axis (y in 2D, z in 3D) the kernels update and
// measure PLANES planes and store STORED_PLANES (a slab's own planes, then its upper and lower
// halo), over which that axis wraps; both L for whole lattices. WORD_OFFSET is the lattice's
// index of a slab's colour word 0, which keys the Philox counters.

#import lattice
#import multispin_layout

override REPLICA_WORDS: u32 = 1u;
override SAMPLE_WORDS: u32 = 1u;
override PLANES: u32 = 1u;
override STORED_PLANES: u32 = 1u;
override WORD_OFFSET: u32 = 0u;

// The kagome lattice (KAGOME 1, drawn on the triangular lattice, TRIANGULAR 1): the sites of odd
// x and odd y are holes, which no pass updates (pass 2, colour 0's odd rows) and no measurement
// counts; the other sites keep four of their six bonds (has_bonds).
override KAGOME: u32 = 0u;

// Bonds of a site, the thresholds' coordination: 2 directions() (6 on the triangular lattice),
// 3 on the honeycomb's brick wall (lattice.wgsl), 4 on the kagome lattice.
fn site_bonds() -> u32 {
    if KAGOME == 1u {
        return 4u;
    }
    return counted_bonds();
}

// The neighbour words a site's update counts: 2 directions(), 3 on the brick wall; on the
// kagome lattice the six of the triangular lattice, the two of its holes counted as satisfied.
fn counted_bonds() -> u32 {
    return select(2u * directions(), 3u, HONEYCOMB == 1u);
}

// Whether a site at x parity p and y parity h has its bonds along direction d (0 x, 1 y, 2 the
// diagonal), both ways: every site's, but on the kagome lattice only bonds with no hole at
// either end: the x bonds of even rows, the y bonds of even columns, the diagonals of sites of
// odd x + y; a hole has none. As MultispinLayout::has_bonds.
fn has_bonds(d: u32, p: u32, h: u32) -> bool {
    if KAGOME == 0u {
        return true;
    }
    if d == 0u {
        return h == 0u;
    }
    if d == 1u {
        return p == 0u;
    }
    return p != h;
}

// Lanes of the bonds along d of a site at (p, h): every lane, or none (has_bonds).
fn bond_lanes(d: u32, p: u32, h: u32) -> u32 {
    return select(0u, ~0u, has_bonds(d, p, h));
}

// Whether a site at x parity p and y parity h is a kagome hole.
fn is_hole(p: u32, h: u32) -> bool {
    return KAGOME == 1u && p == 1u && h == 1u;
}

// Whether the sites of `colour` have their +y bond: all but the honeycomb's colour 1.
fn has_plus_y(colour: u32) -> bool {
    return HONEYCOMB == 0u || colour == 0u;
}

// Rows of one plane of the slowest axis.
fn plane_rows() -> u32 {
    return select(1u, L, DIMS == 3u);
}

// Open edges (OPEN_AXES, bit d for axis d): a site at coordinate 0 or L - 1 of an open axis lacks
// the bond across it, which the updates and measurements leave out.
override OPEN_AXES: u32 = 0u;

// The lattice's plane of the slowest axis of stored plane 0: a slab's first (WORD_OFFSET counts
// the words of the planes before it).
fn first_plane() -> u32 {
    return WORD_OFFSET / (plane_rows() * row_words());
}

// The lattice's (y, z) of stored row `row` of the own planes.
fn lattice_row_coords(row: u32) -> vec2<u32> {
    if DIMS == 3u {
        return vec2<u32>(row % L, row / L + first_plane());
    }
    return vec2<u32>(row + first_plane(), 0u);
}

// Lanes of word w (x parity p) of a row at lattice coordinates `coords` (y, z) whose bond towards
// side `side` (0: -d, 1: +d) of direction d crosses an open edge: the edge of axis d, or on the
// triangular lattice, whose diagonal (d 2) steps along x and y, of either; as
// MultispinLayout::open_lanes.
fn open_lanes(d: u32, side: u32, w: u32, p: u32, coords: vec2<u32>) -> u32 {
    if TRIANGULAR == 1u && d == 2u {
        return axis_open_lanes(0u, side, w, p, coords) | axis_open_lanes(1u, side, w, p, coords);
    }
    return axis_open_lanes(d, side, w, p, coords);
}

// Lanes of word w (x parity p, y parity h) of a row at lattice coordinates `coords` (y, z) of
// colour `colour` whose bond in slot k of its counted bonds (-x, +x, -y, +y, then -z, +z or the
// diagonal's; on the honeycomb -x, +x and the one y bond, up from colour 0) crosses an open
// edge: none of a slot past counted_bonds() or of a bond the site lacks (has_bonds).
fn slot_open_lanes(k: u32, colour: u32, w: u32, p: u32, h: u32, coords: vec2<u32>) -> u32 {
    if k >= counted_bonds() {
        return 0u;
    }
    var side = k & 1u;
    if HONEYCOMB == 1u && k == 2u {
        side = select(0u, 1u, colour == 0u);
    }
    return open_lanes(k / 2u, side, w, p, coords) & bond_lanes(k / 2u, p, h);
}

// Lanes of word w (x parity p) of a row at lattice coordinates `coords` (y, z) on side `side`
// (0: -, 1: +) of axis `axis` where that axis is open.
fn axis_open_lanes(axis: u32, side: u32, w: u32, p: u32, coords: vec2<u32>) -> u32 {
    if ((OPEN_AXES >> axis) & 1u) == 0u {
        return 0u;
    }
    if axis == 0u {
        return select(0u, x_edge_lanes(side), p == side && w == side * (row_words() - 1u));
    }
    return select(0u, ~0u, select(coords.y, coords.x, axis == 1u) == side * (L - 1u));
}

// Rows stored per colour (a slab's halos included).
fn rows() -> u32 {
    return STORED_PLANES * plane_rows();
}

fn colour_words() -> u32 {
    return rows() * row_words();
}

// Words of one colour that are updated (a slab's own planes').
fn own_colour_words() -> u32 {
    return PLANES * plane_rows() * row_words();
}

// The stored extent of y: the slowest axis in 2D.
fn y_size() -> u32 {
    return select(STORED_PLANES, L, DIMS == 3u);
}

// The triangular lattice (TRIANGULAR 1): the diagonal bond from (x, y) to (x + 1, y + 1) joins
// sites of one colour, which update in two passes each, the rows of even y, then of odd y:
// the pass, colour + 2 half, is the dispatch's colour (src/engine/multispin/update.rs; `pass` is
// a WGSL keyword).
fn pass_colour(pass_index: u32) -> u32 {
    return pass_index & 1u;
}

fn row_halves() -> u32 {
    return select(1u, 2u, TRIANGULAR == 1u);
}

// Stored row of the r-th row that pass `pass_index` updates: every row, or every other from
// the pass's half.
fn pass_row(pass_index: u32, r: u32) -> u32 {
    return r * row_halves() + (pass_index >> 1u);
}

// Word cw = row * row_words() + w of a colour array and the other colour's words next to it:
// `adjacent` supplies the shifted x-neighbour, minus/plus the -y, -z / +y, +z neighbours. Found
// from cw by offsets with one wrap test each, as the CUDA twin's word_neighbours (fewer ALU
// instructions than rebuilding them from rows). Offsets wrap modulo 2^32 (in 2D the z ones are
// never used); every true index fits.
struct WordNeighbours {
    p: u32,
    adjacent: u32,
    minus: vec2<u32>,
    plus: vec2<u32>,
}

fn word_neighbours(colour: u32, row: u32, w: u32) -> WordNeighbours {
    let wr = row_words();
    let plane = L * wr;
    let cw = row * wr + w;
    let y = select(row, row % L, DIMS == 3u);
    let z = select(0u, row / L, DIMS == 3u);
    var n: WordNeighbours;
    n.p = (y + z + colour) & 1u;
    if n.p == 0u {
        n.adjacent = select(cw - 1u, cw + (wr - 1u), w == 0u);
    } else {
        n.adjacent = select(cw + 1u, cw - (wr - 1u), w == wr - 1u);
    }
    n.minus = vec2<u32>(
        select(cw - wr, cw + (y_size() - 1u) * wr, y == 0u),
        select(cw - plane, cw + (STORED_PLANES - 1u) * plane, z == 0u),
    );
    n.plus = vec2<u32>(
        select(cw + wr, cw - (y_size() - 1u) * wr, y == y_size() - 1u),
        select(cw + plane, cw - (STORED_PLANES - 1u) * plane, z == STORED_PLANES - 1u),
    );
    return n;
}

// The (-x, +x) neighbours from the other colour's words at w and at the adjacent word.
fn x_neighbours(same: u32, adjacent: u32, p: u32) -> vec2<u32> {
    let shifted = shift_in(same, adjacent, p);
    return select(vec2<u32>(same, shifted), vec2<u32>(shifted, same), p == 0u);
}

// Lines run along y with fixed (z, w, p): line = (z * row_words() + w) * 2 + p, over the own
// planes.
fn lines() -> u32 {
    return select(1u, PLANES, DIMS == 3u) * row_words() * 2u;
}

// Sites of a line: L, or in 2D the own planes (y is the slowest axis).
fn line_length() -> u32 {
    return select(PLANES, L, DIMS == 3u);
}

// Lines per thread of the observables and overlap kernels (MultispinLayout::line_run): strip s
// walks lines s, s + strips(), ..., all of one (w, p) since strips() is a multiple of
// 2 row_words().
override LINE_RUN: u32 = 1u;

fn strips() -> u32 {
    return lines() / LINE_RUN;
}

fn strip_line(strip: u32, r: u32) -> u32 {
    return strip + r * strips();
}

// Wide planes a strip's lane tallies use (bitslice.wgsl): a strip adds at most directions()
// bonds for each of its LINE_RUN * line_length() sites.
fn strip_planes() -> u32 {
    return max(firstLeadingBit(directions() * LINE_RUN * line_length()) + 1u, TALLY_PLANES);
}

// (z, w, p) of a line.
fn line_position(line: u32) -> vec3<u32> {
    return vec3<u32>((line >> 1u) / row_words(), (line >> 1u) % row_words(), line & 1u);
}

// A line (z, w, p) seen from its first site. Along the line y advances the row by one and the
// colour alternates, while the x-offset of the sites' row stays p (p = (y + z + colour) mod 2 with
// colour = (z + y + p) mod 2): the adjacent word and the +z neighbour lie a constant distance
// (modulo 2^32) from each site's word, found once per line.
struct LineWalk {
    first: u32,
    colour: u32,
    p: u32,
    adjacent: u32,
    plus_z: u32,
}

fn line_walk(line: u32) -> LineWalk {
    let wr = row_words();
    let plane = L * wr;
    let position = line_position(line);
    let z = position.x;
    let w = position.y;
    var walk: LineWalk;
    walk.p = position.z;
    walk.first = z * plane + w;
    walk.colour = (z + walk.p) & 1u;
    if walk.p == 0u {
        walk.adjacent = select(0u - 1u, wr - 1u, w == 0u);
    } else {
        walk.adjacent = select(1u, 0u - (wr - 1u), w == wr - 1u);
    }
    walk.plus_z = select(plane, 0u - (STORED_PLANES - 1u) * plane, z == STORED_PLANES - 1u);
    return walk;
}

// Lanes whose forward bonds (+x, +y, then +z or the diagonal) join two sites, of the site at step
// y of the line at `position` (z, w, p): bond_lanes, less those across an open edge.
fn forward_lanes(position: vec3<u32>, y: u32) -> vec3<u32> {
    let h = y & 1u;
    let w = position.y;
    let p = position.z;
    var coords = vec2<u32>(y + first_plane(), 0u);
    if DIMS == 3u {
        coords = vec2<u32>(y, position.x + first_plane());
    }
    return vec3<u32>(
        bond_lanes(0u, p, h) & ~open_lanes(0u, 1u, w, p, coords),
        bond_lanes(1u, p, h) & ~open_lanes(1u, 1u, w, p, coords),
        bond_lanes(2u, p, h) & ~open_lanes(2u, 1u, w, p, coords),
    );
}

// Word, colour and +y neighbour of the site at step y of a walk.
fn walk_word(walk: LineWalk, y: u32) -> u32 {
    return walk.first + y * row_words();
}

fn walk_colour(walk: LineWalk, y: u32) -> u32 {
    return (walk.colour + y) & 1u;
}

fn walk_plus_y(y: u32, cw: u32) -> u32 {
    return select(cw + row_words(), cw - (y_size() - 1u) * row_words(), y == y_size() - 1u);
}

// Start of colour `colour` of word system g.
fn colour_base(g: u32, colour: u32) -> u32 {
    return (2u * g + colour) * colour_words();
}

// Coupling group of word system g, and the start of its direction-d bonds of one colour (the
// triangular lattice's diagonal is direction 2).
fn coupling_group(g: u32) -> u32 {
    return (g / REPLICA_WORDS) % SAMPLE_WORDS;
}

fn bond_base(group: u32, d: u32, colour: u32) -> u32 {
    return ((group * directions() + d) * 2u + colour) * colour_words();
}
