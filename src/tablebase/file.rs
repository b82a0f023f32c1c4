//! The table file (docs/tablebases.md): a header naming the board and the
//! material, the entries, and a CRC-32 of everything before it.
//!
//! ```text
//! "NDTB"           magic
//! u32              format version (1)
//! u64              fingerprint of the board and its pieces' moves
//! u16 + bytes      variant spec (UTF-8)
//! u16 + bytes      material name, as KQvK
//! u64              number of entries
//! u32              number of representative cells of the first king
//! u16 × entries    the entries (docs/tablebases.md: value codes)
//! u32              CRC-32 of all bytes above
//! ```
//! Integers are little-endian.

use std::path::{Path, PathBuf};

use crate::board::variant::{StalemateRule, Variant};

use super::TablebaseError;
use super::layout::Layout;
use super::material::Material;
use super::value::{BROKEN, Value};

const MAGIC: &[u8; 4] = b"NDTB";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;

/// A fingerprint of what a table's values depend on: the spec, the cells,
/// every piece's moves (leaps and rays) and the stalemate rule. A table
/// built for another board, or for a board whose rules have changed since,
/// is refused.
pub fn fingerprint(v: &Variant) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for b in v.spec.bytes() {
        eat(b as u64);
    }
    let g = &v.geometry;
    eat(g.cell_count() as u64);
    eat(match v.rules.stalemate {
        StalemateRule::Draw => 1,
        StalemateRule::StalematedLoses => 2,
    });
    for (k, kind) in v.kinds.iter().enumerate() {
        eat(kind.letter as u64);
        eat(kind.royal as u64);
        for c in 0..g.cell_count() {
            if let Some(t) = v.leap_table(k) {
                for &x in t.get(c) {
                    eat(x as u64);
                }
            }
            for &d in &kind.slides {
                eat(0xFFFF_0000 | d as u64);
                for &x in g.ray(c, d) {
                    eat(x as u64);
                }
            }
        }
    }
    h
}

/// Where the table of `material` on `v` lives under `dir`.
pub fn path(dir: &Path, v: &Variant, material: &Material) -> PathBuf {
    let board: String = v
        .spec
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    dir.join(board).join(format!("{}.ndtb", material.name(v)))
}

/// The bytes of a table file.
pub fn encode(v: &Variant, material: &Material, layout: &Layout, codes: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(codes.len() * 2 + 64);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&fingerprint(v).to_le_bytes());
    for s in [v.spec.clone(), material.name(v)] {
        out.extend_from_slice(&(s.len() as u16).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out.extend_from_slice(&layout.size.to_le_bytes());
    out.extend_from_slice(&(layout.reps.len() as u32).to_le_bytes());
    for &c in codes {
        out.extend_from_slice(&c.to_le_bytes());
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Reads a table file's bytes, checking everything: magic, version,
/// checksum, board, material, size and every entry.
pub fn decode(
    v: &Variant,
    material: &Material,
    layout: &Layout,
    bytes: &[u8],
) -> Result<Vec<u16>, TablebaseError> {
    let corrupt = |why: &str| TablebaseError::Corrupt(why.to_string());
    if bytes.len() < 8 || &bytes[..4] != MAGIC {
        return Err(corrupt("not a table file (no NDTB header)"));
    }
    let mut at = 4usize;
    let mut take = |n: usize| -> Result<&[u8], TablebaseError> {
        let s = bytes.get(at..at + n).ok_or_else(|| corrupt("truncated"))?;
        at += n;
        Ok(s)
    };
    let version = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(TablebaseError::Mismatch(format!(
            "format version {version}, this build reads {VERSION}"
        )));
    }
    if bytes.len() < 4 + 4 {
        return Err(corrupt("truncated"));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
        return Err(corrupt("checksum mismatch"));
    }
    let fp = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
    let mut text = || -> Result<String, TablebaseError> {
        let n = u16::from_le_bytes(take(2)?.try_into().expect("2 bytes")) as usize;
        String::from_utf8(take(n)?.to_vec()).map_err(|_| corrupt("a name is not UTF-8"))
    };
    let spec = text()?;
    let name = text()?;
    if spec != v.spec {
        return Err(TablebaseError::Mismatch(format!(
            "built for '{spec}', not '{}'",
            v.spec
        )));
    }
    if fp != fingerprint(v) {
        return Err(TablebaseError::Mismatch(format!(
            "built for another version of '{spec}' (its pieces or rules differ)"
        )));
    }
    if name != material.name(v) {
        return Err(TablebaseError::Mismatch(format!(
            "holds {name}, not {}",
            material.name(v)
        )));
    }
    let size = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
    let reps = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
    if size != layout.size || reps as usize != layout.reps.len() {
        return Err(TablebaseError::Mismatch(format!(
            "{size} entries over {reps} king cells, this build numbers {} over {}",
            layout.size,
            layout.reps.len()
        )));
    }
    let data = take(size as usize * 2)?;
    if at != body.len() {
        return Err(corrupt("trailing bytes"));
    }
    let codes: Vec<u16> = data
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    if let Some(i) = codes
        .iter()
        .position(|&c| c != BROKEN && Value::from_code(c).is_none())
    {
        return Err(corrupt(&format!("entry {i} holds no value")));
    }
    Ok(codes)
}
