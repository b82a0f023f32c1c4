//! The evaluation's weights as a value.
//!
//! The evaluation is derived from mobility (seed 001): its few weights
//! scale measured quantities rather than name per-piece numbers, so one set
//! of weights serves every board. They are a value, not constants, because
//! the tuner ([`super::tune`]) fits them to game results and an engine may
//! load a tuned set (`EvalFile`); the defaults are the hand-set constants of
//! [`super`].

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::board::variant::Variant;

/// The built-in weights of classical chess and Chess960 (names not in
/// the file keep the general defaults): each line's change was measured
/// by an SPRT (the file says which; docs/performance.md has the rows).
const CHESS: &str = include_str!("defaults/chess.weights");

/// The weights of the evaluation (docs/engine.md says what each scales).
#[derive(Clone, Debug, PartialEq)]
pub struct EvalWeights {
    /// Centipawns per expected move of a piece.
    pub piece_cp_per_move: f64,
    /// Centipawns per empty-board move of a pawn.
    pub pawn_cp_per_move: f64,
    /// Mobility credit per attacked cell above expectation, as a fraction
    /// of `piece_cp_per_move`.
    pub mobility_fraction: f64,
    /// Fraction of the promotion gain a pawn earns next to promotion.
    pub progress_fraction: f64,
    /// Fraction of the promotion gain a passed pawn earns on top, next to
    /// promotion.
    pub passed_fraction: f64,
    /// Centipawns per unit of king danger.
    pub king_danger_cp: f64,
    /// Centipawns per free cell around a king in the endgame.
    pub king_escape_cp: f64,
    /// Centipawns per step of king distance saved by the side ahead.
    pub king_proximity_cp: f64,
    /// Bonus of the side to move.
    pub tempo_cp: f64,
    /// Worth of a cell's own mobility (the moves a piece has from it on
    /// the board at the typical density, above or below its kind's
    /// average), as a fraction of `piece_cp_per_move`: generic
    /// piece-square values.
    pub centrality_fraction: f64,
    /// Fraction of a piece's value it loses standing where an enemy pawn
    /// attacks it (half that where it is attacked and undefended).
    pub threat_fraction: f64,
    /// Fraction of its value a pawn loses with an own pawn of its kind on
    /// its way ahead.
    pub doubled_fraction: f64,
    /// Fraction of its value a pawn loses with no own pawn of its kind on
    /// a neighbouring file.
    pub isolated_fraction: f64,
    /// Worth of a piece on a half-open pawn line (no own pawn on it), as a
    /// fraction of `piece_cp_per_move`; as much again on an open one.
    pub open_line_fraction: f64,
    /// Centipawns per square of the king danger (normalised to a 9-cell
    /// zone): attacks on a king weigh more the more there are.
    pub king_danger_square_cp: f64,
    /// Per term of [`TERMS`], its scale with every start piece on the
    /// board (the opening) and with none (the endgame), in that order
    /// (`2 * term` and `2 * term + 1`); between them the scale follows
    /// the share of the start's piece material on the board
    /// (`super::taper`). 1 and 1: the term as it is.
    pub phase_scales: [f64; 2 * TERMS.len()],
    /// The tables of the evaluation (piece-square, passed-pawn, mobility
    /// by count and pair values, per kind and phase), by name; empty by
    /// default ([`super::tables`] says what each holds).
    pub tables: Arc<Tables>,
    /// The board the tables were fitted on ([`board_label`]): they are
    /// used on that board only (a chess table of 64 cells means nothing on
    /// the 64 cells of the cube). `None`: on every board they fit.
    pub board: Option<String>,
}

/// The name of a board for [`EvalWeights::board`]: its shape, its edge
/// lengths and the axes that wrap, and for a listed shape its cell count
/// ("box 8x8" for chess and Chess960, "box 8x8 wrap 1" for the cylinder,
/// "box 4x4x4" for the cube, "diamond 8x8x8" for the 3-D diamond).
pub fn board_label(g: &crate::board::geometry::Geometry) -> String {
    use crate::board::geometry::Shape;
    let shape = match g.shape() {
        Shape::Box => "box",
        Shape::Diamond => "diamond",
        Shape::Listed => "listed",
    };
    let lens: Vec<String> = g.lens().iter().map(usize::to_string).collect();
    let mut label = format!("{shape} {}", lens.join("x"));
    let wraps: Vec<String> = (0..g.dims())
        .filter(|&a| g.wraps()[a])
        .map(|a| a.to_string())
        .collect();
    if !wraps.is_empty() {
        label += &format!(" wrap {}", wraps.join(" "));
    }
    if g.shape() == Shape::Listed {
        label += &format!(" cells {}", g.cell_count());
    }
    label
}

