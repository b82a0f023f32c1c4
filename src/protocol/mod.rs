//! Protocol front-ends: how GUIs and tournament managers talk to the
//! engine when they start `ndchess` with no arguments.
//!
//! - [`uci`]: the UCI protocol with the ndchess variant extension
//!   (docs/protocol.md);
//! - [`session`]: the protocol-neutral engine host (options, variant,
//!   position and history) that the UCI front-end and the XBoard front-end
//!   (a separate piece of work) share;
//! - `host`: the engine thread the session drives;
//! - [`options`]: option types and value checks.
//!
//! [`serve`] reads input lines (bytes, decoded lossily, so that binary
//! garbage cannot end the loop; overlong lines are discarded), lets the
//! first command choose the protocol, and hands every line to the
//! front-end. Output is a channel of lines; [`run_stdio`] connects both
//! ends to the process's standard streams.

pub mod options;
pub mod session;
pub mod text;
pub mod uci;
pub mod xboard;
pub mod xboard_parse;

use std::io::{self, BufRead, Write};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, select, unbounded};

use session::SessionConfig;
use uci::{Flow, Uci};
use xboard::XBoard;

/// Longest input line accepted, in bytes. The longest legitimate line is a
/// `position` command with a 6-D diamond's position text (8531 characters)
/// and a long game's moves (a few kB); a mebibyte leaves ample room.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// How long `quit` waits for the engine thread (a deep `go perft` only
/// stops between root moves; the process exits anyway after this).
const QUIT_GRACE: Duration = Duration::from_secs(2);

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputLine {
    /// A line (without its line end), decoded lossily from UTF-8.
    Text(String),
    /// A line longer than [`MAX_LINE_BYTES`], discarded; its length.
    TooLong(usize),
}

/// Reads lines of at most `limit` bytes without ever holding more than
/// that in memory.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    limit: usize,
}

impl<R: BufRead> LineReader<R> {
    /// A reader of lines of at most `limit` bytes.
    pub fn new(inner: R, limit: usize) -> LineReader<R> {
        LineReader { inner, limit }
    }

    /// The next line; `None` at the end of the input.
    pub fn next_line(&mut self) -> io::Result<Option<InputLine>> {
        let mut buf: Vec<u8> = Vec::new();
        let mut len = 0usize;
        let mut any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            let (part, used, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], i + 1, true),
                None => (chunk, chunk.len(), false),
            };
            len += part.len();
            if len <= self.limit {
                buf.extend_from_slice(part);
            }
            self.inner.consume(used);
            if end {
                break;
            }
        }
        if len > self.limit {
            return Ok(Some(InputLine::TooLong(len)));
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Ok(Some(InputLine::Text(
            String::from_utf8_lossy(&buf).into_owned(),
        )))
    }
}

/// Which protocol to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Decided by the first command: `xboard` selects XBoard, anything
    /// else UCI.
    Auto,
    /// UCI from the first line (`ndchess uci`).
    Uci,
    /// XBoard from the first line (`ndchess xboard`).
    XBoard,
}

/// The front-end chosen for the session.
enum FrontEnd {
    Uci(Box<Uci>),
    XBoard(Box<XBoard>),
}

/// Serves one protocol session: reads `input` (lines from a reader
/// thread; the channel closing is the end of the input) to its end or to
/// `quit`, writing output lines to `out`. Returns whether the engine thread
/// ended within the grace period (if not, a deep perft count is still
/// running and only the process exit ends it).
pub fn serve(
    input: Receiver<InputLine>,
    out: Sender<String>,
    mode: Mode,
    config: SessionConfig,
) -> bool {
    let mut front: Option<FrontEnd> = match mode {
        Mode::Auto => None,
        Mode::Uci => Some(FrontEnd::Uci(Box::new(Uci::new(out.clone(), config)))),
        Mode::XBoard => Some(FrontEnd::XBoard(Box::new(XBoard::new(out.clone(), config)))),
    };
    loop {
        // XBoard's engine reports arrive beside the input.
        let events = match &front {
            Some(FrontEnd::XBoard(x)) => x.events(),
            _ => crossbeam_channel::never(),
        };
        let flow = select! {
            recv(input) -> line => {
                let Ok(line) = line else { break };
                handle_line(&mut front, line, &out, config)
            }
            recv(events) -> ev => match (ev, &mut front) {
                (Ok(ev), Some(FrontEnd::XBoard(x))) => x.handle_event(ev),
                _ => Flow::Continue,
            },
        };
        if flow == Flow::Quit {
            break;
        }
    }
    match front {
        Some(FrontEnd::Uci(mut u)) => u.shutdown(QUIT_GRACE),
        Some(FrontEnd::XBoard(mut x)) => x.shutdown(QUIT_GRACE),
        None => true,
    }
}

