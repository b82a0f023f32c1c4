//! An independent check of a finished table, forwards: every legal
//! position's value must be the best of its moves' values (each looked up
//! in the tables, one ply later), and a position without moves must be
//! mated or stalemated as the rules say. The generator works backwards
//! from un-moves; this check uses only the move generator, so a missing
//! or wrong un-move shows up here.

use rayon::prelude::*;

use super::generate::position_of;
use super::value::{BROKEN, Value};
use super::{Table, TablebaseError, Tablebases, no_move_value};

/// Checks every entry of `table`; the number of legal positions checked.
pub fn verify(tb: &Tablebases, table: &Table) -> Result<u64, TablebaseError> {
    let v = tb.variant().clone();
    let l = &table.layout;
    let k = l.len();
    (0..table.codes.len())
        .into_par_iter()
        .map(|i| -> Result<u64, TablebaseError> {
            let code = table.codes[i];
            let (cells, side) = l.decode(i as u64);
            let canonical = l.canonical(&cells[..k], side) == i as u64;
            let pos = if canonical {
                position_of(&v, l, &cells[..k], side)
            } else {
                None
            };
            let Some(pos) = pos else {
                if code != BROKEN {
                    return Err(TablebaseError::Corrupt(format!(
                        "entry {i} is no legal canonical position but holds a value"
                    )));
                }
                return Ok(0);
            };
            let stored = Value::from_code(code).ok_or_else(|| {
                TablebaseError::Corrupt(format!("entry {i} ({}) holds no value", pos.to_text()))
            })?;
            let moves = tb
                .rank_moves(&pos)?
                .ok_or_else(|| TablebaseError::Missing("a successor table".into()))?;
            let expected = match moves.first() {
                Some(&(_, best)) => best,
                None => no_move_value(&v, &pos),
            };
            if expected != stored {
                return Err(TablebaseError::Corrupt(format!(
                    "{}: stored {stored}, its moves give {expected}",
                    pos.to_text()
                )));
            }
            Ok(1)
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))
}
