// Checkerboard Metropolis on multispin words: 32 lanes (AMSC) or 32 sites (SMSC) per word, exact
// independent decisions. CPU twin: src/engine/cpu/multispin_metropolis.rs. Thread t of word
// system g updates WORD_RUN words of one row of the pass params.colour (its colour, and on the
// triangular lattice its half of the rows: multispin_lattice.wgsl): the pass's row t / stride,
// words t mod stride + j stride, stride = row_words() / WORD_RUN (adjacent threads, adjacent
// words); a swap round's tally (TALLY_RUNS > 0) updates TALLY_RUNS such runs per thread.

#import dispatch
#import philox
#import slice
#import bitslice
#import multispin_lattice
#import multispin_decide
#import counters

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<u32>;
@group(0) @binding(2) var<storage, read> thresholds: array<u32>;
@group(0) @binding(3) var<storage, read_write> observations: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> couplings: array<u32>;

// Edwards-Anderson couplings to read (the ferromagnet has none); and which threshold table a
// word system uses: g / WORDS_PER_TABLE.
override DISORDERED: bool = false;
override WORDS_PER_TABLE: u32 = 1u;
// Words per thread (a divisor of row_words(), as the CUDA update's): they share the row's
// geometry, and the workgroup's threshold table loads once for more words.
override WORD_RUN: u32 = 1u;

// The colour-1 update before a swap round at zero field (src/engine/wgpu/multispin/): it also
// counts each lane's satisfied bonds after the update into the round's records (slot
// params.slot), which the swap kernel reads, so no observables kernel runs between the sweep and
// the round. Every bond joins a colour-0 and a colour-1 site, so the bonds of the colour-1 sites
// count each bond once, and colour 0 no longer changes in this sweep. TALLY_RUNS is the number of
// runs of WORD_RUN words each thread updates (0: no tally), run_threads() apart, over which its
// transposes are shared. The twin of the CUDA update's TALLY_RUNS.
override TALLY_RUNS: u32 = 0u;

// Runs of WORD_RUN words per pass, and the threads that update them.
fn runs() -> u32 {
    return own_colour_words() / row_halves() / WORD_RUN;
}

fn run_threads() -> u32 {
    let per_thread = max(TALLY_RUNS, 1u);
    return (runs() + per_thread - 1u) / per_thread;
}

// A thread's per-lane sum of satisfied bonds over its words, bit-sliced: at most site_bonds()
// per word, so tally_planes() <= MAX_TALLY_PLANES planes (2 DIMS WORD_RUN TALLY_RUNS <= 96).
// A private variable, so that the update's functions keep their parameters (the plain update's
// code stays as it was without the tally).
const MAX_TALLY_PLANES: u32 = 7u;
var<private> tally: array<u32, MAX_TALLY_PLANES>;

fn tally_planes() -> u32 {
    return firstLeadingBit(site_bonds() * WORD_RUN * max(TALLY_RUNS, 1u)) + 1u;
}

// Per lane, the satisfied bonds of a site after its update: c (its unsatisfied bonds before) if
// it flipped, else site_bonds() - c; `flips` the lanes that flipped.
fn satisfied_after(count: BondCount, flips: u32) -> BondCount {
    var c = array<u32, 3>(count.c0, count.c1, count.c2);
    var kept: array<u32, 3>;
    var borrow = 0u;
    for (var k = 0u; k < 3u; k++) {
        // Bit k of site_bonds() - c, by a subtractor whose minuend is a constant.
        let minuend = select(0u, ~0u, ((site_bonds() >> k) & 1u) != 0u);
        let difference = minuend ^ c[k] ^ borrow;
        borrow = (~minuend & (c[k] | borrow)) | (c[k] & borrow);
        kept[k] = (c[k] & flips) | (difference & ~flips);
    }
    return BondCount(kept[0], kept[1], kept[2], 0u);
}

fn tally_satisfied(count: BondCount, flips: u32) {
    if TALLY_RUNS == 0u {
        return;
    }
    let after = satisfied_after(count, flips);
    var bits = array<u32, 3>(after.c0, after.c1, after.c2);
    var carry = 0u;
    for (var k = 0u; k < tally_planes(); k++) {
        let bit = select(0u, bits[min(k, 2u)], k < 3u);
        let plane = tally[k];
        tally[k] = plane ^ bit ^ carry;
        carry = (plane & bit) | (carry & (plane ^ bit));
    }
}

