//! Human move notation of the seeds: the long notation of T6 ("Sg1-f3",
//! "e2-e4", "Dd1×d7", "0-0") and the short notation used in seed 001's cube
//! games ("Kc1b", "Tab1a", "Qb3b+", "D : b2b").
//!
//! Writing uses one letter set ([`LetterSet::English`] by default: K Q R B N,
//! and the variant's own letters W G … for the higher bishops); reading
//! accepts the English and the German letters (K König, D Dame, T Turm,
//! L Läufer, S Springer, B Bauer) together, because the seed's cube games mix
//! them ("Qb3b" beside "Td4b"). The two sets overlap in one letter only:
//! `B` is the English bishop but the German pawn (Bauer). The caller settles
//! that one letter with a [`LetterSet`]; every other letter means the same in
//! both sets. A variant letter always wins over a German alias, so a variant
//! whose own piece set used `D`, `T`, `L` or `S` would still be read
//! correctly.
//!
//! Reading is strict about what identifies the move (piece, start, target,
//! promotion, en passant, castling side) and lenient about what only
//! describes it (`-` versus `x`, check marks, `!`/`?` comments): those are
//! returned in [`ParsedMove`] for callers that want to verify them, as the
//! cube endgame tests do.

use std::fmt;

use crate::board::geometry::{Cell, Naming};
use crate::board::piece::{EMPTY, piece_kind};
use crate::board::variant::Variant;
use crate::rules::attacks;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::Position;

/// Which letters name the pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LetterSet {
    /// K Q R B N P (the variant's own letters).
    English,
    /// K D T L S B (seed 000 T6, seed 001).
    German,
}

/// A check mark written after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckMark {
    /// `+`: one piece gives check.
    Check,
    /// `++`: two or more pieces give check (T6).
    DoubleCheck,
    /// `#` (also `≠`, `‡`): mate.
    Mate,
}

impl CheckMark {
    /// The mark as written by [`long_notation`].
    pub fn as_str(&self) -> &'static str {
        match self {
            CheckMark::Check => "+",
            CheckMark::DoubleCheck => "++",
            CheckMark::Mate => "#",
        }
    }
}

/// Errors reading a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SanError {
    /// Nothing but blanks, check marks or comments.
    Empty,
    /// The text is not a move in this notation (no target cell, bad
    /// promotion, stray characters).
    Syntax(String),
    /// The text reads as a move, but no legal move of the position fits it.
    Illegal(String),
    /// More than one legal move fits; `candidates` are their long notations.
    Ambiguous {
        /// The text read.
        text: String,
        /// The fitting moves in long notation.
        candidates: Vec<String>,
    },
    /// A pawn move onto a promotion cell without the piece to promote to.
    MissingPromotion(String),
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Empty => write!(f, "empty move text"),
            SanError::Syntax(s) => write!(f, "cannot read move '{s}'"),
            SanError::Illegal(s) => write!(f, "no legal move fits '{s}'"),
            SanError::Ambiguous { text, candidates } => {
                write!(f, "'{text}' is ambiguous: {}", candidates.join(", "))
            }
            SanError::MissingPromotion(s) => {
                write!(f, "'{s}' reaches a promotion cell: name the new piece")
            }
        }
    }
}

impl std::error::Error for SanError {}

/// A move read from text, with the marks that describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedMove {
    /// The legal move.
    pub mv: Move,
    /// The check mark written, if any.
    pub check: Option<CheckMark>,
    /// Whether a capture sign (`x`, `×`, `:`) was written.
    pub capture_sign: bool,
    /// Comment signs written after the move (`!`, `?`, `!?`, …).
    pub comment: String,
}

/// The letter of `kind` in `letters` (`None` for pawns, which are written
/// without a letter).
pub fn kind_letter(v: &Variant, kind: usize, letters: LetterSet) -> Option<char> {
    if v.is_pawn(kind) {
        return None;
    }
    let c = v.kinds[kind].letter;
    Some(match letters {
        LetterSet::English => c,
        LetterSet::German => match c {
            'N' => 'S',
            'B' => 'L',
            'R' => 'T',
            'Q' => 'D',
            other => other,
        },
    })
}

