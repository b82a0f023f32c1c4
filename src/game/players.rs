//! Players inside the process: the engine's search, and a random mover
//! (openings, tests).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::game::clock::TimeControl;
use crate::rules::moves::Decision;
use crate::search::simultaneous::Strategy;
use crate::search::{Engine, EngineOptions, Limits, SearchControl};

use super::driver::{Eval, Player, PlayerError, Request, Verdict};
use crate::search::score::Score;

/// The engine's own search as a player.
#[derive(Debug)]
pub struct EnginePlayer {
    name: String,
    engine: Engine,
    limits: Limits,
}

impl EnginePlayer {
    /// A player searching with `options` under `limits` (a game's clocks,
    /// when it has some, take the place of the time limits).
    pub fn new(name: impl Into<String>, options: EngineOptions, limits: Limits) -> EnginePlayer {
        EnginePlayer {
            name: name.into(),
            engine: Engine::new(options),
            limits,
        }
    }

    /// The engine.
    pub fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// Seeds the random choices of simultaneous turns (a mixed strategy
    /// is sampled), for reproducible games.
    pub fn with_seed(mut self, seed: u64) -> EnginePlayer {
        self.engine.set_simultaneous_seed(seed);
        self
    }

    /// Plays simultaneous turns with `strategy` instead of the equilibrium
    /// (the sequential baselines of the comparison matches).
    pub fn with_strategy(mut self, strategy: Strategy) -> EnginePlayer {
        self.engine.set_simultaneous_strategy(strategy);
        self
    }
}

impl Player for EnginePlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, _game: &super::Game) -> Result<(), PlayerError> {
        self.engine.new_game();
        Ok(())
    }

    fn decide(&mut self, request: &Request<'_>) -> Result<Verdict, PlayerError> {
        let pos = request.game.position();
        let mut limits = self.limits.clone();
        limits.seat = Some(request.seat);
        if let Some(clock) = request.clock {
            match clock.control() {
                TimeControl::PerMove(d) => limits.movetime = Some(d),
                TimeControl::Clock { inc, .. } => {
                    limits.time = clock.left().values().iter().map(|&t| Some(t)).collect();
                    limits.inc = clock.left().values().iter().map(|_| Some(inc)).collect();
                    limits.movestogo = clock.moves_to_go(request.seat);
                }
            }
        }
        let r = self
            .engine
            .search(pos, &limits, &SearchControl::new(), &mut |_| {});
        let decision = match r.best {
            Some(m) => Decision::Move(m),
            None if r.pass => Decision::Pass,
            None => return Err(PlayerError::Protocol("the search found no move".into())),
        };
        let mut note = format!("{} depth {} nodes {}", r.score, r.depth, r.nodes);
        if let Some((_, p)) = r.strategy.iter().find(|(d, _)| *d == decision) {
            // A sampled decision of a mixed strategy: its probability.
            note += &format!(" p={p:.2}");
        }
        Ok(Verdict {
            decision,
            note: Some(note),
            eval: Some(match r.score {
                Score::Cp(cp) => Eval {
                    cp: Some(cp),
                    mate: None,
                    depth: Some(r.depth),
                },
                // A stalemate win is a decisive score short of mate.
                Score::StalemateWin(n) => Eval {
                    cp: Some(if n > 0 { 50_000 } else { -50_000 }),
                    mate: None,
                    depth: Some(r.depth),
                },
                Score::Mate(n) => Eval {
                    cp: None,
                    mate: Some(if n == 0 { -1 } else { n }),
                    depth: Some(r.depth),
                },
            }),
        })
    }
}

/// A player choosing uniformly among the legal moves (seeded: the same
/// seed gives the same choices).
#[derive(Debug)]
pub struct RandomPlayer {
    rng: StdRng,
}

impl RandomPlayer {
    /// A random player with seed `seed`.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn decide(&mut self, request: &Request<'_>) -> Result<Verdict, PlayerError> {
        let pos = request.game.position();
        if pos.phase() == crate::board::seating::Phase::Exchange {
            // A pass or one of the exchange captures.
            let moves = pos.exchange_moves(request.seat);
            let k = self.rng.random_range(0..=moves.len());
            return Ok(Verdict {
                decision: moves.get(k).map_or(Decision::Pass, |&m| Decision::Move(m)),
                note: Some("random decision".into()),
                eval: None,
            });
        }
        let moves = pos.legal_moves_of(request.seat);
        if moves.is_empty() {
            return Err(PlayerError::Protocol("no legal move".into()));
        }
        let m = moves[self.rng.random_range(0..moves.len())];
        Ok(Verdict {
            decision: Decision::Move(m),
            note: Some("random move".into()),
            eval: None,
        })
    }
}