// Each group of 32 threads' planes transposed as 32 x 32 bit matrices (thread t's plane is row t):
// thread t gets column t, bit j of it bit t of thread j's plane, through workgroup memory (the
// CUDA twin shuffles). Each step swaps the off-diagonal blocks of side s with the partner thread
// t ^ s: rows of the lower block keep the columns j with bit s clear and take the partner's,
// moved up by s; the upper ones the reverse. The planes go through the threshold table's
// workgroup memory, which the update no longer reads (a workgroup array of their own made the
// plain update up to 12% slower on the H100's Vulkan driver), a thread's as two entries, planes
// 0-3 at [thread] and 4-6 at [WG_SIZE + thread], each stored and read as one (a word a plane
// made PT's rounds 0.02 ps/flip slower at L = 16 on an H100): they fit there for WG_SIZE 32 or
// 64, the sizes the host compiles the tally for. Every thread of the workgroup calls it.
fn transpose_tally(local: u32) {
    var low_columns = array<u32, 5>(0x0000ffffu, 0x00ff00ffu, 0x0f0f0f0fu, 0x33333333u, 0x55555555u);
    let t = local & 31u;
    // Every thread's update has read its thresholds.
    workgroupBarrier();
    for (var level = 0u; level < 5u; level++) {
        let s = 16u >> level;
        class_thresholds[local] = vec4<u32>(tally[0], tally[1], tally[2], tally[3]);
        class_thresholds[WG_SIZE + local] = vec4<u32>(tally[4], tally[5], tally[6], 0u);
        workgroupBarrier();
        let upper = (t & s) != 0u;
        let keep = select(low_columns[level], ~low_columns[level], upper);
        let low = class_thresholds[local ^ s];
        let high = class_thresholds[WG_SIZE + (local ^ s)];
        var partner = array<u32, MAX_TALLY_PLANES>(low.x, low.y, low.z, low.w, high.x, high.y, high.z);
        for (var k = 0u; k < tally_planes(); k++) {
            let moved = select(partner[k] << s, partner[k] >> s, upper);
            tally[k] = (tally[k] & keep) | (moved & ~keep);
        }
        workgroupBarrier();
    }
}

// Add the workgroup's tallies to the swap round's records of word system g
// ([slot][g][lane][up_lo, up_hi, satisfied_lo, satisfied_hi]): each thread's lane (local mod 32)
// sum through workgroup memory, then one 64-bit addition per lane. Every thread takes part.
fn add_workgroup_tally(g: u32, local: u32) {
    transpose_tally(local);
    var satisfied = 0u;
    for (var k = 0u; k < tally_planes(); k++) {
        satisfied += countOneBits(tally[k]) << k;
    }
    class_thresholds[local].x = satisfied;
    workgroupBarrier();
    if local < 32u {
        var sum = 0u;
        for (var i = local; i < WG_SIZE; i += 32u) {
            sum += class_thresholds[i].x;
        }
        if sum != 0u {
            add_u64(4u * ((params.slot * params.systems + g) * 32u + local) + 2u, sum);
        }
    }
}

// The unsatisfied bonds of word cw (spin `spin`) to its -d and +d neighbours, d = 1 (y) or 2 (z),
// whose words are `minus` and `plus`.
fn unsatisfied_along(spin: u32, other: u32, group: u32, d: u32, cw: u32, minus: u32, plus: u32) -> vec2<u32> {
    var bonds = vec2<u32>(0u, 0u);
    if DISORDERED {
        let colour = pass_colour(params.colour);
        bonds = vec2<u32>(couplings[bond_base(group, d, 1u - colour) + minus], couplings[bond_base(group, d, colour) + cw]);
    }
    return vec2<u32>(spin ^ spins[other + minus] ^ bonds.x, spin ^ spins[other + plus] ^ bonds.y);
}

// The triangular lattice's unsatisfied bonds of word cw (spin `spin`, colour `colour`) to its
// -(1, 1) and +(1, 1) neighbours, of its own colour: in the rows below and above, where the
// colour sits at the offset 1 - p as the other colour does in this row, they are the -x
// neighbour of the row below and the +x one of the row above: rows of the other half, which
// this pass leaves as they are.
fn unsatisfied_diagonal(spin: u32, g: u32, colour: u32, cw: u32, n: WordNeighbours) -> vec2<u32> {
    let own = colour_base(g, colour);
    // The adjacent word's offset within a row, the same in every row.
    let shift = n.adjacent - cw;
    let below = n.minus.x;
    let above = n.plus.x;
    var bonds = vec2<u32>(0u, 0u);
    if DISORDERED {
        let own_bonds = bond_base(coupling_group(g), 2u, colour);
        bonds = vec2<u32>(
            x_neighbours(couplings[own_bonds + below], couplings[own_bonds + below + shift], n.p).x,
            couplings[own_bonds + cw],
        );
    }
    let minus = x_neighbours(spins[own + below], spins[own + below + shift], n.p).x;
    let plus = x_neighbours(spins[own + above], spins[own + above + shift], n.p).y;
    return vec2<u32>(spin ^ minus ^ bonds.x, spin ^ plus ^ bonds.y);
}

