//! The search: limits, threads, scores and game results, tactics from
//! published suites, endgames played out.
//!
//! One test binary per layer (linking the library once, not once per
//! file): run one part with `cargo test --release --test engine <name>`.

mod multiparty_search;
#[path = "../reference/mod.rs"]
mod reference;
mod search;
mod search_endgames;
mod simultaneous_search;
mod tactics;
mod tuning;
