//! `ndchess tune`: self-play data for the evaluation tuner and the tuner
//! itself (src/eval/tune.rs; docs/engine.md, "Tuning").

use clap::{Args, Subcommand};
use ndchess::eval::EvalWeights;
use ndchess::eval::tune::{self, DataOptions};

use super::inspect::write_out;
use super::{CommandError, VariantArgs};

/// The tuner's subcommands.
#[derive(Subcommand)]
pub enum TuneCommand {
    /// Play self-play games and write their quiet positions, each with the
    /// first seat's points, one per line.
    Data(DataArgs),
    /// Fit the evaluation weights to a data file (Texel's method) and
    /// print them as a weights file.
    Fit(FitArgs),
    /// Relabel a data file with the engine's own search: each position's
    /// score at a node budget, as the first seat's expected points.
    Label(LabelArgs),
}

/// `ndchess tune label`.
#[derive(Args)]
pub struct LabelArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// The data file (`ndchess tune data`).
    #[arg(long)]
    data: std::path::PathBuf,
    /// Node budget of each position's search.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    nodes: u64,
    /// Keep every N-th position of the file (from its first).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    every: u64,
    /// Weights the searches evaluate with (the variant's built-in ones if
    /// absent).
    #[arg(long)]
    weights: Option<std::path::PathBuf>,
    /// Output file (standard output if absent).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
}

/// `ndchess tune data`.
#[derive(Args)]
pub struct DataArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// Games to play (in parallel, one per core).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    games: u64,
    /// Node budget per decision.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    nodes: u64,
    /// Random joint decisions before the engines play (the openings).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(0..=100))]
    random: u64,
    /// Steps after which a game is adjudicated a draw.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    max_steps: u64,
    /// Seed of the openings and the engines (the same seed, the same data).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output file (standard output if absent).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
}

/// `ndchess tune fit`.
#[derive(Args)]
pub struct FitArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// The data file (`ndchess tune data`).
    #[arg(long)]
    data: std::path::PathBuf,
    /// Starting weights (a weights file; the defaults if absent).
    #[arg(long)]
    start: Option<std::path::PathBuf>,
    /// Most passes of the coordinate descent.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    passes: u64,
    /// Fit the linear part instead (the phase scales, the tempo and the
    /// tables: placement, passed pawns, mobility by count, pairs) by
    /// gradient descent; the other weights stay as they start.
    #[arg(long)]
    linear: bool,
    /// Iterations of the linear fit.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    iterations: u64,
    /// Step of the linear fit's table entries, centipawns per iteration
    /// (Adam's rate).
    #[arg(long, default_value_t = 1.0)]
    rate: f64,
    /// Pull of each table entry towards 0 (and each phase scale towards
    /// its start) in the linear fit.
    #[arg(long, default_value_t = 1e-7)]
    ridge: f64,
    /// Output file for the tuned weights (standard output if absent).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
}

/// Runs a tuner subcommand.
pub fn run(command: &TuneCommand) -> Result<(), CommandError> {
    match command {
        TuneCommand::Data(a) => data(a),
        TuneCommand::Fit(a) => fit(a),
        TuneCommand::Label(a) => label(a),
    }
}

fn data(a: &DataArgs) -> Result<(), CommandError> {
    let (v, _) = a.variant.load()?;
    let opts = DataOptions {
        games: a.games as usize,
        nodes: a.nodes,
        random_turns: a.random as usize,
        max_steps: a.max_steps as usize,
        seed: a.seed,
        ..DataOptions::default()
    };
    let games = opts.games;
    let samples = tune::generate(&v, &opts, &|k| {
        if k % 10 == 0 || k == games {
            eprintln!("tune data: {k}/{games} games");
        }
    })
    .map_err(|e| CommandError::Other(e.to_string()))?;
    let mut text = format!(
        "# ndchess tune data --variant {} --games {} --nodes {} --random {} --max-steps {} --seed {}\n",
        v.spec, a.games, a.nodes, a.random, a.max_steps, a.seed
    );
    for s in &samples {
        text += &tune::format_sample(s.points, &s.pos);
        text.push('\n');
    }
    eprintln!("tune data: {} positions", samples.len());
    write_out(a.out.as_deref(), &text)
}