/// Bit mask of the kinds a piece letter names (0: none).
fn kinds_of_letter(v: &Variant, c: char, letters: LetterSet) -> u16 {
    let pawns = v.pawn_kinds;
    if !c.is_ascii_uppercase() {
        return 0;
    }
    if c == 'B' && letters == LetterSet::German {
        return pawns;
    }
    if c == 'P' && v.kind_by_letter('P').is_none_or(|k| v.is_pawn(k)) {
        return pawns;
    }
    if let Some(k) = v.kinds.iter().position(|k| k.letter == c) {
        return if v.is_pawn(k) { pawns } else { 1 << k };
    }
    let english = match c {
        'S' => 'N',
        'L' => 'B',
        'T' => 'R',
        'D' => 'Q',
        _ => return 0,
    };
    match v.kinds.iter().position(|k| k.letter == english) {
        Some(k) if !v.is_pawn(k) => 1 << k,
        _ => 0,
    }
}

/// The pieces that give check to the seat to move (each piece counted
/// once, however many lines it checks along).
fn checkers(pos: &Position) -> usize {
    let v = &**pos.variant();
    let us = pos.to_move();
    let Some(king) = pos.royal_cell(us) else {
        return 0;
    };
    attacks::attackers(v, king, v.seating.checkers_of(us), |c| pos.piece_at(c)).len()
}

/// The check mark a move earns: mate, double check or check.
pub fn check_mark(pos: &Position, m: Move) -> Option<CheckMark> {
    let mut after = pos.clone();
    after.make(m);
    let n = checkers(&after);
    if n == 0 {
        None
    } else if after.legal_moves().is_empty() {
        Some(CheckMark::Mate)
    } else if n >= 2 {
        Some(CheckMark::DoubleCheck)
    } else {
        Some(CheckMark::Check)
    }
}

/// Whether a castling puts the king on the g side (`0-0`) rather than the c
/// side (`0-0-0`): the king's destination file lies in the upper half of the
/// file axis.
fn castles_short(v: &Variant, m: Move) -> bool {
    let files = v.geometry.lens().get(1).copied().unwrap_or(1) as i32;
    2 * v.geometry.coord(m.to as usize, 1) >= files
}

fn is_capture(pos: &Position, m: Move) -> bool {
    m.kind == MoveKind::EnPassant
        || (m.kind != MoveKind::Castle && pos.piece_at(m.to as usize) != EMPTY)
}

/// The word for the step of a seat without a legal move that leaves a
/// multi-party game ([`MoveKind::Out`]) in the seeds' notations.
pub const OUT_WORD: &str = "out";

/// The move in T6 long notation with English letters: `Ng1-f3`, `e2-e4`,
/// `Qd1xd7`, `e5xd6 e.p.`, `0-0`, `e7-e8=Q`, then `+`, `++` or `#`.
pub fn long_notation(pos: &Position, m: Move) -> String {
    long_notation_with(pos, m, LetterSet::English)
}

/// [`long_notation`] in the given letter set.
pub fn long_notation_with(pos: &Position, m: Move, letters: LetterSet) -> String {
    let v = &**pos.variant();
    let g = &v.geometry;
    let mut s = String::new();
    if m.kind == MoveKind::Out {
        return OUT_WORD.into();
    }
    if m.kind == MoveKind::Castle {
        s.push_str(if castles_short(v, m) { "0-0" } else { "0-0-0" });
    } else {
        if let Some(c) = kind_letter(v, piece_kind(pos.piece_at(m.from as usize)), letters) {
            s.push(c);
        }
        s.push_str(&g.cell_name(m.from as usize));
        s.push(if is_capture(pos, m) { 'x' } else { '-' });
        s.push_str(&g.cell_name(m.to as usize));
        if m.kind == MoveKind::EnPassant {
            s.push_str(" e.p.");
        }
        if let Some(k) = m.promotion_kind() {
            s.push('=');
            s.extend(kind_letter(v, k, letters));
        }
    }
    if let Some(mark) = check_mark(pos, m) {
        s.push_str(mark.as_str());
    }
    s
}

