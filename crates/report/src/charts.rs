//! Histograms of the report, drawn with plotters as SVG and PNG.
//!
//! Text is laid out (and, in PNG, drawn) with DejaVu Sans, bundled in the binary
//! and registered with plotters' `ab_glyph` backend: no system font library
//! (fontconfig, FreeType) is needed to build or run. SVG text names the family
//! `sans-serif`, which every viewer has. One bar per set and bin, side by side,
//! its height the share of the set's articles in the bin, so sets of different
//! sizes compare.

use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};

use crate::error::ReportError;

/// DejaVu Sans (Bitstream Vera license; `assets/fonts/DejaVuSans-LICENSE.txt`).
static FONT: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

/// The font family every chart uses.
const FAMILY: &str = "sans-serif";

/// Chart size in pixels.
const SIZE: (u32, u32) = (900, 500);

fn register_bundled_font() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The font is bundled: failing to parse it is a broken build, and charts
        // then fail with plotters' font error.
        let _ = register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

/// A histogram: each set's values in `bins` equal bins over `range`. Values
/// outside the range count in the first or last bin.
#[derive(Debug, Clone)]
pub struct Histogram {
    /// File stem of the chart (`coverage` gives `coverage.svg` and `coverage.png`).
    pub name: String,
    /// Title drawn above it.
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Lower and upper end of the x axis.
    pub range: (f64, f64),
    /// Number of bins.
    pub bins: usize,
    /// Each set's name and values.
    pub series: Vec<(String, Vec<f64>)>,
}

impl Histogram {
    /// Each set's share of articles per bin.
    pub fn shares(&self) -> Vec<Vec<f64>> {
        let (lo, hi) = self.range;
        let width = (hi - lo) / self.bins as f64;
        self.series
            .iter()
            .map(|(_, values)| {
                let mut counts = vec![0usize; self.bins];
                for v in values {
                    let i = ((v - lo) / width).floor();
                    let i = if i.is_nan() || i < 0.0 {
                        0
                    } else {
                        (i as usize).min(self.bins - 1)
                    };
                    counts[i] += 1;
                }
                let total = values.len().max(1) as f64;
                counts.into_iter().map(|c| c as f64 / total).collect()
            })
            .collect()
    }
}

/// A chart the report draws: its file stem and how it is plotted on any backend.
pub trait Chart {
    /// File stem (`coverage` gives `coverage.svg` and `coverage.png`).
    fn name(&self) -> &str;

    /// Draws the chart on `root`.
    ///
    /// # Errors
    /// plotters' error, as text.
    fn plot<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static;
}

impl Chart for Histogram {
    fn name(&self) -> &str {
        &self.name
    }

    fn plot<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        plot(root, self)
    }
}

/// Draws `chart` as `dir/NAME.svg` and `dir/NAME.png`; returns the two paths.
///
/// # Errors
/// A chart cannot be drawn or written.
pub fn draw(chart: &impl Chart, dir: &Path) -> Result<[PathBuf; 2], ReportError> {
    register_bundled_font();
    let svg = dir.join(format!("{}.svg", chart.name()));
    let png = dir.join(format!("{}.png", chart.name()));
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |e: String| ReportError::Chart { path, message: e }
    };
    {
        let root = SVGBackend::new(&svg, SIZE).into_drawing_area();
        chart.plot(&root).map_err(failed(&svg))?;
        root.present().map_err(|e| failed(&svg)(e.to_string()))?;
    }
    let mut pixels = vec![0u8; SIZE.0 as usize * SIZE.1 as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area();
        chart.plot(&root).map_err(failed(&png))?;
        root.present().map_err(|e| failed(&png)(e.to_string()))?;
    }
    write_png(&png, &pixels).map_err(|e| failed(&png)(e.to_string()))?;
    Ok([svg, png])
}

