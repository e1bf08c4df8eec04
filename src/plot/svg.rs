//! Drawing a [`Figure`] as SVG with plotters. Text is written as `<text>` elements (no fonts are
//! read), and the figure's numbers are embedded as JSON in the SVG's `<desc>`, so that what a
//! plot shows can be checked, and read, without measuring pixels.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::figures::{Curve, Figure, Panel, Style, padded_range};
use crate::error::{Error, Result};

const WIDTH: u32 = 800;
const PANEL_HEIGHT: u32 = 500;
const MARKER_RADIUS: u32 = 3;
const ERROR_BAR_WIDTH: u32 = 8;
/// Length of a line in the legend, in pixels.
const LEGEND_LINE: i32 = 20;
/// Room above the data for each legend entry, as a fraction of the data's height, so that the
/// legend (upper right) covers no point.
const LEGEND_ROOM_PER_CURVE: f64 = 0.08;
/// Decimals of the tick labels before trailing zeros are cut.
const TICK_DECIMALS: usize = 6;

/// The SVG text of `figure`.
pub fn render(figure: &Figure) -> Result<String> {
    let mut svg = String::new();
    {
        let height = PANEL_HEIGHT * figure.panels.len().max(1) as u32;
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        drawn(figure, root.fill(&WHITE))?;
        let areas = root.split_evenly((figure.panels.len(), 1));
        for (i, (area, panel)) in areas.iter().zip(&figure.panels).enumerate() {
            let caption = (i == 0).then_some(figure.title.as_str());
            draw_panel(figure, area, panel, caption)?;
        }
        drawn(figure, root.present())?;
    }
    with_description(svg, figure)
}

fn draw_panel(
    figure: &Figure,
    area: &DrawingArea<SVGBackend, Shift>,
    panel: &Panel,
    caption: Option<&str>,
) -> Result<()> {
    let points = || panel.curves.iter().flat_map(|c| &c.points);
    let (x_low, x_high) = padded_range(&points().map(|p| p.x).collect::<Vec<_>>());
    let y_extent = points().flat_map(|p| match p.err.is_finite() {
        true => [p.y - p.err, p.y + p.err],
        false => [p.y, p.y],
    });
    let (y_low, y_high) = padded_range(&y_extent.collect::<Vec<_>>());
    let entries = panel.curves.len() + usize::from(figure.production_from.is_some());
    let y_high = y_high + (y_high - y_low) * LEGEND_ROOM_PER_CURVE * entries as f64;
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80);
    if let Some(caption) = caption {
        builder.caption(caption, ("sans-serif", 18));
    }
    let mut chart = drawn(
        figure,
        builder.build_cartesian_2d(x_low..x_high, y_low..y_high),
    )?;
    drawn(
        figure,
        chart
            .configure_mesh()
            .x_desc(figure.x_label.as_str())
            .y_desc(panel.y_label.as_str())
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .label_style(("sans-serif", 14))
            .draw(),
    )?;
    for (i, curve) in panel.curves.iter().enumerate() {
        draw_curve(figure, &mut chart, curve, Palette99::pick(i).to_rgba())?;
    }
    if let Some(sweep) = figure.production_from {
        draw_production_start(figure, &mut chart, sweep, (y_low, y_high))?;
    }
    drawn(
        figure,
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font(("sans-serif", 14))
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw(),
    )
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// One curve; points with a non-finite coordinate are left out (a NaN estimate has no place).
fn draw_curve<'a, 'b: 'a>(
    figure: &Figure,
    chart: &mut Chart<'a, 'b>,
    curve: &Curve,
    colour: RGBAColor,
) -> Result<()> {
    let mut points: Vec<_> = curve
        .points
        .iter()
        .filter(|p| p.x.is_finite() && p.y.is_finite())
        .collect();
    points.sort_by(|a, b| a.x.total_cmp(&b.x));
    let line = |width| {
        LineSeries::new(
            points.iter().map(|p| (p.x, p.y)),
            colour.stroke_width(width),
        )
    };
    match curve.style {
        Style::Line => {
            drawn(figure, chart.draw_series(line(2)))?
                .label(&curve.label)
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + LEGEND_LINE, y)], colour.stroke_width(2))
                });
        }
        Style::Measured | Style::MeasuredJoined => {
            if curve.style == Style::MeasuredJoined {
                drawn(figure, chart.draw_series(line(1)))?;
            }
            let bars = points.iter().filter(|p| p.err.is_finite()).map(|p| {
                ErrorBar::new_vertical(
                    p.x,
                    p.y - p.err,
                    p.y,
                    p.y + p.err,
                    colour.stroke_width(1),
                    ERROR_BAR_WIDTH,
                )
            });
            drawn(figure, chart.draw_series(bars))?;
            let markers = points
                .iter()
                .map(|p| Circle::new((p.x, p.y), MARKER_RADIUS, colour.filled()));
            // The legend shows what the plot draws: a marker, on a thin line where joined.
            let joined = curve.style == Style::MeasuredJoined;
            drawn(figure, chart.draw_series(markers))?
                .label(&curve.label)
                .legend(move |(x, y)| {
                    let line_end = if joined { LEGEND_LINE } else { 0 };
                    EmptyElement::at((x, y))
                        + PathElement::new([(0, 0), (line_end, 0)], colour.stroke_width(1))
                        + Circle::new((LEGEND_LINE / 2, 0), MARKER_RADIUS, colour.filled())
                });
        }
    }
    Ok(())
}

/// The vertical line at the sweep where production starts, over the panel's whole height.
fn draw_production_start(
    figure: &Figure,
    chart: &mut Chart,
    sweep: f64,
    (y_low, y_high): (f64, f64),
) -> Result<()> {
    let line = LineSeries::new([(sweep, y_low), (sweep, y_high)], BLACK.stroke_width(1));
    drawn(figure, chart.draw_series(line))?
        .label("end of thermalisation")
        .legend(|(x, y)| PathElement::new([(x, y), (x + LEGEND_LINE, y)], BLACK.stroke_width(1)));
    Ok(())
}

/// A tick label: at most [`TICK_DECIMALS`] decimals, without trailing zeros ("2000", "0.41").
fn tick(value: &f64) -> String {
    let text = format!("{value:.TICK_DECIMALS$}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" => "0".to_string(),
        _ => text.to_string(),
    }
}

/// `svg` with the figure's numbers as JSON in a `<desc>` right after the opening `<svg>` tag.
fn with_description(mut svg: String, figure: &Figure) -> Result<String> {
    let json = serde_json::to_string(figure)
        .map_err(|e| Error::State(format!("{}: describing the plot: {e}", figure.file)))?;
    let escaped = json
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let end_of_tag = svg
        .find("<svg")
        .and_then(|start| svg[start..].find('>').map(|end| start + end + 1))
        .ok_or_else(|| Error::State(format!("{}: plotters wrote no <svg> tag", figure.file)))?;
    svg.insert_str(end_of_tag, &format!("\n<desc>{escaped}</desc>"));
    Ok(svg)
}

/// A drawing step's result, its error naming the figure.
fn drawn<T, E: std::fmt::Display>(figure: &Figure, result: Result<T, E>) -> Result<T> {
    result.map_err(|e| Error::State(format!("drawing {}: {e}", figure.file)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_have_no_trailing_zeros() {
        let ticks: Vec<String> = [2000.0, 0.41, 0.30000000000000004, -0.0000001, -1.25]
            .iter()
            .map(tick)
            .collect();
        assert_eq!(ticks, ["2000", "0.41", "0.3", "0", "-1.25"]);
    }
}
