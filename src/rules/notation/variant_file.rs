//! Variants defined in a text file (TOML; docs/variants-file.md): a board,
//! pieces by movement atoms, a start position and rule switches, turned
//! into the same [`VariantDef`] a built-in family builds, so that every
//! layer plays them without knowing where they came from. The text format
//! lives here, beside the position texts it embeds; the loaded definitions
//! live in the board's registry.
//!
//! Loading checks everything and bounds everything that costs time or
//! memory (cells, kinds, atoms, file size) before a table is built, so a
//! malformed or hostile file gets an error naming its line, never a panic
//! or a hang. Loaded variants go to the process-wide list that
//! [`registry::build`] consults after the built-in families (their names
//! may not shadow a built-in one).

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::board::castling::CastlingStyle;
use crate::board::geometry::{Geometry, MAX_CELLS, MAX_DIMS, Naming, Shape};
use crate::board::piece::{MAX_KINDS, PawnRule, PieceKind, slide_dirs};
use crate::board::registry::{self, FileVariant, install};
use crate::board::seating::{BySeat, Seating};
use crate::board::variant::{Rules, StalemateRule, Variant, VariantDef, VariantError};
use crate::rules::position::Position;

/// Largest variants file read, in bytes.
pub const MAX_FILE_BYTES: usize = 1 << 20;
/// Most variants one file may define.
pub const MAX_VARIANTS: usize = 256;
/// Most movement vectors one piece kind may have after expansion.
pub const MAX_OFFSETS: usize = 4096;
/// Bound on cells × movement vectors of one variant (the leap tables'
/// size, and the time to build them).
const MAX_TABLE_WORK: usize = 16_000_000;
/// Bound on the ray tables' size estimate (cells × directions × half the
/// longest edge): the 5-D diamond (l = 8) is well inside, the 6-D box is
/// not.
const MAX_RAY_WORK: usize = 100_000_000;

/// An error in a variants file: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    /// The file (as given), if read from one.
    pub path: Option<String>,
    /// 1-based line of the offending item, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.path, self.line) {
            (Some(p), Some(l)) => write!(f, "{p}:{l}: {}", self.message),
            (Some(p), None) => write!(f, "{p}: {}", self.message),
            (None, Some(l)) => write!(f, "line {l}: {}", self.message),
            (None, None) => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for FileError {}

