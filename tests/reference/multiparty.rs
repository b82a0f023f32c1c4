//! The reference for multi-party diamond chess (RULES §2.6, seed 000 §8.6,
//! the binding decisions of the multi-party issue), written from those
//! rules with the reference's own board (cells, offsets, piece patterns
//! and the two-player start of [`Variant`]) and nothing from `src/`.
//!
//! - Seats: w1…wm are 0…m-1, s1…sm are m…2m-1 (P = 2m players). wk's
//!   pawns move along axis k towards higher coordinates, sk's towards
//!   lower; a pawn double-steps from its start cell, captures on the 2-D
//!   diagonals forward ± one step along another axis, and promotes on the
//!   far face (`x_k = l-1` for wk, `x_k = 0` for sk).
//! - Armies: White's two-player piece on c stands for wk on d with
//!   `d[(i + k-1) mod n] = c[i]` (0-based axes), Black's for sk likewise.
//! - Order w1 … wm s1 … sm (coalitions with fixed order: w1 s1 w2 s2 …;
//!   with free order the coalitions alternate and any member moves).
//! - Who may capture whom: free-for-all everyone else; coalitions the
//!   other coalition (weak self-capture: partners too); independent games
//!   the own opponent (cross captures: everyone else). A move may not
//!   leave one's king attacked by a piece of an opponent (of a seat one
//!   may capture; in coalitions only the other coalition's).
//! - A king captured puts its seat out (lost); a seat to move without a
//!   legal move goes out (lost if its king is attacked, else drawn) by the
//!   one step "out", unless that ends the game; in independent games the
//!   opponent leaves with it (won / drawn). `dead=remove` takes the armies
//!   of the seats that went out off the board.
//! - The game is over (no moves): free-for-all at the first loss
//!   (`end=first`) or when at most one seat is left; coalitions at the
//!   first loss (`end=first`) or when a coalition has no seat left;
//!   independent games at the first game that ended (`end=first`) or when
//!   every game ended.
//! - En passant: only the seat that moves next, if it may capture the
//!   pawn's owner, and only on that turn.
//! - The double diamond (T8.7.4): "the same board as the double diamond,
//!   the start by the permutation of the coordinates". The permutation
//!   acts on the diamond's coordinates and keeps `x0` (whether a cell is
//!   doubled does not depend on the order of the axes); pieces move along
//!   the base's walks of the seed's lines, a pawn of wk / sk along the
//!   lines L(x, k) as the base's pawns along L(x, 1).

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{Coords, Key, Kind, MAX_DIM, Variant};

/// Who plays against whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Ffa,
    Coalition,
    Independent,
}

/// How a seat left the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Lost,
    Drawn,
    Won,
}

/// A multi-party game's board and conventions.
#[derive(Debug)]
pub struct Party {
    pub base: Arc<Variant>,
    pub players: usize,
    pub mode: Mode,
    pub end_first: bool,
    pub remove_dead: bool,
    pub free_order: bool,
    pub weak: bool,
    pub cross: bool,
}

