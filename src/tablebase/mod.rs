//! Endgame tables on any board of the engine: retrograde analysis of a
//! material (T16, seed 001), stored in files, probed by the command line
//! and by the search.
//!
//! A [`Tablebases`] set belongs to one variant and, optionally, a
//! directory. It loads tables from the directory when asked, generates
//! missing ones on request (the smaller tables a capture or promotion
//! leads to first), and answers [`Tablebases::probe`] for any position of
//! the variant whose material it holds.

pub mod file;
pub mod generate;
pub mod layout;
pub mod material;
pub mod stats;
pub mod value;
pub mod verify;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use crate::board::piece::{EMPTY, Piece, piece, piece_kind, piece_seat};
use crate::board::seating::Seat;
use crate::board::variant::Variant;
use crate::rules::moves::Move;
use crate::rules::position::Position;

pub use layout::Layout;
pub use material::Material;
pub use value::{End, Value};

/// Why a table could not be built, read or used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TablebaseError {
    /// The variant is not one tables can be built for.
    Variant(String),
    /// A malformed or impossible material signature.
    Material(String),
    /// The board's symmetries could not be computed.
    Board(String),
    /// The table would be too large to build.
    TooLarge(String),
    /// Reading or writing a file failed.
    Io(String),
    /// A file is damaged.
    Corrupt(String),
    /// A file belongs to another board, material or format.
    Mismatch(String),
    /// A table that is needed is not there.
    Missing(String),
}

impl fmt::Display for TablebaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TablebaseError::Variant(s) => write!(f, "tables need {s}"),
            TablebaseError::Material(s) => write!(f, "bad material {s}"),
            TablebaseError::Board(s) => write!(f, "board: {s}"),
            TablebaseError::TooLarge(s) => write!(f, "table too large: {s}"),
            TablebaseError::Io(s) => write!(f, "{s}"),
            TablebaseError::Corrupt(s) => write!(f, "corrupt table file: {s}"),
            TablebaseError::Mismatch(s) => write!(f, "table file does not fit: {s}"),
            TablebaseError::Missing(s) => write!(f, "no table for {s}"),
        }
    }
}

impl std::error::Error for TablebaseError {}

/// One table: a material's values on a board.
#[derive(Debug)]
pub struct Table {
    /// The material (in its stored orientation).
    pub material: Material,
    /// The numbering of its entries.
    pub layout: Layout,
    /// One code per entry (`value::Value::code`, or `value::BROKEN`).
    pub codes: Vec<u16>,
}

impl Table {
    /// The value of the placement `cells` (table order) with `side` to
    /// move; `None` if it is not a legal position.
    pub fn value(&self, cells: &[u16], side: usize) -> Option<Value> {
        let idx = self.layout.canonical(cells, side);
        Value::from_code(self.codes[idx as usize])
    }
}

/// The tables of one variant.
#[derive(Debug)]
pub struct Tablebases {
    variant: Arc<Variant>,
    dir: Option<PathBuf>,
    tables: RwLock<HashMap<Material, Arc<Table>>>,
    /// Materials whose file is missing or was refused (asked once).
    missing: RwLock<HashSet<Material>>,
    /// Most pieces of a table file in the directory (or generated).
    max_pieces: AtomicUsize,
}

/// The value of a position without legal moves for the side to move:
/// mated in check, else stalemated, which loses where the variant says so
/// (the cube) and is a draw elsewhere.
pub fn no_move_value(v: &Variant, pos: &Position) -> Value {
    let end = if pos.in_check() {
        End::Mate
    } else if v.rules.stalemate == crate::board::variant::StalemateRule::StalematedLoses {
        End::Stalemate
    } else {
        return Value::Draw;
    };
    Value::Loss { end, plies: 0 }
}

/// Whether tables can be built for `v`: two seats taking turns, one
/// royal piece each.
pub fn check_variant(v: &Variant) -> Result<(), TablebaseError> {
    if v.seat_count() != 2 || !v.seating.is_alternating_pair() {
        return Err(TablebaseError::Variant(format!(
            "two players taking turns; {} has other seating",
            v.spec
        )));
    }
    if v.royal_kind.is_none() {
        return Err(TablebaseError::Variant(format!(
            "a royal piece; {} has none",
            v.spec
        )));
    }
    Ok(())
}

