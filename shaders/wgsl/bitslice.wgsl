// Bit-sliced arithmetic on 32 lanes at once, one bit each; twin of src/engine/cpu/bitslice.rs.

// Planes of a lane counter: up to 2^18 - 1 per lane, more than any strip of sites adds (in 2D
// dims * L satisfied bonds, 2 * 65536 = 2^17 at the 65536^2 SMSC lattice, below 2^18 for every
// lattice of fewer than 2^34 sites, MAX_MULTISPIN_SITES in src/config/mod.rs; in 3D at most
// 3 * 256, MAX_STRIP_WORDS in src/engine/multispin/strips.rs).
const COUNTER_PLANES: u32 = 18u;

// Per-lane number of unsatisfied bonds c = c0 + 2 c1 + 4 c2 (at most 6).
struct BondCount {
    c0: u32,
    c1: u32,
    c2: u32,
    // The lanes that lack an odd number of their bonds (across open edges:
    // multispin_metropolis.wgsl's word_count).
    odd: u32,
}

// Per-lane number of set bits of the first n (3, 4 or 6) words of `bonds` by carry-save adders,
// as the CUDA twin's bond_count_of: the counts of the CPU twin, which adds the words one by one,
// in fewer logic instructions.
fn bond_count_of(bonds: array<u32, 6>, n: u32) -> BondCount {
    // Full adder of a, b, c: sum a ^ b ^ c, carry their majority.
    let s1 = bonds[0] ^ bonds[1] ^ bonds[2];
    let c1 = (bonds[0] & bonds[1]) | (bonds[2] & (bonds[0] ^ bonds[1]));
    if n == 3u {
        return BondCount(s1, c1, 0u, 0u);
    }
    if n == 4u {
        let c2 = s1 & bonds[3];
        return BondCount(s1 ^ bonds[3], c1 ^ c2, c1 & c2, 0u);
    }
    let s2 = bonds[3] ^ bonds[4] ^ bonds[5];
    let c2 = (bonds[3] & bonds[4]) | (bonds[5] & (bonds[3] ^ bonds[4]));
    let c3 = s1 & s2;
    return BondCount(s1 ^ s2, c1 ^ c2 ^ c3, (c1 & c2) | (c3 & (c1 ^ c2)), 0u);
}

fn pick(word: u32, keep: bool) -> u32 {
    return select(~word, word, keep);
}

// Lanes whose unsatisfied-bond count is c.
fn count_equals(count: BondCount, c: u32) -> u32 {
    return pick(count.c0, (c & 1u) != 0u) & pick(count.c1, (c & 2u) != 0u) & pick(count.c2, (c & 4u) != 0u);
}

// A lane counter for long walks: each step's words go into a small pending counter through
// branch-free adders, and the pending counts go into the wide counter every TALLY_STEPS steps.
// Adding to the wide counter directly ripples a carry as far as the longest chain of any
// invocation in the subgroup, several planes per word; here that ripple is paid once per
// TALLY_STEPS steps. Pending counts stay below 2^TALLY_PLANES: a step adds at most 3 (the
// forward bonds of a site).
const TALLY_PLANES: u32 = 5u;
const TALLY_STEPS: u32 = 8u;

struct LaneTally {
    pending: array<u32, TALLY_PLANES>,
    planes: array<u32, COUNTER_PLANES>,
}

// Add a + b + c per lane (each 0 or 1) to the pending counter: a full adder gives the sum's two
// bits, which ripple through the pending planes.
fn tally_add3(tally: ptr<function, LaneTally>, a: u32, b: u32, c: u32) {
    let sum = a ^ b ^ c;
    let twos = (a & b) | (c & (a ^ b));
    var carry = (*tally).pending[0] & sum;
    (*tally).pending[0] ^= sum;
    let p1 = (*tally).pending[1];
    (*tally).pending[1] = p1 ^ twos ^ carry;
    carry = (p1 & twos) | (carry & (p1 ^ twos));
    for (var k = 2u; k < TALLY_PLANES; k++) {
        let next = (*tally).pending[k] & carry;
        (*tally).pending[k] ^= carry;
        carry = next;
    }
}

// Add the pending counts to the wide counter and clear them; counts need at most `planes`
// planes (strip_planes()), so the carry stops there.
fn tally_flush(tally: ptr<function, LaneTally>, planes: u32) {
    var carry = 0u;
    for (var k = 0u; k < TALLY_PLANES; k++) {
        let p = (*tally).planes[k];
        let q = (*tally).pending[k];
        (*tally).planes[k] = p ^ q ^ carry;
        carry = (p & q) | (carry & (p ^ q));
        (*tally).pending[k] = 0u;
    }
    for (var k = TALLY_PLANES; k < planes && carry != 0u; k++) {
        let next = (*tally).planes[k] & carry;
        (*tally).planes[k] ^= carry;
        carry = next;
    }
}

// One more step of a walk counted in tallies a and b: both flush every TALLY_STEPS steps.
fn tally_step(a: ptr<function, LaneTally>, b: ptr<function, LaneTally>, steps: ptr<function, u32>, planes: u32) {
    *steps += 1u;
    if *steps == TALLY_STEPS {
        tally_flush(a, planes);
        tally_flush(b, planes);
        *steps = 0u;
    }
}

// The count of one lane of a tally (after its last flush) of counts of at most `planes` planes.
fn tally_count(tally: ptr<function, LaneTally>, lane: u32, planes: u32) -> u32 {
    var count = 0u;
    for (var k = 0u; k < planes; k++) {
        count |= (((*tally).planes[k] >> lane) & 1u) << k;
    }
    return count;
}
