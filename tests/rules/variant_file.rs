//! Variants defined in a file (docs/variants-file.md): the built-in
//! variants written in `engines/variants.toml` give the same start
//! position and perft as the built-ins, errors name their line, and
//! thousands of mutated files get errors, never a panic or a hang.

use crate::reference_agreement::Rng;
use ndchess::board::registry::{self, FileVariant};
use ndchess::board::variant::Variant;
use ndchess::rules::movegen;
use ndchess::rules::notation::variant_file;
use ndchess::rules::position::Position;
use std::sync::Arc;

const SHIPPED: &str = include_str!("../../engines/variants.toml");

fn shipped() -> Vec<FileVariant> {
    variant_file::parse(SHIPPED).unwrap_or_else(|e| panic!("engines/variants.toml: {e}"))
}

fn file_variant(name: &str) -> Arc<Variant> {
    let fv = shipped()
        .into_iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("{name} is not in engines/variants.toml"));
    Variant::new(fv.def).expect("a loaded definition builds")
}

/// The `file-` variants and the built-in each redefines, with the perft
/// depth compared.
const PAIRS: &[(&str, &str, u32)] = &[
    ("file-chess", "chess", 4),
    ("file-chess960-0", "chess960:sp=0", 4),
    ("file-cylinder", "cylinder", 4),
    ("file-torus", "torus", 4),
    ("file-diamond3", "diamond", 4),
    ("file-diamond4", "diamond:n=4", 3),
    ("file-cylinder-diamond3", "cylinder-diamond", 4),
    ("file-torus-diamond3", "torus-diamond", 3),
    ("file-cube", "cube", 5),
    ("file-raumschach", "raumschach", 4),
];

#[test]
fn file_versions_of_the_built_ins_agree_with_them() {
    for &(file, spec, depth) in PAIRS {
        let fv = file_variant(file);
        let bv = Variant::from_spec(spec).unwrap();
        let mut fp = Position::start(&fv);
        let mut bp = Position::start(&bv);
        assert_eq!(fp.to_text(), bp.to_text(), "{file} vs {spec}: start");
        assert_eq!(fp.placement(), bp.placement(), "{file} vs {spec}");
        for d in 1..=depth {
            let (a, b) = (movegen::perft(&mut fp, d), movegen::perft(&mut bp, d));
            assert_eq!(a, b, "{file} vs {spec}: perft({d})");
        }
        // And from positions along a game, where captures, promotions,
        // castling and en passant come up.
        let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ depth as u64);
        for ply in 0..60 {
            let moves = bp.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            let text = bp.move_text(m, false);
            let fm = fp.parse_move(&text).expect("the same move exists");
            bp.make(m);
            fp.make(fm);
            if ply % 10 == 9 {
                assert_eq!(fp.to_text(), bp.to_text(), "{file} ply {ply}");
                let d = depth.min(3);
                assert_eq!(
                    movegen::perft(&mut fp, d),
                    movegen::perft(&mut bp, d),
                    "{file} vs {spec}: perft({d}) after {}",
                    bp.to_text()
                );
            }
        }
    }
}

/// The three variants that are not built in load, play and count.
#[test]
fn variants_beyond_the_built_ins_play() {
    for (name, cells) in [("cylinder6", 36), ("torus3d", 112), ("holes", 60)] {
        let v = file_variant(name);
        assert_eq!(v.geometry.cell_count(), cells, "{name}");
        let mut p = Position::start(&v);
        assert!(movegen::perft(&mut p, 3) > 0, "{name}");
    }
    // The holes are not cells: d4, e4, d5 and e5 do not parse.
    let v = file_variant("holes");
    for hole in ["d4", "e4", "d5", "e5"] {
        assert!(v.geometry.parse_cell(hole).is_none(), "{hole}");
    }
    assert!(v.geometry.parse_cell("c4").is_some());
}

/// Loaded variants are reached by name through the registry, like
/// built-in ones; parameters and unknown names are refused.
#[test]
fn loaded_variants_are_found_by_name() {
    let names = registry::install(shipped());
    assert!(names.contains(&"torus3d".to_string()));
    let v = Variant::from_spec("torus3d").unwrap();
    assert_eq!(v.name, "torus3d");
    assert!(Variant::from_spec("torus3d:n=3").is_err());
    assert!(registry::variant_names().contains(&"holes".to_string()));
}

fn error_of(text: &str) -> variant_file::FileError {
    match variant_file::parse(text) {
        Ok(v) => panic!("accepted: {} variants\n{text}", v.len()),
        Err(e) => e,
    }
}

const MINIMAL: &str = r#"[[variant]]
name = "mini"
board = { lens = [4, 4] }
start = "k3/4/4/3K w - - 0 1"

[[variant.piece]]
name = "king"
letter = "K"
leaps = [[1], [1, 1]]
royal = true
"#;

#[test]
fn errors_name_the_line_and_the_fault() {
    assert!(variant_file::parse(MINIMAL).is_ok());
    let cases: &[(&str, &str, usize, &str)] = &[
        ("lens = [4, 4]", "lens = [4, 400]", 3, "edge lengths"),
        (
            "lens = [4, 4]",
            "lens = [4, 4], shape = \"star\"",
            3,
            "shape",
        ),
        ("k3/4/4/3K", "k3/4/4/3X", 4, "start"),
        ("k3/4/4/3K", "k3/4/4/4", 4, "start"),
        ("letter = \"K\"", "letter = \"k\"", 6, "upper-case"),
        ("leaps = [[1], [1, 1]]", "leaps = [[1, 1, 1]]", 6, "leap"),
        ("royal = true", "royal = maybe", 10, ""),
        ("name = \"mini\"", "name = \"chess\"", 2, "built-in"),
        ("board =", "bord =", 3, ""),
    ];
    for &(from, to, line, words) in cases {
        assert!(MINIMAL.contains(from), "{from}");
        let text = MINIMAL.replacen(from, to, 1);
        let e = error_of(&text);
        assert_eq!(e.line, Some(line), "{to}: {e}");
        assert!(e.to_string().contains(words), "{to}: {e}");
    }
    // A variant defined twice, and a file without variants.
    let twice = format!("{MINIMAL}\n{MINIMAL}");
    assert!(error_of(&twice).to_string().contains("twice"));
    assert!(
        error_of("# nothing\n")
            .to_string()
            .contains("no [[variant]]")
    );
}

