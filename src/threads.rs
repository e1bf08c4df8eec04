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

/// The smallest and largest `key` of `items`, `None` for none.
pub fn bounds<T: Sync>(items: &[T], key: impl Fn(&T) -> u64 + Sync + Send) -> Option<(u64, u64)> {
    let of = |chunk: &[T]| {
        chunk
            .iter()
            .map(&key)
            .fold(None, |b: Option<(u64, u64)>, k| {
                Some(b.map_or((k, k), |(lo, hi)| (lo.min(k), hi.max(k))))
            })
    };
    let chunks: Vec<Option<(u64, u64)>> = match items.len() < PARALLEL_MIN {
        true => vec![of(items)],
        false => items.par_chunks(PARALLEL_MIN).map(of).collect(),
    };
    chunks
        .into_iter()
        .flatten()
        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
}

/// How many of `items` fall into each of `bins` bins, item `x` into bin `bin_of(x)` (below
/// `bins`). Counts are integers, so the chunks' histograms add up to the same in any order.
pub fn histogram<T: Sync>(
    items: &[T],
    bins: usize,
    bin_of: impl Fn(&T) -> usize + Sync + Send,
) -> Vec<u64> {
    let of = |chunk: &[T]| {
        let mut counts = vec![0u64; bins];
        for x in chunk {
            counts[bin_of(x)] += 1;
        }
        counts
    };
    if items.len() < PARALLEL_MIN {
        return of(items);
    }
    items.par_chunks(PARALLEL_MIN).map(of).reduce(
        || vec![0; bins],
        |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
    )
}

/// Each of `items` repeated `counts[i]` times, in order.
pub fn repeat_by<T: Copy + Default + Send + Sync>(items: &[T], counts: &[u32]) -> Vec<T> {
    let totals: Vec<usize> = counts
        .chunks(PARALLEL_MIN)
        .map(|c| c.iter().map(|&n| n as usize).sum())
        .collect();
    let mut out = vec![T::default(); totals.iter().sum()];
    let mut parts = Vec::with_capacity(totals.len());
    let mut rest = out.as_mut_slice();
    for &total in &totals {
        let (part, tail) = rest.split_at_mut(total);
        parts.push(part);
        rest = tail;
    }
    let fill = |(c, part): (usize, &mut [T])| {
        let chunk = c * PARALLEL_MIN..(c * PARALLEL_MIN + PARALLEL_MIN).min(items.len());
        let mut at = 0;
        for (&x, &n) in items[chunk.clone()].iter().zip(&counts[chunk]) {
            part[at..at + n as usize].fill(x);
            at += n as usize;
        }
    };
    parts.into_par_iter().enumerate().for_each(fill);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_bounds_and_repeats_of_long_slices() {
        let len = 3 * PARALLEL_MIN + 5;
        let items: Vec<u64> = (0..len as u64).map(|i| i * 7 % 13).collect();
        assert_eq!(bounds(&items, |&x| x), Some((0, 12)));
        assert_eq!(bounds(&[] as &[u64], |&x| x), None);
        let counts = histogram(&items, 13, |&x| x as usize);
        assert_eq!(counts.iter().sum::<u64>(), len as u64);
        assert_eq!(counts[5], items.iter().filter(|&&x| x == 5).count() as u64);
        let copies: Vec<u32> = items.iter().map(|&x| (x % 3) as u32).collect();
        let repeated = repeat_by(&items, &copies);
        let expected: Vec<u64> = items
            .iter()
            .zip(&copies)
            .flat_map(|(&x, &n)| std::iter::repeat_n(x, n as usize))
            .collect();
        assert_eq!(repeated, expected);
    }

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
