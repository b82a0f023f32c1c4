//! The protocol front-ends: UCI and XBoard dialogues, their documented
//! transcripts, fuzzing, the hosts' configurations (PolyGlot, cutechess).
//! The games under time controls — python-chess (`tests/python_chess.rs`)
//! and the xboard GUI (`tests/xboard_gui.rs`) — have binaries of their
//! own, so that no other test runs beside them.
//!
//! One test binary per layer (linking the library once, not once per
//! file): run one part with `cargo test --release --test protocol <name>`.

mod fuzz_support;
mod uci_dialogue;
mod uci_docs;
mod uci_fuzz;
mod uci_hosts;
mod uci_multiparty;
mod uci_support;
mod xboard_dialogue;
mod xboard_docs;
mod xboard_fuzz;
