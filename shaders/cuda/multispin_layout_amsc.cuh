// AMSC: bit b of a word is the same site in lane b's system; word w of a colour row is the site
// x = 2w + p. The twin of multispin_layout_amsc.wgsl and the AMSC branches of
// src/engine/multispin/. Included as "multispin_layout.cuh" in kernels composed for AMSC.

__device__ constexpr unsigned row_words() {
    return L / 2u;
}

// The shifted x-neighbour is the adjacent word itself.
__device__ __forceinline__ unsigned shift_in(unsigned, unsigned adjacent, unsigned) {
    return adjacent;
}

// Lanes of a row's first (side 0) or last (side 1) word on the lattice's -x or +x edge: every
// lane, the word being that site.
__device__ __forceinline__ unsigned x_edge_lanes(unsigned) {
    return ~0u;
}

// Overlap counts per lane j and plane x = 2w + p, lane-major: a lane's L planes are contiguous,
// as the host's per-overlap series are.
__device__ constexpr unsigned overlap_slots() {
    return L * 32u;
}

__device__ __forceinline__ unsigned overlap_slot(unsigned w, unsigned p, unsigned j) {
    return j * L + 2u * w + p;
}