impl Party {
    /// Reads `family:n=..,l=..[,setup=..],players=P[,mode=..][,end=..]
    /// [,dead=..][,order=..][,selfcapture=..][,cross=..]`.
    pub fn from_spec(spec: &str) -> Result<Arc<Party>, String> {
        let (name, params) = super::parse_spec(spec)?;
        let base_keys = ["n", "l", "setup"];
        let base_spec = format!(
            "{name}:{}",
            params
                .iter()
                .filter(|(k, _)| base_keys.contains(&k.as_str()))
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let mut base = Variant::from_spec(&base_spec)?;
        let players: usize = super::param(&params, "players", 2)?;
        if name == "cylinder-diamond" {
            // T8.7.1: "the faces not occupied by pieces become neighbours":
            // with P players the axes 1..P/2 carry armies and do not wrap.
            let mut v = Arc::try_unwrap(base).map_err(|_| "shared variant")?;
            for a in 0..v.dim() {
                v.wraps[a] = a > 0 && a >= players / 2;
            }
            base = Arc::new(v);
        }
        let word = |k: &str, d: &str| params.get(k).cloned().unwrap_or_else(|| d.to_string());
        if players < 2 || !players.is_multiple_of(2) || players > 2 * base.dim() {
            return Err(format!("players={players}"));
        }
        let mode = match word("mode", "ffa").as_str() {
            "ffa" => Mode::Ffa,
            "coalition" => Mode::Coalition,
            "independent" => Mode::Independent,
            m => return Err(format!("mode={m}")),
        };
        Ok(Arc::new(Party {
            base,
            players,
            mode,
            end_first: word("end", "last") == "first",
            remove_dead: word("dead", "remove") == "remove",
            free_order: word("order", "fixed") == "free",
            weak: word("selfcapture", "strong") == "weak",
            cross: word("cross", "0") == "1",
        }))
    }

    fn half(&self) -> usize {
        self.players / 2
    }

    fn is_w(&self, seat: usize) -> bool {
        seat < self.half()
    }

    /// The axis along which a seat's pawns move, and their sign.
    fn pawn_axis(&self, seat: usize) -> (usize, i32) {
        (seat % self.half(), if self.is_w(seat) { 1 } else { -1 })
    }

    fn partner(&self, seat: usize) -> usize {
        (seat + self.half()) % self.players
    }

    /// Whether `a` may capture `b`'s pieces.
    pub fn may_capture(&self, a: usize, b: usize) -> bool {
        if a == b {
            return false;
        }
        match self.mode {
            Mode::Ffa => true,
            Mode::Coalition => self.weak || self.is_w(a) != self.is_w(b),
            Mode::Independent => self.cross || b == self.partner(a),
        }
    }

    /// Whether `a`'s pieces attacking `king_owner`'s king is check.
    pub fn checks(&self, a: usize, king_owner: usize) -> bool {
        match self.mode {
            Mode::Coalition => self.is_w(a) != self.is_w(king_owner),
            _ => self.may_capture(king_owner, a),
        }
    }

    /// The seat order.
    fn order(&self) -> Vec<usize> {
        if self.mode == Mode::Coalition {
            (0..self.half())
                .flat_map(|k| [k, self.half() + k])
                .collect()
        } else {
            (0..self.players).collect()
        }
    }
}

/// A pawn's pushes as (one step, the cell beyond it) and its capture
/// cells.
type PawnSteps = (Vec<(usize, Option<usize>)>, Vec<usize>);

/// A piece: its seat and kind (pawns: `Kind::Pawn(1)`, their direction
/// comes from the seat).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Man {
    pub seat: usize,
    pub kind: Kind,
}

/// A move: from, to, promotion; `None` cells for the step "out".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PMove {
    pub from: usize,
    pub to: usize,
    pub promotion: Option<Kind>,
    /// The captured pawn's cell of an en-passant capture; `usize::MAX`
    /// for the out step.
    pub ep_victim: Option<usize>,
    pub double: Option<usize>,
}

/// The out step.
pub const OUT: PMove = PMove {
    from: usize::MAX,
    to: usize::MAX,
    promotion: None,
    ep_victim: None,
    double: None,
};

/// A position.
#[derive(Clone, Debug)]
pub struct PPos {
    pub party: Arc<Party>,
    pub board: Vec<Option<Man>>,
    /// The seat to move (free-order coalitions: the first seat of the
    /// coalition to move in the order).
    pub to_move: usize,
    /// The fate of every seat that is out.
    pub fates: Vec<Option<Fate>>,
    /// (passed cell, pawn cell, pawn's seat) after a double step.
    pub ep: Option<(usize, usize, usize)>,
    /// Pawn start cells (where a double step is allowed), per cell: the
    /// seat whose pawn started there.
    pub pawn_start: Vec<Option<usize>>,
}