/// The evaluation's terms that a phase scale multiplies, in the order of
/// [`EvalWeights::phase_scales`] (the names of their weights are
/// `<term>_opening` and `<term>_endgame`).
pub const TERMS: [&str; 7] = [
    "material",
    "mobility",
    "progress",
    "king",
    "threats",
    "structure",
    "open_lines",
];

/// Tables by name: `<family>.<kind letter>.<opening|endgame>` (for
/// instance `placement.N.opening`), each a list of centipawns.
pub type Tables = BTreeMap<String, Vec<f64>>;

/// The table families a weights file may hold (docs/engine.md,
/// "Tables"): piece-square values per cell (`placement`), a passed pawn's
/// per cell (`passed`), a piece's by the number of cells it attacks
/// (`mobility`), a second piece of a kind's (`pair`, one number), and for
/// the royal kind its danger by units of attack (`danger`) and its
/// shelter by the own pawns around it (`shelter`), a piece's per cell
/// where an own pawn defends it (`supported`), a passed pawn's by
/// how much nearer its own king is than the enemy's (`race`), and a
/// passed pawn's per cell where its way ahead is free (`free`: every cell
/// of its single steps empty and attacked by no enemy piece).
pub const TABLE_FAMILIES: [&str; 9] = [
    "placement",
    "passed",
    "mobility",
    "pair",
    "danger",
    "shelter",
    "supported",
    "race",
    "free",
];

/// The largest magnitude of a table entry (centipawns).
pub const MAX_TABLE_ENTRY: f64 = 10_000.0;

/// The most entries of one table (a board's cells, a kind's attacks).
pub const MAX_TABLE_LEN: usize = 100_000;

/// The weights' names, in the order [`EvalWeights::get`] indexes them (the
/// names of the weights file).
pub const NAMES: [&str; 15 + 2 * TERMS.len()] = [
    "piece_cp_per_move",
    "pawn_cp_per_move",
    "mobility_fraction",
    "progress_fraction",
    "passed_fraction",
    "king_danger_cp",
    "king_escape_cp",
    "king_proximity_cp",
    "tempo_cp",
    "centrality_fraction",
    "threat_fraction",
    "doubled_fraction",
    "isolated_fraction",
    "open_line_fraction",
    "king_danger_square_cp",
    "material_opening",
    "material_endgame",
    "mobility_opening",
    "mobility_endgame",
    "progress_opening",
    "progress_endgame",
    "king_opening",
    "king_endgame",
    "threats_opening",
    "threats_endgame",
    "structure_opening",
    "structure_endgame",
    "open_lines_opening",
    "open_lines_endgame",
];

/// The index in [`NAMES`] of the first phase scale.
pub const FIRST_SCALE: usize = 15;

impl Default for EvalWeights {
    fn default() -> Self {
        EvalWeights {
            piece_cp_per_move: super::PIECE_CP_PER_MOVE,
            pawn_cp_per_move: super::PAWN_CP_PER_MOVE,
            mobility_fraction: super::MOBILITY_FRACTION,
            progress_fraction: super::PROGRESS_FRACTION,
            passed_fraction: super::PASSED_FRACTION,
            king_danger_cp: super::KING_DANGER_CP as f64,
            king_escape_cp: super::KING_ESCAPE_CP as f64,
            king_proximity_cp: super::KING_PROXIMITY_CP as f64,
            tempo_cp: super::TEMPO_CP as f64,
            centrality_fraction: super::CENTRALITY_FRACTION,
            threat_fraction: super::THREAT_FRACTION,
            doubled_fraction: super::DOUBLED_FRACTION,
            isolated_fraction: super::ISOLATED_FRACTION,
            open_line_fraction: super::OPEN_LINE_FRACTION,
            king_danger_square_cp: super::KING_DANGER_SQUARE_CP,
            phase_scales: [1.0; 2 * TERMS.len()],
            tables: Arc::new(Tables::new()),
            board: None,
        }
    }
}

