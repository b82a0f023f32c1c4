//! Retrograde analysis of one material on any board.
//!
//! 1. A forward pass over every entry (in parallel): illegal and
//!    non-canonical entries are marked broken; a side without a legal
//!    move is mated or stalemated; each other entry counts its distinct
//!    successor classes inside the table, and the moves that leave the
//!    table (captures, promotions) are looked up in the smaller tables,
//!    keeping the best of them for the side to move.
//! 2. One backward sweep per kind of end, the better first: mate, then
//!    (where the stalemated side loses) stalemate. Layer by layer in
//!    plies: from each entry lost in `d` plies, the entries one un-move
//!    earlier are won in `d + 1`; each entry won in `d` takes one off the
//!    counter of its predecessors, and a predecessor whose every move is
//!    now lost for it (inside and outside the table) is lost in the
//!    longest of those distances plus one. Entries the mate sweep decided
//!    keep their value; the stalemate sweep starts from the counters the
//!    mate sweep left, so moves into a forced mate count as bad for the
//!    side that has them.
//! 3. What no sweep decided is a draw.
//!
//! Un-moves come from [`Retro`], the reverse of each piece's moves, and
//! are made canonical, so a class is counted once per predecessor class;
//! the forward pass counted successor classes the same way.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};

use rayon::prelude::*;

use crate::board::piece::{EMPTY, piece_kind, piece_seat};
use crate::board::seating::{Seat, Turn};
use crate::board::variant::{StalemateRule, Variant};
use crate::rules::movegen::with_generator;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::{Position, TurnState};

use super::TablebaseError;
use super::layout::{Layout, Retro};
use super::value::{BROKEN, End, UNKNOWN, Value};

/// Looks up the value of a position outside the table being built (a
/// capture or promotion led there).
pub type ChildProbe<'a> = dyn Fn(&Position) -> Result<Value, TablebaseError> + Sync + 'a;

/// Reports progress (a line for stderr).
pub type Progress<'a> = dyn Fn(&str) + Sync + 'a;

/// Entries per parallel chunk of the forward pass.
const CHUNK: usize = 1 << 12;

/// The position of an entry, or `None` if it is not a legal position
/// (pieces on one cell, the side not to move in check, a pawn on its
/// promotion cell).
pub fn position_of(
    v: &Arc<Variant>,
    layout: &Layout,
    cells: &[u16],
    side: usize,
) -> Option<Position> {
    if layout.overlaps(cells) || (0..layout.len()).any(|i| !layout.allowed[i][cells[i] as usize]) {
        return None;
    }
    let pieces: Vec<_> = layout.piece_cells(cells).collect();
    Position::from_parts(
        v,
        &pieces,
        TurnState::new(Turn::One(Seat::new(side)), Default::default()),
        &[],
        None,
        0,
        1,
    )
    .ok()
}

/// Whether a move stays inside the table: no capture, no promotion. A
/// double step stays too: tables hold pawns of one side only, so no
/// en-passant right can follow it.
fn stays(pos: &Position, m: &Move) -> bool {
    matches!(m.kind, MoveKind::Normal | MoveKind::DoubleStep)
        && m.promotion_kind().is_none()
        && pos.piece_at(m.to as usize) == EMPTY
}

/// A child of a node while the forward pass runs: an entry, or an
/// en-passant position written as `EP_TAG | entry << 16 | target`.
const EP_TAG: u64 = 1 << 63;

fn ep_packed(key: (u64, u16)) -> u64 {
    EP_TAG | key.0 << 16 | key.1 as u64
}

/// What the forward pass learns about one node.
struct Expansion {
    /// Mated or stalemated now: its code.
    terminal: Option<u16>,
    /// Distinct successor classes inside the table (entries, or packed
    /// en-passant positions).
    children: Vec<u64>,
    /// The best value for the side to move among moves out of the table.
    best_out: Option<Value>,
    /// Whether a child is an en-passant position.
    has_ep_child: bool,
}

