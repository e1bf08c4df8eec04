// Resampling, second kernel: one workgroup per block turns its chunks' copy counts into each
// chunk's first destination (an exclusive prefix sum, in place) and writes the block's new
// population size. Each thread sums a run of consecutive chunks; the workgroup scans the runs.

#import resample

@group(0) @binding(0) var<storage, read_write> chunks: array<u32>;
@group(0) @binding(1) var<storage, read_write> sizes: array<u32>;

var<workgroup> partial: array<u32, SCAN_THREADS>;

@compute @workgroup_size(SCAN_THREADS)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let b = workgroup.x;
    let per_block = SLOTS / CHUNK;
    let run = (per_block + SCAN_THREADS - 1u) / SCAN_THREADS;
    let block_end = (b + 1u) * per_block;
    let first = min(b * per_block + t * run, block_end);
    let end = min(first + run, block_end);
    var sum = 0u;
    for (var c = first; c < end; c++) {
        sum += chunks[c];
    }
    partial[t] = sum;
    workgroupBarrier();
    // Inclusive scan of the runs' sums (Hillis-Steele).
    for (var offset = 1u; offset < SCAN_THREADS; offset *= 2u) {
        var before = 0u;
        if t >= offset {
            before = partial[t - offset];
        }
        workgroupBarrier();
        partial[t] += before;
        workgroupBarrier();
    }
    var running = partial[t] - sum;
    for (var c = first; c < end; c++) {
        let n = chunks[c];
        chunks[c] = running;
        running += n;
    }
    if t == SCAN_THREADS - 1u {
        sizes[b] = partial[t];
    }
}
