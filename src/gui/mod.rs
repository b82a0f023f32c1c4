//! The web GUI: `ndchess serve` (a local HTTP and WebSocket server whose
//! page draws any board and plays the engine) and the SVG diagrams it
//! shares with `ndchess svg` (docs/gui.md).
//!
//! [`svg`] draws positions, [`messages`] is the page's protocol, [`session`]
//! is one person's game without I/O, [`server`] carries sessions over WebSockets and
//! serves the page, whose assets are compiled into the binary.

pub mod messages;
pub mod server;
pub mod session;
pub mod svg;
