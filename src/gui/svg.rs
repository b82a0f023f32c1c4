//! SVG diagrams of positions on any board: the one drawing the web GUI
//! shows and `ndchess svg` writes (docs/gui.md).
//!
//! The layout is the one of `ndchess show`, generalised: a 2-D slice is a
//! board (rank 1 at the bottom, file a at the left); axis 3 lays the slices
//! side by side, axis 4 stacks those rows, axis 5 puts the stacks side by
//! side again and axis 6 stacks those — a grid of levels of levels, with a
//! wider gap at every second nesting so the eye sees the grouping. Cells
//! that are not on the board (a diamond's corners) are not drawn; slices
//! without cells leave their place empty so that the grid stays regular.
//!
//! Every cell is a `<rect>` with `data-cell` (its index) and `data-name`
//! (its name in docs/notation.md), which is how the page maps a click to a
//! cell; pieces do not take pointer events. Pieces are discs with their
//! kind's letter, coloured by seat, so that every piece kind of every
//! variant (the seed's W/G/L bishops, unicorns, the torus's extra pawns) and
//! every seat of a multi-party game has a symbol without a font of chess
//! glyphs.

use std::fmt::Write;

use crate::board::geometry::{Cell, Geometry, Naming};
use crate::board::piece::{EMPTY, piece_kind, piece_seat};
use crate::rules::position::Position;

/// Side of a cell in SVG units.
pub const CELL: f64 = 40.0;
/// Room for the rank numbers at the left of a slice.
const RANK_LABELS: f64 = 22.0;
/// Room for a slice's name above it.
const SLICE_LABEL: f64 = 18.0;
/// Room for the file letters below a slice.
const FILE_LABELS: f64 = 16.0;
/// Gap between neighbouring slices; every second nesting level doubles it.
const GAP: f64 = 22.0;
/// Margin around the drawing.
const MARGIN: f64 = 8.0;

/// Fill and text colours of the seats' pieces: White, Black, then the
/// seats of multi-party games in order.
pub const SEAT_COLOURS: [(&str, &str); 12] = [
    ("#fafaf2", "#111"),
    ("#1c1c1c", "#fff"),
    ("#c62828", "#fff"),
    ("#1565c0", "#fff"),
    ("#2e7d32", "#fff"),
    ("#ef6c00", "#fff"),
    ("#6a1b9a", "#fff"),
    ("#00838f", "#fff"),
    ("#8d6e63", "#fff"),
    ("#ad1457", "#fff"),
    ("#9e9d24", "#111"),
    ("#455a64", "#fff"),
];

/// What to mark on the diagram besides the pieces.
#[derive(Clone, Debug, Default)]
pub struct Marks {
    /// Seen from the other side: ranks, files and higher axes reversed.
    pub flip: bool,
    /// Cells of the last step (from and to), drawn tinted.
    pub last: Vec<Cell>,
    /// Cells of kings in check.
    pub check: Vec<Cell>,
}

/// Where each cell of a board is drawn, and the labels around the slices.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Top-left corner of every cell (`None` never happens for a cell of
    /// the board; the vector is indexed by cell).
    pub cells: Vec<(f64, f64)>,
    /// Slice names with their positions (empty for a 2-D board).
    pub slice_labels: Vec<(f64, f64, String)>,
    /// Rank numbers and file letters with their positions.
    pub edge_labels: Vec<(f64, f64, String)>,
    /// Dashed edges marking wrapping axes (x1, y1, x2, y2).
    pub wrap_edges: Vec<(f64, f64, f64, f64)>,
    /// Width and height of the drawing.
    pub size: (f64, f64),
}

/// The name of the slice holding coordinates `x` (axes 3… only).
fn slice_name(g: &Geometry, high: &[i32]) -> String {
    match g.naming() {
        Naming::Cube => {
            const GREEK: [&str; 4] = ["α", "β", "γ", "δ"];
            format!(
                "level {}",
                GREEK.get(high[0] as usize).copied().unwrap_or("?")
            )
        }
        _ => {
            // The letters the cell names of docs/notation.md give axes
            // n…3 (upper case for odd axes, lower case for even ones).
            let letters: String = (0..high.len())
                .rev()
                .map(|i| {
                    let axis = i + 3;
                    let base = if axis % 2 == 0 { b'a' } else { b'A' };
                    (base + high[i] as u8) as char
                })
                .collect();
            let wraps: Vec<String> = (0..high.len())
                .filter(|&i| g.wraps().get(i + 2).copied().unwrap_or(false))
                .map(|i| format!("axis {} wraps", i + 3))
                .collect();
            if wraps.is_empty() {
                format!("level {letters}")
            } else {
                format!("level {letters} ({})", wraps.join(", "))
            }
        }
    }
}

