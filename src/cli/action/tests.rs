use super::*;

#[test]
fn typed_names_match_only_all_of_them_in_order() {
    let names = ["val-0".to_owned(), "seed-1".to_owned()];
    assert!(typed_names_match("val-0 seed-1\n", &names));
    assert!(typed_names_match("  val-0\tseed-1 ", &names));
    assert!(!typed_names_match("val-0", &names));
    assert!(!typed_names_match("seed-1 val-0", &names));
    assert!(!typed_names_match("y", &names));
}