/// One variant as written in the file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantText {
    name: Spanned<String>,
    #[serde(default)]
    summary: String,
    board: Spanned<BoardText>,
    #[serde(default)]
    players: Option<Spanned<u32>>,
    #[serde(default)]
    mirror: Option<Spanned<Vec<i64>>>,
    #[serde(rename = "piece")]
    pieces: Vec<Spanned<PieceText>>,
    start: Spanned<String>,
    #[serde(default)]
    rules: Option<Spanned<RulesText>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardText {
    lens: Vec<i64>,
    #[serde(default)]
    wrap: Option<Vec<bool>>,
    #[serde(default)]
    shape: Option<String>,
    #[serde(default)]
    cells: Option<Vec<Vec<i64>>>,
    #[serde(default)]
    naming: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PieceText {
    name: String,
    letter: String,
    #[serde(default)]
    royal: bool,
    #[serde(default)]
    castles: bool,
    #[serde(default)]
    slides: Vec<i64>,
    #[serde(default)]
    leaps: Vec<Vec<i64>>,
    #[serde(default)]
    offsets: Vec<Vec<i64>>,
    #[serde(default)]
    pawn: Option<PawnText>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PawnText {
    pushes: Vec<Vec<i64>>,
    captures: Vec<Vec<i64>>,
    #[serde(default)]
    double_step: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesText {
    #[serde(default)]
    castling: Option<String>,
    #[serde(default)]
    en_passant: Option<bool>,
    #[serde(default)]
    fifty_move: Option<bool>,
    #[serde(default)]
    stalemate: Option<String>,
    #[serde(default)]
    promotion: Option<Vec<Vec<String>>>,
    #[serde(default)]
    chess960_notation: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileText {
    #[serde(rename = "variant", default)]
    variants: Vec<Spanned<VariantText>>,
}

/// Reads, checks and loads the variants of `path` into the process-wide
/// list (replacing variants of the same name); returns their names. On an
/// error nothing is loaded.
pub fn load_file(path: &Path) -> Result<Vec<String>, FileError> {
    let shown = path.display().to_string();
    let with_path = |mut e: FileError| {
        e.path = Some(shown.clone());
        e
    };
    let meta = std::fs::metadata(path).map_err(|e| {
        with_path(FileError {
            path: None,
            line: None,
            message: format!("cannot read: {e}"),
        })
    })?;
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(with_path(FileError {
            path: None,
            line: None,
            message: format!("larger than {MAX_FILE_BYTES} bytes"),
        }));
    }
    // At most one byte past the limit is read: a device such as /dev/zero
    // reports length 0 above and never ends (parse refuses the excess).
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| {
            use std::io::Read;
            f.take(MAX_FILE_BYTES as u64 + 1).read_to_string(&mut text)
        })
        .map_err(|e| {
            with_path(FileError {
                path: None,
                line: None,
                message: format!("cannot read: {e}"),
            })
        })?;
    let variants = parse(&text).map_err(with_path)?;
    Ok(install(variants))
}

/// Parses and checks a variants file's text; every variant is built once.
pub fn parse(text: &str) -> Result<Vec<FileVariant>, FileError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(FileError {
            path: None,
            line: None,
            message: format!("larger than {MAX_FILE_BYTES} bytes"),
        });
    }
    let file: FileText = toml::from_str(text).map_err(|e| FileError {
        path: None,
        line: e.span().map(|s| line_of(text, s.start)),
        message: e.message().trim().to_string(),
    })?;
    if file.variants.is_empty() {
        return Err(FileError {
            path: None,
            line: None,
            message: "no [[variant]] defined".into(),
        });
    }
    if file.variants.len() > MAX_VARIANTS {
        return Err(FileError {
            path: None,
            line: None,
            message: format!("more than {MAX_VARIANTS} variants"),
        });
    }
    let mut out: Vec<FileVariant> = Vec::new();
    for v in &file.variants {
        let fv = convert(text, v.get_ref())?;
        if out.iter().any(|o| o.name.eq_ignore_ascii_case(&fv.name)) {
            return Err(at(
                text,
                v.get_ref().name.span(),
                format!("variant '{}' is defined twice", fv.name),
            ));
        }
        out.push(fv);
    }
    Ok(out)
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn at(text: &str, span: Range<usize>, message: impl Into<String>) -> FileError {
    FileError {
        path: None,
        line: Some(line_of(text, span.start)),
        message: message.into(),
    }
}

/// Converts a numeric value with a bound into `usize`/`i32` ranges.
fn small(v: i64, lo: i64, hi: i64) -> Option<i32> {
    (lo..=hi).contains(&v).then_some(v as i32)
}

fn convert(text: &str, v: &VariantText) -> Result<FileVariant, FileError> {
    let name = v.name.get_ref().trim().to_ascii_lowercase();
    let err = |span: Range<usize>, m: String| at(text, span, format!("variant '{name}': {m}"));
    let name_ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
    if !name_ok {
        return Err(err(
            v.name.span(),
            "a name is 1 to 64 letters, digits, '-', '_' or '.'".into(),
        ));
    }
    if registry::family(&name).is_some() {
        return Err(err(
            v.name.span(),
            "the name of a built-in variant; choose another (e.g. 'file-…')".into(),
        ));
    }
    let geometry = board(v.board.get_ref()).map_err(|m| err(v.board.span(), m))?;
    let n = geometry.dims();
    let cells = geometry.cell_count();
    // Seats: two players facing each other along axis 1.
    if let Some(p) = &v.players
        && *p.get_ref() != 2
    {
        return Err(err(
            p.span(),
            "players: only 2 for now (multi-party variants come with multi-party chess)".into(),
        ));
    }
    let mirror: Vec<usize> = match &v.mirror {
        None => vec![0],
        Some(m) => {
            let mut axes = Vec::new();
            for &a in m.get_ref() {
                let Some(a) = small(a, 1, n as i64) else {
                    return Err(err(m.span(), format!("mirror: axes are 1..={n}")));
                };
                axes.push(a as usize - 1);
            }
            axes
        }
    };
    let seating = Seating::two_players(n, &mirror);
    if v.pieces.is_empty() || v.pieces.len() > MAX_KINDS {
        return Err(err(
            v.board.span(),
            format!("{} pieces: a variant has 1 to {MAX_KINDS}", v.pieces.len()),
        ));
    }
    let mut kinds = Vec::new();
    let mut work = 0usize;
    for p in &v.pieces {
        let k = piece(&geometry, p.get_ref()).map_err(|m| err(p.span(), m))?;
        work = work.saturating_add(cells.saturating_mul(k.leaps.len() + k.slides.len() + 8));
        kinds.push(k);
    }
    if work > MAX_TABLE_WORK {
        return Err(err(
            v.board.span(),
            "too many cells times movement vectors: the tables would be too large".into(),
        ));
    }
    let rules_text = v.rules.as_ref();
    let rules_span = rules_text.map_or(v.board.span(), |r| r.span());
    let r = rules_text.map(|r| r.get_ref());
    let castling = match r.and_then(|r| r.castling.as_deref()).unwrap_or("none") {
        "none" => CastlingStyle::None,
        "chess960" | "fide" => CastlingStyle::Chess960,
        "theory" | "wrap" => CastlingStyle::Theory,
        other => {
            return Err(err(
                rules_span,
                format!("castling '{other}': none, fide (= chess960) or theory (= wrap)"),
            ));
        }
    };
    let stalemate = match r.and_then(|r| r.stalemate.as_deref()).unwrap_or("draw") {
        "draw" => StalemateRule::Draw,
        "loss" | "loses" => StalemateRule::StalematedLoses,
        other => {
            return Err(err(
                rules_span,
                format!("stalemate '{other}': draw or loss"),
            ));
        }
    };
    let rules = Rules {
        castling,
        en_passant: r.and_then(|r| r.en_passant).unwrap_or(false),
        fifty_move: r.and_then(|r| r.fifty_move).unwrap_or(true),
        stalemate,
        // A user's board has no proof of which material cannot mate.
        insufficient_material: false,
        exchange_phase: false,
        party: None,
    };
    let promotion_zone = match r.and_then(|r| r.promotion.as_ref()) {
        None => None,
        Some(lists) => {
            if lists.len() != 2 {
                return Err(err(
                    rules_span,
                    "promotion: two lists of cell names, white's then black's".into(),
                ));
            }
            let mut zone = Vec::new();
            for list in lists {
                let mut cs = Vec::new();
                for name in list {
                    let c = geometry.parse_cell(name).ok_or_else(|| {
                        err(rules_span.clone(), format!("promotion: no cell '{name}'"))
                    })?;
                    cs.push(c);
                }
                zone.push(cs);
            }
            Some(BySeat::from_vec(zone))
        }
    };
    let mut def = VariantDef {
        name: name.clone(),
        spec: name.clone(),
        geometry,
        kinds,
        seating,
        rules,
        start: Vec::new(),
        start_castling: Vec::new(),
        chess960_number: None,
        fischer_random_notation: r.and_then(|r| r.chess960_notation).unwrap_or(false),
        promotion_zone,
    };
    // The start position is a position text of the variant itself: read it
    // with the board and pieces just defined.
    let empty = Variant::new(def.clone()).map_err(|e| err(v.board.span(), e.to_string()))?;
    let start = Position::from_text(&empty, v.start.get_ref())
        .map_err(|e| err(v.start.span(), format!("start: {e}")))?;
    def.start = start
        .board()
        .iter()
        .enumerate()
        .filter(|(_, p)| **p != 0)
        .map(|(c, p)| (c, *p))
        .collect();
    def.start_castling = start.castling().iter().map(|&c| c as usize).collect();
    if def.start.is_empty() {
        return Err(err(v.start.span(), "start: no pieces".into()));
    }
    Variant::new(def.clone()).map_err(|e: VariantError| err(v.start.span(), e.to_string()))?;
    Ok(FileVariant {
        name,
        summary: v.summary.trim().chars().take(200).collect(),
        def,
    })
}

fn board(b: &BoardText) -> Result<Geometry, String> {
    let n = b.lens.len();
    if n == 0 || n > MAX_DIMS {
        return Err(format!("board: 1 to {MAX_DIMS} edge lengths (lens)"));
    }
    let mut lens = Vec::new();
    for &l in &b.lens {
        let l = small(l, 2, 99).ok_or("board: edge lengths are 2..=99")?;
        lens.push(l as usize);
    }
    let wraps = match &b.wrap {
        None => vec![false; n],
        Some(w) if w.len() == n => w.clone(),
        Some(_) => return Err(format!("board: wrap needs {n} entries, one per axis")),
    };
    let naming = match b.naming.as_deref() {
        None if n == 2 => Naming::TwoD,
        None => Naming::Layered,
        Some("2d") if n == 2 => Naming::TwoD,
        Some("layered") if n >= 2 => Naming::Layered,
        Some("cube") if n == 3 => Naming::Cube,
        Some(other) => {
            return Err(format!(
                "board: naming '{other}' does not fit {n} axes (2d: 2 axes, layered: 2 or more, cube: 3 of length 4)"
            ));
        }
    };
    // The geometry stores a ray per cell and direction: bound that work
    // before building (3^n - 1 directions, rays up to the longest edge).
    let box_size: usize = lens.iter().product();
    let cells_bound = b.cells.as_ref().map_or(box_size, |c| c.len().min(box_size));
    let directions = 3usize.pow(n as u32) - 1;
    let longest = lens.iter().copied().max().unwrap_or(2);
    let ray_work = cells_bound
        .saturating_mul(directions)
        .saturating_mul(longest - 1)
        / 2;
    if ray_work > MAX_RAY_WORK {
        return Err(format!(
            "board: too large for a variants file ({cells_bound} cells x {directions} directions)"
        ));
    }
    let shape = b.shape.as_deref().unwrap_or("box");
    let g = match (&b.cells, shape) {
        (Some(list), "box") => {
            if list.len() > MAX_CELLS {
                return Err(format!("board: more than {MAX_CELLS} cells"));
            }
            let cells: Vec<Vec<i32>> = list
                .iter()
                .map(|x| x.iter().map(|&v| small(v, -1, 99).unwrap_or(-1)).collect())
                .collect();
            Geometry::with_cells(lens, wraps, naming, &cells)
        }
        (Some(_), _) => return Err("board: cells go with shape 'box' only".into()),
        (None, "box") => Geometry::new(lens, wraps, Shape::Box, naming),
        (None, "diamond") => Geometry::new(lens, wraps, Shape::Diamond, naming),
        (None, other) => return Err(format!("board: shape '{other}': box or diamond")),
    };
    g.map_err(|e| format!("board: {e}"))
}

/// Every vector with the absolute values of `atom` on distinct axes, with
/// every choice of signs (the atom's symmetric closure on `n` axes), added
/// to `out` unless `seen` has it. Equal magnitudes are placed on
/// increasing axes only, so no vector is generated twice and the work is
/// bounded by the number of distinct vectors (at most [`MAX_OFFSETS`]).
fn expand(
    atom: &[i32],
    n: usize,
    seen: &mut HashSet<Vec<i32>>,
    out: &mut Vec<Vec<i32>>,
) -> Result<(), String> {
    let mut mags: Vec<i32> = atom.iter().map(|x| x.abs()).filter(|&x| x != 0).collect();
    if mags.is_empty() || mags.len() > n {
        return Err(format!(
            "leap {atom:?}: 1 to {n} non-zero steps on an {n}-axis board"
        ));
    }
    mags.sort_unstable_by(|a, b| b.cmp(a));
    struct Walk<'a> {
        mags: &'a [i32],
        cur: Vec<i32>,
        seen: &'a mut HashSet<Vec<i32>>,
        out: &'a mut Vec<Vec<i32>>,
    }
    fn place(w: &mut Walk, i: usize, min_axis: usize) -> Result<(), String> {
        if i == w.mags.len() {
            if w.seen.insert(w.cur.clone()) {
                if w.out.len() >= MAX_OFFSETS {
                    return Err(format!("more than {MAX_OFFSETS} movement vectors"));
                }
                w.out.push(w.cur.clone());
            }
            return Ok(());
        }
        let v = w.mags[i];
        for axis in min_axis..w.cur.len() {
            if w.cur[axis] != 0 {
                continue;
            }
            // The next magnitude, if equal, goes on a later axis.
            let next_min = match w.mags.get(i + 1) {
                Some(&nv) if nv == v => axis + 1,
                _ => 0,
            };
            for s in [v, -v] {
                w.cur[axis] = s;
                place(w, i + 1, next_min)?;
            }
            w.cur[axis] = 0;
        }
        Ok(())
    }
    let mut w = Walk {
        mags: &mags,
        cur: vec![0; n],
        seen,
        out,
    };
    place(&mut w, 0, 0)
}

