//! The command-line subcommands: the binary's front-end over the library,
//! one file per kind of work (inspecting boards and rules, searching,
//! playing). `main.rs` only wires them to clap.

pub mod arbiter;
pub mod gui;
pub mod inspect;
pub mod play;
pub mod search;
pub mod solve;
pub mod tablebase;
pub mod tune;

use std::fmt;
use std::sync::Arc;

use clap::Args;

use ndchess::board::variant::{Variant, VariantError};
use ndchess::rules::position::{Position, PositionError};

/// Variant selection shared by the subcommands.
#[derive(Args, Debug, Clone)]
pub struct VariantArgs {
    /// Variant spec `name[:key=value,…]`, e.g. `chess960:sp=518`,
    /// `diamond:n=4,l=10`.
    #[arg(long, short, default_value = "chess")]
    pub variant: String,
    /// Extra variant parameter `key=value` (repeatable), appended to the spec.
    #[arg(long = "param", short = 'p')]
    pub params: Vec<String>,
    /// Position text (FEN on 2-D boards); the start position if absent.
    #[arg(long)]
    pub fen: Option<String>,
}

/// Errors of the subcommands.
#[derive(Debug)]
pub enum CommandError {
    /// Bad variant spec.
    Variant(VariantError),
    /// Bad position text.
    Position(PositionError),
    /// Anything else (thread pool, output).
    Other(String),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Variant(e) => write!(f, "variant: {e}"),
            CommandError::Position(e) => write!(f, "position: {e}"),
            CommandError::Other(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CommandError {}

impl VariantArgs {
    /// The full spec string.
    pub fn spec(&self) -> String {
        let mut spec = self.variant.clone();
        for (i, p) in self.params.iter().enumerate() {
            spec.push(if i == 0 && !self.variant.contains(':') {
                ':'
            } else {
                ','
            });
            spec.push_str(p);
        }
        spec
    }

    /// Builds the variant and the position.
    pub fn load(&self) -> Result<(Arc<Variant>, Position), CommandError> {
        let v = Variant::from_spec(&self.spec()).map_err(CommandError::Variant)?;
        let pos = match &self.fen {
            Some(f) => Position::from_text(&v, f).map_err(CommandError::Position)?,
            None => Position::start(&v),
        };
        Ok((v, pos))
    }
}

pub(crate) fn io(e: std::io::Error) -> CommandError {
    CommandError::Other(e.to_string())
}

/// The protocol loop on standard input and output: `ndchess` without a
/// subcommand (the first command chooses the protocol) and `ndchess uci`.
pub fn protocol(mode: ndchess::protocol::Mode) -> Result<(), CommandError> {
    ndchess::protocol::run_stdio(mode).map_err(io)
}
