//! Notation: position texts (FEN generalised to any board), moves in ASCII
//! coordinates for the protocols, the seeds' long and short move notation,
//! and text diagrams (docs/notation.md).

pub mod coord;
pub mod diagram;
pub mod joint;
pub mod san;
pub mod text;
pub mod variant_file;

pub use coord::MoveError;
pub use diagram::diagram;
pub use text::{MAX_COUNTER, layout, position_from_text, position_to_text};
