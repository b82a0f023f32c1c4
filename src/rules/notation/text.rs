//! Position texts (docs/notation.md).
//!
//! The position text is FEN generalised to any board: the board is cut into
//! 2-D slices (one per combination of the coordinates of axes 3, 4, …, axis 3
//! fastest), each slice written like a FEN board (ranks from the highest
//! down, separated by `/`, files from `a`), slices separated by `|`. Only
//! cells of the board are written and counted: a diamond's missing corners
//! are skipped, and a rank or slice without cells is left out entirely. On a
//! 2-D board this is exactly FEN. Castling rights use X-FEN letters (`KQkq`
//! for the outermost rooks, file letters otherwise); Shredder-FEN file
//! letters are accepted on input.
//!
//! More than two seats: pieces are written `(sL)` (seat number, letter)
//! and the side field names the seat by number. The side field names the
//! seat that leads the turn; the variant's turn order makes the turn of it
//! (that seat alone, its side's seats in play, or every seat in play).

use std::sync::Arc;

use crate::board::geometry::{Cell, Geometry};
use crate::board::party::{Fate, Fates};
use crate::board::piece::{EMPTY, Piece, piece, piece_kind, piece_seat};
use crate::board::seating::Seat;
use crate::board::variant::Variant;
use crate::rules::position::{Exchange, Position, PositionError, TurnState};

/// The board's cells as slices → ranks (highest first) → cells (by file).
pub fn layout(g: &Geometry) -> Vec<Vec<Vec<Cell>>> {
    let n = g.dims();
    let mut slices: Vec<Vec<Vec<Cell>>> = Vec::new();
    let mut last_key: Option<Vec<i16>> = None;
    let mut last_rank = -1;
    for c in 0..g.cell_count() {
        let x = g.coords(c);
        let key: Vec<i16> = x[2.min(n)..].to_vec();
        if last_key.as_ref() != Some(&key) {
            slices.push(Vec::new());
            last_key = Some(key);
            last_rank = -1;
        }
        let slice = slices.last_mut().expect("invariant: pushed above");
        if x[0] as i32 != last_rank {
            slice.push(Vec::new());
            last_rank = x[0] as i32;
        }
        slice.last_mut().expect("invariant: pushed above").push(c);
    }
    for s in &mut slices {
        s.reverse();
    }
    slices
}

fn piece_token(v: &Variant, p: Piece) -> String {
    let seat = piece_seat(p);
    if seat.index() < 2 && v.seat_count() <= 2 {
        v.piece_letter(p).to_string()
    } else {
        format!("({}{})", side_token(v, seat), v.kinds[piece_kind(p)].letter)
    }
}

/// A seat in a position text: `w`/`b` for two seats, the seat's name in
/// multi-party games (`w1` … `s3`), else its number.
fn side_token(v: &Variant, seat: Seat) -> String {
    if v.seat_count() == 2 {
        ["w", "b"][seat.index()].to_string()
    } else if v.rules.party.is_some() {
        v.seating.name(seat).to_string()
    } else {
        seat.index().to_string()
    }
}

/// The seat whose name (or number) starts `text`, with the length of the
/// name: the longest name wins (`w12` before `w1`).
fn seat_prefix(v: &Variant, text: &str) -> Option<(Seat, usize)> {
    let digits = text.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 {
        return text[..digits]
            .parse::<usize>()
            .ok()
            .filter(|&p| p < v.seat_count())
            .map(|p| (Seat::new(p), digits));
    }
    v.seating
        .seats()
        .filter(|&s| {
            let name = v.seating.name(s);
            text.get(..name.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(name))
        })
        .max_by_key(|&s| v.seating.name(s).len())
        .map(|s| (s, v.seating.name(s).len()))
}

/// Largest halfmove clock or move number a position text may carry.
pub const MAX_COUNTER: u32 = 1_000_000_000;