// The unsatisfied bond `unsatisfied` of a site whose lanes `open` lack it (across an open edge):
// those lanes count it as satisfied and unsatisfied in turn, by the parity of their missing bonds
// so far (`odd`), since a pair of missing bonds changes a flip's energy as one satisfied and one
// unsatisfied bond do; the odd lanes' one left over selects the odd categories
// (BondCount::add_open in src/engine/cpu/bitslice.rs).
fn count_open(unsatisfied: u32, open: u32, odd: ptr<function, u32>) -> u32 {
    let counted = (unsatisfied & ~open) | (open & *odd);
    *odd ^= open;
    return counted;
}

// Word w of row `row` of word system g: its index in its colour array, spin and per-lane
// unsatisfied-bond counts.
struct WordCount {
    cw: u32,
    spin: u32,
    count: BondCount,
}

fn word_count(g: u32, row: u32, w: u32) -> WordCount {
    let colour = pass_colour(params.colour);
    let cw = row * row_words() + w;
    let n = word_neighbours(colour, row, w);
    let own = colour_base(g, colour);
    let other = colour_base(g, 1u - colour);
    let group = coupling_group(g);
    let spin = spins[own + cw];
    let x = x_neighbours(spins[other + cw], spins[other + n.adjacent], n.p);
    var x_bonds = vec2<u32>(0u, 0u);
    if DISORDERED {
        let other_bonds = bond_base(group, 0u, 1u - colour);
        let minus = x_neighbours(couplings[other_bonds + cw], couplings[other_bonds + n.adjacent], n.p).x;
        x_bonds = vec2<u32>(minus, couplings[bond_base(group, 0u, colour) + cw]);
    }
    // Unsatisfied bonds per lane: -x, +x, -y, +y (and -z, +z); on the honeycomb -x, +x and the
    // one y bond, up from colour 0 (its own bond word) and down from colour 1 (the bond word of
    // its -y neighbour).
    var y = vec2<u32>(0u, 0u);
    if HONEYCOMB == 1u {
        let up = colour == 0u;
        var bond = 0u;
        if DISORDERED {
            bond = couplings[select(bond_base(group, 1u, 1u - colour) + n.minus.x, bond_base(group, 1u, colour) + cw, up)];
        }
        y.x = spin ^ spins[other + select(n.minus.x, n.plus.x, up)] ^ bond;
    } else {
        y = unsatisfied_along(spin, other, group, 1u, cw, n.minus.x, n.plus.x);
    }
    var z = vec2<u32>(0u, 0u);
    if DIMS == 3u {
        z = unsatisfied_along(spin, other, group, 2u, cw, n.minus.y, n.plus.y);
    }
    if TRIANGULAR == 1u {
        z = unsatisfied_diagonal(spin, g, colour, cw, n);
    }
    // The kagome lattice's sites keep four of the six bonds (2D: the row is y).
    let h = row & 1u;
    let kept = vec3<u32>(bond_lanes(0u, n.p, h), bond_lanes(1u, n.p, h), bond_lanes(2u, n.p, h));
    // The bonds across open edges (none without OPEN_AXES), each its own call: an array written
    // at a loop's index would leave registers for memory.
    var odd = 0u;
    var coords = vec2<u32>(0u, 0u);
    if OPEN_AXES != 0u {
        coords = lattice_row_coords(row);
    }
    let unsatisfied = array<u32, 6>(
        count_open((spin ^ x.x ^ x_bonds.x) & kept.x, slot_open_lanes(0u, colour, w, n.p, h, coords), &odd),
        count_open((spin ^ x.y ^ x_bonds.y) & kept.x, slot_open_lanes(1u, colour, w, n.p, h, coords), &odd),
        count_open(y.x & kept.y, slot_open_lanes(2u, colour, w, n.p, h, coords), &odd),
        count_open(y.y & kept.y, slot_open_lanes(3u, colour, w, n.p, h, coords), &odd),
        count_open(z.x & kept.z, slot_open_lanes(4u, colour, w, n.p, h, coords), &odd),
        count_open(z.y & kept.z, slot_open_lanes(5u, colour, w, n.p, h, coords), &odd),
    );
    var count = bond_count_of(unsatisfied, counted_bonds());
    count.odd = odd;
    return WordCount(cw, spin, count);
}