/// The move in short notation: piece letter, as little of the start cell as
/// tells it apart from the other moves of its kind to the same cell (pawn
/// captures always name at least the start file, as in SAN), `x` for
/// captures, the target, `=` and the promotion letter, the check mark.
/// [`parse_short`] reads it back to the same move.
pub fn short_notation(pos: &Position, m: Move, letters: LetterSet) -> String {
    let v = &**pos.variant();
    let g = &v.geometry;
    if m.kind == MoveKind::Castle || m.kind == MoveKind::Out {
        return long_notation_with(pos, m, letters);
    }
    let kind = piece_kind(pos.piece_at(m.from as usize));
    let mask = if v.is_pawn(kind) {
        v.pawn_kinds
    } else {
        1 << kind
    };
    let rivals: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|r| {
            r.kind != MoveKind::Castle
                && r.to == m.to
                && r.promotion == m.promotion
                && mask >> piece_kind(pos.piece_at(r.from as usize)) & 1 != 0
        })
        .collect();
    let capture = is_capture(pos, m);
    let parts = name_parts(v, m.from as usize);
    let froms: Vec<Cell> = rivals.iter().map(|r| r.from as usize).collect();
    let mut tail = String::new();
    if capture {
        tail.push('x');
    }
    tail.push_str(&g.cell_name(m.to as usize));
    if m.kind == MoveKind::EnPassant {
        tail.push_str(" e.p.");
    }
    if let Some(k) = m.promotion_kind() {
        tail.push('=');
        tail.extend(kind_letter(v, k, letters));
    }
    if let Some(mark) = check_mark(pos, m) {
        tail.push_str(mark.as_str());
    }
    let letter: String = kind_letter(v, kind, letters).into_iter().collect();
    for pattern in patterns(parts.len()) {
        if pattern.is_empty() && v.is_pawn(kind) && capture {
            continue;
        }
        let hint: String = pattern.iter().map(|&i| parts[i].as_str()).collect();
        if resolve_hint(v, &froms, &hint).is_some_and(|c| c == [m.from as usize]) {
            // The hint singles the move out among its kind; make sure no
            // other reading of the letters (a pawn's hint starting with a
            // piece letter on layered boards) catches another move.
            let s = format!("{letter}{hint}{tail}");
            if parse_short(pos, &s, letters) == Ok(m) {
                return s;
            }
        }
    }
    long_notation_with(pos, m, letters)
}

/// A cell's name cut into its per-axis parts, in the order they are
/// written: file and rank on 2-D boards; file, rank, level in the cube;
/// the axis letters from the highest axis down, then the rank, in the
/// layered naming.
fn name_parts(v: &Variant, cell: Cell) -> Vec<String> {
    let name = v.geometry.cell_name(cell);
    match v.geometry.naming() {
        Naming::TwoD => {
            let (file, rank) = name.split_at(1);
            vec![file.to_string(), rank.to_string()]
        }
        Naming::Cube => name.chars().map(String::from).collect(),
        Naming::Layered => {
            let letters = v.geometry.dims() - 1;
            let mut parts: Vec<String> = name.chars().take(letters).map(String::from).collect();
            parts.push(name.chars().skip(letters).collect());
            parts
        }
    }
}

/// Subsets of `n` name parts a start hint may consist of, in the order the
/// reader tries them: fewer parts first, then in writing order (so a lone
/// letter in "Tab1a" is the file before it is the level).
fn patterns(n: usize) -> Vec<Vec<usize>> {
    let mut all: Vec<Vec<usize>> = (0u32..1 << n)
        .map(|bits| (0..n).filter(|i| bits >> i & 1 != 0).collect())
        .collect();
    all.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    all
}

/// The start cells among `froms` that a hint names: the first pattern (in
/// [`patterns`] order) under which some start cell's parts spell the hint
/// decides; `None` if no pattern fits any.
fn resolve_hint(v: &Variant, froms: &[Cell], hint: &str) -> Option<Vec<Cell>> {
    let parts: Vec<Vec<String>> = froms.iter().map(|&c| name_parts(v, c)).collect();
    let n = parts.first().map_or(0, Vec::len);
    for pattern in patterns(n) {
        let fit: Vec<Cell> = froms
            .iter()
            .zip(&parts)
            .filter(|(_, p)| pattern.iter().map(|&i| p[i].as_str()).collect::<String>() == hint)
            .map(|(&c, _)| c)
            .collect();
        if !fit.is_empty() {
            return Some(fit);
        }
    }
    None
}

