//! Per-item maps over long slices on rayon's pool, on the calling thread below
//! [`PARALLEL_MIN`] items, where the threads would cost more than they save (population
//! annealing's per-replica passes between temperature steps). Each item's result is a function
//! of its own inputs only, so the outputs are the same either way; reductions stay with the
//! caller, in its own order.

use rayon::prelude::*;

/// Items below which a map stays on the calling thread, and the least work of a rayon task.
pub const PARALLEL_MIN: usize = 1 << 14;

/// `f` of every item of `items`, in order.
pub fn map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
    match items.len() < PARALLEL_MIN {
        true => items.iter().map(f).collect(),
        false => items.par_iter().with_min_len(PARALLEL_MIN).map(f).collect(),
    }
}

/// `f(c, chunk)` for every chunk `c` of `chunk` items of `out` (the last may be shorter).
pub fn for_chunks<U: Send>(out: &mut [U], chunk: usize, f: impl Fn(usize, &mut [U]) + Sync + Send) {
    match out.len() < PARALLEL_MIN {
        true => out.chunks_mut(chunk).enumerate().for_each(|(c, x)| f(c, x)),
        false => out
            .par_chunks_mut(chunk)
            .with_min_len(PARALLEL_MIN.div_ceil(chunk))
            .enumerate()
            .for_each(|(c, x)| f(c, x)),
    }
}

/// `(a(), b())`, concurrently where they work on `items` (at least [`PARALLEL_MIN`]) items.
pub fn join<A: Send, B: Send>(
    items: usize,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    match items < PARALLEL_MIN {
        true => (a(), b()),
        false => rayon::join(a, b),
    }
}

/// A vector of `len` items, item `i` `f(i)`.
pub fn from_fn<U: Send + Default + Clone>(
    len: usize,
    f: impl Fn(usize) -> U + Sync + Send,
) -> Vec<U> {
    let mut out = vec![U::default(); len];
    for_chunks(&mut out, 1, |i, x| x[0] = f(i));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_and_sequential_maps_agree() {
        for len in [0, 5, PARALLEL_MIN - 1, PARALLEL_MIN, 3 * PARALLEL_MIN + 7] {
            let items: Vec<u64> = (0..len as u64).collect();
            let squares = map(&items, |x| x * x);
            assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
            assert_eq!(from_fn(len, |i| (i * i) as u64), squares);
            let mut chunks = vec![0usize; len];
            for_chunks(&mut chunks, 4, |c, x| {
                x.iter_mut().enumerate().for_each(|(k, y)| *y = 4 * c + k)
            });
            assert_eq!(chunks, (0..len).collect::<Vec<_>>());
        }
    }
}
