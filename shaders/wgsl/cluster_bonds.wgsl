// A cluster update's bonds (src/engine/clusters.rs): thread g of system z draws the D Philox
// blocks (g D + j, update, CLUSTER_BOND, 0, 0, b'), b' = global_index(z), D = DIRECTIONS, of
// the 4 D forward bonds of sites 4g .. 4g + 3 (bond k D + d of the group is site 4g + k's along
// direction d), and writes their active bonds (equal spins, opposite across an antiperiodic
// edge, not empty, not missing: across an open edge or a honeycomb's gap; word below the
// temperature's activation threshold) as
// bonds[g]; when the update records, Swendsen-Wang clears their counts (cluster_label writes
// every site's label whole) and Wolff writes the state of its seed into counts[z N]. Houdayer's move (HOUDAYER = 1, or 2 where clusters of agreement move
// too; thread g of replica pair z, systems a and b): no randoms in the bonds. Thread 0 of each
// workgroup reads the candidate sites (w_j N) >> 32 (w_j word j mod 4 of block (j / 4, move,
// HOUDAYER_SEED, 0, 0, a')) and picks the move's relation (agreement where HOUDAYER = 2 and
// fewer agree than disagree, else disagreement) and its seed, the first candidate of that
// relation; a bond is active where its temperature takes moves (activation word not 0) and
// both its sites have the relation, so only the clusters that can move are labelled. Thread 0
// of the pair writes the seed into counts[z N] and the relation into counts[z N + 1] before
// cluster_flip moves anything, and counts the move in sizes[4 z + 2] where it has a seed. CPU
// twin: src/engine/cpu/cluster_bonds.rs (the seed: cluster_flip.rs).

#import dispatch
#import philox
#import lattice
#import slice
#import cluster
#import cluster_draws

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<i32>;

// How replica pair (a, b), their sites from base_a and base_b, holds `site`: DISAGREES, AGREES
// or EMPTY (the vacancy in both).
fn pair_site(base_a: u32, base_b: u32, site: u32) -> u32 {
    let a = spins[base_a + site];
    if a != spins[base_b + site] {
        return DISAGREES;
    }
    return select(AGREES, EMPTY, a == i32(STATES));
}

// The seed of replica pair (a, b)'s move and its relation, from its candidate sites.
fn pair_seed(a: u32, base_a: u32, base_b: u32, acts: bool) -> vec2<u32> {
    let n = lattice_sites();
    var candidates: array<u32, 8>;
    var relations: array<u32, 8>;
    var agree = 0u;
    var disagree = 0u;
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    for (var j = 0u; j < 2u; j++) {
        let counter = philox_counter(j, params.sweep, PURPOSE_HOUDAYER_SEED, 0u, global_index(a));
        let words = philox4x32_10(counter, key);
        for (var w = 0u; w < 4u; w++) {
            let site = mulhilo(words[w], n).x;
            let relation = pair_site(base_a, base_b, site);
            candidates[4u * j + w] = site;
            relations[4u * j + w] = relation;
            agree += select(0u, 1u, relation == AGREES);
            disagree += select(0u, 1u, relation == DISAGREES);
        }
    }
    let wanted = select(DISAGREES, AGREES, HOUDAYER == 2u && agree < disagree);
    var seed = NO_SEED;
    for (var j = 0u; j < 8u && acts && seed == NO_SEED; j++) {
        if relations[j] == wanted {
            seed = candidates[j];
        }
    }
    return vec2<u32>(seed, wanted);
}

// The seed and relation of the workgroup's replica pair, from its thread 0.
var<workgroup> workgroup_seed: vec2<u32>;

// Houdayer's bonds of sites 4g .. 4g + 3 of replica pair z and, from thread 0, its seed.
fn pair_bonds(thread: Thread, quad: Quad) {
    let n = lattice_sites();
    let a = pair_first(quad.z);
    let base_a = a * n;
    let base_b = (a + REPLICAS / 2u) * n;
    let acts = activation[a / SLICE_BLOCK] != 0u;
    if thread.local == 0u {
        workgroup_seed = pair_seed(a, base_a, base_b, acts);
    }
    let seed = workgroupUniformLoad(&workgroup_seed);
    if !quad.live {
        return;
    }
    let wanted = seed.y;
    var word = 0u;
    for (var k = 0u; k < 4u && acts; k++) {
        let site = 4u * quad.g + k;
        if pair_site(base_a, base_b, site) != wanted {
            continue;
        }
        let near = neighbours(site);
        for (var d = 0u; d < DIRECTIONS; d++) {
            let joined = !missing_bond(site, d);
            if joined && pair_site(base_a, base_b, near[2u * d + 1u]) == wanted {
                word |= 1u << (8u * k + d);
            }
        }
    }
    bonds[quad.z * (n / 4u) + quad.g] = word;
    if quad.g != 0u {
        return;
    }
    atomicStore(&counts[quad.base], seed.x);
    atomicStore(&counts[quad.base + 1u], wanted);
    if seed.x != NO_SEED {
        add_size(4u * quad.z + 2u, 1u, 0u);
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let quad = quad_of(thread);
    if HOUDAYER != 0u {
        pair_bonds(thread, quad);
        return;
    }
    if !quad.live {
        return;
    }
    let threshold = activation[quad.z / SLICE_BLOCK];
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    let batch = global_index(quad.z);
    var word = 0u;
    for (var j = 0u; j < DIRECTIONS; j++) {
        let counter = philox_counter(quad.g * DIRECTIONS + j, params.sweep, PURPOSE_CLUSTER_BOND, 0u, batch);
        let randoms = philox4x32_10(counter, key);
        for (var w = 0u; w < 4u; w++) {
            let bond = 4u * j + w;
            let k = bond / DIRECTIONS;
            let d = bond % DIRECTIONS;
            let site = 4u * quad.g + k;
            let near = neighbours(site);
            let spin = spins[quad.base + site];
            let joins = spin != i32(STATES) && bondable(spin, spins[quad.base + near[2u * d + 1u]], site, d)
                && !missing_bond(site, d);
            if joins && randoms[w] < threshold {
                word |= 1u << (8u * k + d);
            }
        }
    }
    bonds[quad.z * (lattice_sites() / 4u) + quad.g] = word;
    if params.slot == NO_SLOT {
        return;
    }
    if WOLFF == 1u {
        // cluster_flip weighs the cluster's sites by the seed's state, which it flips.
        let seed = wolff_seed(wolff_block(batch));
        if seed / 4u == quad.g {
            atomicStore(&counts[quad.base], u32(spins[quad.base + seed]));
        }
        return;
    }
    for (var k = 0u; k < 4u; k++) {
        atomicStore(&counts[quad.base + 4u * quad.g + k], 0u);
    }
}