/// Hands one input line to the front-end, choosing it on the first
/// non-blank line in Auto mode.
fn handle_line(
    front: &mut Option<FrontEnd>,
    line: InputLine,
    out: &Sender<String>,
    config: SessionConfig,
) -> Flow {
    let text = match line {
        InputLine::TooLong(n) => {
            match front {
                Some(FrontEnd::XBoard(x)) => x.reject_long_line(n),
                Some(FrontEnd::Uci(u)) => u.reject_long_line(n),
                None => {
                    let _ = out.send(format!(
                        "info string error: line of {n} bytes ignored: longer than the limit of \
                         {MAX_LINE_BYTES} bytes"
                    ));
                }
            }
            return Flow::Continue;
        }
        InputLine::Text(t) => t,
    };
    if front.is_none() {
        match text.split_whitespace().next() {
            None => return Flow::Continue,
            Some("quit") => return Flow::Quit,
            Some("xboard") => {
                *front = Some(FrontEnd::XBoard(Box::new(XBoard::new(out.clone(), config))));
            }
            Some(_) => *front = Some(FrontEnd::Uci(Box::new(Uci::new(out.clone(), config)))),
        }
    }
    match front {
        Some(FrontEnd::Uci(u)) => u.handle(&text),
        Some(FrontEnd::XBoard(x)) => x.handle(&text),
        None => Flow::Continue,
    }
}

/// Reads `input` line by line on a thread of its own and sends the lines
/// to the returned channel, which closes at the end of the input (or on a
/// read error, reported on stderr).
pub fn spawn_reader<R: BufRead + Send + 'static>(input: R) -> io::Result<Receiver<InputLine>> {
    let (tx, rx) = unbounded::<InputLine>();
    std::thread::Builder::new()
        .name("ndchess-input".into())
        .spawn(move || {
            let mut reader = LineReader::new(input, MAX_LINE_BYTES);
            loop {
                match reader.next_line() {
                    Ok(Some(line)) => {
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                    Ok(None) => return,
                    Err(e) => {
                        eprintln!("ndchess: reading the input failed: {e}");
                        return;
                    }
                }
            }
        })?;
    Ok(rx)
}

/// Runs the protocol loop on standard input and output (the binary's
/// default when started without a subcommand).
pub fn run_stdio(mode: Mode) -> io::Result<()> {
    let (tx, rx) = unbounded::<String>();
    let printer = std::thread::Builder::new()
        .name("ndchess-output".into())
        .spawn(move || {
            let stdout = io::stdout();
            let mut w = io::BufWriter::new(stdout.lock());
            while let Ok(line) = rx.recv() {
                if writeln!(w, "{line}").is_err() {
                    return;
                }
                if rx.is_empty() && w.flush().is_err() {
                    return;
                }
            }
            let _ = w.flush();
        })?;
    let input = spawn_reader(io::BufReader::new(io::stdin()))?;
    let ended = serve(input, tx, mode, SessionConfig::default());
    if ended {
        // Every sender is gone: the printer writes what is left and ends.
        let _ = printer.join();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Vec<InputLine> {
        let mut r = LineReader::new(input, limit);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().expect("reading from memory cannot fail") {
            out.push(l);
        }
        out
    }

    #[test]
    fn reader_splits_decodes_and_limits() {
        let got = lines(b"uci\r\n\xff\xfeisready\n\n0123456789ab\nlast", 10);
        assert_eq!(
            got,
            vec![
                InputLine::Text("uci".into()),
                InputLine::Text("\u{fffd}\u{fffd}isready".into()),
                InputLine::Text(String::new()),
                InputLine::TooLong(12),
                InputLine::Text("last".into()),
            ]
        );
        assert!(lines(b"", 10).is_empty());
    }
}
