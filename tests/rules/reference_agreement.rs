//! Agreement between the fast engine and the independent reference move
//! generator of `tests/reference/` on every variant: start positions, perft
//! from the start, and move lists along random games.
//!
//! The two implementations share nothing but the rules text, so every
//! expected number here comes from the reference computation (itself checked
//! against published perft in `reference_selftest.rs`). On a disagreement
//! the tests print the moves leading to the first position where the move
//! lists differ and the difference itself.
//!
//! Run with `cargo test --release --test rules reference_agreement`.

use crate::reference;
use ndchess::board::variant::Variant as FastVariant;
use ndchess::rules::movegen;
use ndchess::rules::moves::MoveKey;
use ndchess::rules::position::Position as FastPosition;
use reference::{
    Key, Kind, Move as RefMove, Position as RefPosition, Special, Variant as RefVariant,
};
use std::collections::BTreeSet;

/// Both engines' view of one game, kept in step.
struct Pair {
    fast: FastPosition,
    reference: RefPosition,
    /// The moves played so far, as keys.
    history: Vec<Key>,
}

fn key_of(k: MoveKey) -> Key {
    (k.from, k.to, k.promotion, k.castling_rook)
}

/// Short text of a key for failure messages.
fn show(k: &Key) -> String {
    let mut s = format!("{:?}-{:?}", k.0, k.1);
    if let Some(p) = k.2 {
        s.push('=');
        s.push(p);
    }
    if let Some(r) = &k.3 {
        s.push_str(&format!(" (castling, rook {r:?})"));
    }
    s
}

impl Pair {
    fn start(spec: &str) -> Pair {
        let fast_variant = FastVariant::from_spec(spec)
            .unwrap_or_else(|e| panic!("fast engine rejects {spec}: {e:?}"));
        let ref_variant =
            RefVariant::from_spec(spec).unwrap_or_else(|e| panic!("reference rejects {spec}: {e}"));
        Pair {
            fast: FastPosition::start(&fast_variant),
            reference: RefPosition::start(&ref_variant),
            history: Vec::new(),
        }
    }

    fn fast_keys(&self) -> Vec<Key> {
        let mut keys: Vec<Key> = self
            .fast
            .legal_moves()
            .into_iter()
            .map(|m| key_of(self.fast.move_key(m)))
            .collect();
        keys.sort();
        keys
    }

    /// A description of the current position for failure messages.
    fn describe(&self, spec: &str) -> String {
        let moves: Vec<String> = self.history.iter().map(show).collect();
        let pieces: Vec<String> = self
            .reference
            .placement()
            .iter()
            .map(|(c, owner, letter)| {
                format!("{}{letter}{c:?}", if *owner == 0 { 'w' } else { 'b' })
            })
            .collect();
        format!(
            "variant {spec}, after {} plies [{}]\nplayer to move: {}\npieces: {}",
            moves.len(),
            moves.join(", "),
            self.reference.to_move,
            pieces.join(" ")
        )
    }

    /// Compares placement, player to move and the sorted legal move lists
    /// (duplicates included), returning the reference's keys and moves.
    fn compare(&self, spec: &str) -> Vec<(Key, RefMove)> {
        let mut fast_placement = self.fast.placement();
        fast_placement.sort();
        assert_eq!(
            fast_placement,
            self.reference.placement(),
            "placement differs\n{}",
            self.describe(spec)
        );
        assert_eq!(
            self.fast.to_move().index(),
            self.reference.to_move,
            "player to move differs\n{}",
            self.describe(spec)
        );
        let fast = self.fast_keys();
        let mut moves: Vec<(Key, RefMove)> = self
            .reference
            .legal_moves()
            .into_iter()
            .map(|m| (self.reference.key(&m), m))
            .collect();
        moves.sort();
        let reference: Vec<Key> = moves.iter().map(|(k, _)| k.clone()).collect();
        if fast != reference {
            let fast_set: BTreeSet<&Key> = fast.iter().collect();
            let ref_set: BTreeSet<&Key> = reference.iter().collect();
            let only_fast: Vec<String> = fast_set.difference(&ref_set).map(|k| show(k)).collect();
            let only_ref: Vec<String> = ref_set.difference(&fast_set).map(|k| show(k)).collect();
            panic!(
                "legal moves differ\n{}\nonly in the fast engine: {only_fast:?}\nonly in the reference: {only_ref:?}\n\
                 fast count {} (distinct {}), reference count {}",
                self.describe(spec),
                fast.len(),
                fast_set.len(),
                reference.len()
            );
        }
        moves
    }

