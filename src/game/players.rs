//! Players inside the process: the engine's search, and a random mover
//! (openings, tests).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::game::clock::TimeControl;
use crate::rules::moves::Decision;
use crate::search::simultaneous::{SimLimits, SimSearcher, Strategy};
use crate::search::{Engine, EngineOptions, Limits, SearchControl};

use super::driver::{Eval, Player, PlayerError, Request, Verdict};
use crate::search::score::Score;

/// The engine's own search as a player.
#[derive(Debug)]
pub struct EnginePlayer {
    name: String,
    engine: Engine,
    limits: Limits,
    /// The simultaneous-move search, for simultaneous turns (built on
    /// first use, per variant).
    sim: Option<(String, SimSearcher)>,
    /// Seed of the simultaneous search's random choices.
    seed: u64,
    /// How the simultaneous search chooses (comparison matches).
    strategy: Strategy,
}

impl EnginePlayer {
    /// A player searching with `options` under `limits` (a game's clocks,
    /// when it has some, take the place of the time limits).
    pub fn new(name: impl Into<String>, options: EngineOptions, limits: Limits) -> EnginePlayer {
        EnginePlayer {
            name: name.into(),
            engine: Engine::new(options),
            limits,
            sim: None,
            seed: 0,
            strategy: Strategy::Equilibrium,
        }
    }

    /// The engine.
    pub fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// Seeds the random choices of simultaneous turns (a mixed strategy
    /// is sampled), for reproducible games.
    pub fn with_seed(mut self, seed: u64) -> EnginePlayer {
        self.seed = seed;
        self.sim = None;
        self
    }

    /// Plays simultaneous turns with `strategy` instead of the equilibrium
    /// (the sequential baselines of the comparison matches).
    pub fn with_strategy(mut self, strategy: Strategy) -> EnginePlayer {
        self.strategy = strategy;
        self
    }

    /// A simultaneous turn: the matrix-game search, the decision sampled
    /// from the seat's equilibrium strategy.
    fn decide_simultaneous(&mut self, request: &Request<'_>) -> Result<Verdict, PlayerError> {
        let pos = request.game.position();
        let v = pos.variant().clone();
        if self.sim.as_ref().is_none_or(|(spec, _)| *spec != v.spec) {
            let eval = self.engine.evaluator(&v);
            self.sim = Some((v.spec.clone(), SimSearcher::new(eval, self.seed)));
        }
        let (_, sim) = self.sim.as_mut().expect("invariant: built above");
        sim.set_strategy(self.strategy, request.seat);
        sim.set_threads(self.engine.options().threads);
        let mut time = self.limits.movetime;
        if let Some(clock) = request.clock {
            time = Some(match clock.control() {
                TimeControl::PerMove(d) => d,
                TimeControl::Clock { inc, .. } => {
                    let left = clock.left()[request.seat];
                    left / 30 + inc * 3 / 4
                }
            });
        }
        let limits = SimLimits {
            depth: self.limits.depth,
            nodes: self.limits.nodes,
            time,
        };
        let r = sim
            .search(pos, &limits, &SearchControl::new(), &mut |_| {})
            .ok_or_else(|| PlayerError::Protocol("no decision: the game is over".into()))?;
        let decision = sim
            .choose(&r, request.seat)
            .ok_or_else(|| PlayerError::Protocol("the seat does not decide now".into()))?;
        let p = r
            .strategy(request.seat)
            .and_then(|s| s.iter().find(|d| d.decision == decision))
            .map_or(1.0, |d| d.probability);
        // The value from the deciding seat's point of view.
        let own = if request.seat.index() == 0 {
            r.value
        } else {
            -r.value
        };
        let cp = own.round().clamp(-1e6, 1e6) as i32;
        Ok(Verdict {
            decision,
            note: Some(format!(
                "value {cp} depth {} nodes {} p={p:.2}",
                r.depth, r.nodes
            )),
            eval: Some(Eval {
                cp: Some(cp.clamp(-50_000, 50_000)),
                mate: None,
                depth: Some(r.depth),
            }),
        })
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
        if pos.turn().is_simultaneous() {
            return self.decide_simultaneous(request);
        }
        let mut limits = self.limits.clone();
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
        let m = r
            .best
            .ok_or_else(|| PlayerError::Protocol("the search found no move".into()))?;
        Ok(Verdict {
            decision: Decision::Move(m),
            note: Some(format!("{} depth {} nodes {}", r.score, r.depth, r.nodes)),
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