/// Replaces Greek axis letters by the ASCII letters of the board's naming
/// (the cube's α β γ δ are a b g d; the layered naming counts from α = a).
fn ascii_greek(naming: Naming, text: &str) -> String {
    text.chars()
        .map(|c| match (naming, c) {
            (Naming::Cube, 'α') => 'a',
            (Naming::Cube, 'β') => 'b',
            (Naming::Cube, 'γ') => 'g',
            (Naming::Cube, 'δ') => 'd',
            (Naming::Layered, 'α'..='ω') => {
                char::from_u32('a' as u32 + (c as u32 - 'α' as u32)).unwrap_or(c)
            }
            _ => c,
        })
        .collect()
}

/// Reads a move in short or long notation; see [`parse_annotated`].
pub fn parse_short(pos: &Position, text: &str, letters: LetterSet) -> Result<Move, SanError> {
    parse_annotated(pos, text, letters).map(|p| p.mv)
}

/// Reads a move in the seeds' short or long notation, returning the marks
/// written with it.
///
/// Accepted: `Kc1b`, `Tab1a` (start hint: any of the start cell's name
/// parts, e.g. file, rank, file+rank, or the whole cell), `Qb3b+`,
/// `Td4b!`, `D : b2b`, `Db1a x b2b`, `Sg1-f3`, `e2-e4`, `exd5`, `ed5`,
/// `ab` (2-D pawn capture by files), `e5xd6 e.p.`, `e7-e8=Q`, `e8Q`,
/// `e8(Q)`, `0-0`, `O-O-O`. Trailing `+`, `++`, `#`, `≠`, `‡`, `!`, `?` are
/// read as marks; words such as "matt" or "patt" are the caller's.
/// When the text names the whole start cell, that reading is taken first.
pub fn parse_annotated(
    pos: &Position,
    text: &str,
    letters: LetterSet,
) -> Result<ParsedMove, SanError> {
    let v = &**pos.variant();
    let g = &v.geometry;
    let original = text.trim().to_string();
    if original.eq_ignore_ascii_case(OUT_WORD) {
        // The step of a seat without a move that leaves a multi-party game.
        return match pos
            .legal_moves()
            .into_iter()
            .find(|m| m.kind == MoveKind::Out)
        {
            Some(mv) => Ok(ParsedMove {
                mv,
                check: None,
                capture_sign: false,
                comment: String::new(),
            }),
            None => Err(SanError::Illegal(original)),
        };
    }
    let mut body: String = ascii_greek(g.naming(), &original);
    // Comments, then check marks, from the end.
    let mut comment = String::new();
    while let Some(c) = body.chars().last().filter(|c| matches!(c, '!' | '?')) {
        comment.insert(0, c);
        body.pop();
        body = body.trim_end().to_string();
    }
    let mut pluses = 0;
    let mut mate = false;
    loop {
        match body.chars().last() {
            Some('+') => pluses += 1,
            Some('#' | '≠' | '‡') => mate = true,
            _ => break,
        }
        body.pop();
        body = body.trim_end().to_string();
    }
    let check = match (mate, pluses) {
        (true, _) => Some(CheckMark::Mate),
        (false, 0) => None,
        (false, 1) => Some(CheckMark::Check),
        (false, _) => Some(CheckMark::DoubleCheck),
    };
    // Comments may also stand before the check mark ("Td4b!+").
    while let Some(c) = body.chars().last().filter(|c| matches!(c, '!' | '?')) {
        comment.insert(0, c);
        body.pop();
    }
    let mut ep = false;
    for suffix in ["e.p.", "ep", "i.V."] {
        if let Some(rest) = body.trim_end().strip_suffix(suffix)
            && (suffix != "ep" || rest.ends_with(char::is_whitespace))
        {
            ep = true;
            body = rest.to_string();
            break;
        }
    }
    let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.is_empty() {
        return Err(SanError::Empty);
    }
    let finish = |mv: Move, capture_sign: bool| ParsedMove {
        mv,
        check,
        capture_sign,
        comment: comment.clone(),
    };
    // Castling.
    let castle = compact.replace('O', "0");
    if castle == "0-0" || castle == "0-0-0" {
        let short = castle == "0-0";
        let fits: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| m.kind == MoveKind::Castle && castles_short(v, *m) == short)
            .collect();
        return match fits.as_slice() {
            [m] => Ok(finish(*m, false)),
            [] => Err(SanError::Illegal(original)),
            _ => Err(ambiguous(pos, original, &fits)),
        };
    }
    // Promotion: "=X", "(X)", "/X", or an upper-case letter after the target
    // (cell names never end in one).
    let mut promo_text = compact.as_str();
    let mut promotion: Option<char> = None;
    let chars: Vec<char> = compact.chars().collect();
    let len = chars.len();
    if len >= 3 && chars[len - 1] == ')' && chars[len - 3] == '(' {
        promotion = Some(chars[len - 2]);
        promo_text = &compact[..compact.len() - chars[len - 2].len_utf8() - 2];
    } else if len >= 2 && matches!(chars[len - 2], '=' | '/') {
        promotion = Some(chars[len - 1]);
        promo_text = &compact[..compact.len() - chars[len - 1].len_utf8() - 1];
    } else if len >= 2 && chars[len - 1].is_ascii_uppercase() {
        promotion = Some(chars[len - 1]);
        promo_text = &compact[..compact.len() - 1];
    }
    let promotion_kind = match promotion {
        None => None,
        Some(c) => {
            let mask = kinds_of_letter(v, c.to_ascii_uppercase(), letters);
            let kind = (0..v.kinds.len()).find(|&k| mask >> k & 1 != 0);
            match kind {
                Some(k) if v.promotion_kinds.contains(&k) => Some(k),
                _ => return Err(SanError::Syntax(original)),
            }
        }
    };
    // Target: the longest tail that is a cell name.
    let target = promo_text
        .char_indices()
        .find_map(|(i, _)| g.parse_cell(&promo_text[i..]).map(|c| (i, c)));
    let (prefix, to, capture_sign) = match target {
        Some((i, to)) => {
            let mut prefix = &promo_text[..i];
            let mut capture_sign = false;
            if let Some(last) = prefix.chars().last()
                && matches!(last, '-' | 'x' | '×' | ':' | '—' | '–')
            {
                capture_sign = last != '-' && last != '—' && last != '–';
                prefix = &prefix[..prefix.len() - last.len_utf8()];
            }
            (prefix.to_string(), Some(to), capture_sign)
        }
        None => (String::new(), None, false),
    };
    let moves = pos.legal_moves();
    let piece_kind_at = |c: u16| piece_kind(pos.piece_at(c as usize));
    let Some(to) = to else {
        // "ab": a pawn capture named by two files (2-D boards).
        let files: Vec<char> = promo_text
            .chars()
            .filter(|c| !matches!(c, 'x' | '×' | ':' | '-'))
            .collect();
        if g.naming() == Naming::TwoD
            && files.len() == 2
            && files.iter().all(|c| c.is_ascii_lowercase())
        {
            let file = |c: char| c as i32 - 'a' as i32;
            let fits: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| {
                    m.kind != MoveKind::Castle
                        && v.is_pawn(piece_kind_at(m.from))
                        && is_capture(pos, *m)
                        && g.coord(m.from as usize, 1) == file(files[0])
                        && g.coord(m.to as usize, 1) == file(files[1])
                        && m.promotion_kind() == promotion_kind
                        && (!ep || m.kind == MoveKind::EnPassant)
                })
                .collect();
            return pick(pos, original, fits, promotion_kind).map(|m| finish(m, true));
        }
        return Err(SanError::Syntax(original));
    };
    // Readings of the prefix: (kinds, start hint). A leading piece letter or
    // none (a pawn).
    let mut readings: Vec<(u16, String)> = Vec::new();
    if let Some(first) = prefix.chars().next() {
        let mask = kinds_of_letter(v, first, letters);
        if mask != 0 {
            readings.push((mask, prefix[first.len_utf8()..].to_string()));
        }
    }
    readings.push((v.pawn_kinds, prefix.clone()));
    let candidates = |mask: u16| -> Vec<Move> {
        moves
            .iter()
            .copied()
            .filter(|m| {
                m.kind != MoveKind::Castle
                    && m.to as usize == to
                    && mask >> piece_kind_at(m.from) & 1 != 0
                    && (!ep || m.kind == MoveKind::EnPassant)
            })
            .collect()
    };
    // Long forms first: the hint is a whole start cell.
    let mut fits: Vec<Move> = Vec::new();
    for (mask, hint) in &readings {
        if let Some(from) = g.parse_cell(hint) {
            fits.extend(
                candidates(*mask)
                    .into_iter()
                    .filter(|m| m.from as usize == from),
            );
        }
    }
    if fits.is_empty() {
        for (mask, hint) in &readings {
            let cands = candidates(*mask);
            let mut froms: Vec<Cell> = cands.iter().map(|m| m.from as usize).collect();
            froms.sort_unstable();
            froms.dedup();
            let chosen = if hint.is_empty() {
                Some(froms)
            } else {
                resolve_hint(v, &froms, hint)
            };
            if let Some(chosen) = chosen {
                fits.extend(
                    cands
                        .into_iter()
                        .filter(|m| chosen.contains(&(m.from as usize))),
                );
            }
        }
    }
    fits.sort_unstable();
    fits.dedup();
    pick(pos, original, fits, promotion_kind).map(|m| finish(m, capture_sign))
}

