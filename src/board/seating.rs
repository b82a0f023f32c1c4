//! Who plays: seats, sides, the relations between seats and the order of
//! turns, as data of a variant.
//!
//! Nothing downstream assumes two players who alternate. A variant's
//! [`Seating`] says how many seats there are and in which order they move,
//! which seat may capture which ([`Seating::may_capture`]) and whose
//! attacks a king must not be left in ([`Seating::gives_check`]) — two
//! relations, because a coalition with the weak self-capture rule lets a
//! player take a partner's piece whose attacks are no check — and how a
//! turn is taken ([`TurnOrder`]): one seat after the other, any member of
//! the side to move, or all seats at once (synchronous chess). A position
//! keeps the current [`Turn`], its [`Phase`] and the seats that are out;
//! [`Seating::next_turn`] computes the turn after a decision.

use std::fmt;
use std::ops::{Index, IndexMut};

/// Largest number of seats a variant may have: the piece encoding gives a
/// seat 16 codes of one byte ([`crate::board::piece::piece`]).
pub const MAX_SEATS: usize = 15;

/// A seat at the board: an index into the variant's seats (0 = the first
/// seat, White in two-player chess).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Seat(u8);

impl Seat {
    /// The first seat (White in two-player chess).
    pub const FIRST: Seat = Seat(0);

    /// The seat with index `i`; `i` must be below [`MAX_SEATS`].
    #[inline(always)]
    pub const fn new(i: usize) -> Seat {
        assert!(i < MAX_SEATS, "seat index out of range");
        Seat(i as u8)
    }

    /// The seat of index `i`, which the caller knows to be below
    /// [`MAX_SEATS`] (checked in debug builds only): for the hot paths
    /// that decode a seat from a valid piece code.
    #[inline(always)]
    pub(crate) const fn new_in_range(i: usize) -> Seat {
        debug_assert!(i < MAX_SEATS, "seat index out of range");
        Seat(i as u8)
    }

    /// The seat's index.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0 + 1)
    }
}

/// A set of seats, one bit per seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SeatSet(u16);

impl SeatSet {
    /// No seat.
    pub const EMPTY: SeatSet = SeatSet(0);

    /// The first `n` seats.
    pub const fn first(n: usize) -> SeatSet {
        SeatSet(((1u32 << n) - 1) as u16)
    }

    /// The set holding `seat` alone.
    #[inline(always)]
    pub const fn single(seat: Seat) -> SeatSet {
        SeatSet(1 << seat.0)
    }

    /// The set's bits (bit `i` for seat `i`).
    #[inline(always)]
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Whether `seat` is a member.
    #[inline(always)]
    pub const fn contains(self, seat: Seat) -> bool {
        self.0 >> seat.0 & 1 != 0
    }

    /// Adds `seat`.
    #[inline(always)]
    pub fn insert(&mut self, seat: Seat) {
        self.0 |= 1 << seat.0;
    }

    /// Removes `seat`.
    #[inline(always)]
    pub fn remove(&mut self, seat: Seat) {
        self.0 &= !(1 << seat.0);
    }

    /// The seats in either set.
    #[inline(always)]
    pub const fn union(self, other: SeatSet) -> SeatSet {
        SeatSet(self.0 | other.0)
    }

    /// The seats in both sets.
    #[inline(always)]
    pub const fn intersection(self, other: SeatSet) -> SeatSet {
        SeatSet(self.0 & other.0)
    }

    /// The seats of `self` not in `other`.
    #[inline(always)]
    pub const fn difference(self, other: SeatSet) -> SeatSet {
        SeatSet(self.0 & !other.0)
    }

    /// Whether the set is empty.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of seats.
    #[inline(always)]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The lowest seat, if any.
    #[inline(always)]
    pub fn lowest(self) -> Option<Seat> {
        (self.0 != 0).then(|| Seat(self.0.trailing_zeros() as u8))
    }

    /// The seats in increasing order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let s = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                Seat(s)
            })
        })
    }
}

impl FromIterator<Seat> for SeatSet {
    fn from_iter<I: IntoIterator<Item = Seat>>(iter: I) -> Self {
        let mut s = SeatSet::EMPTY;
        for seat in iter {
            s.insert(seat);
        }
        s
    }
}

/// One value per seat, indexed by [`Seat`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct BySeat<T>(Vec<T>);