/// Computes where every cell of `g` is drawn.
pub fn layout(g: &Geometry, flip: bool) -> Layout {
    let lens = g.lens();
    let n = g.dims();
    let ranks = lens[0] as i32;
    let files = if n >= 2 { lens[1] as i32 } else { 1 };
    let slice_w = RANK_LABELS + files as f64 * CELL;
    let slice_h = SLICE_LABEL + ranks as f64 * CELL + FILE_LABELS;
    // Strides of axes 3… (index 2…): even indices run horizontally, odd
    // ones vertically; each nesting level's stride covers the extent of
    // the level below it plus a gap that grows every second level.
    let mut strides = Vec::new();
    let (mut extent_w, mut extent_h) = (slice_w, slice_h);
    for (i, &len) in lens.iter().enumerate().skip(2) {
        let gap = GAP * (1 << ((i - 2) / 2)) as f64;
        if i % 2 == 0 {
            let stride = extent_w + gap;
            strides.push((stride, 0.0));
            extent_w = len as f64 * stride - gap;
        } else {
            let stride = extent_h + gap;
            strides.push((0.0, stride));
            extent_h = len as f64 * stride - gap;
        }
    }
    let origin = |high: &[i32]| -> (f64, f64) {
        let (mut x, mut y) = (MARGIN, MARGIN);
        for (i, &c) in high.iter().enumerate() {
            let len = lens[i + 2] as i32;
            let c = if flip { len - 1 - c } else { c };
            x += strides[i].0 * c as f64;
            y += strides[i].1 * c as f64;
        }
        (x, y)
    };
    let mut cells = Vec::with_capacity(g.cell_count());
    let mut slices_seen: Vec<Vec<i32>> = Vec::new();
    for c in 0..g.cell_count() {
        let x = g.coords(c);
        let high: Vec<i32> = x.iter().skip(2).map(|&v| v as i32).collect();
        let (ox, oy) = origin(&high);
        let rank = x[0] as i32;
        let file = if n >= 2 { x[1] as i32 } else { 0 };
        let (col, row) = if flip {
            (files - 1 - file, rank)
        } else {
            (file, ranks - 1 - rank)
        };
        cells.push((
            ox + RANK_LABELS + col as f64 * CELL,
            oy + SLICE_LABEL + row as f64 * CELL,
        ));
        // A slice's cells are consecutive in the cell index (axes 3… vary
        // slowest; rules::notation::text::layout relies on it too).
        if slices_seen.last() != Some(&high) {
            slices_seen.push(high);
        }
    }
    let mut slice_labels = Vec::new();
    let mut edge_labels = Vec::new();
    let mut wrap_edges = Vec::new();
    let wraps = g.wraps();
    for high in &slices_seen {
        let (ox, oy) = origin(high);
        if n >= 3 {
            slice_labels.push((
                ox + RANK_LABELS,
                oy + SLICE_LABEL - 5.0,
                slice_name(g, high),
            ));
        }
        let top = oy + SLICE_LABEL;
        let left = ox + RANK_LABELS;
        for r in 0..ranks {
            let row = if flip { r } else { ranks - 1 - r };
            edge_labels.push((
                ox + 2.0,
                top + (row as f64 + 0.62) * CELL,
                (r + 1).to_string(),
            ));
        }
        for f in 0..files {
            let col = if flip { files - 1 - f } else { f };
            edge_labels.push((
                left + (col as f64 + 0.4) * CELL,
                top + ranks as f64 * CELL + FILE_LABELS - 3.0,
                ((b'a' + f as u8) as char).to_string(),
            ));
        }
        let (w, h) = (files as f64 * CELL, ranks as f64 * CELL);
        if wraps.first().copied().unwrap_or(false) {
            wrap_edges.push((left, top, left + w, top));
            wrap_edges.push((left, top + h, left + w, top + h));
        }
        if wraps.get(1).copied().unwrap_or(false) {
            wrap_edges.push((left, top, left, top + h));
            wrap_edges.push((left + w, top, left + w, top + h));
        }
    }
    Layout {
        cells,
        slice_labels,
        edge_labels,
        wrap_edges,
        size: (extent_w + 2.0 * MARGIN, extent_h + 2.0 * MARGIN),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The style every diagram carries, so that a saved SVG looks like the
/// page. The page adds `sel` and `target` to cells while a person moves.
const STYLE: &str = ".cell.l{fill:#f0d9b5}.cell.d{fill:#b58863}\
.cell.last.l{fill:#e2e58a}.cell.last.d{fill:#c0c45a}\
.cell.check{fill:#e57373}.cell.sel{fill:#7fb3e0}\
.cell.target.l{fill:#a8d5a2}.cell.target.d{fill:#7fb87a}\
.piece{pointer-events:none}.lbl{font:11px sans-serif;fill:#555;pointer-events:none}\
.slice{font:bold 12px sans-serif;fill:#333}\
.wrap{stroke:#1e88e5;stroke-width:3;stroke-dasharray:6 4;pointer-events:none}\
.glyph{font:bold 17px sans-serif;text-anchor:middle}";

/// The SVG document of `pos` with `marks`.
pub fn position_svg(pos: &Position, marks: &Marks) -> String {
    let v = pos.variant();
    let g = &v.geometry;
    let lay = layout(g, marks.flip);
    let (w, h) = lay.size;
    let mut out = String::with_capacity(200 * g.cell_count() + 1000);
    // `write!` into a String cannot fail.
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ndchess-board\" \
         width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" \
         data-variant=\"{}\" data-cells=\"{}\">\n<style>{STYLE}</style>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n",
        escape(&v.name),
        g.cell_count()
    );
    for (x, y, text) in &lay.slice_labels {
        let _ = writeln!(
            out,
            "<text class=\"slice\" x=\"{x:.1}\" y=\"{y:.1}\">{}</text>",
            escape(text)
        );
    }
    for (x, y, text) in &lay.edge_labels {
        let _ = writeln!(
            out,
            "<text class=\"lbl\" x=\"{x:.1}\" y=\"{y:.1}\">{}</text>",
            escape(text)
        );
    }
    for c in 0..g.cell_count() {
        let (x, y) = lay.cells[c];
        let coords = g.coords(c);
        let parity = coords.iter().map(|&v| v as i32).sum::<i32>() % 2;
        let mut class = String::from(if parity == 0 { "cell d" } else { "cell l" });
        if marks.last.contains(&c) {
            class.push_str(" last");
        }
        if marks.check.contains(&c) {
            class.push_str(" check");
        }
        let _ = writeln!(
            out,
            "<rect class=\"{class}\" id=\"c{c}\" data-cell=\"{c}\" data-name=\"{}\" \
             x=\"{x:.1}\" y=\"{y:.1}\" width=\"{CELL}\" height=\"{CELL}\"/>",
            escape(&g.cell_name(c))
        );
    }
    for &(x1, y1, x2, y2) in &lay.wrap_edges {
        let _ = writeln!(
            out,
            "<line class=\"wrap\" x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\"/>"
        );
    }
    for c in 0..g.cell_count() {
        let p = pos.piece_at(c);
        if p == EMPTY {
            continue;
        }
        let (x, y) = lay.cells[c];
        let seat = piece_seat(p).index();
        let (fill, ink) = SEAT_COLOURS[seat % SEAT_COLOURS.len()];
        let letter = v.kinds[piece_kind(p)].letter;
        let name = &v.kinds[piece_kind(p)].name;
        let (cx, cy) = (x + CELL / 2.0, y + CELL / 2.0);
        let _ = writeln!(
            out,
            "<g class=\"piece\" data-cell=\"{c}\" data-seat=\"{seat}\" data-kind=\"{}\">\
             <title>{} {}</title>\
             <circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{:.1}\" fill=\"{fill}\" stroke=\"#333\" stroke-width=\"1.5\"/>\
             <text class=\"glyph\" x=\"{cx:.1}\" y=\"{cy:.1}\" dy=\".35em\" fill=\"{ink}\">{letter}</text></g>",
            escape(&letter.to_string()),
            escape(v.seating.name(piece_seat(p))),
            escape(name),
            CELL * 0.4,
        );
    }
    out.push_str("</svg>\n");
    out
}

/// The cells to mark for `pos`: the attacked royal pieces of every seat
/// in play (in a simultaneous turn every seat may be in check).
pub fn check_cells(pos: &Position) -> Vec<Cell> {
    let v = pos.variant();
    v.seating
        .all()
        .difference(pos.out())
        .iter()
        .filter(|&s| pos.seat_in_check(s))
        .filter_map(|s| pos.royal_cell(s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry;

    #[test]
    fn every_cell_gets_its_own_square_inside_the_drawing() {
        for spec in ["chess", "cylinder", "diamond:n=3", "cube", "diamond:n=4"] {
            let v = registry::build(spec).expect("spec of the registry");
            let g = &v.geometry;
            let lay = layout(g, false);
            let mut seen = std::collections::HashSet::new();
            for &(x, y) in &lay.cells {
                assert!(x >= 0.0 && y >= 0.0, "{spec}");
                assert!(x + CELL <= lay.size.0 && y + CELL <= lay.size.1, "{spec}");
                assert!(
                    seen.insert(((x * 10.0) as i64, (y * 10.0) as i64)),
                    "{spec}: two cells at {x},{y}"
                );
            }
            let flipped = layout(g, true);
            assert_eq!(flipped.size, lay.size);
        }
    }

    #[test]
    fn a_two_d_board_has_rank_one_at_the_bottom_and_file_a_at_the_left() {
        let v = registry::build("chess").expect("chess");
        let g = &v.geometry;
        let lay = layout(g, false);
        let a1 = g.parse_cell("a1").expect("a1");
        let h8 = g.parse_cell("h8").expect("h8");
        assert!(lay.cells[a1].0 < lay.cells[h8].0);
        assert!(lay.cells[a1].1 > lay.cells[h8].1);
        let flipped = layout(g, true);
        assert!(flipped.cells[a1].0 > flipped.cells[h8].0);
        assert!(flipped.cells[a1].1 < flipped.cells[h8].1);
    }
}
