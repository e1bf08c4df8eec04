// What the measuring kernels (vector_observables, vector_overlap and their discrete twins)
// share: a site's sublattice sign, the replica pair of an overlap, and the addition of a
// thread's exact 64-bit sums to the counts.

#import vector_site

// Adds the i64 `v` to the 64-bit count at words (i, i + 1): the low word's carry goes into the
// high word (the final sum is exact whatever the order of the additions).
fn add_i64(i: u32, v: vec2<u32>) {
    if v.x == 0u && v.y == 0u {
        return;
    }
    let old = atomicAdd(&observations[i], v.x);
    let carry = select(0u, 1u, old + v.x < old);
    atomicAdd(&observations[i + 1u], v.y + carry);
}

// The sublattice sign (-1)^(x + y + z) of site i (Lattice::sublattice_sign), the staggered
// magnetisation's weight.
fn sublattice_sign(i: u32) -> i32 {
    var parity = 0u;
    for (var d = 0u; d < DIMS; d++) {
        parity += coordinate(i, d);
    }
    return 1i - 2i * i32(parity & 1u);
}

// The replica pair that the workgroups of system z sum, replicas r and r + REPLICAS/2 of its
// temperature and sample: `sums` false for the second half's systems (which return), the
// partner system and the pair's index.
struct ReplicaPair {
    sums: bool,
    partner: u32,
    pair: u32,
}

fn replica_pair(z: u32) -> ReplicaPair {
    let half = REPLICAS / 2u;
    let replica = z % REPLICAS;
    return ReplicaPair(replica < half, z + half, (z / REPLICAS) * half + replica);
}
