//! Openings: where each game starts. Position files (EPD/FEN lines, or the
//! position text of docs/notation.md for any board), PGN games (their moves
//! up to a ply limit), or random legal plies from the start position,
//! drawn with a seed so that every run and every shard plays the same.

use std::fmt;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

use crate::board::variant::Variant;
use crate::game::record::Game;
use crate::rules::moves::Move;
use crate::rules::position::Position;

use super::pgn;

/// An opening: a start position and the moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The start position's text.
    pub start: String,
    /// Moves in coordinates.
    pub moves: Vec<String>,
}

/// Where openings come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningSource {
    /// The variant's start position.
    Start,
    /// `plies` random legal plies from the start (seeded per opening).
    Random {
        /// Plies to play.
        plies: usize,
    },
    /// A file.
    File {
        /// Its path.
        path: std::path::PathBuf,
        /// `epd` (also FEN and position texts, one per line) or `pgn`.
        format: FileFormat,
        /// At most this many plies of a PGN game.
        plies: Option<usize>,
    },
}

/// The kind of an opening file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// One position per line: EPD, FEN, or any board's position text.
    Epd,
    /// PGN games.
    Pgn,
}

/// The order openings are used in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// As in the file.
    Sequential,
    /// Shuffled once with the run's seed.
    Random,
}

/// Why openings could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningError {
    /// The file could not be read.
    Io(String),
    /// A line or game of the file is not an opening of the variant.
    Bad {
        /// Where (line or game number, 1-based).
        at: usize,
        /// What is wrong.
        what: String,
    },
    /// The file holds no opening.
    Empty,
}

impl fmt::Display for OpeningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningError::Io(e) => write!(f, "cannot read the openings: {e}"),
            OpeningError::Bad { at, what } => write!(f, "opening {at}: {what}"),
            OpeningError::Empty => write!(f, "the opening file holds no opening"),
        }
    }
}

impl std::error::Error for OpeningError {}

impl Opening {
    /// The game this opening starts.
    pub fn game(&self, v: &Arc<Variant>) -> Result<Game, OpeningError> {
        let bad = |what: String| OpeningError::Bad { at: 0, what };
        let start = Position::from_text(v, &self.start).map_err(|e| bad(e.to_string()))?;
        let moves: Vec<&str> = self.moves.iter().map(String::as_str).collect();
        Game::from_moves(start, &moves).map_err(|(i, e)| bad(format!("move {}: {e}", i + 1)))
    }
}

/// Reads an EPD/FEN line: four FEN fields and EPD operations are
/// completed with the move counters; other boards' texts are taken whole.
fn epd_position(v: &Arc<Variant>, line: &str) -> Result<Position, String> {
    let body = line.split(';').next().unwrap_or("").trim();
    if let Ok(p) = Position::from_text(v, body) {
        return Ok(p);
    }
    let fields: Vec<&str> = body.split_whitespace().collect();
    if fields.len() >= 4 {
        let fen = format!("{} 0 1", fields[..4].join(" "));
        return Position::from_text(v, &fen).map_err(|e| e.to_string());
    }
    Position::from_text(v, body).map_err(|e| e.to_string())
}

/// Loads the openings of a source (in file order).
pub fn load(source: &OpeningSource, v: &Arc<Variant>) -> Result<Vec<Opening>, OpeningError> {
    let start = Position::start(v).to_text();
    match source {
        OpeningSource::Start | OpeningSource::Random { .. } => Ok(vec![Opening {
            start,
            moves: Vec::new(),
        }]),
        OpeningSource::File {
            path,
            format,
            plies,
        } => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| OpeningError::Io(format!("{}: {e}", path.display())))?;
            let mut out = Vec::new();
            match format {
                FileFormat::Epd => {
                    for (i, line) in text.lines().enumerate() {
                        let t = line.trim();
                        if t.is_empty() || t.starts_with('#') {
                            continue;
                        }
                        let p = epd_position(v, t)
                            .map_err(|what| OpeningError::Bad { at: i + 1, what })?;
                        if p.outcome().is_some() {
                            return Err(OpeningError::Bad {
                                at: i + 1,
                                what: "the game is over in this position".into(),
                            });
                        }
                        out.push(Opening {
                            start: p.to_text(),
                            moves: Vec::new(),
                        });
                    }
                }
                FileFormat::Pgn => {
                    for (i, g) in pgn::read_games(&text).into_iter().enumerate() {
                        let g = g.map_err(|e| OpeningError::Bad {
                            at: i + 1,
                            what: e.to_string(),
                        })?;
                        if g.start.variant().spec != v.spec {
                            return Err(OpeningError::Bad {
                                at: i + 1,
                                what: format!(
                                    "a game of {}, not {}",
                                    g.start.variant().spec,
                                    v.spec
                                ),
                            });
                        }
                        let n = plies.unwrap_or(usize::MAX).min(g.moves.len());
                        let mut pos = g.start.clone();
                        let mut moves = Vec::new();
                        for m in &g.moves[..n] {
                            moves.push(pos.move_text(*m, pos.king_takes_rook()));
                            pos.make(*m);
                        }
                        if pos.outcome().is_some() {
                            return Err(OpeningError::Bad {
                                at: i + 1,
                                what: "the game is over after the opening".into(),
                            });
                        }
                        out.push(Opening {
                            start: g.start.to_text(),
                            moves,
                        });
                    }
                }
            }
            if out.is_empty() {
                return Err(OpeningError::Empty);
            }
            Ok(out)
        }
    }
}

/// `plies` random legal plies from the start that do not end the game,
/// drawn with `seed`.
pub fn random_opening(v: &Arc<Variant>, plies: usize, seed: u64) -> Opening {
    let mut rng = StdRng::seed_from_u64(seed);
    let start = Position::start(v);
    // A few attempts: a random line that ends the game is drawn again.
    for _ in 0..100 {
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for _ in 0..plies {
            let legal: Vec<Move> = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.random_range(0..legal.len())];
            moves.push(pos.move_text(m, pos.king_takes_rook()));
            pos.make(m);
        }
        if moves.len() == plies && pos.outcome().is_none() {
            return Opening {
                start: start.to_text(),
                moves,
            };
        }
    }
    Opening {
        start: start.to_text(),
        moves: Vec::new(),
    }
}

/// The openings in the order the run uses them.
pub fn ordered(mut openings: Vec<Opening>, order: Order, seed: u64) -> Vec<Opening> {
    if order == Order::Random {
        let mut rng = StdRng::seed_from_u64(seed);
        openings.shuffle(&mut rng);
    }
    openings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry;

    #[test]
    fn random_openings_are_reproducible_and_legal() {
        for spec in ["chess", "cube", "diamond:n=3"] {
            let v = registry::build(spec).unwrap();
            let a = random_opening(&v, 6, 7);
            assert_eq!(a, random_opening(&v, 6, 7));
            assert_eq!(a.moves.len(), 6);
            let g = a.game(&v).unwrap();
            assert_eq!(g.plies().len(), 6);
        }
    }

    #[test]
    fn epd_lines_with_four_fields_and_operations() {
        let v = registry::build("chess").unwrap();
        let p = epd_position(
            &v,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"x\";",
        )
        .unwrap();
        assert_eq!(
            p.to_text(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        assert!(epd_position(&v, "garbage").is_err());
    }
}