/// Chooses among the moves that fit a text, applying its promotion.
fn pick(
    pos: &Position,
    text: String,
    fits: Vec<Move>,
    promotion: Option<usize>,
) -> Result<Move, SanError> {
    let promoting = fits.iter().any(|m| m.promotion != 0);
    let fits: Vec<Move> = match promotion {
        Some(k) => fits
            .into_iter()
            .filter(|m| m.promotion_kind() == Some(k))
            .collect(),
        None if promoting && fits.iter().all(|m| m.promotion != 0) => {
            return Err(SanError::MissingPromotion(text));
        }
        None => fits.into_iter().filter(|m| m.promotion == 0).collect(),
    };
    match fits.as_slice() {
        [m] => Ok(*m),
        [] => Err(SanError::Illegal(text)),
        _ => Err(ambiguous(pos, text, &fits)),
    }
}

fn ambiguous(pos: &Position, text: String, fits: &[Move]) -> SanError {
    SanError::Ambiguous {
        text,
        candidates: fits.iter().map(|&m| long_notation(pos, m)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(spec: &str) -> Position {
        Position::start(&Variant::from_spec(spec).expect("test spec is valid"))
    }

    fn at(spec: &str, fen: &str) -> Position {
        let v = Variant::from_spec(spec).expect("test spec is valid");
        Position::from_text(&v, fen).expect("test position is valid")
    }

    fn play(pos: &mut Position, texts: &[&str]) {
        for t in texts {
            let m = parse_short(pos, t, LetterSet::German).unwrap_or_else(|e| panic!("{t}: {e}"));
            pos.make(m);
        }
    }

    #[test]
    fn long_notation_examples_of_t6() {
        // Seed 000 T6 examples: "1. e2-e4, e7-e5; 2. Sg1-f3, Sb8-c6".
        let mut pos = start("chess");
        let mut written = Vec::new();
        for t in ["e2-e4", "e7-e5", "Sg1-f3", "Sb8-c6"] {
            let m = parse_short(&pos, t, LetterSet::German).unwrap();
            written.push(long_notation_with(&pos, m, LetterSet::German));
            pos.make(m);
        }
        assert_eq!(written, ["e2-e4", "e7-e5", "Sg1-f3", "Sb8-c6"]);
        let m = parse_short(&pos, "Bf1-c4", LetterSet::English).unwrap();
        assert_eq!(long_notation(&pos, m), "Bf1-c4");
        assert_eq!(long_notation_with(&pos, m, LetterSet::German), "Lf1-c4");
    }

    #[test]
    fn en_passant_castling_promotion_and_marks() {
        // T6: "1. c2-c4; b4×c3 e.p.".
        let mut pos = at("chess", "4k3/8/8/8/1p6/8/2P5/4K3 w - - 0 1");
        play(&mut pos, &["c2-c4"]);
        let m = parse_short(&pos, "b4×c3 e.p.", LetterSet::German).unwrap();
        assert_eq!(m.kind, MoveKind::EnPassant);
        assert_eq!(long_notation(&pos, m), "b4xc3 e.p.");
        // The same capture in SAN and in the seed's file form.
        assert_eq!(parse_short(&pos, "bxc3", LetterSet::English).unwrap(), m);
        assert_eq!(parse_short(&pos, "bc e.p.", LetterSet::German).unwrap(), m);
        // Castling both ways, with check.
        let pos = at("chess", "5k2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        let short = parse_short(&pos, "0-0", LetterSet::English).unwrap();
        assert_eq!(long_notation(&pos, short), "0-0+");
        let long = parse_short(&pos, "O-O-O", LetterSet::English).unwrap();
        assert_eq!(long_notation(&pos, long), "0-0-0");
        // Promotion by capture, with mate; German letter D for the queen.
        let pos = at("chess", "1r5k/P5pp/8/8/8/8/8/K7 w - - 0 1");
        let m = parse_short(&pos, "axb8=D", LetterSet::German).unwrap();
        assert_eq!(long_notation(&pos, m), "a7xb8=Q#");
        assert_eq!(parse_short(&pos, "a7xb8Q", LetterSet::English).unwrap(), m);
        assert_eq!(
            parse_short(&pos, "axb8", LetterSet::English),
            Err(SanError::MissingPromotion("axb8".into()))
        );
        // Double check: the knight moves away from the rook's line and
        // checks itself (discovered + direct).
        let pos = at("chess", "4k3/8/8/8/4N3/8/8/K3R3 w - - 0 1");
        let m = parse_short(&pos, "Nf6", LetterSet::English).unwrap();
        assert_eq!(long_notation(&pos, m), "Ne4-f6++");
        let m = parse_short(&pos, "Nc5", LetterSet::English).unwrap();
        assert_eq!(long_notation(&pos, m), "Ne4-c5+");
    }

    #[test]
    fn bishop_or_pawn_letter_b() {
        // B is a bishop in English, a pawn (Bauer) in German.
        let pos = at("chess", "4k3/8/8/8/8/8/1P6/1B2K3 w - - 0 1");
        let bishop = parse_short(&pos, "Ba2", LetterSet::English).unwrap();
        assert_eq!(long_notation(&pos, bishop), "Bb1-a2");
        assert_eq!(
            parse_short(&pos, "Ba2", LetterSet::German),
            Err(SanError::Illegal("Ba2".into()))
        );
        let pawn = parse_short(&pos, "Bb3", LetterSet::German).unwrap();
        assert_eq!(long_notation(&pos, pawn), "b2-b3");
        assert_eq!(parse_short(&pos, "La2", LetterSet::German).unwrap(), bishop);
        assert_eq!(
            parse_short(&pos, "La2", LetterSet::English).unwrap(),
            bishop
        );
    }

    #[test]
    fn cube_short_forms_of_seed_001() {
        let pos = start("cube");
        // "Db1a x b2b" / "D : b2b" is the seed's capture example; from the
        // start the queen can step to b2b only when it is empty, so read it
        // as a move here (the capture sign describes, it does not decide).
        let m = parse_short(&pos, "Db1a x b2b", LetterSet::German).unwrap();
        assert_eq!(long_notation(&pos, m), "Qb1a-b2b");
        assert_eq!(parse_short(&pos, "D : b2b", LetterSet::German).unwrap(), m);
        assert_eq!(parse_short(&pos, "Qb2b", LetterSet::German).unwrap(), m);
        assert_eq!(
            parse_short(&pos, "Qb1α-b2β", LetterSet::English).unwrap(),
            m
        );
        // Knight a1b to b3b or c2g etc.; a pawn up a level: "b2b".
        let pawn = parse_short(&pos, "b2b", LetterSet::German).unwrap();
        assert_eq!(long_notation(&pos, pawn), "b2a-b2b");
        // Both rooks reach b1a once the queen is gone: the file decides
        // ("Tab1a" of the K+2R game), never the level letter.
        let pos = at("cube", "4/4/4/R2R|4/4/4/2K1|4/4/4/4|1k2/4/4/4 w - - 0 1");
        let m = parse_short(&pos, "Tab1a", LetterSet::German).unwrap();
        assert_eq!(long_notation(&pos, m), "Ra1a-b1a");
        let d = parse_short(&pos, "Tdb1a", LetterSet::German).unwrap();
        assert_eq!(long_notation(&pos, d), "Rd1a-b1a");
        match parse_short(&pos, "Tb1a", LetterSet::German) {
            Err(SanError::Ambiguous { candidates, .. }) => {
                assert_eq!(candidates, ["Ra1a-b1a", "Rd1a-b1a"]);
            }
            other => panic!("expected ambiguity, got {other:?}"),
        }
        assert_eq!(short_notation(&pos, m, LetterSet::German), "Tab1a");
    }

    #[test]
    fn marks_are_returned() {
        let pos = at("cube", "4/4/4/R2R|4/4/4/2K1|4/4/4/4|1k2/4/4/4 w - - 0 1");
        let p = parse_annotated(&pos, "Tab1a!?", LetterSet::German).unwrap();
        assert_eq!(p.comment, "!?");
        assert_eq!(p.check, None);
        let p = parse_annotated(&pos, "Ta4a+", LetterSet::German).unwrap();
        assert_eq!(p.check, Some(CheckMark::Check));
        assert!(!p.capture_sign);
    }

    #[test]
    fn bad_texts_give_typed_errors() {
        let pos = start("chess");
        let cases = [
            ("", SanError::Empty),
            ("+!", SanError::Empty),
            ("Zz9", SanError::Syntax("Zz9".into())),
            ("Ke2", SanError::Illegal("Ke2".into())),
            ("e2-e5", SanError::Illegal("e2-e5".into())),
            ("0-0", SanError::Illegal("0-0".into())),
            ("e8=K", SanError::Syntax("e8=K".into())),
            ("hello", SanError::Syntax("hello".into())),
            ("Nd2", SanError::Illegal("Nd2".into())),
        ];
        for (text, err) in cases {
            assert_eq!(
                parse_short(&pos, text, LetterSet::English),
                Err(err),
                "{text}"
            );
        }
        // Odd bytes never panic.
        for text in ["×", "=", "()", "e8(", "α", "δδδ", "0-0-0-0", "Q=", "xx"] {
            assert!(
                parse_short(&pos, text, LetterSet::German).is_err(),
                "{text}"
            );
        }
    }

    /// Every text of up to three characters over an alphabet of the
    /// notation's own signs (and a few strangers) gives a move or a typed
    /// error, never a panic.
    #[test]
    fn short_texts_never_panic() {
        let alphabet: Vec<char> = "aBdQKTx-=(1 4+#e.αδ×0O".chars().collect();
        let positions = [start("chess"), start("cube"), start("diamond:n=3")];
        // All texts of length 0 to 3 over the alphabet.
        let mut texts = vec![String::new()];
        let mut last = texts.clone();
        for _ in 0..3 {
            last = last
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(last.iter().cloned());
        }
        let mut read = 0;
        for pos in &positions {
            for t in &texts {
                for letters in [LetterSet::English, LetterSet::German] {
                    if parse_short(pos, t, letters).is_ok() {
                        read += 1;
                    }
                }
            }
        }
        // Some of them are moves ("e4" and "d4" in chess), most are not.
        assert!(read > 0 && read < texts.len());
    }

    /// Every legal move along random games reads back from its long and its
    /// short notation, in both letter sets.
    #[test]
    fn notation_round_trips_on_random_games() {
        let specs = [
            "chess",
            "chess960:sp=0",
            "chess960:sp=959",
            "cylinder",
            "torus",
            "cube",
            "diamond:n=3",
            "diamond:n=4",
        ];
        // SplitMix64 picks the moves: a fixed sequence on every machine.
        let mut state = 0x5A4E_u64;
        let mut next = move |n: usize| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) % n as u64) as usize
        };
        for spec in specs {
            let mut pos = start(spec);
            let plies = if spec.starts_with("diamond:n=4") {
                30
            } else {
                80
            };
            for _ in 0..plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                for &m in &moves {
                    for letters in [LetterSet::English, LetterSet::German] {
                        let long = long_notation_with(&pos, m, letters);
                        let back = parse_short(&pos, &long, letters)
                            .unwrap_or_else(|e| panic!("{spec} {}: {long}: {e}", pos.to_text()));
                        assert_eq!(back, m, "{spec} {}: {long}", pos.to_text());
                        let short = short_notation(&pos, m, letters);
                        let back = parse_short(&pos, &short, letters)
                            .unwrap_or_else(|e| panic!("{spec} {}: {short}: {e}", pos.to_text()));
                        assert_eq!(back, m, "{spec} {}: {short}", pos.to_text());
                    }
                }
                let m = moves[next(moves.len())];
                pos.make(m);
            }
        }
    }
}