impl PPos {
    pub fn start(party: &Arc<Party>) -> PPos {
        let v = &party.base;
        let n = v.dim();
        let mut board = vec![None; v.box_size()];
        let mut pawn_start = vec![None; v.box_size()];
        for k in 0..party.half() {
            for (&cell, p) in v.start.iter() {
                let (x0, c) = if v.double {
                    v.split(cell)
                } else {
                    (0, v.coords(cell))
                };
                let mut d = [0; MAX_DIM];
                for i in 0..n {
                    d[(i + k) % n] = c[i];
                }
                let to = if v.double { v.join(x0, &d) } else { v.cell(&d) };
                let to = to.expect("the diamond is symmetric in its axes");
                let seat = if p.owner == super::WHITE {
                    k
                } else {
                    party.half() + k
                };
                let kind = match p.kind {
                    Kind::Pawn(_) => {
                        pawn_start[to] = Some(seat);
                        Kind::Pawn(1)
                    }
                    other => other,
                };
                assert!(board[to].is_none(), "two armies on one cell");
                board[to] = Some(Man { seat, kind });
            }
        }
        PPos {
            party: party.clone(),
            board,
            to_move: party.order()[0],
            fates: vec![None; party.players],
            ep: None,
            pawn_start,
        }
    }

    fn live(&self, seat: usize) -> bool {
        self.fates[seat].is_none()
    }

    /// The seats that may move now.
    pub fn movers(&self) -> Vec<usize> {
        let p = &self.party;
        if p.free_order {
            (0..p.players)
                .filter(|&s| p.is_w(s) == p.is_w(self.to_move) && self.live(s))
                .collect()
        } else {
            vec![self.to_move]
        }
    }

    /// Whether the game is over by the fates.
    pub fn over(&self) -> bool {
        let p = &self.party;
        let lost = self.fates.contains(&Some(Fate::Lost));
        let live: Vec<usize> = (0..p.players).filter(|&s| self.live(s)).collect();
        match p.mode {
            Mode::Ffa => (p.end_first && lost) || live.len() <= 1,
            Mode::Coalition => {
                (p.end_first && lost)
                    || !live.iter().any(|&s| p.is_w(s))
                    || !live.iter().any(|&s| !p.is_w(s))
            }
            Mode::Independent => {
                if p.end_first {
                    live.len() < p.players
                } else {
                    live.is_empty()
                }
            }
        }
    }

    fn king(&self, seat: usize) -> Option<usize> {
        (0..self.board.len()).find(|&c| {
            self.board[c]
                == Some(Man {
                    seat,
                    kind: Kind::King,
                })
        })
    }

    /// The capture offsets of `seat`'s pawns.
    fn pawn_captures(&self, seat: usize) -> Vec<Coords> {
        let n = self.party.base.dim();
        let (axis, sign) = self.party.pawn_axis(seat);
        let mut out = Vec::new();
        for other in (0..n).filter(|&a| a != axis) {
            for side in [-1, 1] {
                let mut d = [0; MAX_DIM];
                d[axis] = sign;
                d[other] = side;
                out.push(d);
            }
        }
        out
    }

    /// Whether `seat`'s king is attacked by a piece whose attacks are
    /// check for it.
    pub fn in_check(&self, seat: usize) -> bool {
        let Some(king) = self.king(seat) else {
            return false;
        };
        self.attacked_by_checkers(king, seat)
    }

    /// Whether some piece of a seat whose attacks are check for `seat`
    /// attacks `target`. Looked at from the target: every piece pattern
    /// is symmetric (a step and its reverse belong to it), so a piece of
    /// kind K attacks the target iff it is the first piece met walking
    /// from the target along one of K's steps; a pawn attacks it iff it
    /// stands one of its capture steps before it.
    fn attacked_by_checkers(&self, target: usize, seat: usize) -> bool {
        let v = &self.party.base;
        if v.double {
            return self.attacked_on_double(target, seat);
        }
        let kinds = [Kind::King, Kind::Queen, Kind::Rook, Kind::Knight]
            .into_iter()
            .chain((2..=v.dim()).map(Kind::Bishop));
        for kind in kinds {
            let pattern = v.pattern(kind);
            for d in &pattern.offsets {
                let mut at = target;
                while let Some(next) = v.offset(at, d) {
                    if next == target {
                        break;
                    }
                    if let Some(m) = self.board[next] {
                        if m.kind == kind && self.party.checks(m.seat, seat) {
                            return true;
                        }
                        break;
                    }
                    if !pattern.slides {
                        break;
                    }
                    at = next;
                }
            }
        }
        for q in (0..self.party.players).filter(|&q| self.party.checks(q, seat)) {
            for c in self.pawn_captures(q) {
                let mut back = [0; MAX_DIM];
                for a in 0..MAX_DIM {
                    back[a] = -c[a];
                }
                if let Some(from) = v.offset(target, &back)
                    && self.board[from]
                        == Some(Man {
                            seat: q,
                            kind: Kind::Pawn(1),
                        })
                {
                    return true;
                }
            }
        }
        false
    }

