// SMSC: bit j of word w of a colour row is the site x = 2(32 w + j) + p of one system. The twin
// of multispin_layout_smsc.wgsl and the SMSC branches of src/engine/multispin/. Included as
// "multispin_layout.cuh" in kernels composed for SMSC.

__device__ constexpr unsigned row_words() {
    return L / 64u;
}

// The shifted x-neighbour: `same` moved one bit towards the neighbour, with the end bit of the
// adjacent word carried in (p = 0: -x side, (same << 1) | (adjacent >> 31); p = 1: +x side,
// (same >> 1) | (adjacent << 31)); the funnel shifts are exactly these.
__device__ __forceinline__ unsigned shift_in(unsigned same, unsigned adjacent, unsigned p) {
    return p == 0u ? __funnelshift_l(adjacent, same, 1u) : __funnelshift_r(same, adjacent, 1u);
}

// Lanes of a row's first (side 0) or last (side 1) word on the lattice's -x or +x edge: its first
// site x = p = 0 (bit 0) or its last x = L - 1 (bit 31).
__device__ __forceinline__ unsigned x_edge_lanes(unsigned side) {
    return side == 0u ? 1u : 0x80000000u;
}

// Overlap counts per plane x = 2(32 w + j) + p.
__device__ constexpr unsigned overlap_slots() {
    return L;
}

__device__ __forceinline__ unsigned overlap_slot(unsigned w, unsigned p, unsigned j) {
    return 2u * (32u * w + j) + p;
}