/// Bars of shares by group, side by side: TempoSum's Figure 2 (per set, the share
/// of a system's summaries with an outdated claim), each bar with its interval
/// as an error bar when it has one.
#[derive(Debug, Clone)]
pub struct Bars {
    /// File stem of the chart.
    pub name: String,
    /// Title drawn above it.
    pub title: String,
    /// Label of the y axis.
    pub y_label: String,
    /// The groups along the x axis (the sets).
    pub groups: Vec<String>,
    /// Each series' name and its share (0 to 1) in each group.
    pub series: Vec<(String, Vec<f64>)>,
    /// Per series (as `series`), each bar's interval (low, high), drawn as an
    /// error bar (when it has a width): empty when the chart has none, `None`
    /// for a bar without one.
    pub intervals: Vec<Vec<Option<(f64, f64)>>>,
}

/// The plotters chart the bars are drawn on.
type BarsChart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

impl Bars {
    /// The top of the y axis: room above the highest bar or interval for its
    /// value, and above that for the legend (upper right), which would
    /// otherwise hide the last group's high bars.
    fn top(&self) -> f64 {
        let highest = self
            .series
            .iter()
            .flat_map(|(_, v)| v)
            .copied()
            .chain(self.intervals.iter().flatten().flatten().map(|i| i.1))
            .fold(0.0_f64, f64::max);
        let legend = 0.07 * self.series.len() as f64 + 0.05;
        if highest > 0.0 {
            (highest * 1.15).min(1.1) + legend
        } else {
            1.0
        }
    }

    /// Bar `i` of series `j`'s interval, if it has one.
    fn interval(&self, j: usize, i: usize) -> Option<(f64, f64)> {
        self.intervals.get(j)?.get(i).copied().flatten()
    }

    /// Series `j`: its bars, their intervals as error bars (a vertical line
    /// with a cap at each end, in black so that it shows on every colour),
    /// and each bar's value above the bar or its interval, as TempoSum's figure
    /// prints them.
    fn draw_series<DB: DrawingBackend>(
        &self,
        ctx: &mut BarsChart<'_, DB>,
        j: usize,
        width: f64,
    ) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        let (name, shares) = &self.series[j];
        let color = Palette99::pick(j).to_rgba();
        let left = |i: usize| i as f64 + 0.1 + width * j as f64;
        let bars = shares
            .iter()
            .enumerate()
            .map(|(i, &s)| Rectangle::new([(left(i), 0.0), (left(i) + width, s)], color.filled()));
        ctx.draw_series(bars)
            .map_err(|e| e.to_string())?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
        let cap = width * 0.15;
        // An interval of no width (a rate of 0 or 1 on few articles) says
        // nothing a whisker would show.
        let whiskers = (0..shares.len()).filter_map(|i| {
            let (low, high) = self
                .interval(j, i)
                .filter(|(low, high)| high - low > 1e-9)?;
            let x = left(i) + width / 2.0;
            Some([
                PathElement::new(vec![(x, low), (x, high)], BLACK.stroke_width(2)),
                PathElement::new(vec![(x - cap, low), (x + cap, low)], BLACK.stroke_width(2)),
                PathElement::new(
                    vec![(x - cap, high), (x + cap, high)],
                    BLACK.stroke_width(2),
                ),
            ])
        });
        ctx.draw_series(whiskers.flatten())
            .map_err(|e| e.to_string())?;
        let values = shares.iter().enumerate().map(|(i, &s)| {
            let above = self.interval(j, i).map_or(s, |(_, high)| high.max(s));
            let style = TextStyle::from((FAMILY, 13)).pos(Pos::new(HPos::Center, VPos::Bottom));
            let x = left(i) + width / 2.0;
            Text::new(format!("{:.1}%", s * 100.0), (x, above), style)
        });
        ctx.draw_series(values).map_err(|e| e.to_string())?;
        Ok(())
    }
}

impl Chart for Bars {
    fn name(&self) -> &str {
        &self.name
    }