    /// [`PPos::attacked_by_checkers`] on the double diamond, whose walks
    /// need not be reversible: asked of every piece of a checking seat, the
    /// dumb way (its walks on the empty board, cut at the first occupied
    /// cell).
    fn attacked_on_double(&self, target: usize, seat: usize) -> bool {
        let v = &self.party.base;
        (0..self.board.len()).any(|from| {
            let Some(m) = self.board[from] else {
                return false;
            };
            if !self.party.checks(m.seat, seat) {
                return false;
            }
            if m.kind == Kind::Pawn(1) {
                let (axis, sign) = self.party.pawn_axis(m.seat);
                return v.pawn_walks[&(from, axis, sign)].1.contains(&target);
            }
            if !v.reach[&(from, super::pattern_slot(m.kind))].contains(&target) {
                return false;
            }
            let pattern = v.pattern(m.kind);
            pattern.offsets.iter().any(|d| {
                let cells = &v.walks[&(from, *d, pattern.slides)];
                for &c in cells {
                    if c == target {
                        return true;
                    }
                    if pattern.slides && self.board[c].is_some() {
                        return false;
                    }
                }
                false
            })
        })
    }

    /// A pawn's pushes (one step, the double step beyond) and capture cells
    /// on the double diamond, from the base's walks of the lines along its
    /// seat's axis.
    fn double_pawn_steps(&self, seat: usize, from: usize) -> PawnSteps {
        let (axis, sign) = self.party.pawn_axis(seat);
        let (pushes, captures) = &self.party.base.pawn_walks[&(from, axis, sign)];
        (pushes.clone(), captures.iter().copied().collect())
    }

    /// A pawn's pushes (one step, the double step beyond) and capture cells
    /// by the coordinate offsets of the plain boards.
    fn plain_pawn_steps(&self, seat: usize, from: usize) -> PawnSteps {
        let v = &self.party.base;
        let (axis, sign) = self.party.pawn_axis(seat);
        let mut step = [0; MAX_DIM];
        step[axis] = sign;
        let pushes = v
            .offset(from, &step)
            .map(|one| (one, v.offset(one, &step)))
            .into_iter()
            .collect();
        let captures = self
            .pawn_captures(seat)
            .iter()
            .filter_map(|d| v.offset(from, d))
            .collect();
        (pushes, captures)
    }

