//! Start-position perft of every non-classical board against
//! `perft/variants.epd` (counts from the independent reference generator),
//! through the CLI so the command users run is the one checked.

use std::process::Command;

#[test]
fn variant_suite_matches_the_reference_counts() {
    let path = format!("{}/perft/variants.epd", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut fields = line.split(" ;");
        let spec = fields.next().unwrap().trim();
        for field in fields {
            let (d, n) = field.trim().split_once(' ').unwrap();
            let depth: u32 = d.trim_start_matches('D').parse().unwrap();
            let expected: u64 = n.parse().unwrap();
            // Keep the suite quick: the largest counts stay in the ignored
            // reference tests.
            if expected > 20_000_000 {
                continue;
            }
            let out = Command::new(env!("CARGO_BIN_EXE_ndchess"))
                .args(["perft", "--variant", spec, "--depth", &depth.to_string()])
                .output()
                .unwrap();
            assert!(out.status.success(), "{spec}");
            let stdout = String::from_utf8(out.stdout).unwrap();
            let last = stdout.lines().last().unwrap();
            assert_eq!(
                last,
                format!("Nodes searched: {expected}"),
                "{spec} depth {depth}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 25, "only {checked} counts checked");
}