    /// Plays a move (one returned by `compare`) on both sides.
    fn play(&mut self, (key, ref_move): &(Key, RefMove)) {
        let fast_move = self
            .fast
            .legal_moves()
            .into_iter()
            .find(|&m| key_of(self.fast.move_key(m)) == *key)
            .expect("move present in the fast engine");
        self.fast.make(fast_move);
        self.reference.make(*ref_move);
        self.history.push(key.clone());
    }
}

/// Every variant covered, with the perft depth checked by default.
const VARIANTS: &[(&str, u32)] = &[
    ("chess", 4),
    ("chess960:sp=0", 4),
    ("chess960:sp=518", 4),
    ("chess960:sp=959", 4),
    ("cylinder", 4),
    ("torus", 4),
    ("diamond:n=3,l=8", 4),
    ("diamond:n=3,l=10", 3),
    ("diamond:n=4,l=8", 3),
    ("diamond:n=3,l=8,setup=8.3", 3),
    ("diamond:n=3,l=10,setup=8.3", 3),
    ("diamond:n=4,l=8,setup=8.3", 3),
    ("diamond:n=5,l=8,setup=8.3", 2),
    ("cylinder-diamond:n=3,l=8", 4),
    ("cube", 4),
    ("raumschach", 3),
    ("torus-diamond:n=3,l=8", 3),
    ("torus-diamond:n=3,l=8,setup=8.3", 3),
    ("torus-diamond:n=4,l=8", 2),
    ("double-diamond:n=3,l=8", 3),
    ("double-diamond:n=3,l=8,setup=8.3", 3),
    ("double-diamond:n=4,l=8", 2),
    ("finite:b=8,d=2", 4),
    ("finite:b=8,d=3", 2),
    ("finite:b=10,d=2", 3),
];

fn depth_of(spec: &str) -> u32 {
    VARIANTS
        .iter()
        .find(|(s, _)| *s == spec)
        .map(|&(_, d)| d)
        .expect("listed variant")
}

/// Start positions: the fast engine's placement equals the reference's for
/// every variant and all 960 Chess960 numbers.
#[test]
fn start_positions_agree() {
    let specs = VARIANTS
        .iter()
        .map(|(s, _)| s.to_string())
        .chain((0..960).map(|sp| format!("chess960:sp={sp}")));
    for spec in specs {
        Pair::start(&spec).compare(&spec);
    }
}

/// Perft of the fast engine equals the reference's at every depth up to
/// `depth`. On a difference, walks down the move tree to the first position
/// whose move lists differ and reports it.
fn check_perft(spec: &str, depth: u32) {
    let mut pair = Pair::start(spec);
    for d in 1..=depth {
        let expected = pair.reference.perft(d);
        let got = movegen::perft(&mut pair.fast, d);
        if got != expected {
            locate_divergence(&mut pair, spec, d);
            panic!(
                "{spec}: perft({d}) fast {got}, reference {expected}, but no differing move list found"
            );
        }
    }
}

/// Descends along the first move whose subtree counts differ until the
/// move lists themselves differ (then `compare` panics with the details).
fn locate_divergence(pair: &mut Pair, spec: &str, depth: u32) {
    let moves = pair.compare(spec);
    if depth <= 1 {
        return;
    }
    for played in moves {
        let before = pair.reference.clone();
        pair.play(&played);
        let expected = pair.reference.perft(depth - 1);
        let got = movegen::perft(&mut pair.fast, depth - 1);
        if got != expected {
            locate_divergence(pair, spec, depth - 1);
            return;
        }
        pair.fast.unmake();
        pair.reference = before;
        pair.history.pop();
    }
}

#[test]
fn perft_chess() {
    for spec in [
        "chess",
        "chess960:sp=0",
        "chess960:sp=518",
        "chess960:sp=959",
    ] {
        check_perft(spec, depth_of(spec));
    }
}

/// Perft 2 from every Chess960 start position and perft 3 from every 20th.
#[test]
fn perft_chess960_all_starts() {
    for sp in 0..960 {
        check_perft(
            &format!("chess960:sp={sp}"),
            if sp % 20 == 0 { 3 } else { 2 },
        );
    }
}

#[test]
fn perft_cylinder() {
    check_perft("cylinder", depth_of("cylinder"));
}

