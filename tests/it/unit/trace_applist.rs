//! Unit tests of src/trace/applist.rs: telling an app list from a SmartApp.

use tracepor::trace::applist::is_app_list;

#[test]
fn tells_a_list_from_its_first_entry() {
    assert!(is_app_list(b"# removed\n\n  a.groovy\nb.groovy"));
    assert!(!is_app_list(b"definition(name: \"x\")\n"));
    assert!(!is_app_list(b"a b.groovy\n"));
    assert!(!is_app_list(b"# only comments\n"));
    assert!(!is_app_list(b"1 START\n"));
}