impl<T> BySeat<T> {
    /// The values `f(seat)` for the first `n` seats.
    pub fn from_fn(n: usize, f: impl FnMut(Seat) -> T) -> BySeat<T> {
        BySeat((0..n).map(Seat::new).map(f).collect())
    }

    /// The values in seat order.
    pub fn from_vec(values: Vec<T>) -> BySeat<T> {
        assert!(values.len() <= MAX_SEATS, "more values than seats");
        BySeat(values)
    }

    /// Number of seats.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is no seat.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The seats.
    pub fn seats(&self) -> impl Iterator<Item = Seat> + use<T> {
        // Below MAX_SEATS by the bound (see `Seating::seats`).
        (0..self.0.len().min(MAX_SEATS)).map(|i| Seat(i as u8))
    }

    /// The values in seat order.
    pub fn values(&self) -> &[T] {
        &self.0
    }

    /// The (seat, value) pairs in seat order.
    pub fn iter(&self) -> impl Iterator<Item = (Seat, &T)> {
        self.0.iter().enumerate().map(|(i, v)| (Seat::new(i), v))
    }

    /// The value of `seat`, if the seat exists.
    pub fn get(&self, seat: Seat) -> Option<&T> {
        self.0.get(seat.index())
    }

    /// The value of `seat`, mutably, if the seat exists.
    pub fn get_mut(&mut self, seat: Seat) -> Option<&mut T> {
        self.0.get_mut(seat.index())
    }

    /// The values mapped by `f`.
    pub fn map<U>(&self, mut f: impl FnMut(Seat, &T) -> U) -> BySeat<U> {
        BySeat(self.iter().map(|(s, v)| f(s, v)).collect())
    }
}

impl<T> Index<Seat> for BySeat<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, seat: Seat) -> &T {
        &self.0[seat.index()]
    }
}

impl<T> IndexMut<Seat> for BySeat<T> {
    #[inline(always)]
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        &mut self.0[seat.index()]
    }
}

/// A side: seats that play together (a coalition; in two-player chess each
/// side has one seat).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Side(pub u8);

/// One seat: its name, its orientation on the board and its side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatInfo {
    /// Display name ("white", "black", "w1", …).
    pub name: String,
    /// The seat's frame: canonical axis `i` (axis 0 is the seat's forward
    /// axis) maps to board axis `frame[i].0` with sign `frame[i].1`.
    pub frame: Vec<(usize, i32)>,
    /// The seat's side.
    pub side: Side,
}

impl SeatInfo {
    /// Maps a vector from the seat's frame to the board.
    pub fn orient(&self, v: &[i32]) -> Vec<i32> {
        let mut w = vec![0; v.len()];
        for (i, &(axis, sign)) in self.frame.iter().enumerate() {
            w[axis] = sign * v[i];
        }
        w
    }
}

/// How a turn is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnOrder {
    /// One seat moves at a time, in the seat order, skipping seats that
    /// are out (two-player chess alternates).
    Rotate,
    /// The sides take turns in the order in which their first seat comes
    /// in the seat order; any seat of the side to move may make the move.
    AnyMemberOfSide,
    /// Every seat still in play decides at once; the decisions are
    /// resolved together (synchronous chess).
    Simultaneous,
}

/// Who decides now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// This seat alone moves.
    One(Seat),
    /// Any one seat of the set moves (a coalition's free order).
    AnyOf(SeatSet),
    /// Every seat of the set commits a decision; they are resolved
    /// together.
    All(SeatSet),
}

impl Turn {
    /// The seats that may or must decide.
    #[inline(always)]
    pub fn movers(self) -> SeatSet {
        match self {
            Turn::One(s) => SeatSet::single(s),
            Turn::AnyOf(set) | Turn::All(set) => set,
        }
    }

    /// The seat that moves in a sequential turn, or the lowest mover.
    #[inline(always)]
    pub fn lead(self) -> Seat {
        match self {
            Turn::One(s) => s,
            Turn::AnyOf(set) | Turn::All(set) => set.lowest().unwrap_or_default(),
        }
    }

    /// Whether several seats decide together.
    #[inline(always)]
    pub fn is_simultaneous(self) -> bool {
        matches!(self, Turn::All(_))
    }
}

/// The phase of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Phase {
    /// The ordinary decision of a turn.
    #[default]
    Main,
    /// A follow-up within the same turn: synchronous chess's exchange
    /// phase, in which only captures on contested cells (or passes) are
    /// decided.
    Exchange,
}

