// Storage and neighbours of multispin words, the twin of src/engine/multispin.rs. Word system g
// holds two colour arrays of rows() * row_words() words; row = z L + y; in a row of colour c the
// sites sit at x = 2k + p, p = (y + z + c) mod 2. Word systems are numbered
// g = (tw * SAMPLE_WORDS + sw) * REPLICA_WORDS + rw.

#import lattice
#import multispin_layout

override REPLICA_WORDS: u32 = 1u;
override SAMPLE_WORDS: u32 = 1u;

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

fn rows() -> u32 {
    return select(L, L * L, DIMS == 3u);
}

fn colour_words() -> u32 {
    return rows() * row_words();
}

fn wrap_minus(v: u32) -> u32 {
    return select(v - 1u, L - 1u, v == 0u);
}

fn wrap_plus(v: u32) -> u32 {
    return select(v + 1u, 0u, v == L - 1u);
}

fn word_site(colour: u32, row: u32, w: u32) -> WordSite {
    let wr = row_words();
    let y = row % L;
    let z = row / L;
    var site: WordSite;
    site.row = row;
    site.w = w;
    site.p = (y + z + colour) & 1u;
    site.adjacent = select((w + 1u) % wr, (w + wr - 1u) % wr, site.p == 0u);
    site.minus_rows = vec2<u32>(z * L + wrap_minus(y), wrap_minus(z) * L + y);
    site.plus_rows = vec2<u32>(z * L + wrap_plus(y), wrap_plus(z) * L + y);
    return site;
}

// The (-x, +x) neighbours from the other colour's words at w and at the adjacent word.
fn x_neighbours(same: u32, adjacent: u32, p: u32) -> vec2<u32> {
    let shifted = shift_in(same, adjacent, p);
    return select(vec2<u32>(same, shifted), vec2<u32>(shifted, same), p == 0u);
}

// Lines run along y with fixed (z, w, p): line = (z * row_words() + w) * 2 + p.
fn lines() -> u32 {
    return select(1u, L, DIMS == 3u) * row_words() * 2u;
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
// each of its LINE_RUN * L sites.
fn strip_planes() -> u32 {
    return max(firstLeadingBit(DIMS * LINE_RUN * L) + 1u, TALLY_PLANES);
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
    walk.plus_z = select(plane, 0u - (L - 1u) * plane, z == L - 1u);
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
    return select(cw + row_words(), cw - (L - 1u) * row_words(), y == L - 1u);
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
