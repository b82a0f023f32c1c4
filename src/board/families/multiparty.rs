//! Multi-party diamond chess (seed 000 §8.6, RULES §2.6): up to 2n players
//! on the n-D diamond, one army on every face, under the seed's three
//! conventions.
//!
//! The armies come from the two-player start of the same board by a
//! cyclic permutation of the coordinates: the piece White has on
//! `(c_1, …, c_n)` stands for `wk` on `d` with
//! `d_{((i-1)+(k-1)) mod n + 1} = c_i` (so `wk`'s ranks run along axis
//! `k`), and `sk`'s army is Black's mapped the same way. Each seat's frame
//! is that permutation (and Black's mirror for the s seats), so the pawn
//! tables, double steps and the pieces' moves follow from the frame as for
//! two players; only the promotion zone is given (the far face).

use crate::board::geometry::{Cell, Geometry};
use crate::board::party::{DeadPieces, GameEnd, PartyMode, PartyRules};
use crate::board::piece::{Piece, piece, piece_kind, piece_seat};
use crate::board::registry::{Param, ParamDefault, ParamKind, Values};
use crate::board::seating::{BySeat, Seat, SeatInfo, SeatSet, Seating, Side, TurnOrder};
use crate::board::variant::{VariantDef, VariantError};

/// `players`: the number of players.
pub static PLAYERS: Param = Param {
    key: "players",
    doc: "players, one per face: 2 or an even number up to 2n (multi-party, T8.6)",
    kind: ParamKind::Int {
        min: 2,
        max: 12,
        step: 2,
    },
    default: ParamDefault::Value("2"),
    option: "Players",
};

/// `mode`: who plays against whom.
pub static MODE: Param = Param {
    key: "mode",
    doc: "multi-party convention: every player against every other, two coalitions (w against s), or n independent games wk-sk",
    kind: ParamKind::Choice(&["ffa", "coalition", "independent"]),
    default: ParamDefault::Value("ffa"),
    option: "PartyMode",
};

/// `end`: when a multi-party game ends.
pub static END: Param = Param {
    key: "end",
    doc: "multi-party end: at the first mate (first) or when nothing is left to decide (last)",
    kind: ParamKind::Choice(&["first", "last"]),
    default: ParamDefault::Value("last"),
    option: "PartyEnd",
};

/// `dead`: what happens to an out player's army.
pub static DEAD: Param = Param {
    key: "dead",
    doc: "multi-party: an out player's pieces leave the board (remove) or stay (stay)",
    kind: ParamKind::Choice(&["remove", "stay"]),
    default: ParamDefault::Value("remove"),
    option: "DeadPieces",
};

/// `order`: the turn order inside a coalition.
pub static ORDER: Param = Param {
    key: "order",
    doc: "coalitions: fixed order w1 s1 w2 s2 ... (fixed) or any member of the coalition to move (free)",
    kind: ParamKind::Choice(&["fixed", "free"]),
    default: ParamDefault::Value("fixed"),
    option: "CoalitionOrder",
};

/// `selfcapture`: whether partners' pieces may be captured.
pub static SELF_CAPTURE: Param = Param {
    key: "selfcapture",
    doc: "coalitions: partners' pieces may not be captured (strong) or may (weak)",
    kind: ParamKind::Choice(&["strong", "weak"]),
    default: ParamDefault::Value("strong"),
    option: "SelfCapture",
};

/// `cross`: captures between independent games.
pub static CROSS: Param = Param {
    key: "cross",
    doc: "independent games: whether pieces of the other games may be captured",
    kind: ParamKind::Flag,
    default: ParamDefault::Value("0"),
    option: "CrossCaptures",
};

