// Bit-sliced arithmetic on 32 lanes at once, one bit each; twin of src/engine/cpu/bitslice.rs.

// Planes of a lane counter: up to 2^18 - 1 per lane, more than any line of sites adds (dims * L
// satisfied bonds: 2 * 65536 = 2^17 at the 65536^2 SMSC lattice, below 2^18 for every lattice of
// fewer than 2^34 sites, the multispin limit of src/config.rs).
const COUNTER_PLANES: u32 = 18u;

// Per-lane number of unsatisfied bonds c = c0 + 2 c1 + 4 c2 (at most 6).
struct BondCount {
    c0: u32,
    c1: u32,
    c2: u32,
}

// Count one more bond in the lanes set in `unsatisfied` (a ripple of half adders).
fn bond_count_add(count: ptr<function, BondCount>, unsatisfied: u32) {
    let carry0 = (*count).c0 & unsatisfied;
    (*count).c0 ^= unsatisfied;
    let carry1 = (*count).c1 & carry0;
    (*count).c1 ^= carry0;
    (*count).c2 ^= carry1;
}

fn pick(word: u32, keep: bool) -> u32 {
    return select(~word, word, keep);
}

// Lanes whose unsatisfied-bond count is c.
fn count_equals(count: BondCount, c: u32) -> u32 {
    return pick(count.c0, (c & 1u) != 0u) & pick(count.c1, (c & 2u) != 0u) & pick(count.c2, (c & 4u) != 0u);
}

// A vertical counter: add one to every lane set in `word`.
fn lane_counter_add(planes: ptr<function, array<u32, COUNTER_PLANES>>, word: u32) {
    var carry = word;
    for (var k = 0u; k < COUNTER_PLANES && carry != 0u; k++) {
        let next = (*planes)[k] & carry;
        (*planes)[k] ^= carry;
        carry = next;
    }
}

// The count of one lane of a vertical counter.
fn lane_count(planes: ptr<function, array<u32, COUNTER_PLANES>>, lane: u32) -> u32 {
    var count = 0u;
    for (var k = 0u; k < COUNTER_PLANES; k++) {
        count |= (((*planes)[k] >> lane) & 1u) << k;
    }
    return count;
}
