//! The statistics against an independent computation: every expected
//! figure below was printed by tests/python/stats_reference.py, which
//! implements the published formulas (cutechess-cli's elo.cpp for W/D/L,
//! fastchess's pentanomial report, M. Van den Bergh's GSPRT as in
//! fishtest's stat_util.LLR_logistic) with Python's standard library. The
//! last test runs the script and compares its output whole, so the typed
//! figures cannot drift from it.

use ndchess::arbiter::stats::{Penta, Sprt, SprtStatus, Wdl, erf};

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} vs {b}");
}

const SPRT: Sprt = Sprt {
    elo0: 0.0,
    elo1: 5.0,
    alpha: 0.05,
    beta: 0.05,
};

#[test]
fn wdl_figures_match_the_reference() {
    // (W, D, L, Elo, error, LOS, draw ratio, LLR(0, 5))
    let cases = [
        (120, 200, 80, 34.8601, 24.1142, 0.997661, 0.5, 1.09019),
        (33, 40, 27, 20.8712, 53.1948, 0.780711, 0.4, 0.12741),
        (5, 90, 5, 0.0, 21.5615, 0.5, 0.9, -0.10354),
    ];
    for (w, d, l, elo, err, los, dr, llr) in cases {
        let x = Wdl {
            wins: w,
            draws: d,
            losses: l,
        };
        close(x.elo().unwrap(), elo, 1e-4);
        close(x.elo_error_95().unwrap(), err, 1e-4);
        close(x.los().unwrap(), los, 1e-6);
        close(x.draw_ratio().unwrap(), dr, 1e-12);
        close(SPRT.llr_trinomial(&x), llr, 1e-5);
    }
}

#[test]
fn pentanomial_figures_match_the_reference() {
    let cases = [
        ([10, 40, 100, 35, 15], 4.3432, 22.5478, 0.06985),
        ([3, 20, 50, 22, 5], 10.4262, 29.3138, 0.17825),
    ];
    for (counts, elo, err, llr) in cases {
        let p = Penta::from_counts(counts);
        close(p.elo().unwrap(), elo, 1e-4);
        close(p.elo_error_95().unwrap(), err, 1e-4);
        close(SPRT.llr_pentanomial(&p), llr, 1e-5);
    }
}

#[test]
fn sprt_bounds_and_decisions() {
    let (lo, hi) = SPRT.bounds();
    close(lo, -2.944439, 1e-6);
    close(hi, 2.944439, 1e-6);
    assert_eq!(SPRT.status(3.0), SprtStatus::AcceptH1);
    assert_eq!(SPRT.status(-3.0), SprtStatus::AcceptH0);
    assert_eq!(SPRT.status(0.5), SprtStatus::Continue);
    // A large sample with a clear edge ends the test.
    let strong = Wdl {
        wins: 600,
        draws: 800,
        losses: 400,
    };
    assert_eq!(
        SPRT.status(SPRT.llr_trinomial(&strong)),
        SprtStatus::AcceptH1
    );
}

#[test]
fn degenerate_samples_give_no_figure() {
    let none = Wdl::default();
    assert_eq!(none.elo(), None);
    assert_eq!(none.los(), None);
    let all = Wdl {
        wins: 5,
        draws: 0,
        losses: 0,
    };
    assert_eq!(all.elo(), None, "a perfect score has no finite Elo");
    assert_eq!(SPRT.llr_trinomial(&none), 0.0);
    assert_eq!(Penta::default().elo(), None);
}

#[test]
fn a_young_sample_of_one_kind_of_result_weighs_little() {
    // Found in a real run: the first game of a match lost, and the
    // regularised variance of that one result made the LLR -5.9, so the
    // test accepted H0 after one game. Now one result is weak evidence and
    // a long run of one result is strong evidence.
    let strict = Sprt {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let losses = |n| Wdl {
        wins: 0,
        draws: 0,
        losses: n,
    };
    close(SPRT.llr_trinomial(&losses(1)), -0.01449, 1e-5);
    close(SPRT.llr_trinomial(&losses(20)), -1.59793, 1e-5);
    assert_eq!(
        strict.status(strict.llr_trinomial(&losses(1))),
        SprtStatus::Continue
    );
    close(
        SPRT.llr_pentanomial(&Penta::from_counts([0, 0, 0, 0, 4])),
        0.08929,
        1e-5,
    );
    close(
        SPRT.llr_pentanomial(&Penta::from_counts([0, 0, 3, 0, 0])),
        -0.00166,
        1e-5,
    );
    // With a second kind of result the regularised formula as before.
    let two = Wdl {
        wins: 0,
        draws: 1,
        losses: 5,
    };
    close(SPRT.llr_trinomial(&two), -0.52040, 1e-5);
}

#[test]
fn erf_matches_the_reference() {
    close(erf(0.5), 0.520499877813047, 1e-14);
    close(erf(3.5), 0.999999256901628, 1e-14);
    close(erf(-0.5), -0.520499877813047, 1e-14);
    assert_eq!(erf(0.0), 0.0);
}

#[test]
fn the_reference_script_prints_the_figures_typed_here() {
    if !super::have("python3", &["-c", "import statistics"], "python3") {
        return;
    }
    let out = std::process::Command::new("python3")
        .arg(super::root().join("tests/python/stats_reference.py"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "wdl 120/200/80: elo 34.8601 error 24.1142 los 0.997661 draws 0.500000 llr(0,5) 1.09019",
        "wdl 33/40/27: elo 20.8712 error 53.1948 los 0.780711 draws 0.400000 llr(0,5) 0.12741",
        "wdl 5/90/5: elo -0.0000 error 21.5615 los 0.500000 draws 0.900000 llr(0,5) -0.10354",
        "penta (10, 40, 100, 35, 15): elo 4.3432 error 22.5478 llr(0,5) 0.06985",
        "penta (3, 20, 50, 22, 5): elo 10.4262 error 29.3138 llr(0,5) 0.17825",
        "young wdl 0/0/1: llr(0,5) -0.01449",
        "young wdl 0/0/20: llr(0,5) -1.59793",
        "young wdl 0/1/5: llr(0,5) -0.52040",
        "young penta (0, 0, 0, 0, 4): llr(0,5) 0.08929",
        "young penta (0, 0, 3, 0, 0): llr(0,5) -0.00166",
        "bounds -2.944439 2.944439",
        "erf(0.5) 0.520499877813047 erf(3.5) 0.999999256901628",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}
