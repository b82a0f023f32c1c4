//! The engine as a component that front-ends drive: the search runs on an
//! engine thread ([`host`]) fed with jobs (searches, perft counts,
//! reconfiguration) and reporting structured events — search progress and
//! results, never protocol text — so that UCI, XBoard and (in time) the
//! GUI and the arbiter share one way of running the engine.

pub mod host;