    fn plot<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        let top = self.top();
        let groups = self.groups.len().max(1);
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut ctx = ChartBuilder::on(root)
            .caption(&self.title, (FAMILY, 24))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..groups as f64, 0.0..top)
            .map_err(|e| e.to_string())?;
        // No tick above 100 %: the room up there is the legend's.
        let percent = |y: &f64| {
            if *y > 1.0 + 1e-9 {
                String::new()
            } else {
                format!("{:.0}%", y * 100.0)
            }
        };
        let names = self.groups.clone();
        let group_name = move |x: &f64| {
            let i = x.floor();
            if (x - i - 0.5).abs() < 1e-9 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        ctx.configure_mesh()
            .disable_x_mesh()
            .x_labels(groups * 2 + 1)
            .y_desc(self.y_label.as_str())
            .y_label_formatter(&percent)
            .x_label_formatter(&group_name)
            .label_style((FAMILY, 14))
            .axis_desc_style((FAMILY, 16))
            .draw()
            .map_err(|e| e.to_string())?;
        let width = 0.8 / self.series.len().max(1) as f64;
        for j in 0..self.series.len() {
            self.draw_series(&mut ctx, j, width)?;
        }
        ctx.configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font((FAMILY, 14))
            .draw()
            .map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// Writes RGB `pixels` of a chart as a PNG file (with the `png` crate itself:
/// plotters' own encoder would build the `image` crate's every codec).
fn write_png(path: &Path, pixels: &[u8]) -> Result<(), png::EncodingError> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, SIZE.0, SIZE.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(pixels)?;
    writer.finish()
}

fn plot<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &Histogram) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let shares = chart.shares();
    let top = shares.iter().flatten().copied().fold(0.0_f64, f64::max);
    let top = if top > 0.0 { (top * 1.1).min(1.0) } else { 1.0 };
    let (lo, hi) = chart.range;
    let width = (hi - lo) / chart.bins as f64;
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut ctx = ChartBuilder::on(root)
        .caption(&chart.title, (FAMILY, 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(lo..hi, 0.0..top)
        .map_err(|e| e.to_string())?;
    let percent = |y: &f64| format!("{:.0}%", y * 100.0);
    let tick = |x: &f64| trim_number(*x);
    ctx.configure_mesh()
        .disable_x_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc("share of the set's articles")
        .y_label_formatter(&percent)
        .x_label_formatter(&tick)
        .label_style((FAMILY, 14))
        .axis_desc_style((FAMILY, 16))
        .draw()
        .map_err(|e| e.to_string())?;
    let sets = chart.series.len().max(1) as f64;
    for (j, ((name, _), share)) in chart.series.iter().zip(&shares).enumerate() {
        let color = Palette99::pick(j).to_rgba();
        let bars = share.iter().enumerate().map(move |(i, &s)| {
            let x0 = lo + width * (i as f64 + j as f64 / sets);
            let x1 = x0 + width / sets;
            Rectangle::new([(x0, 0.0), (x1, s)], color.filled())
        });
        ctx.draw_series(bars)
            .map_err(|e| e.to_string())?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    ctx.configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font((FAMILY, 14))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// A tick label without trailing zeros: `0.25`, `5`.
fn trim_number(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_fill_bins_and_clamp_the_ends() {
        let h = Histogram {
            name: "x".into(),
            title: "x".into(),
            x_label: "x".into(),
            range: (0.0, 1.0),
            bins: 4,
            series: vec![("a".into(), vec![0.0, 0.3, 0.99, 1.0, 7.0, -1.0])],
        };
        let s = &h.shares()[0];
        assert_eq!(s.len(), 4);
        let sixth = 1.0 / 6.0;
        assert_eq!(s, &[2.0 * sixth, sixth, 0.0, 3.0 * sixth]);
    }

    #[test]
    fn tick_labels_lose_trailing_zeros() {
        assert_eq!(trim_number(0.25), "0.25");
        assert_eq!(trim_number(5.0), "5");
        assert_eq!(trim_number(0.5), "0.5");
    }
}
