//! `ndchess serve` (the web GUI) and `ndchess svg` (a diagram on stdout).

use std::net::IpAddr;

use clap::Args;

use ndchess::gui::server::{ServeOptions, serve};
use ndchess::gui::svg::{Marks, check_cells, position_svg};
use ndchess::search::EngineOptions;

use super::{CommandError, VariantArgs};

/// Arguments of `ndchess serve`.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port; the printed URL says which).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on. Only localhost unless you say otherwise: the
    /// page lets anyone who reaches it spend this machine's CPU.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Most pages connected at once (each has its own engine).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_connections: u32,
    /// Search threads per connected page.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Transposition table per connected page, in MiB.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub hash: u32,
}

/// `ndchess serve`.
pub fn serve_command(args: &ServeArgs) -> Result<(), CommandError> {
    let options = ServeOptions {
        host: args.host,
        port: args.port,
        open: args.open,
        max_connections: args.max_connections as usize,
        engine: EngineOptions {
            threads: args.threads as usize,
            hash_mb: args.hash as usize,
            ..EngineOptions::default()
        },
    };
    serve(&options).map_err(|e| CommandError::Other(format!("serve: {e}")))
}

/// Arguments of `ndchess svg`.
#[derive(Args, Debug, Clone)]
pub struct SvgArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Draw the board seen from the other side.
    #[arg(long)]
    pub flip: bool,
}

/// `ndchess svg`: the diagram the web GUI draws, as an SVG document.
pub fn svg_command(args: &SvgArgs) -> Result<(), CommandError> {
    let (_, pos) = args.variant.load()?;
    let marks = Marks {
        flip: args.flip,
        last: Vec::new(),
        check: check_cells(&pos),
    };
    print!("{}", position_svg(&pos, &marks));
    Ok(())
}