/// Writes the position text.
pub fn position_to_text(pos: &Position) -> String {
    let v = &**pos.variant();
    let g = &v.geometry;
    let mut board = String::new();
    for (si, slice) in layout(g).iter().enumerate() {
        if si > 0 {
            board.push('|');
        }
        for (ri, rank) in slice.iter().enumerate() {
            if ri > 0 {
                board.push('/');
            }
            let mut empty = 0;
            for &c in rank {
                let p = pos.piece_at(c);
                if p == EMPTY {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    board.push_str(&empty.to_string());
                    empty = 0;
                }
                board.push_str(&piece_token(v, p));
            }
            if empty > 0 {
                board.push_str(&empty.to_string());
            }
        }
    }
    let castling = castling_text(pos);
    let ep = match pos.en_passant() {
        Some(e) => g.cell_name(e.target as usize),
        None => "-".into(),
    };
    let mut text = format!(
        "{} {} {} {} {} {}",
        board,
        side_token(v, pos.to_move()),
        castling,
        ep,
        pos.halfmove_clock(),
        pos.fullmove_number()
    );
    let fates = pos.turn_state().fates;
    if !fates.seats().is_empty() {
        let list: Vec<String> = fates
            .seats()
            .iter()
            .filter_map(|s| {
                fates
                    .of(s)
                    .map(|f| format!("{}{}", side_token(v, s), f.symbol()))
            })
            .collect();
        text.push_str(" out:");
        text.push_str(&list.join(","));
    }
    let ex = pos.exchange();
    if !ex.is_empty() {
        let mut open: Vec<String> = ex
            .open
            .iter()
            .map(|&(c, s)| format!("{}@{}", side_token(v, s), g.cell_name(c as usize)))
            .collect();
        open.sort();
        text.push_str(" exchange:");
        text.push_str(&open.join(","));
        if !ex.moved.is_empty() {
            let mut moved: Vec<String> =
                ex.moved.iter().map(|&c| g.cell_name(c as usize)).collect();
            moved.sort();
            text.push_str(";moved:");
            text.push_str(&moved.join(","));
        }
    }
    text
}

/// Reads the exchange-phase field `exchange:w@d4,b@e5;moved:d4`.
fn parse_exchange(v: &Variant, text: &str) -> Result<Exchange, PositionError> {
    let bad = |s: String| PositionError::Exchange(s);
    let rest = text
        .strip_prefix("exchange:")
        .ok_or_else(|| bad(format!("'{text}': expected exchange:<seat>@<cell>,…")))?;
    let (open_text, moved_text) = match rest.split_once(";moved:") {
        Some((o, m)) => (o, Some(m)),
        None => (rest, None),
    };
    let mut ex = Exchange::default();
    for item in open_text.split(',') {
        let (seat, cell) = item
            .split_once('@')
            .ok_or_else(|| bad(format!("'{item}': expected <seat>@<cell>")))?;
        let seat = parse_side(v, seat).map_err(|_| bad(format!("'{seat}' names no player")))?;
        let cell = v
            .geometry
            .parse_cell(cell)
            .ok_or_else(|| bad(format!("'{cell}' is not a cell")))?;
        if ex.open.iter().any(|&(c, _)| c as usize == cell) || ex.open.is_full() {
            return Err(bad(format!(
                "'{item}': a cell listed twice, or too many cells"
            )));
        }
        ex.open.push((cell as u16, seat));
    }
    for cell in moved_text.into_iter().flat_map(|m| m.split(',')) {
        let c = v
            .geometry
            .parse_cell(cell)
            .ok_or_else(|| bad(format!("'{cell}' is not a cell")))?;
        if ex.moved.contains(&(c as u16)) || ex.moved.is_full() {
            return Err(bad(format!(
                "'{cell}': a cell listed twice, or too many cells"
            )));
        }
        ex.moved.push(c as u16);
    }
    ex.open.sort_unstable();
    ex.moved.sort_unstable();
    Ok(ex)
}

/// The seat a side field names.
fn parse_side(v: &Variant, s: &str) -> Result<Seat, PositionError> {
    match (s, v.seat_count()) {
        ("w", 2) | ("W", 2) => Ok(Seat::new(0)),
        ("b", 2) | ("B", 2) => Ok(Seat::new(1)),
        (s, _) => match seat_prefix(v, s) {
            Some((seat, len)) if len == s.len() => Ok(seat),
            _ => Err(PositionError::Side(format!("'{s}' names no player"))),
        },
    }
}

