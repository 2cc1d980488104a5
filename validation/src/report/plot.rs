//! Log–log chart panels shared by the reports.

use plotters::prelude::*;

pub(crate) type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

/// A labelled curve of a panel.
pub(crate) type Curve = (String, ShapeStyle, Vec<(f64, f64)>);

/// A drawing backend's failure, as its text, before the figure's path is known (the caller makes
/// it a [`crate::Error::Plot`]).
#[derive(Debug)]
pub(crate) struct DrawError(String);

impl<E: std::error::Error> From<E> for DrawError {
    fn from(e: E) -> Self {
        DrawError(e.to_string())
    }
}

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One log–log panel: labelled curves (values clamped to the lower y bound) and a legend.
pub(crate) fn log_chart(
    area: &Area,
    caption: &str,
    (x_desc, y_desc): (&str, &str),
    xs: &[f64],
    (ymin, ymax): (f64, f64),
    curves: Vec<Curve>,
) -> Result<(), DrawError> {
    let (xmin, xmax) = (
        xs.iter().copied().fold(f64::MAX, f64::min),
        xs.iter().copied().fold(0.0, f64::max),
    );
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (xmin * 0.8..xmax * 1.25).log_scale(),
            (ymin..ymax).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|v| format!("{v:.0e}"))
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .label_style(("sans-serif", 15))
        .draw()?;
    for (label, style, points) in curves {
        let points = points.into_iter().map(|(x, y)| (x, y.max(ymin)));
        chart
            .draw_series(LineSeries::new(points, style))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    legend(&mut chart, 13, SeriesLabelPosition::UpperLeft)?;
    Ok(())
}

/// The reports' legend: the labelled series in a white, black-bordered box at `position`, in
/// sans-serif of `size` px.
pub(crate) fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    size: u32,
    position: SeriesLabelPosition,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", size))
        .position(position)
        .draw()
}
