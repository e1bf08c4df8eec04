// The random words of a cluster update's flips that cluster_flip and clock_flip share (keys:
// src/engine/clusters.rs).

#import philox
#import cluster

// Update params.sweep's Wolff block (0, update, WOLFF_SEED, 0, 0, b') of the run's system
// `batch`: word 0 picks the seed site, word 1 the discrete states' shift, word 2 the clock's
// mirror.
fn wolff_block(batch: u32) -> vec4<u32> {
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    return philox4x32_10(philox_counter(0u, params.sweep, PURPOSE_WOLFF_SEED, 0u, batch), key);
}

// The Wolff seed (w N) >> 32, w word 0 of `words`.
fn wolff_seed(words: vec4<u32>) -> u32 {
    return mulhilo(words.x, lattice_sites()).x;
}

// The root of the Wolff seed in system `base`.
fn seed_root(base: u32, words: vec4<u32>) -> u32 {
    return find_root(base, wolff_seed(words));
}

// The last flip block a thread drew: roots 4 block_of .. 4 block_of + 3.
struct FlipWords {
    block_of: u32,
    words: vec4<u32>,
}

// Swendsen-Wang's word of cluster `root`: word root mod 4 of block (root / 4, update,
// CLUSTER_FLIP, 0, 0, b'), drawn where it is not the block in `cache` (a thread's sites mostly
// share their root).
fn flip_word(batch: u32, root: u32, cache: ptr<function, FlipWords>) -> u32 {
    if root / 4u != (*cache).block_of {
        (*cache).block_of = root / 4u;
        let key = vec2<u32>(params.seed_lo, params.seed_hi);
        (*cache).words = philox4x32_10(philox_counter(root / 4u, params.sweep, PURPOSE_CLUSTER_FLIP, 0u, batch), key);
    }
    return (*cache).words[root % 4u];
}