/// Expands the node `pos` (with the placement `cells`, `side` to move).
fn expand(
    v: &Arc<Variant>,
    layout: &Layout,
    child: &ChildProbe,
    pos: &mut Position,
    cells: &[u16; super::material::MAX_PIECES],
    side: usize,
    moves: &mut Vec<Move>,
) -> Result<Expansion, TablebaseError> {
    let k = layout.len();
    with_generator(v, |g| g.generate(pos, moves));
    if moves.is_empty() {
        return Ok(Expansion {
            terminal: Some(super::no_move_value(v, pos).code()),
            children: Vec::new(),
            best_out: None,
            has_ep_child: false,
        });
    }
    let mut e = Expansion {
        terminal: None,
        children: Vec::new(),
        best_out: None,
        has_ep_child: false,
    };
    for m in moves.iter() {
        if stays(pos, m) {
            let mut c = *cells;
            let i = (0..k)
                .find(|&i| c[i] == m.from)
                .expect("invariant: a move starts on a piece of the table");
            c[i] = m.to;
            if m.kind == MoveKind::DoubleStep {
                pos.make(*m);
                let ep = pos.en_passant();
                pos.unmake();
                if let Some(ep) = ep {
                    e.children.push(ep_packed(layout.canonical_marked(
                        &c[..k],
                        1 - side,
                        ep.target,
                    )));
                    e.has_ep_child = true;
                    continue;
                }
            }
            e.children.push(layout.canonical(&c[..k], 1 - side));
        } else {
            pos.make(*m);
            let got = child(pos);
            pos.unmake();
            let val = got?.before_move();
            e.best_out = Some(e.best_out.map_or(val, |b| b.max(val)));
        }
    }
    e.children.sort_unstable();
    e.children.dedup();
    Ok(e)
}

/// The game graph's extra edges: en-passant positions (nodes numbered
/// from the table's size on) and the entries whose moves lead to them.
#[derive(Default)]
struct EpGraph {
    /// The table's size: node ids from here on are en-passant positions.
    size: u64,
    /// Per en-passant node, its key (entry of the position without the
    /// right, the target's image).
    keys: Vec<(u64, u16)>,
    /// Per en-passant node, the entries whose double step leads to it.
    parents: Vec<Vec<u64>>,
    /// Entries with an en-passant child: all their children (ids).
    children_of: HashMap<u64, Vec<u64>>,
    /// Per entry, the en-passant nodes with a move to it.
    from_ep: HashMap<u64, Vec<u64>>,
}

impl EpGraph {
    fn id(&self, packed: u64) -> u64 {
        if packed & EP_TAG == 0 {
            return packed;
        }
        let key = ((packed & !EP_TAG) >> 16, (packed & 0xFFFF) as u16);
        let i = self
            .keys
            .binary_search(&key)
            .expect("invariant: every en-passant child was collected");
        self.size + i as u64
    }
}

/// Builds the table of `layout` on `v`: one code per entry.
///
/// With pawns on both sides a double step can give the other side an
/// en-passant right. Such positions are not entries (a probe values them
/// through their moves) but they are nodes of the game solved here:
/// numbered after the entries, with their own moves (the entry's moves
/// and the en-passant captures), and the edges into and out of them kept
/// explicitly.
pub fn generate(
    v: &Arc<Variant>,
    layout: &Layout,
    child: &ChildProbe,
    progress: &Progress,
) -> Result<Vec<u16>, TablebaseError> {
    let size = layout.size as usize;
    let k = layout.len();
    let mut values = vec![UNKNOWN; size];
    let mut counters = vec![0u16; size];
    let mut ext = vec![UNKNOWN; size];
    progress(&format!("forward pass over {size} entries"));
    let ep_children: Vec<(u64, Vec<u64>)> = values
        .par_chunks_mut(CHUNK)
        .zip(counters.par_chunks_mut(CHUNK))
        .zip(ext.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(chunk, ((vals, cnts), exts))| {
            let mut moves = Vec::new();
            let mut found = Vec::new();
            for j in 0..vals.len() {
                let idx = (chunk * CHUNK + j) as u64;
                let (cells, side) = layout.decode(idx);
                if layout.canonical(&cells[..k], side) != idx {
                    vals[j] = BROKEN;
                    continue;
                }
                let Some(mut pos) = position_of(v, layout, &cells[..k], side) else {
                    vals[j] = BROKEN;
                    continue;
                };
                let e = expand(v, layout, child, &mut pos, &cells, side, &mut moves)?;
                if let Some(code) = e.terminal {
                    vals[j] = code;
                    continue;
                }
                cnts[j] = e.children.len() as u16;
                exts[j] = e.best_out.map_or(UNKNOWN, Value::code);
                if e.has_ep_child {
                    found.push((idx, e.children));
                }
            }
            Ok::<_, TablebaseError>(found)
        })
        .try_reduce(Vec::new, |mut a, b| {
            a.extend(b);
            Ok(a)
        })?;

    // The en-passant nodes.
    let mut graph = EpGraph {
        size: size as u64,
        ..EpGraph::default()
    };
    for (_, children) in &ep_children {
        for &c in children {
            if c & EP_TAG != 0 {
                graph.keys.push(((c & !EP_TAG) >> 16, (c & 0xFFFF) as u16));
            }
        }
    }
    graph.keys.sort_unstable();
    graph.keys.dedup();
    let n_ep = graph.keys.len();
    graph.parents = vec![Vec::new(); n_ep];
    for (q, children) in ep_children {
        let ids: Vec<u64> = children.iter().map(|&c| graph.id(c)).collect();
        for &id in &ids {
            if id >= graph.size {
                graph.parents[(id - graph.size) as usize].push(q);
            }
        }
        graph.children_of.insert(q, ids);
    }
    if n_ep > 0 {
        progress(&format!("{n_ep} en-passant positions"));
    }
    let mut ep_info = Vec::with_capacity(n_ep);
    for (i, &(entry, target)) in graph.keys.iter().enumerate() {
        let (cells, side) = layout.decode(entry);
        let pieces: Vec<_> = layout.piece_cells(&cells[..k]).collect();
        let mut pos = Position::from_parts(
            v,
            &pieces,
            TurnState::new(Turn::One(Seat::new(side)), Default::default()),
            &[],
            Some(target as usize),
            0,
            1,
        )
        .map_err(|e| TablebaseError::Board(format!("en-passant position: {e}")))?;
        let mut moves = Vec::new();
        let e = expand(v, layout, child, &mut pos, &cells, side, &mut moves)?;
        let id = graph.size + i as u64;
        let ids: Vec<u64> = e.children.iter().map(|&c| graph.id(c)).collect();
        for &c in &ids {
            if c >= graph.size {
                graph.parents[(c - graph.size) as usize].push(id);
            } else {
                graph.from_ep.entry(c).or_default().push(id);
            }
        }
        ep_info.push((e.terminal, ids.len() as u16, e.best_out));
    }
    for (terminal, count, best) in ep_info {
        values.push(terminal.unwrap_or(UNKNOWN));
        counters.push(count);
        ext.push(best.map_or(UNKNOWN, Value::code));
    }

    let retro = Retro::new(v);
    let values: Vec<AtomicU16> = values.into_iter().map(AtomicU16::new).collect();
    let counters: Vec<AtomicU16> = counters.into_iter().map(AtomicU16::new).collect();
    let mut ends = vec![End::Mate];
    if v.rules.stalemate == StalemateRule::StalematedLoses {
        ends.push(End::Stalemate);
    }
    let g = Graph {
        layout,
        retro: &retro,
        ep: &graph,
    };
    for end in ends {
        sweep(&g, &values, &counters, &ext, end, progress);
    }
    Ok(values
        .into_iter()
        .take(size)
        .map(|a| match a.into_inner() {
            UNKNOWN => Value::Draw.code(),
            c => c,
        })
        .collect())
}

