// Storage and neighbours of multispin words, the twin of src/engine/multispin.rs. Word system g
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

struct WordSite {
    row: u32,
    w: u32,
    p: u32,
    // w - 1 (p = 0) or w + 1 (p = 1): the word that supplies the shifted x-neighbour.
    adjacent: u32,
    // Rows of the -y, -z (minus) and +y, +z (plus) neighbours.
    minus_rows: vec2<u32>,
    plus_rows: vec2<u32>,
}

// Rows of one plane of the slowest axis.
fn plane_rows() -> u32 {
    return select(1u, L, DIMS == 3u);
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

fn wrap_minus(v: u32, size: u32) -> u32 {
    return select(v - 1u, size - 1u, v == 0u);
}

fn wrap_plus(v: u32, size: u32) -> u32 {
    return select(v + 1u, 0u, v == size - 1u);
}

fn word_site(colour: u32, row: u32, w: u32) -> WordSite {
    let wr = row_words();
    let y = select(row, row % L, DIMS == 3u);
    let z = select(0u, row / L, DIMS == 3u);
    var site: WordSite;
    site.row = row;
    site.w = w;
    site.p = (y + z + colour) & 1u;
    site.adjacent = select((w + 1u) % wr, (w + wr - 1u) % wr, site.p == 0u);
    site.minus_rows = vec2<u32>(z * L + wrap_minus(y, y_size()), wrap_minus(z, STORED_PLANES) * L + y);
    site.plus_rows = vec2<u32>(z * L + wrap_plus(y, y_size()), wrap_plus(z, STORED_PLANES) * L + y);
    return site;
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

// Wide planes a strip's lane tallies use (bitslice.wgsl): a strip adds at most DIMS bonds for
// each of its LINE_RUN * line_length() sites.
fn strip_planes() -> u32 {
    return max(firstLeadingBit(DIMS * LINE_RUN * line_length()) + 1u, TALLY_PLANES);
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

// Coupling group of word system g, and the start of its direction-d bonds of one colour.
fn coupling_group(g: u32) -> u32 {
    return (g / REPLICA_WORDS) % SAMPLE_WORDS;
}

fn bond_base(group: u32, d: u32, colour: u32) -> u32 {
    return ((group * DIMS + d) * 2u + colour) * colour_words();
}