#[test]
fn perft_torus() {
    check_perft("torus", depth_of("torus"));
}

#[test]
fn perft_diamond_3d() {
    for spec in [
        "diamond:n=3,l=8",
        "diamond:n=3,l=10",
        "diamond:n=3,l=8,setup=8.3",
        "diamond:n=3,l=10,setup=8.3",
    ] {
        check_perft(spec, depth_of(spec));
    }
}

#[test]
fn perft_diamond_4d_table_8_2() {
    check_perft("diamond:n=4,l=8", depth_of("diamond:n=4,l=8"));
}

#[test]
fn perft_diamond_4d_table_8_3() {
    check_perft(
        "diamond:n=4,l=8,setup=8.3",
        depth_of("diamond:n=4,l=8,setup=8.3"),
    );
}

#[test]
fn perft_diamond_5d() {
    check_perft(
        "diamond:n=5,l=8,setup=8.3",
        depth_of("diamond:n=5,l=8,setup=8.3"),
    );
}

/// Perft 3 of the 5-D diamond: about half an hour for the reference.
#[test]
#[ignore]
fn perft_diamond_5d_deep() {
    check_perft("diamond:n=5,l=8,setup=8.3", 3);
}

#[test]
fn perft_cylinder_diamond() {
    check_perft(
        "cylinder-diamond:n=3,l=8",
        depth_of("cylinder-diamond:n=3,l=8"),
    );
}

#[test]
fn perft_cube() {
    check_perft("cube", depth_of("cube"));
}

#[test]
fn perft_raumschach() {
    check_perft("raumschach", depth_of("raumschach"));
}

/// Perft to `depth` from `positions` positions reached by random games of
/// 8 to 47 plies (the moves drawn from the agreed move list), so that the
/// middlegame rules (captures, checks, promotion) are counted, not only the
/// opening's.
fn perft_after_random_games(spec: &str, positions: usize, depth: u32, seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut compared = 0;
    while compared < positions {
        let mut pair = Pair::start(spec);
        let plies = 8 + rng.below(40);
        for _ in 0..plies {
            let moves = pair.compare(spec);
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())].clone();
            pair.play(&m);
        }
        if pair.compare(spec).is_empty() {
            continue;
        }
        let expected = pair.reference.perft(depth);
        let got = movegen::perft(&mut pair.fast, depth);
        if got != expected {
            locate_divergence(&mut pair, spec, depth);
            panic!("{spec}: perft({depth}) fast {got}, reference {expected} after random game");
        }
        compared += 1;
    }
}

#[test]
fn perft_torus_diamond() {
    for spec in [
        "torus-diamond:n=3,l=8",
        "torus-diamond:n=3,l=8,setup=8.3",
        "torus-diamond:n=4,l=8",
    ] {
        check_perft(spec, depth_of(spec));
    }
}

#[test]
fn perft_torus_diamond_random_positions() {
    perft_after_random_games("torus-diamond:n=3,l=8", 10, 3, 23);
}

#[test]
fn perft_double_diamond() {
    for spec in [
        "double-diamond:n=3,l=8",
        "double-diamond:n=3,l=8,setup=8.3",
        "double-diamond:n=4,l=8",
    ] {
        check_perft(spec, depth_of(spec));
    }
}

#[test]
fn perft_double_diamond_random_positions() {
    perft_after_random_games("double-diamond:n=3,l=8", 10, 3, 43);
}