// Update word w of row `row` of word system g, tallying its lanes' satisfied bonds after the
// update with TALLY_RUNS. The lattice's word index keys the randoms (a slab's words are offset).
fn update_word(g: u32, row: u32, w: u32) {
    let word = word_count(g, row, w);
    let colour = pass_colour(params.colour);
    let flips = accepted_lanes(word.spin, word.count, word.cw + WORD_OFFSET, colour, g);
    spins[colour_base(g, colour) + word.cw] = word.spin ^ flips;
    tally_satisfied(word.count, flips);
}

// Update the run of words first + j stride (j < WORD_RUN <= 4) of row `row` with the packed
// tail. Written out word by word (WORD_RUN folds each `if`): with a loop over the run, the
// Vulkan driver on the H100 lost the packed draw's gain (docs/BENCHMARKS.md).
fn update_packed_run(g: u32, row: u32, first: u32, stride: u32) {
    let colour = pass_colour(params.colour);
    var tail = Decision(0u, 0u);
    var tail_masks: array<u32, MAX_CATEGORIES>;
    var words: array<WordCount, 4>;
    var packed: array<vec3<u32>, 4>;
    words[0] = word_count(g, row, first);
    packed[0] = pack_word(&tail, &tail_masks, words[0].spin, words[0].count, words[0].cw + WORD_OFFSET, colour, g);
    if WORD_RUN > 1u {
        words[1] = word_count(g, row, first + stride);
        packed[1] = pack_word(&tail, &tail_masks, words[1].spin, words[1].count, words[1].cw + WORD_OFFSET, colour, g);
    }
    if WORD_RUN > 2u {
        words[2] = word_count(g, row, first + 2u * stride);
        packed[2] = pack_word(&tail, &tail_masks, words[2].spin, words[2].count, words[2].cw + WORD_OFFSET, colour, g);
        words[3] = word_count(g, row, first + 3u * stride);
        packed[3] = pack_word(&tail, &tail_masks, words[3].spin, words[3].count, words[3].cw + WORD_OFFSET, colour, g);
    }
    draw_blocks(&tail, &tail_masks, words[0].cw + WORD_OFFSET, colour, g, 1u, 8u, PACKED_TAIL_DRAW, 0u);
    let tail_accepted = tail.accept | tail.undecided;
    let own = colour_base(g, colour);
    spins[own + words[0].cw] = words[0].spin ^ packed_lanes(packed[0], tail_accepted);
    if WORD_RUN > 1u {
        spins[own + words[1].cw] = words[1].spin ^ packed_lanes(packed[1], tail_accepted);
    }
    if WORD_RUN > 2u {
        spins[own + words[2].cw] = words[2].spin ^ packed_lanes(packed[2], tail_accepted);
        spins[own + words[3].cw] = words[3].spin ^ packed_lanes(packed[3], tail_accepted);
    }
    // The same flips again, word by word as above (the update's lines above stay as they were
    // without the tally).
    tally_satisfied(words[0].count, packed_lanes(packed[0], tail_accepted));
    if WORD_RUN > 1u {
        tally_satisfied(words[1].count, packed_lanes(packed[1], tail_accepted));
    }
    if WORD_RUN > 2u {
        tally_satisfied(words[2].count, packed_lanes(packed[2], tail_accepted));
        tally_satisfied(words[3].count, packed_lanes(packed[3], tail_accepted));
    }
}

// Update the words of run `run` of the pass of word system g.
fn update_run(g: u32, run: u32) {
    let stride = row_words() / WORD_RUN;
    let row = pass_row(params.colour, run / stride);
    if PACK_ROTATIONS != 0u {
        update_packed_run(g, row, run % stride, stride);
        return;
    }
    for (var j = 0u; j < WORD_RUN; j++) {
        update_word(g, row, run % stride + j * stride);
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    // The kagome lattice's pass of its holes updates nothing.
    if KAGOME == 1u && params.colour == 2u {
        return;
    }
    let g = layer(params, thread);
    load_class_thresholds((g / WORDS_PER_TABLE) * CLASS_COUNT * 32u, thread.local);
    // A sweep's dispatch covers the update threads from params.first_thread on.
    let t = thread_in_system(thread) + params.first_thread;
    if TALLY_RUNS == 0u {
        if t < runs() && dispatched(params, t) {
            update_run(g, t);
        }
        return;
    }
    // The tally's barriers need every thread of the workgroup (a tally is never a slab's
    // partial dispatch).
    for (var r = 0u; r < TALLY_RUNS; r++) {
        let run = t + r * run_threads();
        if t < run_threads() && run < runs() {
            update_run(g, run);
        }
    }
    add_workgroup_tally(g, thread.local);
}