    /// The moves of `seat` by the pieces' patterns, before king safety.
    fn pseudo(&self, seat: usize) -> Vec<PMove> {
        let p = &self.party;
        let v = &p.base;
        let mut out = Vec::new();
        let plain = |from, to| PMove {
            from,
            to,
            promotion: None,
            ep_victim: None,
            double: None,
        };
        for from in 0..self.board.len() {
            let Some(m) = self.board[from] else { continue };
            if m.seat != seat {
                continue;
            }
            if m.kind == Kind::Pawn(1) {
                let (axis, sign) = p.pawn_axis(seat);
                // The far face, in the diamond's coordinates (the double
                // diamond's axis 1 holds both copies' ranks).
                let far = if sign > 0 { v.edge() - 1 } else { 0 };
                let (pushes, captures) = if v.double {
                    self.double_pawn_steps(seat, from)
                } else {
                    self.plain_pawn_steps(seat, from)
                };
                let mut targets = Vec::new();
                for (one, two) in pushes {
                    if self.board[one].is_some() {
                        continue;
                    }
                    targets.push(plain(from, one));
                    if self.pawn_start[from] == Some(seat)
                        && let Some(two) = two
                        && self.board[two].is_none()
                    {
                        targets.push(PMove {
                            double: Some(one),
                            ..plain(from, two)
                        });
                    }
                }
                for to in captures {
                    match self.board[to] {
                        Some(victim) if p.may_capture(seat, victim.seat) => {
                            targets.push(plain(from, to))
                        }
                        None => {
                            if let Some((passed, pawn, owner)) = self.ep
                                && passed == to
                                && p.may_capture(seat, owner)
                            {
                                targets.push(PMove {
                                    ep_victim: Some(pawn),
                                    ..plain(from, to)
                                });
                            }
                        }
                        _ => {}
                    }
                }
                for t in targets {
                    let to = if v.double {
                        v.split(t.to).1
                    } else {
                        v.coords(t.to)
                    };
                    if to[axis] == far {
                        for &k in &v.promotion_kinds {
                            out.push(PMove {
                                promotion: Some(k),
                                ..t
                            });
                        }
                    } else {
                        out.push(t);
                    }
                }
                continue;
            }
            let pattern = v.pattern(m.kind);
            let mut seen = BTreeSet::new();
            if v.double {
                for d in &pattern.offsets {
                    for &to in &v.walks[&(from, *d, pattern.slides)] {
                        match self.board[to] {
                            None => {
                                seen.insert(to);
                            }
                            Some(victim) => {
                                if p.may_capture(seat, victim.seat) {
                                    seen.insert(to);
                                }
                                if pattern.slides {
                                    break;
                                }
                            }
                        }
                    }
                }
                out.extend(seen.into_iter().map(|to| plain(from, to)));
                continue;
            }
            for d in &pattern.offsets {
                let mut at = from;
                while let Some(next) = v.offset(at, d) {
                    if next == from {
                        break;
                    }
                    match self.board[next] {
                        None => {
                            seen.insert(next);
                        }
                        Some(victim) => {
                            if p.may_capture(seat, victim.seat) {
                                seen.insert(next);
                            }
                            break;
                        }
                    }
                    if !pattern.slides {
                        break;
                    }
                    at = next;
                }
            }
            out.extend(seen.into_iter().map(|to| plain(from, to)));
        }
        out
    }

    /// The legal moves now: none when the game is over; the moves of the
    /// seat(s) to move that do not leave the mover's king in check; the out
    /// step when there is none and the game goes on without the seat.
    pub fn legal(&self) -> Vec<PMove> {
        if self.over() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut scratch = self.clone();
        for seat in self.movers() {
            let king = self.king(seat);
            for m in self.pseudo(seat) {
                let king_taken = self.board[m.to].is_some_and(|c| c.kind == Kind::King);
                let safe = if king_taken {
                    // Armies may leave the board: play it on a copy.
                    let mut after = self.clone();
                    after.apply(seat, m);
                    !after.in_check(seat)
                } else {
                    // Play it on the scratch board and put it back.
                    let cells = [Some(m.from), Some(m.to), m.ep_victim];
                    let before = cells.map(|c| c.map(|c| scratch.board[c]));
                    scratch.apply(seat, m);
                    let king = king.map(|k| if k == m.from { m.to } else { k });
                    let safe = !king.is_some_and(|k| scratch.attacked_by_checkers(k, seat));
                    for (c, old) in cells.iter().zip(before) {
                        if let (Some(c), Some(old)) = (c, old) {
                            scratch.board[*c] = old;
                        }
                    }
                    safe
                };
                if safe {
                    out.push(m);
                }
            }
        }
        if out.is_empty() && !self.party.free_order {
            let mut after = self.clone();
            after.make(OUT);
            if !after.over() {
                out.push(OUT);
            }
        }
        out
    }

    /// Puts `seat` out with `fate` (its independent opponent with it).
    fn go_out(&mut self, seat: usize, fate: Fate) {
        if !self.live(seat) {
            return;
        }
        let mut gone = vec![(seat, fate)];
        if self.party.mode == Mode::Independent {
            let q = self.party.partner(seat);
            if self.live(q) {
                let other = match fate {
                    Fate::Lost => Fate::Won,
                    Fate::Won => Fate::Lost,
                    Fate::Drawn => Fate::Drawn,
                };
                gone.push((q, other));
            }
        }
        for (s, f) in gone {
            self.fates[s] = Some(f);
            if self.party.remove_dead {
                for c in self.board.iter_mut() {
                    if c.is_some_and(|m| m.seat == s) {
                        *c = None;
                    }
                }
            }
        }
    }

