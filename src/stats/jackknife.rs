//! Blocking and the delete-one-block jackknife.
//!
//! The data are cut into `B` blocks, each summarised by the means `x_b` of the primary quantities
//! (energy, magnetisation moments, ...). An estimator `f` of those means is evaluated on all data,
//! `f(x)`, and on every leave-one-block-out mean `x_(b) = (B x - x_b)/(B - 1)`; then
//!
//! ```text
//! err^2 = (B - 1)/B sum_b (f(x_(b)) - mean_b f(x_(b)))^2,
//! ```
//!
//! which for `f(x) = x` is the usual standard error of the block means. Blocks much longer than
//! the autocorrelation time make the block means independent, so `err` includes the correlations.
//!
//! The reported mean is `f(x)` without the jackknife bias correction `B f(x) - (B-1) mean_b
//! f(x_(b))`: the bias of `f(x)` is `O(tau/n)`, far below the error `O(sqrt(tau/n))` for any
//! useful run, while the correction adds noise.

/// A mean with its one-sigma error.
///
/// JSON has no NaN: serde_json writes it as `null`, which is read back as NaN, so that a
/// `summary.json` with an error that could not be estimated still loads (`spinflip plot`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Estimate {
    /// The estimate.
    #[serde(deserialize_with = "nan_from_null")]
    pub mean: f64,
    /// Its standard error (NaN when it cannot be estimated: fewer than two blocks).
    #[serde(deserialize_with = "nan_from_null")]
    pub err: f64,
}

impl Estimate {
    /// No estimate: NaN mean and error (no data, or a summary written before the quantity was).
    pub fn missing() -> Estimate {
        Estimate {
            mean: f64::NAN,
            err: f64::NAN,
        }
    }
}

/// A number, or NaN for JSON's `null`.
fn nan_from_null<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    use serde::Deserialize as _;
    Ok(Option::<f64>::deserialize(deserializer)?.unwrap_or(f64::NAN))
}

/// Jackknife estimate of `f` from per-block means: `blocks[b][q]` is the mean of primary quantity
/// `q` in block `b` (all blocks list the same quantities and count equally).
///
/// Returns `f` of the all-data means (no bias correction: see the module docs) and the
/// jackknife error, which is NaN with fewer than two blocks; with no blocks both are NaN and `f`
/// is not called.
pub fn jackknife(blocks: &[Vec<f64>], f: impl Fn(&[f64]) -> f64) -> Estimate {
    if blocks.is_empty() {
        return Estimate::missing();
    }
    let count = blocks.len() as f64;
    let totals = column_sums(blocks);
    let mean = f(&totals.iter().map(|t| t / count).collect::<Vec<_>>());
    if blocks.len() < 2 {
        return Estimate {
            mean,
            err: f64::NAN,
        };
    }
    let left_out: Vec<f64> = blocks
        .iter()
        .map(|block| {
            f(&totals
                .iter()
                .zip(block)
                .map(|(t, x)| (t - x) / (count - 1.0))
                .collect::<Vec<_>>())
        })
        .collect();
    let centre = left_out.iter().sum::<f64>() / count;
    let spread: f64 = left_out.iter().map(|y| (y - centre).powi(2)).sum();
    Estimate {
        mean,
        err: ((count - 1.0) / count * spread).sqrt(),
    }
}

/// Sum over blocks of each quantity (as many quantities as the first block lists).
fn column_sums(blocks: &[Vec<f64>]) -> Vec<f64> {
    let width = blocks.first().map_or(0, Vec::len);
    blocks.iter().fold(vec![0.0; width], |mut sums, block| {
        sums.iter_mut().zip(block).for_each(|(s, x)| *s += x);
        sums
    })
}

/// Block means of several independent series (replicas): `series[s][q][t]` is quantity `q` of
/// series `s` at time `t`, all quantities of a series being equally long (the shortest counts).
///
/// Every series is cut into `blocks_per_series` equal consecutive blocks, or one block per
/// measurement when it is shorter than that (an empty series gives none). The remainder of the
/// division is dropped at the start, keeping the latest (best equilibrated) data. Returns
/// `blocks[b][q]`, series after series.
pub fn block_means(series: &[Vec<Vec<f64>>], blocks_per_series: usize) -> Vec<Vec<f64>> {
    series
        .iter()
        .flat_map(|quantities| series_block_means(quantities, blocks_per_series))
        .collect()
}

/// The primary quantities of a series as columns: `rows[t][q]`, quantity `q` at measurement `t`,
/// gives `columns[q][t]`, the layout of a series in [`block_means`] and [`unit_means`].
pub fn columns<const N: usize>(rows: impl ExactSizeIterator<Item = [f64; N]>) -> Vec<Vec<f64>> {
    let mut columns: Vec<Vec<f64>> = (0..N).map(|_| Vec::with_capacity(rows.len())).collect();
    for row in rows {
        columns.iter_mut().zip(row).for_each(|(q, v)| q.push(v));
    }
    columns
}

/// Per-measurement means over consecutive groups of `series_per_unit` series (the last group may
/// be smaller): `series[s][q][t]` gives `units[u][q][t]`, over the group's common length.
///
/// Series that are not independent, such as the lanes of a multispin word that share their
/// random numbers, make one unit of the jackknife: its blocks must hold all of them. Averaging
/// the primary quantities (linear in the data of one series) per measurement leaves every
/// estimator's value unchanged, with series of equal length.
pub fn unit_means(series: &[Vec<Vec<f64>>], series_per_unit: usize) -> Vec<Vec<Vec<f64>>> {
    series
        .chunks(series_per_unit.max(1))
        .map(|unit| {
            let quantities = unit.iter().map(Vec::len).min().unwrap_or(0);
            (0..quantities)
                .map(|q| {
                    let rows: Vec<&[f64]> = unit.iter().map(|s| s[q].as_slice()).collect();
                    group_means(&rows, rows.len()).pop().unwrap_or_default()
                })
                .collect()
        })
        .collect()
}

