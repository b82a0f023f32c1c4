use ndchess::position::Position;
use ndchess::san::{LetterSet, parse_short};
use ndchess::variant::Variant;
fn main() {
    let v = Variant::from_spec("cube").unwrap();
    let games = [
        (
            "4/4/4/1QK1|4/4/4/4|4/4/4/4|1k2/4/4/4 w - - 0 1",
            "Qb2b Kb4g Kc1b Kc4g Kc2b Kb4g Qb3b Kb4d Qb3g Kc4d Kc2g Kd4d Qc4g Kd3d Qd4g Kd2d Qd3g Kd1d Qd2g Kc1d Qc2d",
        ),
        (
            "4/4/4/R1KR|4/4/4/4|4/4/4/4|1k2/4/4/4 w - - 0 1",
            "Kc1b Kb3d Kc2b Kb3g Tab1a Ka3g Td3a Kb3g Tb1b Ka3g Td3b Ka2g Ta3b Ka2d Ta3g Kb2d Kc2g Kb3d Kc2d Kb4d Tb1g Kc4d Tb4g Kd4d Ta3d Kc4d Ta4d",
        ),
        (
            "4/4/4/R1K1|4/4/4/2B1|4/4/4/4|1k2/4/4/4 w - - 0 1",
            "Kc2a Kb3d Kc2b Kb3g Tb1a Ka3g Lb2b Ka3d Tb1g Kb3d Kc2g Kc3d Lb3g Kb3d Lc4g Ka3d Ta1g Kb3d Kb2g Ka3d Kb3g Ka2d Lc3d Ka3d Ta1d",
        ),
    ];
    for (fen, moves) in games {
        let mut pos = Position::from_text(&v, fen).unwrap();
        println!("START {}", pos.to_text());
        for (i, t) in moves.split_whitespace().enumerate() {
            let m = parse_short(&pos, t, LetterSet::German).unwrap_or_else(|e| panic!("{t}: {e}"));
            pos.make(m);
            if i % 2 == 1 {
                println!("{} {}", i / 2 + 1, pos.to_text());
            }
        }
        println!("END {:?}", pos.outcome());
    }
}
