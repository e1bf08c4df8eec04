// The run's index of a local system, word system or chain set of a sample slice, the Philox
// batch of its randoms (src/model/ising.rs, SliceIndex): SLICE_BLOCK of them per temperature
// here, RUN_BLOCK in the run, this slice's block starting at SLICE_FIRST. The defaults are the
// identity, and so is every whole run's index.

override SLICE_BLOCK: u32 = 1u;
override RUN_BLOCK: u32 = 1u;
override SLICE_FIRST: u32 = 0u;

fn global_index(i: u32) -> u32 {
    return (i / SLICE_BLOCK) * RUN_BLOCK + SLICE_FIRST + i % SLICE_BLOCK;
}