fn vector(v: &[i64], n: usize, max: i64, what: &str) -> Result<Vec<i32>, String> {
    if v.len() != n {
        return Err(format!("{what} {v:?}: needs {n} coordinates"));
    }
    let out: Option<Vec<i32>> = v.iter().map(|&x| small(x, -max, max)).collect();
    match out {
        Some(o) if o.iter().any(|&x| x != 0) => Ok(o),
        _ => Err(format!(
            "{what} {v:?}: coordinates in -{max}..={max}, not all 0"
        )),
    }
}

fn piece(g: &Geometry, p: &PieceText) -> Result<PieceKind, String> {
    let n = g.dims();
    let max = g.lens().iter().copied().max().unwrap_or(2) as i64;
    let mut letters = p.letter.chars();
    let (Some(letter), None) = (letters.next(), letters.next()) else {
        return Err(format!("piece '{}': letter is one character", p.name));
    };
    if !letter.is_ascii_uppercase() {
        return Err(format!(
            "piece '{}': letter '{letter}' is not an upper-case ASCII letter",
            p.name
        ));
    }
    let name = p.name.trim();
    if name.is_empty() || name.len() > 40 {
        return Err("piece: a name of 1 to 40 characters".into());
    }
    let mut k = PieceKind::new(name, letter);
    k.royal = p.royal;
    k.castles = p.castles;
    if p.slides.len() > 64 || p.leaps.len() > MAX_OFFSETS || p.offsets.len() > MAX_OFFSETS {
        return Err(format!("piece '{name}': too many slides, leaps or offsets"));
    }
    let mut slides = Vec::new();
    for &class in &p.slides {
        let Some(class) = small(class, 0, n as i64) else {
            return Err(format!(
                "piece '{name}': slides are direction classes 0 (all) to {n}"
            ));
        };
        for d in slide_dirs(g, class as usize) {
            if !slides.contains(&d) {
                slides.push(d);
            }
        }
    }
    k.slides = slides;
    let mut leaps = Vec::new();
    let mut seen = HashSet::new();
    for atom in &p.leaps {
        if atom.is_empty() || atom.len() > n {
            return Err(format!(
                "piece '{name}': leap {atom:?} has 1 to {n} entries"
            ));
        }
        let a: Option<Vec<i32>> = atom.iter().map(|&x| small(x, -max, max)).collect();
        let a = a.ok_or_else(|| format!("piece '{name}': leap {atom:?}: steps up to {max}"))?;
        expand(&a, n, &mut seen, &mut leaps).map_err(|e| format!("piece '{name}': {e}"))?;
    }
    for o in &p.offsets {
        let v = vector(o, n, max, "offset").map_err(|e| format!("piece '{name}': {e}"))?;
        if seen.insert(v.clone()) {
            if leaps.len() >= MAX_OFFSETS {
                return Err(format!("piece '{name}': more than {MAX_OFFSETS} vectors"));
            }
            leaps.push(v);
        }
    }
    k.leaps = leaps;
    if let Some(pw) = &p.pawn {
        let conv = |list: &[Vec<i64>], what: &str| -> Result<Vec<Vec<i32>>, String> {
            if list.len() > 64 {
                return Err(format!("piece '{name}': more than 64 pawn {what}"));
            }
            list.iter()
                .map(|v| vector(v, n, max, what).map_err(|e| format!("piece '{name}': {e}")))
                .collect()
        };
        k.pawn = Some(PawnRule {
            pushes: conv(&pw.pushes, "push")?,
            captures: conv(&pw.captures, "capture")?,
            double_step: pw.double_step,
        });
    }
    if k.slides.is_empty() && k.leaps.is_empty() && k.pawn.is_none() {
        return Err(format!(
            "piece '{name}': no move (give slides, leaps, offsets or pawn)"
        ));
    }
    Ok(k)
}
