//! Protocol front-ends: how GUIs and tournament managers talk to the
//! engine when they start `ndchess` with no arguments.
//!
//! - [`uci`]: the UCI protocol with the ndchess variant extension
//!   (docs/protocol.md);
//! - [`session`]: the protocol-neutral engine host (options, variant,
//!   position and history) that the UCI front-end and the XBoard front-end
//!   (a separate piece of work) share;
//! - [`host`]: the engine thread the session drives;
//! - [`options`]: option types and value checks.
//!
//! [`serve`] reads input lines (bytes, decoded lossily, so that binary
//! garbage cannot end the loop; overlong lines are discarded), lets the
//! first command choose the protocol, and hands every line to the
//! front-end. Output is a channel of lines; [`run_stdio`] connects both
//! ends to the process's standard streams.

pub mod host;
pub mod options;
pub mod session;
pub mod uci;

use std::io::{self, BufRead, Write};
use std::time::Duration;

use crossbeam_channel::{Sender, unbounded};

use session::SessionConfig;
use uci::{Flow, Uci};

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
}

/// The note sent when a host asks for XBoard.
pub const XBOARD_NOTE: &str = "the XBoard front-end is not part of this build yet (a separate \
     piece of work); ndchess speaks UCI: send 'uci', or connect XBoard GUIs through the \
     polyglot adapter (engines/polyglot.ini)";

/// Serves one protocol session: reads `input` to its end or to `quit`,
/// writing output lines to `out`. Returns whether the engine thread ended
/// within the grace period (if not, a deep perft count is still running
/// and only the process exit ends it).
pub fn serve(
    input: impl BufRead,
    out: Sender<String>,
    mode: Mode,
    config: SessionConfig,
) -> io::Result<bool> {
    let mut reader = LineReader::new(input, MAX_LINE_BYTES);
    let mut uci = Uci::new(out.clone(), config);
    // In Auto mode, `Some(false)` until the first command; `Some(true)`
    // after `xboard` (until `uci` arrives); `None` once UCI is chosen.
    let mut xboard_wait = match mode {
        Mode::Auto => Some(false),
        Mode::Uci => None,
    };
    while let Some(line) = reader.next_line()? {
        let text = match line {
            InputLine::TooLong(n) => {
                uci.reject_long_line(n);
                continue;
            }
            InputLine::Text(t) => t,
        };
        if let Some(after_xboard) = xboard_wait {
            let first = text.split_whitespace().next();
            match first {
                None => continue,
                Some("xboard") => {
                    let _ = out.send(format!("tellusererror ndchess: {XBOARD_NOTE}"));
                    let _ = out.send(format!("# {XBOARD_NOTE}"));
                    xboard_wait = Some(true);
                    continue;
                }
                Some("quit") => break,
                Some("uci") => xboard_wait = None,
                Some(_) if after_xboard => {
                    let _ = out.send(format!(
                        "Error (XBoard front-end not available, send 'uci'): {}",
                        uci::quote(&text)
                    ));
                    continue;
                }
                Some(_) => xboard_wait = None,
            }
        }
        if uci.handle(&text) == Flow::Quit {
            break;
        }
    }
    Ok(uci.shutdown(QUIT_GRACE))
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
    let stdin = io::stdin();
    let ended = serve(stdin.lock(), tx, mode, SessionConfig::default())?;
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