/// Errors building a seating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatingError {
    /// No seats, or more than [`MAX_SEATS`].
    SeatCount(usize),
    /// The seat order is not a permutation of the seats.
    Order,
    /// A relation table has the wrong size or relates a seat to itself.
    Relation(&'static str),
}

impl fmt::Display for SeatingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeatingError::SeatCount(n) => {
                write!(f, "{n} seats: a variant has 1 to {MAX_SEATS}")
            }
            SeatingError::Order => write!(f, "the seat order must list every seat once"),
            SeatingError::Relation(which) => write!(
                f,
                "the '{which}' relation needs one entry per seat and never relates a seat to itself"
            ),
        }
    }
}

impl std::error::Error for SeatingError {}

/// The seats of a variant and the rules between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seating {
    seats: BySeat<SeatInfo>,
    order: Vec<Seat>,
    /// `may_capture[a]`: the seats whose pieces `a` may capture.
    may_capture: BySeat<SeatSet>,
    /// `checkers[k]`: the seats whose attacks on `k`'s king are check.
    checkers: BySeat<SeatSet>,
    turn: TurnOrder,
    /// Two seats that take turns in index order (chess): the case
    /// [`Seating::next_turn`] answers first.
    alternating_pair: bool,
}

impl Seating {
    /// A seating from its parts. `may_capture[a]` lists the seats whose
    /// pieces seat `a` may capture; `checked_by[k]` the seats whose attacks
    /// on seat `k`'s king count as check.
    pub fn new(
        seats: BySeat<SeatInfo>,
        order: Vec<Seat>,
        may_capture: BySeat<SeatSet>,
        checked_by: BySeat<SeatSet>,
        turn: TurnOrder,
    ) -> Result<Seating, SeatingError> {
        let n = seats.len();
        if n == 0 || n > MAX_SEATS {
            return Err(SeatingError::SeatCount(n));
        }
        let mut sorted = order.clone();
        sorted.sort_unstable();
        if sorted != (0..n).map(Seat::new).collect::<Vec<_>>() {
            return Err(SeatingError::Order);
        }
        for (name, rel) in [("may capture", &may_capture), ("gives check", &checked_by)] {
            if rel.len() != n || rel.iter().any(|(s, set)| set.contains(s)) {
                return Err(SeatingError::Relation(name));
            }
            if rel.values().iter().any(|set| set.bits() >> n != 0) {
                return Err(SeatingError::Relation(name));
            }
        }
        let alternating_pair = n == 2 && turn == TurnOrder::Rotate && order[0] == Seat::FIRST;
        Ok(Seating {
            seats,
            order,
            may_capture,
            checkers: checked_by,
            turn,
            alternating_pair,
        })
    }

    /// Seats on different sides are enemies: each may capture the other's
    /// pieces and gives it check; `turn` says how turns are taken.
    pub fn by_sides(seats: BySeat<SeatInfo>, turn: TurnOrder) -> Result<Seating, SeatingError> {
        let n = seats.len();
        let enemies = BySeat::from_fn(n, |a| {
            (0..n)
                .map(Seat::new)
                .filter(|&b| seats[b].side != seats[a].side)
                .collect::<SeatSet>()
        });
        let order = (0..n).map(Seat::new).collect();
        Seating::new(seats, order, enemies.clone(), enemies, turn)
    }

    /// Two seats facing each other along axis 1 ("white" moves first;
    /// "black" is mirrored on the axes of `mirror`) who alternate.
    pub fn two_players(dims: usize, mirror: &[usize]) -> Seating {
        let white = SeatInfo {
            name: "white".into(),
            frame: (0..dims).map(|a| (a, 1)).collect(),
            side: Side(0),
        };
        let black = SeatInfo {
            name: "black".into(),
            frame: (0..dims)
                .map(|a| (a, if mirror.contains(&a) { -1 } else { 1 }))
                .collect(),
            side: Side(1),
        };
        Seating::by_sides(BySeat::from_vec(vec![white, black]), TurnOrder::Rotate)
            .expect("invariant: two seats on two sides form a valid seating")
    }

