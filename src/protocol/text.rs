//! Texts that only the protocol front-ends write: game results in the PGN
//! style ("1-0", "1/2-1/2", "3/4-1/4", one figure per seat).

use crate::rules::outcome::{Outcome, Points};

/// A seat's points as PGN writes them.
fn points_text(p: Points) -> &'static str {
    match p.quarters() {
        0 => "0",
        1 => "1/4",
        2 => "1/2",
        3 => "3/4",
        _ => "1",
    }
}

/// The result in the PGN style, one figure per seat in seat order: `1-0`,
/// `0-1`, `1/2-1/2`, `3/4-1/4` for two seats, `1-0-0` for three.
pub fn result_text(o: &Outcome) -> String {
    o.points
        .values()
        .iter()
        .map(|&p| points_text(p))
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::seating::{BySeat, SeatSet};
    use crate::board::variant::Variant;
    use crate::rules::outcome::EndReason;

    #[test]
    fn results_read_as_pgn_writes_them() {
        let chess = Variant::from_spec("chess").unwrap();
        let cube = Variant::from_spec("cube").unwrap();
        let black = SeatSet::single(crate::board::seating::Seat::new(1));
        let mate = Outcome::defeat(&chess, black, EndReason::Checkmate { losers: black });
        assert_eq!(result_text(&mate), "1-0");
        let stalemate = Outcome::defeat(&cube, black, EndReason::StalemateLoss { losers: black });
        assert_eq!(result_text(&stalemate), "3/4-1/4");
        assert_eq!(
            result_text(&Outcome::draw(2, EndReason::Repetition)),
            "1/2-1/2"
        );
        let three = Outcome {
            points: BySeat::from_vec(vec![Points::ONE, Points::ZERO, Points::ZERO]),
            reason: EndReason::Checkmate { losers: black },
        };
        assert_eq!(result_text(&three), "1-0-0");
    }
}