/// What the backward sweeps walk: un-moves, and the en-passant edges.
struct Graph<'a> {
    layout: &'a Layout,
    retro: &'a Retro,
    ep: &'a EpGraph,
}

/// The nodes one move before `idx`, each once.
fn predecessors(g: &Graph, idx: u64, out: &mut Vec<u64>) {
    out.clear();
    if idx >= g.ep.size {
        out.extend_from_slice(&g.ep.parents[(idx - g.ep.size) as usize]);
        out.sort_unstable();
        out.dedup();
        return;
    }
    let (layout, retro) = (g.layout, g.retro);
    let (cells, side) = layout.decode(idx);
    let k = layout.len();
    let mover = 1 - side;
    for i in 0..k {
        let p = layout.pieces[i];
        if piece_seat(p).index() != mover {
            continue;
        }
        let occupied = |c: u16| cells[..k].contains(&c);
        for (from, between) in retro.sources(mover, piece_kind(p), cells[i] as usize) {
            if occupied(*from) || between.iter().any(|&b| occupied(b)) {
                continue;
            }
            let mut q = cells;
            q[i] = *from;
            out.push(layout.canonical(&q[..k], mover));
        }
    }
    // An entry whose double step gives an en-passant right does not reach
    // the entry without it by that move: keep it only if one of its moves
    // really leads here.
    if !g.ep.children_of.is_empty() {
        out.retain(|q| {
            g.ep.children_of
                .get(q)
                .is_none_or(|children| children.contains(&idx))
        });
    }
    if let Some(from) = g.ep.from_ep.get(&idx) {
        out.extend_from_slice(from);
    }
    out.sort_unstable();
    out.dedup();
}

/// Whether the best move out of the table still allows a loss by `end`
/// (every move out of the table loses at least as badly).
fn loss_allowed(ext: u16, end: End) -> Option<u16> {
    match Value::from_code(ext) {
        None => Some(0),
        Some(Value::Loss { end: e, plies }) if e == end => Some(plies),
        Some(Value::Loss { end: End::Mate, .. }) => Some(0),
        _ => None,
    }
}