/// A position holds at most 16 castling rights: a start that grants more
/// (18 rooks beside the king on a 20-file rank) is refused with an error
/// naming the line, not a panic (which an earlier version raised).
#[test]
fn more_castling_rights_than_a_position_holds_are_refused() {
    // MINIMAL's king on a 3x20 board, with a castling rook kind.
    let text = MINIMAL
        .replacen("lens = [4, 4]", "lens = [3, 20]", 1)
        .replacen(
            "k3/4/4/3K w - - 0 1\"",
            "8k11/20/RRRRRRRRKRRRRRRRRRRR w ABCDEFGHJKLMNOPQRS - 0 1\"\n\
             rules = { castling = \"fide\", chess960_notation = true }",
            1,
        )
        + "\n[[variant.piece]]\nname = \"rook\"\nletter = \"R\"\nslides = [1]\ncastles = true\n";
    let e = error_of(&text);
    assert_eq!(e.line, Some(4), "{e}");
    assert!(e.to_string().contains("more than 16 rights"), "{e}");
    // Sixteen rights are accepted.
    let sixteen = text.replacen("ABCDEFGHJKLMNOPQRS", "ABCDEFGHJKLMNOPQ", 1);
    assert!(variant_file::parse(&sixteen).is_ok());
}

/// One variant's block of the shipped file.
fn blocks() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for chunk in SHIPPED.split("\n[[variant]]\n").skip(1) {
        out.push(format!("[[variant]]\n{chunk}"));
    }
    out
}

/// Mutates a variants file: flips, inserts and deletes bytes, replaces
/// numbers by extreme ones, drops, repeats and swaps lines.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        match rng.below(9) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            2 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            3 | 4 => {
                // A number replaced by a boundary or huge value.
                const NUMBERS: [&str; 10] = [
                    "0",
                    "-1",
                    "1",
                    "2",
                    "8",
                    "99",
                    "100",
                    "65536",
                    "9223372036854775807",
                    "-9223372036854775808",
                ];
                let l = &lines[i];
                if let Some(pos) = l.find(|c: char| c.is_ascii_digit()) {
                    let end = l[pos..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(l.len(), |e| pos + e);
                    let n = NUMBERS[rng.below(NUMBERS.len())];
                    lines[i] = format!("{}{n}{}", &l[..pos], &l[end..]);
                }
            }
            5 => {
                // A byte changed.
                let mut bytes = lines[i].clone().into_bytes();
                if !bytes.is_empty() {
                    let k = rng.below(bytes.len());
                    const POOL: &[u8] = b"[]{}=,\"'#.-0123456789abcKQPpx \\\t";
                    bytes[k] = POOL[rng.below(POOL.len())];
                }
                lines[i] = String::from_utf8_lossy(&bytes).into_owned();
            }
            6 => {
                // A line truncated.
                let l = &lines[i];
                let cut = rng.below(l.len() + 1);
                let cut = (0..=cut)
                    .rev()
                    .find(|&c| l.is_char_boundary(c))
                    .unwrap_or(0);
                lines[i] = l[..cut].to_string();
            }
            7 => {
                // An array grown: its first element repeated.
                let l = &lines[i];
                if let (Some(a), Some(b)) = (l.find('['), l.find(','))
                    && a < b
                {
                    let item = l[a + 1..b].to_string();
                    let rep = format!("{item}, ").repeat(1 + rng.below(40));
                    lines[i] = format!("{}{rep}{}", &l[..=a], &l[a + 1..]);
                }
            }
            _ => {
                // A key's value replaced by another type.
                if let Some(eq) = lines[i].find('=') {
                    const VALUES: [&str; 6] = ["true", "\"x\"", "[]", "{}", "[[0]]", "-3"];
                    lines[i] = format!("{}= {}", &lines[i][..eq], VALUES[rng.below(6)]);
                }
            }
        }
    }
    lines.join("\n")
}

/// 10,000 mutated files: each is accepted (then it builds and its start
/// position has moves or is a finished game) or refused with a message;
/// none panics or hangs.
#[test]
fn mutated_files_get_errors_not_panics() {
    let blocks = blocks();
    assert!(blocks.len() >= 12, "{} blocks", blocks.len());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..10_000 {
        // Mostly one variant (the 4-D diamond is slow to build), sometimes
        // two, sometimes the file's header and all.
        let base = match rng.below(20) {
            0 => format!(
                "{}\n{}",
                blocks[rng.below(blocks.len())],
                blocks[rng.below(blocks.len())]
            ),
            _ => blocks[rng.below(blocks.len())].clone(),
        };
        let text = mutate(&base, &mut rng);
        match variant_file::parse(&text) {
            Ok(vs) => {
                accepted += 1;
                for fv in vs {
                    let v = Variant::new(fv.def).expect("a loaded definition builds");
                    let p = Position::start(&v);
                    let _ = p.legal_moves();
                }
            }
            Err(e) => {
                refused += 1;
                assert!(!e.message.is_empty());
            }
        }
    }
    eprintln!("mutated variant files: {accepted} accepted, {refused} refused");
    assert!(refused > 1000 && accepted > 100, "{accepted} / {refused}");
}
