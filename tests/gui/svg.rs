//! `ndchess svg`: every board family's diagram is well-formed XML (read by
//! roxmltree, an XML parser independent of the writer) with one cell per
//! board cell, named as docs/notation.md names it, no two cells on one
//! spot, and one piece per occupied cell with its kind's letter; rendered
//! to PNG by rsvg-convert into ci-logs/gui/svg/.

use std::collections::HashSet;
use std::process::Command;

use ndchess::board::piece::{EMPTY, piece_kind};
use ndchess::board::registry;
use ndchess::rules::position::Position;

use crate::server::{log_dir, require, tool_runs};

const SPECS: [&str; 16] = [
    "chess",
    "chess960:sp=518",
    "cylinder",
    "torus",
    "diamond:n=3",
    "diamond:n=3,setup=8.3",
    "cylinder-diamond:n=3",
    "torus-diamond:n=3",
    "double-diamond:n=3",
    "diamond:n=4",
    "diamond:n=5",
    "cube",
    "raumschach",
    "finite:b=8,d=3",
    "synchronous",
    "synchronous:base=cube",
];

fn svg_of(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ndchess"))
        .arg("svg")
        .args(args)
        .output()
        .expect("ndchess svg runs")
}

fn attr_f64(node: &roxmltree::Node, name: &str) -> f64 {
    node.attribute(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("attribute {name} of {node:?}"))
}

#[test]
fn every_board_familys_diagram_parses_and_shows_each_cell_and_piece_once() {
    for spec in SPECS {
        let out = svg_of(&["--variant", spec]);
        assert!(
            out.status.success(),
            "{spec}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        let doc =
            roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{spec}: not XML: {e}"));
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg", "{spec}");
        let v = registry::build(spec).expect("registry spec");
        let g = &v.geometry;
        let pos = Position::start(&v);
        let (w, h) = (attr_f64(&root, "width"), attr_f64(&root, "height"));

        let cells: Vec<roxmltree::Node> = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("data-cell").is_some())
            .collect();
        assert_eq!(cells.len(), g.cell_count(), "{spec}: one rect per cell");
        let mut spots = HashSet::new();
        for (i, r) in cells.iter().enumerate() {
            let c: usize = r
                .attribute("data-cell")
                .and_then(|v| v.parse().ok())
                .expect("cell index");
            assert_eq!(c, i, "{spec}: cells in order");
            assert_eq!(
                r.attribute("data-name"),
                Some(g.cell_name(c).as_str()),
                "{spec}"
            );
            let (x, y) = (attr_f64(r, "x"), attr_f64(r, "y"));
            let size = attr_f64(r, "width");
            assert!(
                x >= 0.0 && y >= 0.0 && x + size <= w && y + size <= h,
                "{spec}: cell {c} outside"
            );
            assert!(
                spots.insert((x as i64, y as i64)),
                "{spec}: two cells on one spot"
            );
        }

        let pieces: Vec<roxmltree::Node> = doc
            .descendants()
            .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("piece"))
            .collect();
        let occupied: Vec<usize> = (0..g.cell_count())
            .filter(|&c| pos.piece_at(c) != EMPTY)
            .collect();
        assert_eq!(
            pieces.len(),
            occupied.len(),
            "{spec}: one piece per occupied cell"
        );
        for p in &pieces {
            let c: usize = p
                .attribute("data-cell")
                .and_then(|v| v.parse().ok())
                .expect("cell");
            let piece = pos.piece_at(c);
            assert_ne!(piece, EMPTY, "{spec}: a piece drawn on an empty cell");
            let letter = v.kinds[piece_kind(piece)].letter.to_string();
            assert_eq!(p.attribute("data-kind"), Some(letter.as_str()), "{spec}");
            let glyph = p
                .descendants()
                .find(|n| n.has_tag_name("text"))
                .and_then(|t| t.text())
                .expect("a letter");
            assert_eq!(glyph, letter, "{spec}");
        }
        let wraps = g.wraps().iter().take(2).any(|&w| w);
        let wrap_marks = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("wrap"))
            .count();
        assert_eq!(
            wraps,
            wrap_marks > 0,
            "{spec}: wrapping files or ranks are marked"
        );
    }
}

#[test]
fn diagrams_render_to_png() {
    if !require(
        tool_runs("rsvg-convert", &["--version"]),
        "rsvg-convert (Debian package `librsvg2-bin`)",
        "SVG rendering",
    ) {
        return;
    }
    let dir = log_dir("svg");
    for spec in SPECS.iter().filter(|s| !s.contains("n=5")) {
        let out = svg_of(&["--variant", spec]);
        assert!(out.status.success());
        let name: String = spec
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let svg_path = dir.join(format!("{name}.svg"));
        let png_path = dir.join(format!("{name}.png"));
        std::fs::write(&svg_path, &out.stdout).expect("write svg");
        let status = Command::new("rsvg-convert")
            .arg(&svg_path)
            .arg("-o")
            .arg(&png_path)
            .status()
            .expect("rsvg-convert runs");
        assert!(status.success(), "{spec}: rsvg-convert failed");
        let png = std::fs::read(&png_path).expect("png written");
        assert_eq!(&png[1..4], b"PNG", "{spec}");
    }
}

#[test]
fn bad_variants_and_positions_get_errors_not_diagrams() {
    for args in [
        vec!["--variant", "nonsense"],
        vec!["--variant", "diamond:n=2"],
        vec!["--fen", "garbage"],
        vec!["--fen", "8/8/8/8/8/8/8/8 w - - 0 1 extra"],
    ] {
        let out = svg_of(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: no diagram");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with("error:"),
            "{args:?}"
        );
    }
}

/// The diagrams in docs/diagrams/ (used by docs/variants.md and
/// docs/gui.md) are what `ndchess svg` draws today; regenerate them with
/// the command in docs/gui.md when the drawing changes.
#[test]
fn the_docs_diagrams_are_the_engines_current_drawings() {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diagrams");
    for (file, spec) in [
        ("chess", "chess"),
        ("cylinder", "cylinder"),
        ("torus", "torus"),
        ("diamond3", "diamond:n=3"),
        ("cylinder-diamond3", "cylinder-diamond:n=3"),
        ("torus-diamond3", "torus-diamond:n=3"),
        ("double-diamond3", "double-diamond:n=3"),
        ("cube", "cube"),
        ("raumschach", "raumschach"),
        ("finite-8-2", "finite:b=8,d=2"),
    ] {
        let committed = std::fs::read_to_string(docs.join(format!("{file}.svg")))
            .unwrap_or_else(|e| panic!("docs/diagrams/{file}.svg: {e}"));
        let out = svg_of(&["--variant", spec]);
        assert!(out.status.success());
        assert!(
            committed.as_bytes() == out.stdout.as_slice(),
            "docs/diagrams/{file}.svg is out of date: ndchess svg --variant {spec} > docs/diagrams/{file}.svg"
        );
    }
}