/// The multi-party settings a spec gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartySpec {
    /// Number of players (even, 4 ≤ P ≤ 2n).
    pub players: usize,
    /// The conventions.
    pub rules: PartyRules,
    /// Coalitions: whether any member of the coalition to move may move.
    pub free_order: bool,
    /// Coalitions: whether partners' pieces may be captured.
    pub weak_self_capture: bool,
    /// Independent games: whether pieces of the other games may be
    /// captured.
    pub cross: bool,
}

impl PartySpec {
    /// The settings of `p` for a board of dimension `n` and edge `l`, or
    /// `None` for a game of two players.
    pub fn of(p: &Values, n: usize, l: usize) -> Result<Option<PartySpec>, VariantError> {
        let players = p.int("players").unwrap_or(2) as usize;
        if players == 2 {
            return Ok(None);
        }
        if players > 2 * n {
            return Err(p.refuse(
                "players",
                &format!("an even number up to 2n = {}: one player per face", 2 * n),
            ));
        }
        let mode = match p.word("mode").unwrap_or("ffa") {
            "coalition" => PartyMode::Coalition,
            "independent" => PartyMode::Independent,
            _ => PartyMode::FreeForAll,
        };
        let spec = PartySpec {
            players,
            rules: PartyRules {
                mode,
                end: if p.word("end") == Some("first") {
                    GameEnd::First
                } else {
                    GameEnd::Last
                },
                dead: if p.word("dead") == Some("stay") {
                    DeadPieces::Stay
                } else {
                    DeadPieces::Remove
                },
            },
            free_order: p.word("order") == Some("free"),
            weak_self_capture: p.word("selfcapture") == Some("weak"),
            cross: p.flag("cross").unwrap_or(false),
        };
        // Only independent games without cross captures keep neighbouring
        // players' pawns apart at l = 8 (the seed's footnote).
        let needs_edge_10 = spec.cross || mode != PartyMode::Independent;
        if needs_edge_10 && l < 10 && !p.for_theory() {
            return Err(p.refuse(
                "l",
                "10 or more with more than two players (at l = 8 the pawns of neighbouring \
                 players attack each other, seed §8.6); l = 8 only for independent games \
                 without cross captures (mode=independent,cross=0)",
            ));
        }
        Ok(Some(spec))
    }

    /// The spec's parameters in canonical form (those of the mode only).
    pub fn canonical(&self) -> String {
        let r = &self.rules;
        let mut s = format!(
            "players={},mode={},end={},dead={}",
            self.players, r.mode, r.end, r.dead
        );
        match r.mode {
            PartyMode::Coalition => s.push_str(&format!(
                ",order={},selfcapture={}",
                if self.free_order { "free" } else { "fixed" },
                if self.weak_self_capture {
                    "weak"
                } else {
                    "strong"
                }
            )),
            PartyMode::Independent => s.push_str(&format!(",cross={}", self.cross as u8)),
            PartyMode::FreeForAll => {}
        }
        s
    }