/// Every kind on every cell of the double diamond, alone on the board:
/// the engine's tables (leaps, rays walked to the end, pawn steps) reach
/// exactly the cells the reference's walk of the seed's lines reaches.
/// Random games rarely bring pieces to the faces where the board turns;
/// this covers every face cell and every crossing.
#[test]
fn double_diamond_lone_pieces() {
    for spec in ["double-diamond:n=3,l=8", "double-diamond:n=4,l=8"] {
        let fast = FastVariant::from_spec(spec).expect("fast variant");
        let reference = RefVariant::from_spec(spec).expect("reference variant");
        let g = &fast.geometry;
        for cell in 0..g.cell_count() {
            let coords: Vec<i32> = g.coords(cell).iter().map(|&x| x as i32).collect();
            let mut c = [0; reference::MAX_DIM];
            c[..coords.len()].copy_from_slice(&coords);
            let rcell = reference.cell(&c).expect("same cells");
            for (kind, kd) in fast.kinds.iter().enumerate() {
                let mut got: BTreeSet<Vec<i32>> = BTreeSet::new();
                let mut add = |t: usize| {
                    got.insert(g.coords(t).iter().map(|&x| x as i32).collect());
                };
                let seat = ndchess::board::seating::Seat::new(0);
                if kd.pawn.is_some() {
                    let table = &fast.pawn_tables[seat][kind];
                    for pair in table.pushes.get(cell).chunks_exact(2) {
                        add(pair[0] as usize);
                    }
                    for &t in table.captures.get(cell) {
                        add(t as usize);
                    }
                } else {
                    if let Some(t) = fast.leap_table(kind) {
                        t.get(cell).iter().for_each(|&t| add(t as usize));
                    }
                    for &d in &kd.slides {
                        g.ray(cell, d).iter().for_each(|&t| add(t as usize));
                    }
                }
                let mut candidates = [
                    Kind::King,
                    Kind::Queen,
                    Kind::Rook,
                    Kind::Knight,
                    Kind::Pawn(1),
                ]
                .into_iter()
                .chain((2..=g.dims()).map(Kind::Bishop));
                let rkind = candidates
                    .find(|k| k.letter(0) == kd.letter)
                    .unwrap_or_else(|| panic!("no reference kind for {}", kd.letter));
                let piece = reference::Piece {
                    owner: 0,
                    kind: rkind,
                };
                let expected: BTreeSet<Vec<i32>> =
                    RefPosition::lone_targets(&reference, rcell, piece)
                        .into_iter()
                        .map(|t| reference.coords_vec(t))
                        .collect();
                assert_eq!(
                    got,
                    expected,
                    "{spec}: {} on {coords:?} (cell {})",
                    kd.name,
                    g.cell_name(cell)
                );
            }
        }
    }
}

#[test]
fn perft_finite() {
    for spec in ["finite:b=8,d=2", "finite:b=8,d=3", "finite:b=10,d=2"] {
        check_perft(spec, depth_of(spec));
    }
}

#[test]
fn perft_finite_random_positions() {
    perft_after_random_games("finite:b=8,d=2", 10, 3, 29);
    perft_after_random_games("finite:b=8,d=3", 10, 2, 31);
}

#[test]
fn perft_raumschach_random_positions() {
    perft_after_random_games("raumschach", 10, 3, 21);
}

/// xorshift64*: a tiny seeded generator, so games are reproducible.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// Random games on `specs` (one picked per game): at every ply both engines
/// must agree on placement, player to move and the legal move list. Half of
/// the moves are drawn from the pawn, king and castling moves (when there
/// are any) so that double steps, en passant, promotion and castling come up
/// often. At the end of each game the fast engine unmakes every move and
/// must be back at the start position with the start moves.
fn playouts(specs: &[String], games: usize, max_plies: usize, seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    // How many compared positions offered each special rule, printed with
    // `--nocapture` to show what the games exercised.
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for game in 0..games {
        let spec = &specs[rng.below(specs.len())];
        let mut pair = Pair::start(spec);
        let start_keys: Vec<Key> = pair.compare(spec).into_iter().map(|(k, _)| k).collect();
        let start_placement = pair.reference.placement();
        for _ in 0..max_plies {
            let moves = pair.compare(spec);
            *seen.entry("positions").or_default() += 1;
            if moves.is_empty() {
                *seen.entry("no legal move (game over)").or_default() += 1;
                break;
            }
            let kinds: BTreeSet<&str> = moves
                .iter()
                .map(|(_, m)| rule_used(&pair.reference, m))
                .collect();
            for kind in kinds {
                *seen.entry(kind).or_default() += 1;
            }
            let special: Vec<&(Key, RefMove)> = moves
                .iter()
                .filter(|(_, m)| {
                    matches!(
                        pair.reference.board[&m.from].kind,
                        Kind::Pawn(_) | Kind::King
                    )
                })
                .collect();
            let chosen = if !special.is_empty() && rng.below(2) == 0 {
                special[rng.below(special.len())].clone()
            } else {
                moves[rng.below(moves.len())].clone()
            };
            pair.play(&chosen);
        }
        for _ in 0..pair.history.len() {
            pair.fast.unmake();
        }
        let mut placement = pair.fast.placement();
        placement.sort();
        assert_eq!(
            placement,
            start_placement,
            "{spec}: game {game} not undone by unmake\n{}",
            pair.describe(spec)
        );
        let mut undone_keys: Vec<Key> = pair
            .fast
            .legal_moves()
            .into_iter()
            .map(|m| key_of(pair.fast.move_key(m)))
            .collect();
        undone_keys.sort();
        assert_eq!(
            undone_keys, start_keys,
            "{spec}: start moves differ after unmaking game {game}"
        );
    }
    let more = if specs.len() > 1 { " etc." } else { "" };
    println!("{}{more}: positions offering each rule: {seen:?}", specs[0]);
}

