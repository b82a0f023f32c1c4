use ndchess::eval::*;
use ndchess::variant::Variant;
fn main() {
    for spec in [
        "chess",
        "cube",
        "diamond:n=3",
        "torus",
        "diamond:n=4",
        "cylinder",
    ] {
        let v = Variant::from_spec(spec).unwrap();
        let e = Evaluator::new(&v, EvalConfig::FULL);
        let rho = DENSITY_FACTOR * v.start.len() as f64 / v.geometry.cell_count() as f64;
        let s: Vec<String> = v
            .kinds
            .iter()
            .enumerate()
            .map(|(i, k)| {
                format!(
                    "{}={} ({:.2})",
                    k.letter,
                    e.value(i),
                    density_mobility(&v, i, rho)
                )
            })
            .collect();
        println!("{spec} rho={rho:.3}: {}", s.join(" "));
    }
}
