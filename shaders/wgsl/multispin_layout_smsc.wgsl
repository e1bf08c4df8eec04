// SMSC: bit j of word w of a colour row is the site x = 2(32 w + j) + p of one system.
// Twin of the SMSC branches of src/engine/multispin/.

fn row_words() -> u32 {
    return L / 64u;
}

// The shifted x-neighbour: `same` moved one bit towards the neighbour, with the end bit of the
// adjacent word carried in (p = 0: -x side, p = 1: +x side).
fn shift_in(same: u32, adjacent: u32, p: u32) -> u32 {
    if p == 0u {
        return (same << 1u) | (adjacent >> 31u);
    }
    return (same >> 1u) | (adjacent << 31u);
}

// Lanes of a row's first (side 0) or last (side 1) word on the lattice's -x or +x edge: its first
// site x = p = 0 (bit 0) or its last x = L - 1 (bit 31).
fn x_edge_lanes(side: u32) -> u32 {
    return select(0x80000000u, 1u, side == 0u);
}

// Overlap counts per plane x = 2(32 w + j) + p.
fn overlap_slots() -> u32 {
    return L;
}

fn overlap_slot(w: u32, p: u32, j: u32) -> u32 {
    return 2u * (32u * w + j) + p;
}