fn label(a: &LabelArgs) -> Result<(), CommandError> {
    let (v, _) = a.variant.load()?;
    let text = std::fs::read_to_string(&a.data)
        .map_err(|e| CommandError::Other(format!("{}: {e}", a.data.display())))?;
    let samples: Vec<tune::Sample> = tune::parse_samples(&v, &text)
        .map_err(|e| CommandError::Other(format!("{}: {e}", a.data.display())))?
        .into_iter()
        .step_by(a.every as usize)
        .collect();
    let weights = match &a.weights {
        Some(p) => Some(EvalWeights::load(p).map_err(|e| CommandError::Other(e.to_string()))?),
        None => None,
    };
    let total = samples.len();
    eprintln!(
        "tune label: {total} positions of {} at {} nodes",
        v.spec, a.nodes
    );
    let labelled = tune::self_label(&v, &samples, a.nodes, weights, &|k| {
        eprintln!("tune label: {k}/{total} positions");
    })
    .map_err(|e| CommandError::Other(e.to_string()))?;
    let mut out = format!(
        "# ndchess tune label --variant {} --nodes {} --every {} ({} positions of {})\n",
        v.spec,
        a.nodes,
        a.every,
        total,
        a.data.display()
    );
    for s in &labelled {
        out += &tune::format_sample((s.points * 10_000.0).round() / 10_000.0, &s.pos);
        out.push('\n');
    }
    eprintln!("tune label: {total} positions");
    write_out(a.out.as_deref(), &out)
}

fn fit_linear(
    a: &FitArgs,
    v: &std::sync::Arc<ndchess::board::variant::Variant>,
    samples: &[tune::Sample],
    start: EvalWeights,
) -> Result<(), CommandError> {
    if !(a.rate.is_finite() && a.rate > 0.0 && a.rate <= 100.0) {
        return Err(CommandError::Other(format!(
            "--rate {} is not a number above 0 and at most 100",
            a.rate
        )));
    }
    if !(a.ridge.is_finite() && (0.0..=1.0).contains(&a.ridge)) {
        return Err(CommandError::Other(format!(
            "--ridge {} is not a number from 0 to 1",
            a.ridge
        )));
    }
    let opts = tune::LinearOptions {
        iterations: a.iterations as usize,
        rate: a.rate,
        ridge: a.ridge,
    };
    let report = tune::tune_linear(v, samples, start, &opts, &mut |r| {
        eprintln!(
            "tune fit: iteration {} loss {:.6} held out {:.6}",
            r.iteration, r.loss, r.held_out
        );
    })
    .map_err(|e| CommandError::Other(e.to_string()))?;
    eprintln!(
        "tune fit: K {:.4}, loss {:.6} -> {:.6} after {} iterations (held out {:.6} -> {:.6}; {} fitted, {} held out)",
        report.scale,
        report.start_loss,
        report.end_loss,
        report.iterations,
        report.start_held_out,
        report.end_held_out,
        report.fitted,
        report.held
    );
    let text = format!(
        "# ndchess tune fit --linear --variant {} ({} positions, {} iterations, rate {}, ridge {}): K {:.4}, loss {:.6} -> {:.6}, held out {:.6} -> {:.6}\n{}",
        v.spec,
        samples.len(),
        report.iterations,
        a.rate,
        a.ridge,
        report.scale,
        report.start_loss,
        report.end_loss,
        report.start_held_out,
        report.end_held_out,
        report.weights
    );
    write_out(a.out.as_deref(), &text)
}

fn fit(a: &FitArgs) -> Result<(), CommandError> {
    let (v, _) = a.variant.load()?;
    let read = |p: &std::path::Path| {
        std::fs::read_to_string(p).map_err(|e| CommandError::Other(format!("{}: {e}", p.display())))
    };
    let samples = tune::parse_samples(&v, &read(&a.data)?)
        .map_err(|e| CommandError::Other(format!("{}: {e}", a.data.display())))?;
    let start = match &a.start {
        Some(p) => EvalWeights::load(p).map_err(|e| CommandError::Other(e.to_string()))?,
        None => EvalWeights::for_variant(&v),
    };
    eprintln!("tune fit: {} positions of {}", samples.len(), v.spec);
    if a.linear {
        return fit_linear(a, &v, &samples, start);
    }
    let report = tune::tune(&v, &samples, start, a.passes as usize, &mut |p| {
        eprintln!(
            "tune fit: pass {} step {:.3} loss {:.6} ({} weights moved)",
            p.number, p.step, p.loss, p.changed
        );
    })
    .map_err(|e| CommandError::Other(e.to_string()))?;
    eprintln!(
        "tune fit: K {:.4}, loss {:.6} -> {:.6} after {} passes ({})",
        report.scale,
        report.start_loss,
        report.end_loss,
        report.passes,
        if report.converged {
            "converged"
        } else {
            "pass limit"
        }
    );
    let text = format!(
        "# ndchess tune fit --variant {} ({} positions): K {:.4}, loss {:.6} -> {:.6}\n{}",
        v.spec,
        samples.len(),
        report.scale,
        report.start_loss,
        report.end_loss,
        report.weights
    );
    write_out(a.out.as_deref(), &text)
}