    /// Number of seats.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.seats.len()
    }

    /// Whether there are no seats (never true of a built seating).
    pub fn is_empty(&self) -> bool {
        self.seats.is_empty()
    }

    /// Every seat.
    #[inline(always)]
    pub fn all(&self) -> SeatSet {
        SeatSet::first(self.seats.len())
    }

    /// The seats in index order.
    pub fn seats(&self) -> impl Iterator<Item = Seat> + use<> {
        // Each index is below MAX_SEATS by the bound, so the seats are
        // made without `Seat::new`'s check (the evaluation walks the seats
        // many times per position).
        (0..self.seats.len().min(MAX_SEATS)).map(|i| Seat(i as u8))
    }

    /// A seat's description.
    #[inline(always)]
    pub fn info(&self, seat: Seat) -> &SeatInfo {
        &self.seats[seat]
    }

    /// A seat's name.
    pub fn name(&self, seat: Seat) -> &str {
        &self.seats[seat].name
    }

    /// The seat order.
    pub fn order(&self) -> &[Seat] {
        &self.order
    }

    /// Whether two seats take turns, the first seat first (chess).
    #[inline(always)]
    pub fn is_alternating_pair(&self) -> bool {
        self.alternating_pair
    }

    /// How turns are taken.
    pub fn turn_order(&self) -> TurnOrder {
        self.turn
    }

    /// Whether seat `a` may capture the pieces of seat `b`.
    #[inline(always)]
    pub fn may_capture(&self, a: Seat, b: Seat) -> bool {
        self.may_capture[a].contains(b)
    }

    /// The seats whose pieces `a` may capture.
    #[inline(always)]
    pub fn capturable_by(&self, a: Seat) -> SeatSet {
        self.may_capture[a]
    }

    /// Whether the attacks of seat `attacker` on seat `king`'s king are
    /// check (a move may not leave one's king in them).
    #[inline(always)]
    pub fn gives_check(&self, attacker: Seat, king: Seat) -> bool {
        self.checkers[king].contains(attacker)
    }

    /// The seats whose attacks on `king`'s king are check.
    #[inline(always)]
    pub fn checkers_of(&self, king: Seat) -> SeatSet {
        self.checkers[king]
    }

    /// Whether `a` and `b` play on the same side.
    pub fn same_side(&self, a: Seat, b: Seat) -> bool {
        self.seats[a].side == self.seats[b].side
    }

    /// The seats on `seat`'s side (itself included).
    pub fn side_of(&self, seat: Seat) -> SeatSet {
        self.seats().filter(|&s| self.same_side(s, seat)).collect()
    }

    /// The turn that starts a game in which the seats of `out` do not
    /// play.
    pub fn first_turn(&self, out: SeatSet) -> Turn {
        let live = self.all().difference(out);
        match self.turn {
            TurnOrder::Rotate => Turn::One(
                self.order
                    .iter()
                    .copied()
                    .find(|&s| live.contains(s))
                    .unwrap_or(self.order[0]),
            ),
            TurnOrder::AnyMemberOfSide => {
                let first = self
                    .order
                    .iter()
                    .copied()
                    .find(|&s| live.contains(s))
                    .unwrap_or(self.order[0]);
                Turn::AnyOf(self.side_of(first).intersection(live))
            }
            TurnOrder::Simultaneous => Turn::All(live),
        }
    }

    /// The turn that `seat` leads, the seats of `out` being out of play:
    /// `seat` alone, its side's seats in play, or every seat in play, as
    /// the turn order says (what a position text's side field means).
    pub fn turn_led_by(&self, seat: Seat, out: SeatSet) -> Turn {
        let live = self.all().difference(out);
        match self.turn {
            TurnOrder::Rotate => Turn::One(seat),
            TurnOrder::AnyMemberOfSide => Turn::AnyOf(self.side_of(seat).intersection(live)),
            TurnOrder::Simultaneous => Turn::All(live),
        }
    }

    /// The turn after `mover` decided in `turn`, the seats of `out` being
    /// out of play (a seat that went out on this move included).
    #[inline]
    pub fn next_turn(&self, turn: Turn, mover: Seat, out: SeatSet) -> Turn {
        // The common case: two seats alternating.
        if self.alternating_pair && out.is_empty() {
            return Turn::One(Seat(1 - mover.0));
        }
        let live = self.all().difference(out);
        match self.turn {
            TurnOrder::Rotate => {
                let at = self.order.iter().position(|&s| s == mover).unwrap_or(0);
                let n = self.order.len();
                let next = (1..=n)
                    .map(|k| self.order[(at + k) % n])
                    .find(|&s| live.contains(s))
                    .unwrap_or(mover);
                Turn::One(next)
            }
            TurnOrder::AnyMemberOfSide => {
                // The next side in order (after the mover's) with a seat in play.
                let at = self.order.iter().position(|&s| s == mover).unwrap_or(0);
                let n = self.order.len();
                let side = self.seats[mover].side;
                let next = (1..=n)
                    .map(|k| self.order[(at + k) % n])
                    .find(|&s| live.contains(s) && self.seats[s].side != side)
                    .unwrap_or(mover);
                Turn::AnyOf(self.side_of(next).intersection(live))
            }
            TurnOrder::Simultaneous => {
                let _ = turn;
                Turn::All(live)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(name: &str, side: u8) -> SeatInfo {
        SeatInfo {
            name: name.into(),
            frame: vec![(0, 1), (1, 1)],
            side: Side(side),
        }
    }

    #[test]
    fn two_players_alternate() {
        let s = Seating::two_players(2, &[0]);
        let (w, b) = (Seat::new(0), Seat::new(1));
        assert_eq!(s.first_turn(SeatSet::EMPTY), Turn::One(w));
        assert_eq!(s.next_turn(Turn::One(w), w, SeatSet::EMPTY), Turn::One(b));
        assert_eq!(s.next_turn(Turn::One(b), b, SeatSet::EMPTY), Turn::One(w));
        assert!(s.may_capture(w, b) && s.gives_check(b, w) && !s.may_capture(w, w));
        assert_eq!(s.info(b).orient(&[1, 1]), vec![-1, 1]);
    }

    #[test]
    fn rotation_skips_seats_that_are_out() {
        let seats = BySeat::from_vec(vec![seat("a", 0), seat("b", 1), seat("c", 2)]);
        let s = Seating::by_sides(seats, TurnOrder::Rotate).unwrap();
        let [a, b, c] = [0, 1, 2].map(Seat::new);
        let mut out = SeatSet::EMPTY;
        assert_eq!(s.next_turn(Turn::One(a), a, out), Turn::One(b));
        out.insert(b);
        assert_eq!(s.next_turn(Turn::One(a), a, out), Turn::One(c));
        assert_eq!(s.next_turn(Turn::One(c), c, out), Turn::One(a));
        assert_eq!(s.first_turn(SeatSet::single(a)), Turn::One(b));
    }

    #[test]
    fn coalitions_and_simultaneous_turns() {
        let seats = BySeat::from_vec(vec![
            seat("w1", 0),
            seat("s1", 1),
            seat("w2", 0),
            seat("s2", 1),
        ]);
        let s = Seating::by_sides(seats.clone(), TurnOrder::AnyMemberOfSide).unwrap();
        let [w1, s1, w2, s2] = [0, 1, 2, 3].map(Seat::new);
        let whites: SeatSet = [w1, w2].into_iter().collect();
        let blacks: SeatSet = [s1, s2].into_iter().collect();
        assert_eq!(s.first_turn(SeatSet::EMPTY), Turn::AnyOf(whites));
        assert_eq!(
            s.next_turn(Turn::AnyOf(whites), w2, SeatSet::EMPTY),
            Turn::AnyOf(blacks)
        );
        assert!(!s.may_capture(w1, w2) && s.may_capture(w1, s2));
        let sim = Seating::by_sides(seats, TurnOrder::Simultaneous).unwrap();
        let all = SeatSet::first(4);
        assert_eq!(sim.first_turn(SeatSet::EMPTY), Turn::All(all));
        assert_eq!(
            sim.next_turn(Turn::All(all), w1, SeatSet::single(s2)),
            Turn::All(all.difference(SeatSet::single(s2)))
        );
    }

    #[test]
    fn bad_seatings_are_refused() {
        let seats = BySeat::from_vec(vec![seat("a", 0), seat("b", 1)]);
        let rel = BySeat::from_fn(2, SeatSet::single);
        let order = vec![Seat::new(0), Seat::new(1)];
        assert!(
            Seating::new(
                seats.clone(),
                order.clone(),
                rel.clone(),
                rel,
                TurnOrder::Rotate
            )
            .is_err()
        );
        let ok = BySeat::from_fn(2, |s| SeatSet::single(Seat::new(1 - s.index())));
        assert_eq!(
            Seating::new(
                seats.clone(),
                vec![Seat::new(0)],
                ok.clone(),
                ok.clone(),
                TurnOrder::Rotate
            ),
            Err(SeatingError::Order)
        );
        assert!(Seating::new(seats, order, ok.clone(), ok, TurnOrder::Rotate).is_ok());
        assert_eq!(
            Seating::by_sides(BySeat::from_vec(vec![]), TurnOrder::Rotate),
            Err(SeatingError::SeatCount(0))
        );
    }
}