impl Tablebases {
    /// The tables of `v`, read from (and written to) `dir` if given.
    pub fn new(v: &Arc<Variant>, dir: Option<&Path>) -> Result<Tablebases, TablebaseError> {
        check_variant(v)?;
        let tb = Tablebases {
            variant: v.clone(),
            dir: dir.map(Path::to_path_buf),
            tables: RwLock::new(HashMap::new()),
            missing: RwLock::new(HashSet::new()),
            max_pieces: AtomicUsize::new(0),
        };
        // The largest material of the files there (names as KQvK.ndtb).
        if let Some(dir) = &tb.dir {
            let folder = file::path(dir, v, &Material { pieces: vec![] });
            if let Some(folder) = folder.parent()
                && let Ok(entries) = std::fs::read_dir(folder)
            {
                for e in entries.flatten() {
                    let name = e.file_name().to_string_lossy().to_string();
                    if let Some(stem) = name.strip_suffix(".ndtb")
                        && let Ok(m) = Material::parse(v, stem)
                    {
                        tb.max_pieces.fetch_max(m.pieces.len(), Ordering::Relaxed);
                    }
                }
            }
        }
        Ok(tb)
    }

    /// Most pieces (kings included) of a table this set can read; 0 when
    /// there is none.
    pub fn max_pieces(&self) -> usize {
        self.max_pieces.load(Ordering::Relaxed)
    }

    /// The variant.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The table of `material` (normalized), if loaded or in the
    /// directory.
    pub fn get(&self, material: &Material) -> Result<Option<Arc<Table>>, TablebaseError> {
        let v = &self.variant;
        let material = material.normalized(v);
        if let Some(t) = self.tables.read().expect("lock poisoned").get(&material) {
            return Ok(Some(t.clone()));
        }
        if self
            .missing
            .read()
            .expect("lock poisoned")
            .contains(&material)
        {
            return Ok(None);
        }
        let Some(dir) = &self.dir else {
            return Ok(None);
        };
        let result = self.load(dir, &material);
        if !matches!(result, Ok(Some(_))) {
            self.missing
                .write()
                .expect("lock poisoned")
                .insert(material.clone());
        }
        result
    }

