use ndchess::position::Position;
use ndchess::search::*;
use ndchess::variant::{Variant, piece};
use rand::{RngExt, SeedableRng};
fn main() {
    let spec = std::env::args().nth(1).unwrap_or("diamond:n=3".into());
    let want: Vec<char> = std::env::args()
        .nth(2)
        .unwrap_or("QR".into())
        .chars()
        .collect();
    let v = Variant::from_spec(&spec).unwrap();
    let cells = v.geometry.cell_count();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut found = 0;
    let mut engine = Engine::new(EngineOptions::default());
    for _ in 0..20000 {
        let k = v.kind_by_letter('K').unwrap();
        let mut pcs = vec![(0usize, k), (1, k)];
        for &c in &want {
            pcs.push((0, v.kind_by_letter(c).unwrap()));
        }
        let mut used = std::collections::HashSet::new();
        let mut text_pieces = Vec::new();
        for &(pl, kd) in &pcs {
            let mut c;
            loop {
                c = rng.random_range(0..cells);
                if used.insert(c) {
                    break;
                }
            }
            text_pieces.push((c, piece(pl, kd)));
        }
        // build via from_text: create empty start then place: use notation through a hack: construct FEN by layout
        let layout = ndchess::notation::layout(&v.geometry);
        let mut s = String::new();
        for (si, slice) in layout.iter().enumerate() {
            if si > 0 {
                s.push('|');
            }
            for (ri, rank) in slice.iter().enumerate() {
                if ri > 0 {
                    s.push('/');
                }
                let mut empty = 0;
                for &c in rank {
                    if let Some(&(_, p)) = text_pieces.iter().find(|(x, _)| *x == c) {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push(v.piece_letter(p));
                    } else {
                        empty += 1;
                    }
                }
                if empty > 0 {
                    s.push_str(&empty.to_string());
                }
            }
        }
        s.push_str(" w - - 0 1");
        let Ok(pos) = Position::from_text(&v, &s) else {
            continue;
        };
        if pos.in_check() || pos.legal_moves().is_empty() {
            continue;
        }
        engine.new_game();
        let lim = Limits {
            depth: Some(7),
            mate: Some(3),
            ..Limits::default()
        };
        let r = engine.search(&pos, &lim, &SearchControl::new(), &mut |_| {});
        if let Score::Mate(n) = r.score {
            if n >= 2 {
                println!("{spec} | {} | {n}", pos.to_text());
                found += 1;
                if found >= 12 {
                    break;
                }
            }
        }
    }
}