/// Calls `visit(q, out)` for each predecessor `q` of each node of
/// `nodes`, in parallel (a predecessor of several nodes once per node);
/// what the calls push is collected.
fn over_predecessors<T: Send>(
    g: &Graph,
    nodes: &[u64],
    visit: impl Fn(u64, &mut Vec<T>) + Sync,
) -> Vec<T> {
    nodes
        .par_iter()
        .fold(
            || (Vec::new(), Vec::new()),
            |(mut acc, mut buf), &idx| {
                predecessors(g, idx, &mut buf);
                for &q in &buf {
                    visit(q, &mut acc);
                }
                (acc, buf)
            },
        )
        .map(|(acc, _)| acc)
        .reduce(Vec::new, |mut a, b| {
            a.extend(b);
            a
        })
}

/// The backward sweep for wins and losses by `end`.
fn sweep(
    g: &Graph,
    values: &[AtomicU16],
    counters: &[AtomicU16],
    ext: &[u16],
    end: End,
    progress: &Progress,
) {
    let size = values.len();
    // Seeds: (plies, entry, is_win).
    let seeds: Vec<(u16, u64, bool)> = (0..size)
        .into_par_iter()
        .filter_map(|i| {
            let code = values[i].load(Ordering::Relaxed);
            if code == UNKNOWN {
                match Value::from_code(ext[i]) {
                    Some(Value::Win { end: e, plies }) if e == end => {
                        return Some((plies, i as u64, true));
                    }
                    _ => {}
                }
                if counters[i].load(Ordering::Relaxed) == 0
                    && let Some(Value::Loss { end: e, plies }) = Value::from_code(ext[i])
                    && e == end
                {
                    let code = Value::Loss { end, plies }.code();
                    values[i].store(code, Ordering::Relaxed);
                    return Some((plies, i as u64, false));
                }
                return None;
            }
            match Value::from_code(code) {
                Some(Value::Loss { end: e, plies }) if e == end && plies == 0 => {
                    Some((0, i as u64, false))
                }
                _ => None,
            }
        })
        .collect();
    let mut wins: Vec<Vec<u64>> = Vec::new();
    let mut losses: Vec<Vec<u64>> = Vec::new();
    let put = |lists: &mut Vec<Vec<u64>>, d: usize, idx: u64| {
        if lists.len() <= d {
            lists.resize(d + 1, Vec::new());
        }
        lists[d].push(idx);
    };
    // External wins are only candidates until their layer comes.
    let mut pending: Vec<Vec<u64>> = Vec::new();
    for (d, idx, win) in seeds {
        if win {
            put(&mut pending, d as usize, idx);
        } else {
            put(&mut losses, d as usize, idx);
        }
    }
    let mut d = 0usize;
    let mut decided = 0u64;
    while d < wins.len().max(losses.len()).max(pending.len()) {
        let mut won_now: Vec<u64> = wins.get_mut(d).map(std::mem::take).unwrap_or_default();
        if let Some(list) = pending.get_mut(d) {
            let code = Value::Win {
                end,
                plies: d as u16,
            }
            .code();
            for idx in std::mem::take(list) {
                if values[idx as usize]
                    .compare_exchange(UNKNOWN, code, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
                {
                    won_now.push(idx);
                }
            }
        }
        let lost_now: Vec<u64> = losses.get_mut(d).map(std::mem::take).unwrap_or_default();
        // Lost in d: the predecessors win in d + 1.
        let win_code = Value::Win {
            end,
            plies: (d + 1) as u16,
        }
        .code();
        let new_wins: Vec<u64> = over_predecessors(g, &lost_now, |q, acc| {
            if values[q as usize]
                .compare_exchange(UNKNOWN, win_code, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                acc.push(q);
            }
        });
        // Won in d: one bad move fewer for each predecessor.
        let new_losses: Vec<(usize, u64)> = over_predecessors(g, &won_now, |q, acc| {
            let q = q as usize;
            if values[q].load(Ordering::Relaxed) != UNKNOWN
                || counters[q].fetch_sub(1, Ordering::Relaxed) != 1
            {
                return;
            }
            let Some(ext_plies) = loss_allowed(ext[q], end) else {
                return;
            };
            let plies = (d + 1).max(ext_plies as usize);
            let code = Value::Loss {
                end,
                plies: plies as u16,
            }
            .code();
            if values[q]
                .compare_exchange(UNKNOWN, code, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                acc.push((plies, q as u64));
            }
        });
        decided += (won_now.len() + lost_now.len()) as u64;
        for idx in new_wins {
            put(&mut wins, d + 1, idx);
        }
        for (plies, idx) in new_losses {
            put(&mut losses, plies, idx);
        }
        if d.is_multiple_of(8) {
            progress(&format!(
                "{} sweep: ply {d}, {decided} entries decided",
                match end {
                    End::Mate => "mate",
                    End::Stalemate => "stalemate",
                }
            ));
        }
        d += 1;
    }
}