/// Reads the multi-party field `out:<seat><fate>,…` (fates `-` lost, `=`
/// drawn, `+` won).
fn parse_out(v: &Variant, text: &str) -> Result<Fates, PositionError> {
    let bad = |m: String| PositionError::Out(m);
    let list = text
        .strip_prefix("out:")
        .ok_or_else(|| bad(format!("'{text}': expected out:<seat><fate>,…")))?;
    let mut fates = Fates::default();
    for item in list.split(',') {
        let (seat, len) =
            seat_prefix(v, item).ok_or_else(|| bad(format!("'{item}' names no player")))?;
        let mut rest = item[len..].chars();
        let fate = match (rest.next().and_then(Fate::from_symbol), rest.next()) {
            (Some(f), None) => f,
            _ => {
                return Err(bad(format!(
                    "'{item}': a seat and its fate, '-' lost, '=' drawn or '+' won"
                )));
            }
        };
        if fates.seats().contains(seat) {
            return Err(bad(format!("{} is listed twice", v.seating.name(seat))));
        }
        fates.set(seat, fate);
    }
    if v.rules.party.is_none() {
        return Err(bad("only multi-party games have seats out of play".into()));
    }
    Ok(fates)
}

/// The castling pieces of `player` on the king's rank, by file.
fn rank_rooks(pos: &Position, player: Seat) -> Vec<(i32, Cell)> {
    let v = &**pos.variant();
    let g = &v.geometry;
    let Some(king) = pos.royal_cell(player) else {
        return Vec::new();
    };
    let mut rooks: Vec<(i32, Cell)> = pos
        .seat_cells(player)
        .filter(|&c| {
            v.kinds[piece_kind(pos.piece_at(c))].castles && g.coord(c, 0) == g.coord(king, 0)
        })
        .map(|c| (g.coord(c, 1), c))
        .collect();
    rooks.sort_unstable();
    rooks
}

fn castling_text(pos: &Position) -> String {
    let v = &**pos.variant();
    let g = &v.geometry;
    let mut s = String::new();
    for player in v.seating.seats().take(2) {
        let Some(king) = pos.royal_cell(player) else {
            continue;
        };
        let kf = g.coord(king, 1);
        let rooks = rank_rooks(pos, player);
        let mut letters: Vec<(u8, char)> = Vec::new();
        for &r in pos.castling() {
            let r = r as usize;
            if piece_seat(pos.piece_at(r)) != player {
                continue;
            }
            let f = g.coord(r, 1);
            let king_side = f > kf;
            let outermost = if king_side {
                rooks.last().map(|x| x.1) == Some(r)
            } else {
                rooks.first().map(|x| x.1) == Some(r)
            };
            let shredder = v.fischer_random_notation;
            let c = if outermost && !shredder {
                if king_side { 'K' } else { 'Q' }
            } else {
                (b'A' + f as u8) as char
            };
            let order = match c {
                'K' => 0,
                'Q' => 1,
                _ => 2 + f as u8,
            };
            letters.push((
                order,
                if player.index() == 1 {
                    c.to_ascii_lowercase()
                } else {
                    c
                },
            ));
        }
        if v.fischer_random_notation {
            // Shredder-FEN: king-side (higher file) first.
            letters.sort_by_key(|&(o, _)| std::cmp::Reverse(o));
        } else {
            letters.sort_unstable();
        }
        s.extend(letters.into_iter().map(|(_, c)| c));
    }
    if s.is_empty() { "-".into() } else { s }
}

/// Reads a position text for variant `v`. Fields after the board may be
/// omitted (side `w`, castling `-`, en passant `-`, counters `0 1`).
pub fn position_from_text(v: &Arc<Variant>, text: &str) -> Result<Position, PositionError> {
    let g = &v.geometry;
    let mut fields = text.split_whitespace();
    let board_text = fields.next().ok_or(PositionError::MissingField("board"))?;
    let pieces = parse_board(v, board_text)?;
    let side_text = fields.next().unwrap_or("w");
    let to_move = parse_side(v, side_text)?;
    let castling_text = fields.next().unwrap_or("-");
    let ep_text = fields.next().unwrap_or("-");
    let halfmove = match fields.next() {
        None => 0,
        Some(s) => s
            .parse::<u32>()
            .ok()
            // Far below u32::MAX, so that moves played afterwards never
            // overflow the counters and the text written then reads back.
            .filter(|&h| h <= MAX_COUNTER)
            .ok_or_else(|| PositionError::Counter(format!("bad halfmove clock '{s}'")))?,
    };
    let fullmove = match fields.next() {
        None => 1,
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|&f| f <= MAX_COUNTER)
            .ok_or_else(|| PositionError::Counter(format!("bad move number '{s}'")))?,
    };
    let mut next = fields.next();
    let fates = match next {
        Some(f) if f.starts_with("out:") => {
            next = fields.next();
            parse_out(v, f)?
        }
        _ => Fates::default(),
    };
    let exchange = match next {
        Some(f) if f.starts_with("exchange:") => Some(parse_exchange(v, f)?),
        Some(extra) => return Err(PositionError::TrailingText(extra.into())),
        None => None,
    };
    if let Some(extra) = fields.next() {
        return Err(PositionError::TrailingText(extra.into()));
    }
    // Castling letters need the kings and rooks: read them from a provisional
    // board.
    let castling = parse_castling(v, &pieces, castling_text)?;
    let ep = match ep_text {
        "-" => None,
        s => Some(
            g.parse_cell(s)
                .ok_or_else(|| PositionError::EnPassant(format!("'{s}' is not a cell")))?,
        ),
    };
    if fates.seats().contains(to_move) {
        return Err(PositionError::Side(format!(
            "{} is out of play and cannot be to move",
            v.seating.name(to_move)
        )));
    }
    let turn = v.seating.turn_led_by(to_move, fates.seats());
    let state = TurnState::new(turn, fates);
    let mut pos = Position::from_parts(v, &pieces, state, &castling, ep, halfmove, fullmove)?;
    if let Some(ex) = exchange {
        pos.enter_exchange(ex)?;
    }
    Ok(pos)
}

