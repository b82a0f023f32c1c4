//! The rules of play: start positions and their axioms, perft against
//! published tables, the reference generator and shakmaty, the fast
//! backend against the generic one, the turn model on toy variants, the
//! cube, notation.
//!
//! One test binary per layer (linking the library once, not once per
//! file): run one part with `cargo test --release --test rules <name>`.

mod axioms;
mod cube;
mod cube_cli;
mod fast_path;
mod model;
mod multiparty_agreement;
mod multiparty_rules;
mod notation_docs;
mod perft_suites;
mod perft_units;
mod perft_variants;
#[path = "../reference/mod.rs"]
mod reference;
mod reference_agreement;
mod reference_selftest;
mod shakmaty_agreement;
mod synchronous_agreement;
mod synchronous_rules;
mod variant_file;