/// A weights file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsError {
    /// A line is not `name = value`.
    Malformed { line: usize, text: String },
    /// A name that is not a weight.
    UnknownName { line: usize, name: String },
    /// A value that is not a finite number in the weight's range.
    BadValue {
        line: usize,
        name: String,
        value: String,
    },
    /// A table line whose name is not `<family>.<kind>.<phase>` or whose
    /// numbers are not a list of centipawns in range.
    BadTable {
        line: usize,
        name: String,
        message: String,
    },
    /// The file cannot be read (missing, a directory, not UTF-8, larger
    /// than [`MAX_FILE_BYTES`]).
    Unreadable { path: String, message: String },
    /// A file whose text fails [`EvalWeights::parse`] with `error`.
    InFile {
        path: String,
        error: Box<WeightsError>,
    },
}

/// The largest weights file read: a full set with the tables of chess is
/// about 10 kB, the tables of a 4-D diamond (1,056 cells) some 100 kB, so
/// anything much larger is not one (and reading it whole, or a device
/// that never ends, must not stall a protocol session).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::Malformed { line, text } => {
                write!(f, "line {line}: '{text}' is not 'name = value'")
            }
            WeightsError::UnknownName { line, name } => write!(
                f,
                "line {line}: unknown weight '{name}' (known: {})",
                NAMES.join(", ")
            ),
            WeightsError::BadValue { line, name, value } => {
                let max = NAMES.iter().position(|k| k == name).map_or(0.0, |i| MAX[i]);
                write!(
                    f,
                    "line {line}: {name} = '{value}' is not a number between 0 and {max}"
                )
            }
            WeightsError::BadTable {
                line,
                name,
                message,
            } => write!(f, "line {line}: table '{name}': {message}"),
            WeightsError::Unreadable { path, message } => write!(f, "{path}: {message}"),
            WeightsError::InFile { path, error } => write!(f, "{path}: {error}"),
        }
    }
}

impl std::error::Error for WeightsError {}

/// The largest value each weight may take (in the order of [`NAMES`];
/// every weight is a non-negative scale, and beyond these the evaluation's
/// integer arithmetic could overflow): ten pawns per move or per unit for
/// the centipawn weights, ten for the fractions.
pub const MAX: [f64; NAMES.len()] = [
    1000.0, 1000.0, 10.0, 10.0, 10.0, 1000.0, 1000.0, 1000.0, 1000.0, 10.0, 1.0, 1.0, 1.0, 10.0,
    100.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0,
];

impl EvalWeights {
    /// Number of weights.
    pub const COUNT: usize = NAMES.len();

    /// The built-in weights of variant `v`: the general defaults, with the
    /// built-in file of its family on top where it has one (classical
    /// chess and Chess960). A change measured to win in one family is
    /// kept there when it loses elsewhere (the cube and the 3-D diamond
    /// are measured against every change).
    pub fn for_variant(v: &Variant) -> EvalWeights {
        match v.name.as_str() {
            "chess" | "chess960" => EvalWeights::parse(CHESS)
                .expect("invariant: the built-in weights parse (a test reads them)"),
            _ => EvalWeights::default(),
        }
    }

    /// Weight `i` (in the order of [`NAMES`]).
    pub fn get(&self, i: usize) -> f64 {
        match i {
            0 => self.piece_cp_per_move,
            1 => self.pawn_cp_per_move,
            2 => self.mobility_fraction,
            3 => self.progress_fraction,
            4 => self.passed_fraction,
            5 => self.king_danger_cp,
            6 => self.king_escape_cp,
            7 => self.king_proximity_cp,
            8 => self.tempo_cp,
            9 => self.centrality_fraction,
            10 => self.threat_fraction,
            11 => self.doubled_fraction,
            12 => self.isolated_fraction,
            13 => self.open_line_fraction,
            14 => self.king_danger_square_cp,
            _ => self.phase_scales[(i - FIRST_SCALE).min(2 * TERMS.len() - 1)],
        }
    }

