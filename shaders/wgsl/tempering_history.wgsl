// The temperature history at a measurement: the labels of the chain sets of sample 0 (the first
// R T words of the state) into slot params.slot of `history`.

#import dispatch
#import tempering

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(1) @binding(1) var<storage, read_write> state: array<u32>;
@group(1) @binding(3) var<storage, read_write> history: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let i = thread_in_system(thread);
    let words = CHAIN_REPLICAS * TEMPERATURES;
    if i < words {
        history[params.slot * words + i] = state[state_index(SECTION_LABELS, 0u, 0u) + i];
    }
}
