//! ndchess: a chess engine for boards of any dimension and shape.
//!
//! The modules form layers; each imports only from the layers above it in
//! this list (docs/architecture.md has the map):
//!
//! - [`board`]: geometry, cell sets, variants (pieces, seating, start
//!   positions, rule switches) and the registry that builds them;
//! - [`rules`]: positions, the attack routine, legal move generation,
//!   game end, joint decisions of simultaneous turns, notation;
//! - [`theory`]: the seeds' measures of boards and start positions
//!   (mobility, the T4.2 axioms);
//! - [`eval`]: the mobility-derived evaluation;
//! - [`solve`]: the puzzle solvers and the forced-mate prover (boards and
//!   rules only);
//! - [`tablebase`]: endgame tables by retrograde analysis (boards, rules
//!   and the solvers' symmetry groups);
//! - [`search`]: the alpha-beta search, its transposition table, and the
//!   probes of the endgame tables;
//! - [`engine`]: the searcher as a component (options, threads, a search
//!   thread for front-ends);
//! - [`game`]: one game driver for every front-end (players, clocks,
//!   records);
//! - [`protocol`]: the UCI and XBoard front-ends;
//! - [`gui`]: the web GUI (`ndchess serve`) and SVG diagrams.

pub mod arbiter;
pub mod board;
pub mod engine;
pub mod eval;
pub mod game;
pub mod gui;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod solve;
pub mod tablebase;
pub mod theory;
