//! The work budget of one classification: when it runs out the verdict is `ask`
//! (`builtin.shell.too-complex`) with the span where the work stopped, and no input
//! spends more than the budget.

#[path = "../src/adversarial.rs"]
#[allow(dead_code)]
mod adversarial;

use toolgate_core::budget::{Budget, MIN_STEPS, STEPS_PER_BYTE};
use toolgate_core::builtin::{analyze_with, Env};
use toolgate_core::shell::{parse_in, ParseErrorKind};
use toolgate_core::Tier;

fn env() -> Env<'static> {
    Env {
        workspace: "/home/dev/app",
        home: "/home/dev",
        default: Tier::Ask,
        edits: Tier::Auto,
        facts: None,
        needs: None,
        trees: false,
        want_norm: true,
    }
}

#[test]
fn an_exhausted_budget_is_ask_too_complex_with_the_span_where_it_stopped() {
    let command = "ls; ".repeat(200) + "rm -rf /";
    // The full budget classifies everything, including the hard deny at the end.
    let full = analyze_with(&command, &env(), &mut Budget::for_input(command.len()));
    assert!(full
        .iter()
        .any(|p| p.finding.rule == "builtin.shell.rm-root"));
    // A budget of a few steps stops early: `ask`, too-complex, never `auto` for all.
    for steps in [0usize, 1, 10, 100, 400] {
        let mut budget = Budget::for_input(0);
        let _ = budget.spend(budget.limit() - steps);
        let parts = analyze_with(&command, &env(), &mut budget);
        let stop = parts
            .iter()
            .find(|p| p.finding.rule == "builtin.shell.too-complex")
            .unwrap_or_else(|| panic!("{steps} steps: no too-complex part in {parts:?}"));
        assert_eq!(stop.finding.tier, Tier::Ask, "{steps} steps");
        assert!(
            stop.span[0] <= command.len(),
            "{steps} steps: {:?}",
            stop.span
        );
        assert!(budget.is_exhausted(), "{steps} steps");
    }
}

#[test]
fn the_budget_bounds_steps_for_any_input() {
    // The budget is the hard ceiling: no input spends more than it.
    for seed in 1..=16u64 {
        let command = adversarial::generated(4096, seed);
        let mut budget = Budget::for_input(command.len());
        let _ = analyze_with(&command, &env(), &mut budget);
        assert!(
            budget.spent() <= STEPS_PER_BYTE * command.len() + MIN_STEPS,
            "seed {seed}"
        );
    }
}

#[test]
fn the_parser_stops_with_too_complex_when_its_budget_runs_out() {
    let src = "a | b | c; d && e";
    for steps in 0..6usize {
        let mut budget = Budget::for_input(0);
        let _ = budget.spend(budget.limit() - steps);
        let e = parse_in(src, 0, None, 0, &mut budget).expect_err("too few steps");
        assert_eq!(e.kind, ParseErrorKind::TooComplex, "{steps} steps: {e:?}");
        assert!(e.span[0] <= src.len(), "{steps} steps: {e:?}");
    }
    let mut budget = Budget::for_input(src.len());
    assert!(parse_in(src, 0, None, 0, &mut budget).is_ok());
    assert!(budget.spent() > 0 && budget.spent() < 8 * src.len());
}