    /// The board change of a move by `seat` (no turn change).
    fn apply(&mut self, seat: usize, m: PMove) {
        let man = self.board[m.from]
            .take()
            .expect("a piece on the start cell");
        if let Some(victim) = m.ep_victim {
            self.board[victim] = None;
        }
        let captured = self.board[m.to].replace(Man {
            seat,
            kind: m.promotion.unwrap_or(man.kind),
        });
        if let Some(c) = captured
            && c.kind == Kind::King
        {
            self.go_out(c.seat, Fate::Lost);
        }
    }

    /// Plays a legal move (of the seat whose piece stands on its start
    /// cell; the out step is the seat to move's).
    pub fn make(&mut self, m: PMove) {
        let mover = if m == OUT {
            let fate = if self.in_check(self.to_move) {
                Fate::Lost
            } else {
                Fate::Drawn
            };
            self.go_out(self.to_move, fate);
            self.to_move
        } else {
            let seat = self.board[m.from].expect("a piece on the start cell").seat;
            self.apply(seat, m);
            seat
        };
        // The next seat in play in the order (free order: of the other
        // coalition).
        let order = self.party.order();
        let at = order.iter().position(|&s| s == mover).unwrap();
        let next = (1..=order.len())
            .map(|i| order[(at + i) % order.len()])
            .find(|&s| {
                self.live(s)
                    && (!self.party.free_order || self.party.is_w(s) != self.party.is_w(mover))
            });
        self.to_move = next.unwrap_or(mover);
        self.ep = m.double.map(|passed| (passed, m.to, mover));
    }

    /// Perft: leaves of the legal move tree.
    pub fn perft(&self, depth: u32) -> u64 {
        let moves = self.legal();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|m| {
                let mut p = self.clone();
                p.make(m);
                p.perft(depth - 1)
            })
            .sum()
    }

    /// The key of a move, as the agreement tests compare them (the out
    /// step: empty coordinates).
    pub fn key(&self, m: &PMove) -> Key {
        if *m == OUT {
            return (Vec::new(), Vec::new(), None, None);
        }
        let v = &self.party.base;
        (
            v.coords_vec(m.from),
            v.coords_vec(m.to),
            m.promotion.map(|k| k.letter(super::WHITE)),
            None,
        )
    }

    /// The pieces as (coordinates, seat, letter).
    pub fn placement(&self) -> Vec<(Vec<i32>, usize, char)> {
        let v = &self.party.base;
        let mut out: Vec<_> = (0..self.board.len())
            .filter_map(|c| {
                self.board[c].map(|m| {
                    let letter = if m.kind == Kind::Pawn(1) {
                        'P'
                    } else {
                        m.kind.letter(super::WHITE)
                    };
                    (v.coords_vec(c), m.seat, letter)
                })
            })
            .collect();
        out.sort();
        out
    }
}

impl PPos {
    /// A position from a placement `(coordinates, seat, letter)` (as the
    /// agreement tests take it from the engine), the seat to move and the
    /// fates of the seats out; no en-passant right. Double steps stay
    /// allowed from the pawn start cells of the start position.
    pub fn from_placement(
        party: &Arc<Party>,
        placement: &[(Vec<i32>, usize, char)],
        to_move: usize,
        fates: Vec<Option<Fate>>,
    ) -> PPos {
        let v = &party.base;
        let mut pos = PPos::start(party);
        pos.board = vec![None; v.box_size()];
        for (coords, seat, letter) in placement {
            let mut c = [0; MAX_DIM];
            c[..coords.len()].copy_from_slice(coords);
            let kind = match letter {
                'K' => Kind::King,
                'Q' => Kind::Queen,
                'R' => Kind::Rook,
                'N' => Kind::Knight,
                'B' => Kind::Bishop(2),
                'W' => Kind::Bishop(3),
                'G' => Kind::Bishop(4),
                'P' => Kind::Pawn(1),
                other => panic!("no kind for letter {other}"),
            };
            let cell = v.cell(&c).expect("a cell of the board");
            pos.board[cell] = Some(Man { seat: *seat, kind });
        }
        pos.to_move = to_move;
        pos.fates = fates;
        pos
    }
}