/// Element-wise means of consecutive groups of `per_group` rows (the last group may be
/// smaller), each over its group's shortest row.
pub fn group_means<R: AsRef<[f64]>>(rows: &[R], per_group: usize) -> Vec<Vec<f64>> {
    rows.chunks(per_group.max(1))
        .map(|group| {
            let length = group.iter().map(|r| r.as_ref().len()).min().unwrap_or(0);
            let count = group.len() as f64;
            (0..length)
                .map(|i| group.iter().map(|r| r.as_ref()[i]).sum::<f64>() / count)
                .collect()
        })
        .collect()
}

fn series_block_means(quantities: &[Vec<f64>], blocks_per_series: usize) -> Vec<Vec<f64>> {
    let length = quantities.iter().map(Vec::len).min().unwrap_or(0);
    let blocks = blocks_per_series.min(length);
    if blocks == 0 {
        return Vec::new();
    }
    let block_length = length / blocks;
    let start = length - blocks * block_length;
    (0..blocks)
        .map(|b| {
            let range = start + b * block_length..start + (b + 1) * block_length;
            quantities
                .iter()
                .map(|q| q[range.clone()].iter().sum::<f64>() / block_length as f64)
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::test_rng::TestRng;

    #[test]
    fn estimate_survives_json_with_nan() {
        let estimate = Estimate {
            mean: 0.25,
            err: f64::NAN,
        };
        let text = serde_json::to_string(&estimate).unwrap();
        assert_eq!(text, r#"{"mean":0.25,"err":null}"#);
        let back: Estimate = serde_json::from_str(&text).unwrap();
        assert_eq!(back.mean, 0.25);
        assert!(back.err.is_nan());
    }

    #[test]
    fn error_of_the_mean_is_the_standard_error() {
        let mut rng = TestRng::new(1);
        let blocks: Vec<Vec<f64>> = (0..20).map(|_| vec![3.0 + rng.gaussian()]).collect();
        let values: Vec<f64> = blocks.iter().map(|b| b[0]).collect();
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let variance = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let got = jackknife(&blocks, |m| m[0]);
        assert!((got.mean - mean).abs() < 1e-14);
        assert!((got.err - (variance / n).sqrt()).abs() < 1e-14, "{got:?}");
    }

    /// f = <x^2> - <x>^2, a non-linear estimator of the variance (true value 4), from 1000
    /// Gaussian samples in 20 blocks: the 2-sigma interval must cover the truth about 95% of the
    /// time (a t distribution with 19 degrees of freedom gives 94%).
    #[test]
    fn nonlinear_error_covers_the_truth_at_the_expected_rate() {
        let mut rng = TestRng::new(7);
        let trials = 200;
        let covered = (0..trials)
            .filter(|_| {
                let x: Vec<f64> = (0..1000).map(|_| 1.5 + 2.0 * rng.gaussian()).collect();
                let series = vec![vec![x.clone(), x.iter().map(|v| v * v).collect()]];
                let got = jackknife(&block_means(&series, 20), |m| m[1] - m[0] * m[0]);
                (got.mean - 4.0).abs() < 2.0 * got.err
            })
            .count();
        let rate = covered as f64 / trials as f64;
        assert!((0.88..=0.99).contains(&rate), "coverage {rate}");
    }

    #[test]
    fn fewer_than_two_blocks_have_no_error() {
        let one = jackknife(&[vec![2.0]], |m| m[0]);
        assert_eq!(one.mean, 2.0);
        assert!(one.err.is_nan());
        let none = jackknife(&[], |m| m[0]);
        assert!(none.mean.is_nan() && none.err.is_nan());
    }

    #[test]
    fn units_average_their_series_per_measurement() {
        let series = vec![
            vec![vec![1.0, 2.0, 3.0], vec![10.0, 20.0, 30.0]],
            vec![vec![3.0, 4.0], vec![30.0, 40.0]],
            vec![vec![5.0, 6.0, 7.0], vec![0.0, 0.0, 0.0]],
        ];
        // Units of two: the first over the common length 2, the second alone.
        let want = vec![
            vec![vec![2.0, 3.0], vec![20.0, 30.0]],
            vec![vec![5.0, 6.0, 7.0], vec![0.0, 0.0, 0.0]],
        ];
        assert_eq!(unit_means(&series, 2), want);
        assert_eq!(unit_means(&series, 1), series);
        assert_eq!(
            group_means(&[[1.0, 2.0], [3.0, 6.0], [5.0, 1.0]], 2),
            vec![vec![2.0, 4.0], vec![5.0, 1.0]]
        );
    }

    #[test]
    fn blocks_keep_the_latest_data() {
        let a: Vec<f64> = (0..11).map(f64::from).collect();
        let b: Vec<f64> = a.iter().map(|x| 10.0 * x).collect();
        let short = vec![vec![5.0, 7.0], vec![1.0, 1.0]];
        let blocks = block_means(&[vec![a, b], short, vec![vec![], vec![]]], 3);
        // 11 = 3 * 3 + 2: t = 0, 1 dropped; blocks 2..5, 5..8, 8..11; the short series gives
        // one block per measurement, the empty one none.
        let want = [
            [3.0, 30.0],
            [6.0, 60.0],
            [9.0, 90.0],
            [5.0, 1.0],
            [7.0, 1.0],
        ];
        assert_eq!(blocks, want.map(Vec::from).to_vec());
    }
}
