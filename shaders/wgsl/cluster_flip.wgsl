// The flips of a cluster update, after cluster_merge (and cluster_roots where a Swendsen-Wang
// update records): thread g of system z finds the roots of sites 4g .. 4g + 3 (one walk for a
// run of sites of equal parents, mostly one tile root) and flips them where their cluster
// flips. Swendsen-Wang: cluster r flips iff the top bit of word
// r mod 4 of block (r / 4, update, CLUSTER_FLIP, 0, 0, b') is set; recording, each root adds
// |C|^2 to the system's statistic (with an antiperiodic axis M_C^2, its count the cluster's
// magnetisation). Wolff: the cluster of the seed site (w N) >> 32, w word 0 of
// block (0, update, WOLFF_SEED, 0, 0, b'), flips; recording, its sites add up to s_seed M_C
// (|C| without an antiperiodic axis: each site 1 in the seed's state, -1 in the other, a
// wrapping sum; the seed's state from counts[z N]). Empty sites, each its own cluster, add
// nothing. Sums go
// through the workgroup, one 64-bit atomic add per workgroup. Discrete states (STATES = q):
// Swendsen-Wang gives cluster r the state mulhi(w, q) of its word instead (with an antiperiodic
// axis, two states, moves each site of it by that state), Wolff moves the seed's
// cluster from s to (s + 1 + mulhi(w1, q - 1)) mod q, w1 word 1 of the seed's block; empty sites
// keep their vacancy. Houdayer's move (HOUDAYER = 1 or 2; replica pair z, systems a and b): the
// sites of the cluster of the seed that cluster_bonds wrote into counts[z N] swap their states
// between a and b where its relation (counts[z N + 1]) is disagreement, take the other of the
// two states in both where it is agreement; none without a seed; the moved sites add up in
// sizes[4 z], through the workgroup.
// CPU twin: src/engine/cpu/cluster_flip.rs.

#import dispatch
#import philox
#import lattice
#import slice
#import cluster
#import cluster_draws

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<i32>;

var<workgroup> workgroup_lo: atomic<u32>;
var<workgroup> workgroup_hi: atomic<u32>;

// Houdayer's move of sites 4g .. 4g + 3 of replica pair z where they lie in the seed's cluster;
// returns how many.
fn move_pair(quad: Quad) -> u32 {
    let seed = atomicLoad(&counts[quad.base]);
    if seed == NO_SEED || !quad.live {
        return 0u;
    }
    let agreement = atomicLoad(&counts[quad.base + 1u]) == AGREES;
    let n = lattice_sites();
    let a = pair_first(quad.z);
    let base_a = a * n;
    let base_b = (a + REPLICAS / 2u) * n;
    let root = find_root(quad.base, seed);
    let roots = quad_roots(quad.base, quad.g, false);
    var moved = 0u;
    for (var k = 0u; k < 4u; k++) {
        let site = 4u * quad.g + k;
        if roots[k] == root {
            let state = spins[base_a + site];
            if agreement {
                spins[base_a + site] = 1 - state;
                spins[base_b + site] = 1 - state;
            } else {
                spins[base_a + site] = spins[base_b + site];
                spins[base_b + site] = state;
            }
            moved += 1u;
        }
    }
    return moved;
}

// The square of a cluster's count, (lo, hi): its size's, or with an antiperiodic axis its
// magnetisation's (the count as an i32).
fn count_square(count: u32) -> vec2<u32> {
    let magnitude = select(count, u32(abs(i32(count))), TWISTED_AXES != 0u);
    let square = mulhilo(magnitude, magnitude);
    return vec2<u32>(square.y, square.x);
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let quad = quad_of(thread);
    if HOUDAYER != 0u {
        atomicAdd(&workgroup_lo, move_pair(quad));
        workgroupBarrier();
        if thread.local == 0u {
            add_size(4u * quad.z, atomicLoad(&workgroup_lo), 0u);
        }
        return;
    }
    let batch = global_index(quad.z);
    var wolff_root = 0u;
    var wolff_shift = 0u;
    // The seed's state before the flips, which cluster_bonds wrote where the update records.
    var seed_state = 0u;
    if WOLFF == 1u {
        let words = wolff_block(batch);
        wolff_root = seed_root(quad.base, words);
        if STATES > 0u {
            wolff_shift = mulhilo(words.y, state_count() - 1u).x;
        }
        if params.slot != NO_SLOT {
            seed_state = atomicLoad(&counts[quad.base]);
        }
    }
    // Wolff's s_seed M_C over the thread's sites.
    var seed_sum = 0i;
    var lo = 0u;
    var hi = 0u;
    if quad.live {
        var cache = FlipWords(0xffffffffu, vec4<u32>(0u));
        var word = 0u;
        // The sites' spins are read before the roots are walked, so that the reads overlap the
        // walks (cluster_flip.cu reads them as one int4, a Wolff update's after the walks).
        var quad_spins: array<i32, 4>;
        for (var k = 0u; k < 4u; k++) {
            quad_spins[k] = spins[quad.base + 4u * quad.g + k];
        }
        let roots = quad_roots(quad.base, quad.g, false);
        for (var k = 0u; k < 4u; k++) {
            let site = 4u * quad.g + k;
            let root = roots[k];
            let spin = quad_spins[k];
            let occupied = STATES == 0u || u32(spin) != STATES;
            var flip = false;
            if WOLFF == 1u {
                flip = root == wolff_root;
                if flip && occupied {
                    // 1 in the seed's state, -1 in the other across an antiperiodic edge.
                    seed_sum += select(-1i, 1i, u32(spin) == seed_state);
                }
            } else {
                word = flip_word(batch, root, &cache);
                flip = (word >> 31u) == 1u;
                if params.slot != NO_SLOT && root == site && occupied {
                    let square = count_square(atomicLoad(&counts[quad.base + site]));
                    let old = lo;
                    lo += square.x;
                    hi += square.y + select(0u, 1u, lo < old);
                }
            }
            if STATES == 0u {
                if flip {
                    spins[quad.base + site] = -spin;
                }
            } else if u32(spin) != STATES {
                if WOLFF == 0u {
                    let drawn = mulhilo(word, STATES).x;
                    let moved = (u32(spin) + drawn) % state_count();
                    spins[quad.base + site] = i32(select(drawn, moved, TWISTED_AXES != 0u));
                } else if flip {
                    spins[quad.base + site] = i32((u32(spin) + 1u + wolff_shift) % state_count());
                }
            }
        }
    }
    if params.slot == NO_SLOT {
        return;
    }
    if WOLFF == 1u {
        // The sum as a wrapping 64-bit word.
        lo = bitcast<u32>(seed_sum);
        hi = select(0u, 0xffffffffu, seed_sum < 0i);
    }
    let old = atomicAdd(&workgroup_lo, lo);
    atomicAdd(&workgroup_hi, hi + select(0u, 1u, old + lo < old));
    workgroupBarrier();
    if thread.local == 0u {
        add_size(2u * (params.slot * params.systems + quad.z), atomicLoad(&workgroup_lo), atomicLoad(&workgroup_hi));
    }
}
