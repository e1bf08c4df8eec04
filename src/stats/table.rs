//! The rows of the summary tables on the terminal, one format for every model: a temperature
//! column, then right-aligned cells of the widths their headings give.

use super::Estimate;
use crate::config::TemperatureScale;

/// Width of the temperature column.
const TEMPERATURE_WIDTH: usize = 9;

/// The heading line of a table in `scale`: the temperature column's name, then `columns`
/// (name, width).
pub fn table_heading(scale: TemperatureScale, columns: &[(&str, usize)]) -> String {
    let cells = columns
        .iter()
        .map(|&(name, width)| (name.to_string(), width));
    table_line(format!("{:>TEMPERATURE_WIDTH$}", scale.name()), cells)
}

/// A row of a table at inverse temperature `beta`, shown in `scale`: then `cells` (text,
/// width).
pub fn table_row(
    scale: TemperatureScale,
    beta: f64,
    cells: impl IntoIterator<Item = (String, usize)>,
) -> String {
    table_line(
        format!("{:>TEMPERATURE_WIDTH$.6}", scale.value(beta)),
        cells,
    )
}

/// `first`, then each cell right-aligned in its width after a space, and a newline.
fn table_line(first: String, cells: impl IntoIterator<Item = (String, usize)>) -> String {
    let mut line = first;
    for (text, width) in cells {
        line += &format!(" {text:>width$}");
    }
    line.push('\n');
    line
}

/// An estimate as a table shows it: `mean ± err`, or `undefined` where it has no value (xi/L
/// where `<m2>` falls below the Fourier component: a glass's magnetisation, a ferromagnet far
/// above T_c at small L) rather than NaN.
pub fn estimate_cell(e: &Estimate) -> String {
    match e.mean.is_nan() {
        true => "undefined".to_string(),
        false => format!("{:.7} ± {:.7}", e.mean, e.err),
    }
}

/// The line of a spin glass's table run with one replica, which has no overlaps: what is not
/// shown (`estimators`), and why.
pub fn no_overlaps_line(estimators: &str) -> String {
    format!(
        "{estimators}: not estimated: overlaps need two replicas per sample and temperature \
         (replicas: 2 or more), the run has one\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_align_under_their_headings() {
        let heading = table_heading(TemperatureScale::Beta, &[("e", 24), ("tau_e", 8)]);
        let e = Estimate {
            mean: -1.5,
            err: 0.25,
        };
        let row = table_row(
            TemperatureScale::Beta,
            0.44,
            [(estimate_cell(&e), 24), (format!("{:.2}", 3.0), 8)],
        );
        assert_eq!(
            heading,
            format!("{:>9} {:>24} {:>8}\n", "beta", "e", "tau_e")
        );
        assert_eq!(row, " 0.440000   -1.5000000 ± 0.2500000     3.00\n");
        assert_eq!(heading.chars().count(), row.chars().count());
        let nan = Estimate {
            mean: f64::NAN,
            err: f64::NAN,
        };
        assert_eq!(estimate_cell(&nan), "undefined");
    }
}
