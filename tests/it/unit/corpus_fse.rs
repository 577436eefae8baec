//! Unit tests of src/corpus/fse.rs: reading the FSE study's tables, the tally of verdicts
//! against IoTCheck's and the manual labels, and which findings count for each category.

use tracepor::corpus::fse::{
    group_scope, is_fse, parse_pairs, select, summary, Category, Confusion, FsePair, FseRow, IotCheck, Ours,
    PHYSICAL_KIND,
};

const TSV: &str = "# c\ngroup\tapp1\tapp2\tiotcheck\tmanual\n\
Locks\ta.groovy\tb.groovy\tdetected\tFeature Conflict\n\
Locks\ta.groovy\tc.groovy\tno error\tComposable Relation\n\
Alarms\tc.groovy\td.groovy\tnon-terminated\t\n";

#[test]
fn reads_the_fse_table_and_tells_it_by_its_header() {
    assert!(is_fse(TSV));
    assert!(!is_fse("table\tno\tpair\n"));
    let p = parse_pairs(TSV).unwrap();
    assert_eq!(p.len(), 3);
    assert_eq!((p[2].no, p[2].iotcheck, p[2].manual.as_deref()), (3, Some(IotCheck::NonTerminated), None));
    assert_eq!(p.iter().map(FsePair::manual_conflict).collect::<Vec<_>>(), [Some(true), Some(false), None]);
    assert_eq!(select(p.clone(), Some("Locks"), None, None).len(), 2);
    assert!(parse_pairs("group\tapp1\tapp2\tiotcheck\nG\ta\tb\tmaybe\n").unwrap_err().contains("line 2"));
}

fn row(iot: IotCheck, manual: Option<bool>, ours: Option<Ours>) -> FseRow {
    let pair = FsePair {
        category: Category::DeviceInteraction,
        group: "G".into(),
        no: 1,
        source: String::new(),
        app1: "a".into(),
        app2: "b".into(),
        iotcheck: Some(iot),
        manual: manual.map(|c| if c { "Feature Conflict" } else { "Read-Read Interaction" }.to_string()),
    };
    FseRow { verdict: ours, error: ours.is_none().then(|| "x".into()), ..FseRow::new(pair) }
}

#[test]
fn tally_of_verdicts() {
    use IotCheck::*;
    let rows = [
        row(Detected, Some(true), Some(Ours::Conflict)),
        row(Detected, Some(true), Some(Ours::Unfinished)),
        row(NoError, Some(false), Some(Ours::Conflict)),
        row(NonTerminated, Some(false), Some(Ours::NoConflict)),
        row(NoError, None, Some(Ours::NoConflict)),
        row(Detected, Some(true), None),
    ];
    let s = summary(&rows).remove(0).all;
    assert_eq!((s.pairs, s.loaded, s.conflict, s.no_conflict, s.unfinished), (6, 5, 2, 2, 1));
    assert_eq!((s.both_decided, s.agree_with_iotcheck, s.conflict_only_ours, s.conflict_only_iotcheck), (3, 2, 1, 0));
    assert_eq!(s.vs_manual, Confusion { tp: 1, fp: 1, fn_: 2, tn: 1 });
    assert_eq!(s.iotcheck_vs_manual, Confusion { tp: 3, fp: 0, fn_: 0, tn: 2 });
    assert_eq!((s.recall, s.precision), (Some(1.0 / 3.0), Some(0.5)));
    assert_eq!(s.iotcheck_precision, Some(1.0));
}

const STUDY: &str = "study\tgroup\tsheet\tapp1\tapp2\tverdict\n\
Automation\tSwitches\tGeneral Switches\ta.groovy\tb.groovy\tdetected\n\
Automation\tGlobal Variable\tlocation mode\ta.groovy\tc.groovy\tnon terminated\n\
Manual Study\tSwitches\tGeneral Switches\ta.groovy\tb.groovy\tComposable Relation\n\
Manual Study\tGlobal Variable\tlocation mode\tb.groovy\tc.groovy\tApp-direct write-write\n\
Manual Study\tGlobal Variable\tlocation mode\ta.groovy\tc.groovy\tDirect-direct write-write\n\
Manual Study\tPhysical Medium\tWater Valves and Water Sensor\ta.groovy\td.groovy\tPhysical Interaction\n\
Manual Study\tPhysical Medium\tLight and Illuminance Sensor\ta.groovy\td.groovy\tLight state\n";

#[test]
fn joins_the_study_tables_sources_per_pair_and_reads_labels_by_category() {
    assert!(is_fse(STUDY));
    let p = parse_pairs(STUDY).unwrap();
    let got: Vec<_> = p
        .iter()
        .map(|p| (p.no, p.category, p.group.as_str(), p.iotcheck, p.manual.as_deref(), p.manual_conflict()))
        .collect();
    use Category::*;
    assert_eq!(
        got,
        [
            (
                1,
                DeviceInteraction,
                "General Switches",
                Some(IotCheck::Detected),
                Some("Composable Relation"),
                Some(false)
            ),
            (
                2,
                GlobalVariable,
                "location mode",
                Some(IotCheck::NonTerminated),
                Some("Direct-direct write-write"),
                Some(false)
            ),
            (3, GlobalVariable, "location mode", None, Some("App-direct write-write"), Some(true)),
            (4, PhysicalMedium, "Water Valves and Water Sensor", None, Some("Physical Interaction"), Some(false)),
            (5, PhysicalMedium, "Light and Illuminance Sensor", None, Some("Light state"), Some(true)),
        ]
    );
    assert_eq!(group_scope("Light Switches"), Some(&["switch"][..]));
    let twice = format!("{STUDY}Automation\tSwitches\tGeneral Switches\ta.groovy\tb.groovy\tno error\n");
    assert!(parse_pairs(&twice).unwrap_err().contains("line 9"), "{:?}", parse_pairs(&twice));
    let bad = "study\tgroup\tsheet\tapp1\tapp2\tverdict\nAutomation\tRooms\tx\ta\tb\tdetected\n";
    assert!(parse_pairs(bad).unwrap_err().contains("`Rooms`"));
}

#[test]
fn summaries_per_category_and_findings_by_kind() {
    let p = parse_pairs(STUDY).unwrap();
    let rows: Vec<FseRow> = p.into_iter().map(FseRow::new).collect();
    let s = summary(&rows);
    assert_eq!(
        s.iter().map(|c| (c.category, c.all.pairs, c.all.labelled)).collect::<Vec<_>>(),
        [(Category::DeviceInteraction, 1, 1), (Category::GlobalVariable, 2, 2), (Category::PhysicalMedium, 2, 2),]
    );
    let finding = |kind: &str, variable: &str| tracepor::report::ErrorReport {
        kind: kind.into(),
        conflict: Some(tracepor::model::Conflict { variable: variable.into(), ..Default::default() }),
        ..Default::default()
    };
    assert!(Category::DeviceInteraction.counts(&finding("conflict", "switch")));
    assert!(!Category::DeviceInteraction.counts(&finding("conflict", "location mode")));
    assert!(Category::GlobalVariable.counts(&finding("conflict", "location mode")));
    assert!(!Category::GlobalVariable.counts(&finding("conflict", "switch")));
    assert!(Category::PhysicalMedium.counts(&finding(PHYSICAL_KIND, "illuminance")));
    assert!(!Category::PhysicalMedium.counts(&finding("conflict", "switch")));
}
