mod events_common;
use events_common::*;
use tracepor::explore::stateful_dpor::StatefulDpor;
use tracepor::model::events::EventOptions;

#[test]
fn smoke() {
    let m = model(include_str!("../fixtures/events/example.events"), EventOptions { conflicts: true, bound: None });
    let (st, o) = explore(&m, &mut Exhaustive);
    let (sd, od) = explore(&m, &mut StatefulDpor::new());
    eprintln!("{:?}\n{:?}", st, sd);
    eprintln!("{:?}\n{:?}", findings(&o), findings(&od));
}
