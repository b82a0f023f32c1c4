//! Text diagrams of positions: the 2-D board, or for three and more
//! dimensions the 2-D slices side by side.

use crate::board::party::Fate;
use crate::board::piece::{EMPTY, Piece, piece_kind, piece_seat};
use crate::board::variant::Variant;
use crate::rules::position::Position;

/// A piece of a variant of more than two seats in two characters.
fn seat_piece(v: &Variant, p: Piece) -> String {
    let seat = piece_seat(p);
    let letter = v.kinds[piece_kind(p)].letter;
    match v.rules.party {
        Some(_) => {
            let half = v.seat_count() / 2;
            let (letter, axis) = if seat.index() < half {
                (letter.to_ascii_uppercase(), seat.index() + 1)
            } else {
                (letter.to_ascii_lowercase(), seat.index() - half + 1)
            };
            format!("{letter}{axis}")
        }
        None => format!("{letter}{}", seat.index()),
    }
}

/// A text diagram: the 2-D board, or for 3 and more dimensions the 2-D slices
/// side by side, one row of slices per combination of axes 4, 5, …
pub fn diagram(pos: &Position) -> String {
    let v = &**pos.variant();
    let g = &v.geometry;
    let lens = g.lens();
    let n = g.dims();
    let (ranks, files) = (lens[0] as i32, lens[1] as i32);
    let levels = if n >= 3 { lens[2] as i32 } else { 1 };
    let rows: usize = lens.iter().skip(3).product();
    let mut out = String::new();
    // Two seats: one letter per cell, upper case white. More: two
    // characters, the letter and the seat (multi-party: upper case for the
    // w seats, lower case for the s seats, then the seat's axis, so `K2`
    // is w2's king and `p3` s3's pawn; other variants: the letter and the
    // seat's number).
    let wide = v.seat_count() > 2;
    let cell_char = |x: &[i32]| -> String {
        match g.cell_at(x) {
            None if wide => "  ".into(),
            None => " ".into(),
            Some(c) => match pos.piece_at(c) {
                EMPTY if wide => "..".into(),
                EMPTY => ".".into(),
                p if !wide => v.piece_letter(p).to_string(),
                p => seat_piece(v, p),
            },
        }
    };
    let cell_width = if wide { 3 } else { 2 };
    for row in 0..rows {
        // Coordinates of axes 4.. for this row.
        let mut high = Vec::new();
        let mut r = row;
        for &l in lens.iter().skip(3) {
            high.push((r % l) as i32);
            r /= l;
        }
        if n >= 4 {
            let label: String = (3..n)
                .rev()
                .map(|axis| {
                    let base = if (axis + 1) % 2 == 0 { b'a' } else { b'A' };
                    format!(
                        "axis {} = {}",
                        axis + 1,
                        (base + high[axis - 3] as u8) as char
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            out.push_str(&format!("[{label}]\n"));
        }
        if n >= 3 {
            let mut header = String::from("    ");
            for lv in 0..levels {
                let name = match g.naming() {
                    crate::board::geometry::Naming::Cube => {
                        ["level a", "level b", "level g", "level d"][lv as usize].to_string()
                    }
                    _ => format!("level {}", (b'A' + lv as u8) as char),
                };
                header.push_str(&format!(
                    "{:<width$}",
                    name,
                    width = (files as usize) * cell_width + 3
                ));
            }
            out.push_str(header.trim_end());
            out.push('\n');
        }
        for rank in (0..ranks).rev() {
            let mut line = format!("{:>3} ", rank + 1);
            for lv in 0..levels {
                for f in 0..files {
                    let mut x = vec![rank, f];
                    if n >= 3 {
                        x.push(lv);
                    }
                    x.extend(&high);
                    line.push_str(&cell_char(&x));
                    line.push(' ');
                }
                line.push_str("   ");
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        let mut footer = String::from("    ");
        for _ in 0..levels {
            for f in 0..files {
                footer.push((b'a' + f as u8) as char);
                footer.push_str(if wide { "  " } else { " " });
            }
            footer.push_str("   ");
        }
        out.push_str(footer.trim_end());
        out.push('\n');
    }
    if wide {
        out.push_str(if v.rules.party.is_some() {
            "pieces: letter, upper case for w1..wn and lower case for s1..sn, then the seat's axis (K2: w2's king, p3: s3's pawn)\n"
        } else {
            "pieces: letter and seat number (K2: seat 2's king)\n"
        });
    }
    if !pos.out().is_empty() {
        let fates = pos.turn_state().fates;
        let list: Vec<String> = pos
            .out()
            .iter()
            .map(|s| {
                let how = match fates.of(s) {
                    Some(Fate::Lost) => "lost",
                    Some(Fate::Drawn) => "drawn",
                    Some(Fate::Won) => "won",
                    None => "out",
                };
                format!("{} ({how})", v.seating.name(s))
            })
            .collect();
        out.push_str(&format!("out of play: {}\n", list.join(", ")));
    }
    let side = v.seating.name(pos.to_move());
    out.push_str(&format!("{side} to move"));
    let text = pos.to_text();
    let parts: Vec<&str> = text.split(' ').collect();
    out.push_str(&format!(
        "; castling {}; en passant {}; halfmove clock {}; move {}\n",
        parts[2], parts[3], parts[4], parts[5]
    ));
    out.push_str(&format!("position: {text}\n"));
    out
}
