//! The web GUI (`ndchess serve`) and the SVG diagrams (`ndchess svg`):
//! documents checked by an XML parser and rendered to PNG, the page driven
//! in a real Chromium, and many WebSocket clients at once.
//!
//! Tools: `rsvg-convert` (Debian `librsvg2-bin`), Chromium (`chromium`) with
//! Playwright for Python (PyPI `playwright`, using the system browser) and
//! python-chess; `.ci/run` installs them. Without them the tests that need
//! them fail when `CI` is set and are skipped with a loud message otherwise.
//! Screenshots and rendered diagrams go to `ci-logs/gui/`.

mod browser;
mod load;
mod server;
mod svg;
