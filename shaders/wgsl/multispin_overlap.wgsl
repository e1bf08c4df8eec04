// Sites where the replicas of an overlap pair differ, and the forward bonds of those sites whose
// two ends differ differently (D = a ^ b differs across the bond: q_i q_j = -1, the link
// overlap; the triangular lattice's diagonal bonds too; none across an open edge), per x-plane (and lane for AMSC), counted with bit-sliced lane counters along strips
// of lines (all of one x-plane). Grid layer z is the pair pw = ts * (REPLICA_WORDS/2) + rw of
// word systems (ts * REPLICA_WORDS + rw, that + REPLICA_WORDS / 2). CPU twin:
// src/engine/cpu/multispin_overlap.rs. Layout of `overlaps`: [slot][pair][pair count], per
// overlap slot one word with the sites in its low half and the bonds in its high half where a
// plane's counts fit 16 bits (PACKED_OVERLAPS), else [sites, bonds][overlap_slot]
// (MultispinLayout::pair_counts).

#import dispatch
#import bitslice
#import multispin_lattice

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<u32>;
@group(0) @binding(5) var<storage, read_write> overlaps: array<atomic<u32>>;

// Word i of one colour array of D = a ^ b, the arrays starting at a_base and b_base. Shifting
// commutes with XOR, so D's x-neighbours are x_neighbours of D's words.
fn differ(a_base: u32, b_base: u32, i: u32) -> u32 {
    return spins[a_base + i] ^ spins[b_base + i];
}

// The pairs of every slot: REPLICA_WORDS / 2 of each temperature and sample word (params.systems
// counts the word systems).
fn overlap_pairs() -> u32 {
    return params.systems / REPLICA_WORDS * (REPLICA_WORDS / 2u);
}

// Whether a plane's two counts share a word, where they fit 16 bits
// (MultispinLayout::packs_overlap_counts).
override PACKED_OVERLAPS: bool = false;

// Words of one pair's counts in a slot.
fn pair_counts() -> u32 {
    return select(2u, 1u, PACKED_OVERLAPS) * overlap_slots();
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let strip = thread_in_system(thread);
    if strip >= strips() {
        return;
    }
    let pair = layer(params, thread);
    let half = REPLICA_WORDS / 2u;
    let a = (pair / half) * REPLICA_WORDS + pair % half;
    let b = a + half;
    var sites: LaneTally;
    var links: LaneTally;
    var steps = 0u;
    for (var r = 0u; r < LINE_RUN; r++) {
        let walk = line_walk(strip_line(strip, r));
        let line = line_position(strip_line(strip, r));
        for (var y = 0u; y < line_length(); y++) {
            let colour = walk_colour(walk, y);
            let cw = walk_word(walk, y);
            let own = differ(colour_base(a, colour), colour_base(b, colour), cw);
            let other_a = colour_base(a, 1u - colour);
            let other_b = colour_base(b, 1u - colour);
            let adjacent = differ(other_a, other_b, cw + walk.adjacent);
            let x = x_neighbours(differ(other_a, other_b, cw), adjacent, walk.p);
            var link_y = 0u;
            if has_plus_y(colour) {
                link_y = own ^ differ(other_a, other_b, walk_plus_y(y, cw));
            }
            var link_z = 0u;
            if DIMS == 3u {
                link_z = own ^ differ(other_a, other_b, cw + walk.plus_z);
            }
            if TRIANGULAR == 1u {
                // The +(1, 1) neighbour: the +x one in the row above, of this colour.
                let own_a = colour_base(a, colour);
                let own_b = colour_base(b, colour);
                let above = walk_plus_y(y, cw);
                let diagonal = x_neighbours(differ(own_a, own_b, above), differ(own_a, own_b, above + walk.adjacent), walk.p);
                link_z = own ^ diagonal.y;
            }
            // The kagome lattice's spins and bonds (2D: y is the row).
            let h = y & 1u;
            tally_add3(&sites, select(own, 0u, is_hole(walk.p, h)), 0u, 0u);
            let kept = forward_lanes(line, y);
            tally_add3(&links, (own ^ x.y) & kept.x, link_y & kept.y, link_z & kept.z);
            tally_step(&sites, &links, &steps, strip_planes());
        }
    }
    tally_flush(&sites, strip_planes());
    tally_flush(&links, strip_planes());
    // Every line of the strip lies in this x-plane.
    let position = line_position(strip);
    let base = (params.slot * overlap_pairs() + pair) * pair_counts();
    for (var j = 0u; j < 32u; j++) {
        let slot = base + overlap_slot(position.y, position.z, j);
        let count = tally_count(&sites, j, strip_planes());
        let link_count = tally_count(&links, j, strip_planes());
        if PACKED_OVERLAPS {
            if (count | link_count) != 0u {
                atomicAdd(&overlaps[slot], count | (link_count << 16u));
            }
            continue;
        }
        if count != 0u {
            atomicAdd(&overlaps[slot], count);
        }
        if link_count != 0u {
            atomicAdd(&overlaps[slot + overlap_slots()], link_count);
        }
    }
}