    /// Sets weight `i` (in the order of [`NAMES`]), clamped to
    /// `0..=MAX[i]`.
    pub fn set(&mut self, i: usize, x: f64) {
        let x = x.clamp(0.0, MAX[i.min(MAX.len() - 1)]);
        match i {
            0 => self.piece_cp_per_move = x,
            1 => self.pawn_cp_per_move = x,
            2 => self.mobility_fraction = x,
            3 => self.progress_fraction = x,
            4 => self.passed_fraction = x,
            5 => self.king_danger_cp = x,
            6 => self.king_escape_cp = x,
            7 => self.king_proximity_cp = x,
            8 => self.tempo_cp = x,
            9 => self.centrality_fraction = x,
            10 => self.threat_fraction = x,
            11 => self.doubled_fraction = x,
            12 => self.isolated_fraction = x,
            13 => self.open_line_fraction = x,
            14 => self.king_danger_square_cp = x,
            _ => self.phase_scales[(i - FIRST_SCALE).min(2 * TERMS.len() - 1)] = x,
        }
    }

    /// Whether the weights hold a table named `name`.
    pub fn table(&self, name: &str) -> Option<&[f64]> {
        self.tables.get(name).map(Vec::as_slice)
    }

    /// Sets (or with an empty list removes) the table `name`.
    pub fn set_table(&mut self, name: &str, values: Vec<f64>) {
        let tables = Arc::make_mut(&mut self.tables);
        if values.is_empty() {
            tables.remove(name);
        } else {
            tables.insert(name.to_string(), values);
        }
    }

    /// `x` rounded to six significant digits (the tuner's steps: a
    /// weights file then shows what was tuned, not binary noise).
    pub fn round(x: f64) -> f64 {
        if x == 0.0 || !x.is_finite() {
            return x;
        }
        let scale = 10f64.powi(5 - x.abs().log10().floor() as i32);
        (x * scale).round() / scale
    }

    /// Reads the weights file at `path` (at most [`MAX_FILE_BYTES`]);
    /// a parse error names the file and the line.
    pub fn load(path: &std::path::Path) -> Result<EvalWeights, WeightsError> {
        use std::io::Read;
        let shown = path.display().to_string();
        let unreadable = |message: String| WeightsError::Unreadable {
            path: shown.clone(),
            message,
        };
        let file =
            std::fs::File::open(path).map_err(|e| unreadable(format!("cannot read: {e}")))?;
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| unreadable(format!("cannot read: {e}")))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(unreadable(format!(
                "larger than {MAX_FILE_BYTES} bytes: not a weights file"
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| unreadable("not UTF-8 text: not a weights file".into()))?;
        EvalWeights::parse(&text).map_err(|e| WeightsError::InFile {
            path: shown.clone(),
            error: Box::new(e),
        })
    }

    /// Reads a weights file: `name = value` lines, `#` comments, blank
    /// lines; weights it does not name keep their defaults.
    pub fn parse(text: &str) -> Result<EvalWeights, WeightsError> {
        let mut w = EvalWeights::default();
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let body = raw.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            let Some((name, value)) = body.split_once('=') else {
                return Err(WeightsError::Malformed {
                    line,
                    text: body.to_string(),
                });
            };
            let (name, value) = (name.trim(), value.trim());
            if name == "board" {
                if value.is_empty() || value.len() > 200 {
                    return Err(WeightsError::BadTable {
                        line,
                        name: name.to_string(),
                        message: "a board is named like 'box 8x8' (docs/engine.md)".into(),
                    });
                }
                w.board = Some(value.to_string());
                continue;
            }
            if name.contains('.') {
                let values = parse_table(line, name, value)?;
                Arc::make_mut(&mut w.tables).insert(name.to_string(), values);
                continue;
            }
            let Some(i) = NAMES.iter().position(|&k| k == name) else {
                return Err(WeightsError::UnknownName {
                    line,
                    name: name.to_string(),
                });
            };
            let x = value
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && (0.0..=MAX[i]).contains(x))
                .ok_or_else(|| WeightsError::BadValue {
                    line,
                    name: name.to_string(),
                    value: value.to_string(),
                })?;
            w.set(i, x);
        }
        Ok(w)
    }
}

