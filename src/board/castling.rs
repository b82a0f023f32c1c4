//! Castling (T4.6 and FIDE Chess960): which castlings a king and a rook
//! on given cells have, with their conditions precomputed once per board.

use super::geometry::{Cell, Geometry};

/// The most castling rights a position holds (the rooks that may still
/// castle); variants and position texts with more are refused.
pub const MAX_CASTLING_RIGHTS: usize = 16;

/// How castling works in a variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastlingStyle {
    /// No castling.
    None,
    /// FIDE Chess960 rules (classical chess included): the king ends on the
    /// c or g file, the rook on d or f.
    Chess960,
    /// T4.6: the rook moves along the file axis, either way round where the
    /// files wrap, to the cell next to the king; the king jumps over it.
    Theory,
}

/// A castling of one rook, its legality conditions precomputed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Castling {
    /// The king's destination.
    pub king_to: u16,
    /// The rook's destination.
    pub rook_to: u16,
    /// Cells that must be empty (the king and the castling rook excepted).
    pub must_be_empty: Vec<u16>,
    /// Cells the king crosses, which must not be attacked before the move.
    /// (The destination is tested on the board after the move.)
    pub crossed: Vec<u16>,
}

/// The castlings of the rook on `rook` with the king on `king`, under
/// `style`, on a 2-D board (none elsewhere).
pub fn castling_candidates(
    g: &Geometry,
    style: CastlingStyle,
    king: Cell,
    rook: Cell,
) -> Vec<Castling> {
    let mut out = Vec::new();
    if g.dims() != 2 || king == rook || g.coord(rook, 0) != g.coord(king, 0) {
        return out;
    }
    let rank = g.coord(king, 0);
    let width = g.lens()[1] as i32;
    let at = |file: i32| g.cell_at(&[rank, file]).map(|c| c as u16);
    match style {
        CastlingStyle::None => {}
        CastlingStyle::Chess960 => {
            // FIDE Chess960: king to the c or g file, rook to d or f.
            let kf = g.coord(king, 1);
            let rf = g.coord(rook, 1);
            let (ktf, rtf) = if rf < kf {
                (2, 3)
            } else {
                (width - 2, width - 3)
            };
            let span = |a: i32, b: i32| a.min(b)..=a.max(b);
            let mut must_be_empty: Vec<u16> =
                span(kf, ktf).chain(span(rf, rtf)).filter_map(at).collect();
            must_be_empty.sort_unstable();
            must_be_empty.dedup();
            let crossed = span(kf, ktf)
                .filter(|&f| f != kf && f != ktf)
                .filter_map(at)
                .collect();
            if let (Some(king_to), Some(rook_to)) = (at(ktf), at(rtf)) {
                out.push(Castling {
                    king_to,
                    rook_to,
                    must_be_empty,
                    crossed,
                });
            }
        }
        CastlingStyle::Theory => {
            // T4.6: the rook moves along the file axis (either way round
            // where files wrap) to the cell `b` next to the king, then the
            // king jumps over it.
            for dir in [1, -1] {
                let step = [0, dir];
                let back = [0, -dir];
                let Some(b) = g.step(king, &back) else {
                    continue;
                };
                if b == rook {
                    continue;
                }
                let mut path = Vec::new();
                let mut c = rook;
                let mut reached = false;
                for _ in 0..width {
                    match g.step(c, &step) {
                        Some(next) if next != king => {
                            path.push(next as u16);
                            c = next;
                            if next == b {
                                reached = true;
                                break;
                            }
                        }
                        _ => break,
                    }
                }
                let Some(king_to) = g.step(b, &back) else {
                    continue;
                };
                if !reached || king_to == king {
                    continue;
                }
                let mut must_be_empty = path;
                must_be_empty.push(king_to as u16);
                out.push(Castling {
                    king_to: king_to as u16,
                    rook_to: b as u16,
                    must_be_empty,
                    crossed: vec![b as u16],
                });
            }
        }
    }
    out
}