fn parse_board(v: &Variant, text: &str) -> Result<Vec<(Cell, Piece)>, PositionError> {
    let g = &v.geometry;
    let layout = layout(g);
    let slices: Vec<&str> = text.split('|').collect();
    if slices.len() != layout.len() {
        return Err(PositionError::Board(format!(
            "{} slices given, the board has {}",
            slices.len(),
            layout.len()
        )));
    }
    let mut pieces = Vec::new();
    for (si, (slice_text, slice)) in slices.iter().zip(&layout).enumerate() {
        let ranks: Vec<&str> = slice_text.split('/').collect();
        if ranks.len() != slice.len() {
            return Err(PositionError::Board(format!(
                "slice {} has {} ranks, expected {}",
                si + 1,
                ranks.len(),
                slice.len()
            )));
        }
        for (rank_text, cells) in ranks.iter().zip(slice) {
            let rank_name = g.coord(cells[0], 0) + 1;
            let mut i = 0;
            let mut chars = rank_text.chars().peekable();
            while let Some(c) = chars.next() {
                if let Some(d) = c.to_digit(10) {
                    let mut run = d as usize;
                    while let Some(d2) = chars.peek().and_then(|c| c.to_digit(10)) {
                        run = run * 10 + d2 as usize;
                        chars.next();
                        if run > 10_000 {
                            break;
                        }
                    }
                    if run == 0 {
                        return Err(PositionError::Board(format!(
                            "empty run of 0 on rank {rank_name}"
                        )));
                    }
                    i += run;
                    continue;
                }
                let (player, letter) = if c == '(' {
                    let mut num = String::new();
                    let mut letter = None;
                    for c2 in chars.by_ref() {
                        if c2 == ')' {
                            break;
                        }
                        num.push(c2);
                    }
                    // The seat (number or name), then the piece letter.
                    let player = seat_prefix(v, &num).and_then(|(seat, len)| {
                        let mut rest = num[len..].chars();
                        letter = rest.next();
                        rest.next().is_none().then_some(seat)
                    });
                    match (player, letter) {
                        (Some(p), Some(l)) => (p, l.to_ascii_uppercase()),
                        _ => return Err(PositionError::Board("malformed '(…)' piece".into())),
                    }
                } else if v.seat_count() == 2 && c.is_ascii_alphabetic() {
                    (
                        Seat::new(if c.is_ascii_uppercase() { 0 } else { 1 }),
                        c.to_ascii_uppercase(),
                    )
                } else {
                    return Err(PositionError::Board(format!(
                        "unexpected '{c}' on rank {rank_name}"
                    )));
                };
                let kind = v.kind_by_letter(letter).ok_or_else(|| {
                    PositionError::Board(format!("unknown piece letter '{letter}'"))
                })?;
                if i >= cells.len() {
                    return Err(PositionError::Board(format!(
                        "rank {rank_name} has more than {} cells",
                        cells.len()
                    )));
                }
                pieces.push((cells[i], piece(player, kind)));
                i += 1;
            }
            if i != cells.len() {
                return Err(PositionError::Board(format!(
                    "rank {rank_name} describes {i} cells, it has {}",
                    cells.len()
                )));
            }
        }
    }
    Ok(pieces)
}