/// The weights file text: one `name = value` line per weight (read back
/// by [`EvalWeights::parse`] to the same value).
impl fmt::Display for EvalWeights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in NAMES.iter().enumerate() {
            // The shortest text that reads back to the same number (the
            // tuner rounds its steps to six significant digits, so its
            // weights print short).
            writeln!(f, "{name} = {}", self.get(i))?;
        }
        if let Some(board) = &self.board {
            writeln!(f, "board = {board}")?;
        }
        for (name, values) in self.tables.iter() {
            write!(f, "{name} =")?;
            for x in values {
                write!(f, " {x}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Reads the numbers of table `name` (on line `line`): its name must be
/// `<family>.<kind letter>.<opening|endgame>` with a family of
/// [`TABLE_FAMILIES`], its value 1 to [`MAX_TABLE_LEN`] numbers of at most
/// [`MAX_TABLE_ENTRY`] in magnitude, separated by blanks.
fn parse_table(line: usize, name: &str, value: &str) -> Result<Vec<f64>, WeightsError> {
    let bad = |message: String| WeightsError::BadTable {
        line,
        name: name.to_string(),
        message,
    };
    let parts: Vec<&str> = name.split('.').collect();
    let [family, kind, phase] = parts[..] else {
        return Err(bad(
            "a table is named '<family>.<kind letter>.<opening|endgame>'".into(),
        ));
    };
    if !TABLE_FAMILIES.contains(&family) {
        return Err(bad(format!(
            "unknown family '{family}' (known: {})",
            TABLE_FAMILIES.join(", ")
        )));
    }
    if kind.chars().count() != 1 {
        return Err(bad(format!("'{kind}' is not one kind letter")));
    }
    if phase != "opening" && phase != "endgame" {
        return Err(bad(format!("'{phase}' is not 'opening' or 'endgame'")));
    }
    let mut values = Vec::new();
    for word in value.split_whitespace() {
        let x = word
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && x.abs() <= MAX_TABLE_ENTRY)
            .ok_or_else(|| {
                bad(format!(
                    "'{word}' is not a number from -{MAX_TABLE_ENTRY} to {MAX_TABLE_ENTRY}"
                ))
            })?;
        if values.len() == MAX_TABLE_LEN {
            return Err(bad(format!("more than {MAX_TABLE_LEN} numbers")));
        }
        values.push(x);
    }
    if values.is_empty() {
        return Err(bad("no numbers".into()));
    }
    if family == "pair" && values.len() != 1 {
        return Err(bad("a pair table holds one number".into()));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_reads_back_to_the_same_weights() {
        let mut w = EvalWeights::default();
        w.set(2, 0.123456);
        w.set(7, 17.0);
        assert_eq!(EvalWeights::parse(&w.to_string()), Ok(w));
        // Six significant digits.
        assert_eq!(EvalWeights::round(86.40000000000002), 86.4);
        assert_eq!(EvalWeights::round(0.07791234567), 0.0779123);
        assert_eq!(EvalWeights::round(1234567.0), 1234570.0);
        assert_eq!(EvalWeights::round(0.0), 0.0);
    }

    #[test]
    fn chess_and_chess960_take_their_built_in_weights() {
        let chess = EvalWeights::parse(CHESS).unwrap();
        assert_ne!(chess, EvalWeights::default());
        for spec in ["chess", "chess960:sp=518"] {
            assert_eq!(
                EvalWeights::for_variant(&Variant::from_spec(spec).unwrap()),
                chess
            );
        }
        for spec in ["cube", "diamond:n=3", "cylinder"] {
            assert_eq!(
                EvalWeights::for_variant(&Variant::from_spec(spec).unwrap()),
                EvalWeights::default()
            );
        }
    }

    #[test]
    fn bad_files_are_refused_with_the_line() {
        let e = EvalWeights::parse("# tuned\ntempo_cp = 12\nmobility = 3\n").unwrap_err();
        assert!(
            matches!(e, WeightsError::UnknownName { line: 3, .. }),
            "{e}"
        );
        let e = EvalWeights::parse("tempo_cp 12").unwrap_err();
        assert!(matches!(e, WeightsError::Malformed { line: 1, .. }), "{e}");
        for bad in ["-1", "nan", "inf", "1e9", "ten"] {
            let e = EvalWeights::parse(&format!("tempo_cp = {bad}")).unwrap_err();
            assert!(
                matches!(e, WeightsError::BadValue { line: 1, .. }),
                "{bad}: {e}"
            );
        }
        // Unnamed weights keep their defaults.
        let w = EvalWeights::parse("tempo_cp = 3 # less\n\n").unwrap();
        assert_eq!(w.tempo_cp, 3.0);
        assert_eq!(w.king_danger_cp, EvalWeights::default().king_danger_cp);
    }
}
