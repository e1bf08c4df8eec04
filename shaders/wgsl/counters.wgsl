// 64-bit counters in pairs of u32 words (lo, hi) of the `observations` binding, added to with
// atomics; the host reads them as u64.

// Adds v to the 64-bit counter at words (i, i + 1): a wrapped low word carries into the high word.
fn add_u64(i: u32, v: u32) {
    let old = atomicAdd(&observations[i], v);
    if old + v < old {
        atomicAdd(&observations[i + 1u], 1u);
    }
}