fn parse_castling(
    v: &Arc<Variant>,
    pieces: &[(Cell, Piece)],
    text: &str,
) -> Result<Vec<Cell>, PositionError> {
    if text == "-" {
        return Ok(Vec::new());
    }
    let g = &v.geometry;
    if g.dims() != 2 || v.seat_count() != 2 {
        return Err(PositionError::Castling(format!(
            "'{text}': this variant has no castling"
        )));
    }
    let king_kind = v.royal_kind;
    let mut out = Vec::new();
    for c in text.chars() {
        let player = Seat::new(if c.is_ascii_uppercase() { 0 } else { 1 });
        let king = pieces
            .iter()
            .find(|(_, p)| piece_seat(*p) == player && Some(piece_kind(*p)) == king_kind)
            .map(|(c, _)| *c)
            .ok_or_else(|| PositionError::Castling(format!("'{c}': no king")))?;
        let rank = g.coord(king, 0);
        let kf = g.coord(king, 1);
        let mut rooks: Vec<(i32, Cell)> = pieces
            .iter()
            .filter(|(cell, p)| {
                piece_seat(*p) == player
                    && v.kinds[piece_kind(*p)].castles
                    && g.coord(*cell, 0) == rank
            })
            .map(|(cell, _)| (g.coord(*cell, 1), *cell))
            .collect();
        rooks.sort_unstable();
        let up = c.to_ascii_uppercase();
        let rook = match up {
            'K' => rooks.iter().rev().find(|(f, _)| *f > kf).map(|x| x.1),
            'Q' => rooks.iter().find(|(f, _)| *f < kf).map(|x| x.1),
            'A'..='Z' if ((up as u8 - b'A') as usize) < g.lens()[1] => {
                let f = (up as u8 - b'A') as i32;
                rooks.iter().find(|(rf, _)| *rf == f).map(|x| x.1)
            }
            _ => {
                return Err(PositionError::Castling(format!("unexpected '{c}'")));
            }
        };
        match rook {
            Some(r) if !out.contains(&r) => out.push(r),
            Some(_) => {}
            None => {
                return Err(PositionError::Castling(format!(
                    "'{c}': no rook to castle with"
                )));
            }
        }
    }
    Ok(out)
}

impl Position {
    /// The position text (FEN on 2-D boards; docs/notation.md).
    pub fn to_text(&self) -> String {
        position_to_text(self)
    }

    /// Reads a position text for variant `v`.
    pub fn from_text(v: &Arc<Variant>, text: &str) -> Result<Position, PositionError> {
        position_from_text(v, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::variant::Variant;

    #[test]
    fn chess_start_is_standard_fen() {
        let v = Variant::from_spec("chess").unwrap();
        let pos = Position::start(&v);
        assert_eq!(
            pos.to_text(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
    }

    #[test]
    fn start_positions_round_trip() {
        for spec in [
            "chess",
            "chess960:sp=0",
            "chess960:sp=959",
            "cylinder",
            "torus",
            "diamond",
            "diamond:n=4",
            "diamond:n=5",
            "cylinder-diamond",
            "cube",
        ] {
            let v = Variant::from_spec(spec).unwrap();
            let pos = Position::start(&v);
            let text = pos.to_text();
            let back = Position::from_text(&v, &text).unwrap();
            assert_eq!(back.to_text(), text, "{spec}");
            assert_eq!(back.hash(), pos.hash(), "{spec}");
        }
    }

    #[test]
    fn malformed_texts_name_their_field() {
        let v = Variant::from_spec("chess").unwrap();
        let bad = [
            ("", "missing field"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w", "piece placement"),
            (
                "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w",
                "piece placement",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w",
                "piece placement",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x",
                "side to move",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqz",
                "castling",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - e9",
                "en passant",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - e3",
                "en passant",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - x",
                "counters",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w - -",
                "illegal",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1 z",
                "unexpected",
            ),
            ("4k3/8/8/8/8/8/8/R3K2r b - -", "illegal"),
            ("P3k3/8/8/8/8/8/8/4K3 w - -", "illegal"),
        ];
        for (text, field) in bad {
            let err = Position::from_text(&v, text).unwrap_err().to_string();
            assert!(err.contains(field), "{text}: {err}");
        }
    }
}