    /// The seats: w1…w(P/2) then s1…s(P/2), their frames, sides, relations
    /// and turn order.
    pub fn seating(&self, n: usize) -> Seating {
        let half = self.players / 2;
        let is_w = |s: Seat| s.index() < half;
        let axis_of = |s: Seat| s.index() % half;
        let infos: Vec<SeatInfo> = (0..self.players)
            .map(|i| {
                let s = Seat::new(i);
                let k = axis_of(s);
                let sign0 = if is_w(s) { 1 } else { -1 };
                SeatInfo {
                    name: format!("{}{}", if is_w(s) { 'w' } else { 's' }, k + 1),
                    frame: (0..n)
                        .map(|a| ((a + k) % n, if a == 0 { sign0 } else { 1 }))
                        .collect(),
                    side: match self.rules.mode {
                        PartyMode::Coalition => Side(u8::from(!is_w(s))),
                        _ => Side(i as u8),
                    },
                }
            })
            .collect();
        let all = SeatSet::first(self.players);
        let others = |s: Seat| all.difference(SeatSet::single(s));
        let enemies = |s: Seat| -> SeatSet {
            (0..self.players)
                .map(Seat::new)
                .filter(|&o| is_w(o) != is_w(s))
                .collect()
        };
        let (may_capture, checks): (BySeat<SeatSet>, BySeat<SeatSet>) = match self.rules.mode {
            PartyMode::FreeForAll => (
                BySeat::from_fn(self.players, others),
                BySeat::from_fn(self.players, others),
            ),
            PartyMode::Coalition => (
                BySeat::from_fn(self.players, |s| {
                    if self.weak_self_capture {
                        others(s)
                    } else {
                        enemies(s)
                    }
                }),
                BySeat::from_fn(self.players, enemies),
            ),
            PartyMode::Independent => {
                let rel = |s: Seat| match self.rules.partner(s, self.players) {
                    Some(opponent) if !self.cross => SeatSet::single(opponent),
                    _ => others(s),
                };
                (
                    BySeat::from_fn(self.players, rel),
                    BySeat::from_fn(self.players, rel),
                )
            }
        };
        let (order, turn) = match self.rules.mode {
            PartyMode::Coalition => (
                (0..half)
                    .flat_map(|k| [Seat::new(k), Seat::new(half + k)])
                    .collect(),
                if self.free_order {
                    TurnOrder::AnyMemberOfSide
                } else {
                    TurnOrder::Rotate
                },
            ),
            _ => (
                (0..self.players).map(Seat::new).collect(),
                TurnOrder::Rotate,
            ),
        };
        Seating::new(BySeat::from_vec(infos), order, may_capture, checks, turn)
            .expect("invariant: the multi-party relations never relate a seat to itself")
    }

    /// The start position: the two-player start `two` (seat 0 White, seat
    /// 1 Black) mapped onto every seat by the cyclic permutation of the
    /// coordinates.
    pub fn start(
        &self,
        g: &Geometry,
        two: &[(Cell, Piece)],
    ) -> Result<Vec<(Cell, Piece)>, VariantError> {
        let half = self.players / 2;
        let mut start = Vec::new();
        for k in 0..half {
            for &(cell, pc) in two {
                let seat = if piece_seat(pc).index() == 0 {
                    k
                } else {
                    half + k
                };
                let to = g.rotate_axes(cell, k).ok_or_else(|| {
                    VariantError::Definition(
                        "a permuted start cell is off the board (the board is not symmetric \
                         in its axes)"
                            .into(),
                    )
                })?;
                start.push((to, piece(Seat::new(seat), piece_kind(pc))));
            }
        }
        Ok(start)
    }

    /// The promotion cells: the far face (`x_k = l-1` for wk, `x_k = 0`
    /// for sk).
    pub fn promotion_zone(&self, g: &Geometry) -> BySeat<Vec<Cell>> {
        let half = self.players / 2;
        // Every axis has the diamond's edge but axis 1 of the double
        // diamond, which holds the ranks of both copies.
        let l = g.lens()[g.dims() - 1] as i32;
        BySeat::from_fn(self.players, |s| {
            let axis = s.index() % half;
            let far = if s.index() < half { l - 1 } else { 0 };
            (0..g.cell_count())
                .filter(|&c| g.diamond_coord(c, axis) == far)
                .collect()
        })
    }

    /// The definition of the multi-party game on the board of the
    /// two-player definition `two`.
    pub fn definition(&self, two: VariantDef, family: &str) -> Result<VariantDef, VariantError> {
        let n = two.geometry.dims();
        let start = self.start(&two.geometry, &two.start)?;
        let promotion_zone = Some(self.promotion_zone(&two.geometry));
        let mut rules = two.rules;
        rules.party = Some(self.rules);
        Ok(VariantDef {
            name: family.into(),
            spec: format!("{},{}", two.spec, self.canonical()),
            seating: self.seating(n),
            rules,
            start,
            promotion_zone,
            ..two
        })
    }
}
