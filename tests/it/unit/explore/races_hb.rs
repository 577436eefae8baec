//! Unit tests of src/explore/races/hb.rs: the forward pass's happens-before against EmHb and optimal's hb0.

use tracepor::explore::races::hb::{both_within, first_edge_beyond, Order};
use tracepor::explore::Budget;
use tracepor::model::clock::ChainClocks;
use tracepor::model::em::EmModel;
use tracepor::model::em_hb::EmHb;
use tracepor::trace::em::OpKind;

/// Clocks of every operation of the trace in the relation asked for; position = operation.
fn recorded(model: &EmModel, sync: bool) -> ChainClocks {
    let (with_sync, without) = both(model, sync, !sync, model.trace.ops.len());
    with_sync.or(without).expect("one relation asked for")
}

/// [`both_within`] without a budget.
fn both(model: &EmModel, sync: bool, plain: bool, upto: usize) -> (Option<ChainClocks>, Option<ChainClocks>) {
    both_within(model, sync, plain, upto, &Budget::unlimited()).expect("an unlimited budget")
}

/// Both relations equal EmHb's along the recorded path (with and without its lock and
/// notify edges) on every shipped EM trace and fixture.
#[test]
fn forward_pass_is_emhb_on_the_recorded_run() {
    let models = super::shipped_em_models();
    assert!(models.len() >= 30, "traces not found");
    let mut checked = 0;
    for (d, model) in models {
        if model.replay_recorded().is_err() {
            continue;
        }
        let n = model.trace.ops.len();
        for sync in [false, true] {
            let fast = recorded(&model, sync);
            let mut hb = EmHb::new(&model);
            hb.same_thread_unlock_edges = false;
            for p in 0..n as u32 {
                hb.push(p);
            }
            // EmHb always has lock and notify edges: without them, compare with a pass
            // over a model that has none only where the trace has none.
            let has_sync = model
                .trace
                .ops
                .iter()
                .any(|o| matches!(o.kind, OpKind::Lock { .. } | OpKind::Wait | OpKind::Notify { .. }));
            if !sync && has_sync {
                continue;
            }
            for b in 0..n {
                for a in 0..b {
                    assert_eq!(
                        fast.happens_before(a, b),
                        hb.happens_before(a, b),
                        "{} sync {sync}: {a} before {b}",
                        d.display()
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} relations checked");
}

/// Up to [`first_edge_beyond`] the recorded run's happens-before is `hb0`: the pairs whose
/// second access comes before it are the same in both (as sets), and `hb0`'s pairs include
/// all of the other's; on every shipped EM trace and fixture with locks or notifies. The
/// race analysis skips its pass on that ground (races.rs), on some of them (counted).
#[test]
fn before_the_first_new_edge_the_relations_are_one() {
    use tracepor::explore::races::{race_pairs, racing_locations};
    use tracepor::explore::{reads_from::ReadsFrom, Limits, Search, Strategy};
    let models = super::shipped_em_models();
    let (mut checked, mut cut, mut whole) = (0, 0, 0);
    for (d, model) in models {
        let has_sync = model
            .trace
            .ops
            .iter()
            .any(|o| matches!(o.kind, OpKind::Lock { .. } | OpKind::Wait | OpKind::Notify { .. }));
        if !has_sync || model.replay_recorded().is_err() {
            continue;
        }
        let mut search = Search::new(&model, Limits::default());
        search.keep_static_hb = true;
        ReadsFrom.run(&mut search);
        let kept = search.static_hb.take().expect("kept");
        let n = model.trace.ops.len();
        let all = vec![true; model.trace.locations.len()];
        let (can_race, upto) = racing_locations(&model);
        for (can, upto) in [(&all, n), (&can_race, upto)] {
            let first = first_edge_beyond(&model, &kept, upto, &Budget::unlimited());
            let full = recorded(&model, true);
            let (_, with_sync) = race_pairs(&model, &full, can, u64::MAX, n, &Budget::unlimited()).unwrap();
            let (_, plain) = race_pairs(&model, &kept, can, u64::MAX, n, &Budget::unlimited()).unwrap();
            let sorted = |v: &[(u32, u32)], upto: usize| {
                let mut v: Vec<(u32, u32)> = v.iter().copied().filter(|&(_, b)| (b as usize) < upto).collect();
                v.sort_unstable();
                v
            };
            let name = d.display();
            assert_eq!(sorted(&with_sync, first), sorted(&plain, first), "{name}: pairs before {first}");
            let plain_all = sorted(&plain, n);
            assert!(sorted(&with_sync, n).iter().all(|p| plain_all.binary_search(p).is_ok()), "{name}");
            // So a pass up to the last of `hb0`'s pairs, at their locations only, lists the
            // same pairs in the same order.
            let last = plain.last().map_or(0, |&(_, b)| b as usize + 1);
            let mut on = vec![false; model.trace.locations.len()];
            for &(a, _) in &plain {
                if let OpKind::Read { loc } | OpKind::Write { loc } = model.trace.ops[a as usize].kind {
                    on[loc as usize] = true;
                }
            }
            let part = both(&model, true, false, last).0.expect("asked for");
            assert_eq!(
                race_pairs(&model, &part, &on, u64::MAX, last, &Budget::unlimited()).unwrap().1,
                with_sync,
                "{name}: bounded pass"
            );
            if first < upto {
                cut += 1;
            } else {
                whole += 1;
            }
            checked += 1;
        }
    }
    // Both cases occur: a new edge somewhere, and none at all.
    assert!(checked >= 10 && cut >= 3 && whole >= 3, "{checked} checked, {cut} cut, {whole} whole");
}

/// The `hb0` `optimal` keeps for the analysis ([`StaticHb`]) is the relation the forward
/// pass builds, on every shipped EM trace and fixture that replays as recorded.
#[test]
fn kept_hb0_is_the_forward_pass() {
    use tracepor::explore::{reads_from::ReadsFrom, Limits, Search, Strategy};
    let models = super::shipped_em_models();
    let mut checked = 0;
    for (d, model) in models {
        if model.replay_recorded().is_err() {
            continue;
        }
        let mut search = Search::new(&model, Limits::default());
        search.keep_static_hb = true;
        ReadsFrom.run(&mut search);
        let kept = search.static_hb.take().expect("kept");
        let built = recorded(&model, false);
        let before = |o: &dyn Order, a: usize, b: usize| {
            let st = o.stamp(a);
            o.clock(b).get(st.chain as usize).is_some_and(|&k| k >= st.index)
        };
        let n = model.trace.ops.len();
        for b in 0..n {
            for a in 0..n {
                assert_eq!(before(&kept, a, b), before(&built, a, b), "{}: {a} before {b}", d.display());
            }
        }
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} traces checked");
}