    /// Reads the table of `material` from `dir`.
    fn load(&self, dir: &Path, material: &Material) -> Result<Option<Arc<Table>>, TablebaseError> {
        let v = &self.variant;
        let material = material.clone();
        let path = file::path(dir, v, &material);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(TablebaseError::Io(format!("{}: {e}", path.display()))),
        };
        let layout = Layout::new(v, &material)?;
        let codes = file::decode(v, &material, &layout, &bytes).map_err(|e| match e {
            TablebaseError::Corrupt(s) => {
                TablebaseError::Corrupt(format!("{}: {s}", path.display()))
            }
            TablebaseError::Mismatch(s) => {
                TablebaseError::Mismatch(format!("{}: {s}", path.display()))
            }
            e => e,
        })?;
        let table = Arc::new(Table {
            material: material.clone(),
            layout,
            codes,
        });
        self.tables
            .write()
            .expect("lock poisoned")
            .insert(material, table.clone());
        Ok(Some(table))
    }

    /// The table of `material`, generated (with the smaller tables it
    /// needs) if it is neither loaded nor in the directory; new tables
    /// are written to the directory.
    pub fn ensure(
        &self,
        material: &Material,
        progress: &generate::Progress,
    ) -> Result<Arc<Table>, TablebaseError> {
        let v = self.variant.clone();
        let material = material.normalized(&v);
        if let Some(t) = self.get(&material)? {
            return Ok(t);
        }
        // The size is checked before the smaller tables are built.
        let layout = Layout::new(&v, &material)?;
        for m in material.successors(&v) {
            self.ensure(&m, progress)?;
        }
        let name = material.name(&v);
        let prefix = format!("{name}: ");
        let said = |s: &str| progress(&format!("{prefix}{s}"));
        let child = |pos: &Position| -> Result<Value, TablebaseError> {
            self.probe(pos)?.ok_or_else(|| {
                TablebaseError::Missing(format!("{} (a successor of {name})", pos.to_text()))
            })
        };
        let codes = generate::generate(&v, &layout, &child, &said)?;
        if let Some(dir) = &self.dir {
            let path = file::path(dir, &v, &material);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| TablebaseError::Io(format!("{}: {e}", parent.display())))?;
            }
            let bytes = file::encode(&v, &material, &layout, &codes);
            std::fs::write(&path, bytes)
                .map_err(|e| TablebaseError::Io(format!("{}: {e}", path.display())))?;
            progress(&format!("{prefix}written to {}", path.display()));
        }
        let table = Arc::new(Table {
            material: material.clone(),
            layout,
            codes,
        });
        self.max_pieces
            .fetch_max(material.pieces.len(), Ordering::Relaxed);
        self.missing
            .write()
            .expect("lock poisoned")
            .remove(&material);
        self.tables
            .write()
            .expect("lock poisoned")
            .insert(material, table.clone());
        Ok(table)
    }

    /// The value of `pos` for the side to move, if a table holds it:
    /// `Ok(None)` when no table is there or the position has castling
    /// rights; bare kings are a draw. A position with an en-passant
    /// right is valued through its moves.
    pub fn probe(&self, pos: &Position) -> Result<Option<Value>, TablebaseError> {
        let v = &self.variant;
        if !Arc::ptr_eq(pos.variant(), v) && pos.variant().spec != v.spec {
            return Ok(None);
        }
        if !pos.castling().is_empty() || !pos.out().is_empty() {
            return Ok(None);
        }
        let board = pos.board();
        let occupied: Vec<(usize, Piece)> = board
            .iter()
            .enumerate()
            .filter(|&(_, &p)| p != EMPTY)
            .map(|(c, &p)| (c, p))
            .collect();
        if occupied.len() > material::MAX_PIECES {
            return Ok(None);
        }
        if pos.en_passant().is_some() {
            let mut best: Option<Value> = None;
            let mut p = pos.clone();
            for m in pos.legal_moves() {
                p.make(m);
                let got = self.probe(&p);
                p.unmake();
                let Some(val) = got? else {
                    return Ok(None);
                };
                let val = val.before_move();
                best = Some(best.map_or(val, |b| b.max(val)));
            }
            return Ok(Some(
                best.unwrap_or_else(|| no_move_value(&self.variant, pos)),
            ));
        }
        let found = Material::of_pieces(v, occupied.iter().map(|&(_, p)| p));
        if found.only_kings() {
            return Ok(Some(Value::Draw));
        }
        let normal = found.normalized(v);
        let swapped = normal != found;
        let Some(table) = self.get(&normal)? else {
            return Ok(None);
        };
        let flip = |p: Piece| {
            if swapped {
                piece(Seat::new(1 - piece_seat(p).index()), piece_kind(p))
            } else {
                p
            }
        };
        let mut cells = [0u16; material::MAX_PIECES];
        let mut used = [false; material::MAX_PIECES];
        for (i, &want) in table.layout.pieces.iter().enumerate() {
            let j = (0..occupied.len())
                .find(|&j| !used[j] && flip(occupied[j].1) == want)
                .ok_or_else(|| TablebaseError::Missing("a piece of the material".into()))?;
            used[j] = true;
            cells[i] = occupied[j].0 as u16;
        }
        let side = pos.to_move().index();
        let side = if swapped { 1 - side } else { side };
        Ok(table.value(&cells[..table.layout.len()], side))
    }

    /// Every legal move of `pos` with its value for the side to move, best
    /// first; `Ok(None)` if some successor is in no table.
    pub fn rank_moves(&self, pos: &Position) -> Result<Option<Vec<(Move, Value)>>, TablebaseError> {
        let mut p = pos.clone();
        let mut out = Vec::new();
        for m in pos.legal_moves() {
            p.make(m);
            let got = self.probe(&p);
            p.unmake();
            match got? {
                Some(val) => out.push((m, val.before_move())),
                None => return Ok(None),
            }
        }
        out.sort_by_key(|&(_, val)| std::cmp::Reverse(val));
        Ok(Some(out))
    }
}