/// Which special rule a move uses, for the coverage statistics.
fn rule_used(pos: &RefPosition, m: &RefMove) -> &'static str {
    let v = &pos.variant;
    match m.special {
        _ if m.promotion.is_some() => "promotion",
        Special::DoubleStep { .. } => "double step",
        Special::EnPassant { .. } => "en passant",
        Special::Castle { rook_from, rook_to } => {
            // Round the back: the rook ends on the other side of the king's
            // file than it started (cylinder and torus only).
            let king_file = v.coords(m.from)[1];
            let (from_file, to_file) = (v.coords(rook_from)[1], v.coords(rook_to)[1]);
            let wraps = v.castling == reference::Castling::Wrap;
            if !wraps || (from_file < king_file) == (to_file < king_file) {
                "castling"
            } else {
                "castling round the back"
            }
        }
        Special::None => "ordinary",
    }
}

fn one(spec: &str) -> Vec<String> {
    vec![spec.to_string()]
}

#[test]
fn playouts_chess() {
    playouts(&one("chess"), 200, 120, 1);
}

#[test]
fn playouts_chess960() {
    let all: Vec<String> = (0..960).map(|sp| format!("chess960:sp={sp}")).collect();
    playouts(&all, 300, 120, 2);
}

#[test]
fn playouts_cylinder() {
    playouts(&one("cylinder"), 200, 120, 3);
}

#[test]
fn playouts_torus() {
    playouts(&one("torus"), 200, 120, 4);
}

#[test]
fn playouts_diamond_3d() {
    playouts(&one("diamond:n=3,l=8"), 200, 100, 5);
    playouts(&one("diamond:n=3,l=10"), 200, 100, 6);
}

#[test]
fn playouts_diamond_3d_table_8_3() {
    playouts(&one("diamond:n=3,l=8,setup=8.3"), 200, 100, 7);
    playouts(&one("diamond:n=3,l=10,setup=8.3"), 200, 100, 8);
}

#[test]
fn playouts_diamond_4d() {
    playouts(&one("diamond:n=4,l=8"), 200, 80, 9);
}

#[test]
fn playouts_diamond_4d_table_8_3() {
    playouts(&one("diamond:n=4,l=8,setup=8.3"), 200, 80, 10);
}

#[test]
fn playouts_diamond_5d() {
    playouts(&one("diamond:n=5,l=8,setup=8.3"), 200, 30, 11);
}

#[test]
fn playouts_cylinder_diamond() {
    playouts(&one("cylinder-diamond:n=3,l=8"), 200, 100, 12);
}

#[test]
fn playouts_cube() {
    playouts(&one("cube"), 200, 150, 13);
}

#[test]
fn playouts_torus_diamond() {
    playouts(&one("torus-diamond:n=3,l=8"), 60, 150, 19);
}

#[test]
fn playouts_double_diamond() {
    playouts(&one("double-diamond:n=3,l=8"), 60, 200, 47);
}

#[test]
fn playouts_finite() {
    playouts(&one("finite:b=8,d=2"), 100, 150, 37);
    playouts(&one("finite:b=8,d=3"), 20, 100, 41);
}

#[test]
fn playouts_raumschach() {
    playouts(&one("raumschach"), 100, 150, 17);
}

/// Many more and longer games than the default run, for a soak (hours in
/// total; 4-D and 5-D boards get fewer games). `REF_SPEC` picks one variant.
#[test]
#[ignore]
fn playouts_soak() {
    let only = std::env::var("REF_SPEC").ok();
    for (i, (spec, _)) in VARIANTS.iter().enumerate() {
        if only.as_deref().is_some_and(|o| o != *spec) {
            continue;
        }
        let games = if spec.contains("n=4") || spec.contains("n=5") {
            300
        } else {
            2000
        };
        playouts(&one(spec), games, 200, 100 + i as u64);
    }
}
