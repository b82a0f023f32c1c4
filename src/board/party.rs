//! Multi-party rules (seed 000 §8.6 and §8.7.4, RULES §2.6): what happens
//! when a seat goes out of a game of more than two players, and which of
//! the seed's conventions is in force.
//!
//! The seating ([`super::seating`]) already says who may capture whom and
//! whose attacks are check; what it cannot say is how a game of many
//! players ends: at the first mate or when one player is left, whether an
//! out player's army leaves the board, and — for the seed's independent
//! games — that the opponent of a player who went out leaves with it. A
//! variant with [`PartyRules`] keeps, in its positions, the [`Fates`] of
//! the seats that are out; the scoring lives with the other results in
//! `crate::rules::outcome`.

use std::fmt;

use super::seating::{Seat, SeatSet};

/// Who plays against whom (the seed's three conventions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PartyMode {
    /// Every player against every other ("jeder gegen jeden").
    FreeForAll,
    /// Two coalitions: the players of the w faces against those of the s
    /// faces ("Bildung von Koalitionen").
    Coalition,
    /// n games wk against sk on one board ("Unabhängigkeit der
    /// Raumrichtungen").
    Independent,
}

/// When the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameEnd {
    /// At the first player (coalition member, game) that is decided.
    First,
    /// When nothing is left to decide: one player (coalition) is left, or
    /// every independent game has ended.
    Last,
}

/// What happens to the army of a player who is out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeadPieces {
    /// Its pieces leave the board.
    Remove,
    /// Its pieces stay where they are: they never move again, may be
    /// captured as before, and their attacks still count (the binding
    /// rule forbids leaving one's king attacked by any piece of a player
    /// one may capture).
    Stay,
}

/// The multi-party conventions of a variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PartyRules {
    /// Who plays against whom.
    pub mode: PartyMode,
    /// When the game ends.
    pub end: GameEnd,
    /// What happens to an out player's army.
    pub dead: DeadPieces,
}

/// How a seat left the game, which decides its score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fate {
    /// Mated, or its king captured: 0.
    Lost,
    /// Stalemated, or its independent game drawn: ½.
    Drawn,
    /// Won its independent game (the opponent went out): 1.
    Won,
}

/// The fates of the seats that are out, one set per [`Fate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fates {
    /// Seats out with a loss.
    pub lost: SeatSet,
    /// Seats out with a draw.
    pub drawn: SeatSet,
    /// Seats out with a win.
    pub won: SeatSet,
}

impl Fates {
    /// Records `seat`'s fate.
    pub fn set(&mut self, seat: Seat, fate: Fate) {
        self.lost.remove(seat);
        self.drawn.remove(seat);
        self.won.remove(seat);
        match fate {
            Fate::Lost => self.lost.insert(seat),
            Fate::Drawn => self.drawn.insert(seat),
            Fate::Won => self.won.insert(seat),
        }
    }

    /// `seat`'s fate, if it is out.
    pub fn of(&self, seat: Seat) -> Option<Fate> {
        if self.lost.contains(seat) {
            Some(Fate::Lost)
        } else if self.drawn.contains(seat) {
            Some(Fate::Drawn)
        } else if self.won.contains(seat) {
            Some(Fate::Won)
        } else {
            None
        }
    }

    /// The seats with a fate.
    pub fn seats(&self) -> SeatSet {
        self.lost.union(self.drawn).union(self.won)
    }
}

impl Fate {
    /// The letter of the fate in position texts (`-` lost, `=` drawn, `+`
    /// won).
    pub fn symbol(self) -> char {
        match self {
            Fate::Lost => '-',
            Fate::Drawn => '=',
            Fate::Won => '+',
        }
    }

    /// The fate a position-text letter names.
    pub fn from_symbol(c: char) -> Option<Fate> {
        match c {
            '-' => Some(Fate::Lost),
            '=' => Some(Fate::Drawn),
            '+' => Some(Fate::Won),
            _ => None,
        }
    }
}

impl PartyRules {
    /// The seat that leaves the game with `seat` (its opponent in an
    /// independent game: wk with sk), for a variant of `seats` seats whose
    /// first half are the w seats.
    pub fn partner(&self, seat: Seat, seats: usize) -> Option<Seat> {
        (self.mode == PartyMode::Independent).then(|| Seat::new((seat.index() + seats / 2) % seats))
    }

    /// The fates after `seat` goes out with `fate` (its independent
    /// game's opponent leaving with it, with the opposite fate); `seats`
    /// is the variant's seat count. The seats out of a multi-party game
    /// are exactly those with a fate ([`Fates::seats`]).
    pub fn go_out(&self, fates: Fates, seat: Seat, fate: Fate, seats: usize) -> Fates {
        let mut fates = fates;
        if fates.of(seat).is_some() {
            return fates;
        }
        fates.set(seat, fate);
        if let Some(p) = self.partner(seat, seats)
            && fates.of(p).is_none()
        {
            let other = match fate {
                Fate::Lost => Fate::Won,
                Fate::Won => Fate::Lost,
                Fate::Drawn => Fate::Drawn,
            };
            fates.set(p, other);
        }
        fates
    }
}

impl fmt::Display for PartyMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PartyMode::FreeForAll => "ffa",
            PartyMode::Coalition => "coalition",
            PartyMode::Independent => "independent",
        })
    }
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameEnd::First => "first",
            GameEnd::Last => "last",
        })
    }
}

impl fmt::Display for DeadPieces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeadPieces::Remove => "remove",
            DeadPieces::Stay => "stay",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_independent_game_takes_both_players_out() {
        let rules = PartyRules {
            mode: PartyMode::Independent,
            end: GameEnd::Last,
            dead: DeadPieces::Remove,
        };
        // Six seats w1 w2 w3 s1 s2 s3: w2 (1) plays s2 (4).
        let fates = rules.go_out(Fates::default(), Seat::new(4), Fate::Lost, 6);
        assert_eq!(fates.seats(), [1, 4].into_iter().map(Seat::new).collect());
        assert_eq!(fates.of(Seat::new(1)), Some(Fate::Won));
        assert_eq!(fates.of(Seat::new(4)), Some(Fate::Lost));
        let ffa = PartyRules {
            mode: PartyMode::FreeForAll,
            ..rules
        };
        let fates = ffa.go_out(Fates::default(), Seat::new(4), Fate::Drawn, 6);
        assert_eq!(fates.seats(), SeatSet::single(Seat::new(4)));
        assert_eq!(fates.of(Seat::new(4)), Some(Fate::Drawn));
        assert_eq!(fates.of(Seat::new(1)), None);
    }
}
