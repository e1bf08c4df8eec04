// AMSC: bit b of a word is the same site in lane b's system; word w of a colour row is the site
// x = 2w + p. Twin of the AMSC branches of src/engine/multispin/.

fn row_words() -> u32 {
    return L / 2u;
}

// The shifted x-neighbour is the adjacent word itself.
fn shift_in(same: u32, adjacent: u32, p: u32) -> u32 {
    return adjacent;
}

// Lanes of a row's first (side 0) or last (side 1) word on the lattice's -x or +x edge: every
// lane, the word being that site.
fn x_edge_lanes(side: u32) -> u32 {
    return ~0u;
}

// Overlap counts per lane j and plane x = 2w + p, lane-major: a lane's L planes are contiguous,
// as the host's per-overlap series are.
fn overlap_slots() -> u32 {
    return L * 32u;
}

fn overlap_slot(w: u32, p: u32, j: u32) -> u32 {
    return j * L + 2u * w + p;
}
