use super::check;

#[test]
fn the_issue_cases() {
    // Python accepts these (the old lint warned on them).
    for ok in [
        r"abc\Z",
        r"\N{EM DASH}",
        r"\N{GREEK SMALL LETTER ALPHA}",
        r"\N{em dash}",
        r"(?P<name>a)(?P=name)",
    ] {
        assert_eq!(check(ok), Ok(()), "{ok}");
    }
    // Python refuses these (the old lint let them through).
    for (bad, msg) in [
        (r"\p{L}+", "bad escape \\p at position 0"),
        (r"(?<name>a)", "unknown extension ?<n at position 1"),
        (r"\h", "bad escape \\h at position 0"),
    ] {
        assert_eq!(
            check(bad).map_err(|e| e.to_string()),
            Err(msg.to_string()),
            "{bad}"
        );
    }
}

#[test]
fn compile_time_checks() {
    assert_eq!(
        check("(?<=a+)b").map_err(|e| e.to_string()),
        Err("look-behind requires fixed-width pattern".into())
    );
    assert_eq!(check("(?<=ab|cd)x"), Ok(()));
    assert_eq!(check(r"(a)(?<=\1)"), Ok(()));
    assert!(check("(?a)(?u)x").is_err());
    assert!(check("(?au)x").is_err());
}

#[test]
fn positions_count_code_points() {
    assert_eq!(check("é\\q").unwrap_err().pos, Some(1));
    assert_eq!(
        check("[a-").unwrap_err().to_string(),
        "unterminated character set at position 0"
    );
    assert_eq!(
        check("a{3,2}").unwrap_err().to_string(),
        "min repeat greater than max repeat at position 2"
    );
}

#[test]
fn quantifier_edge_cases() {
    for ok in [
        "a{,}", "{", "a{", "a{1", "a{}", "x{1,2}?", "a*+", "(?:a*)*", "a{0}",
    ] {
        assert_eq!(check(ok), Ok(()), "{ok}");
    }
    for bad in [
        "*",
        "a**",
        "^*",
        r"\b+",
        "a{2}{3}",
        "(?i)*",
        "a{4294967295}",
    ] {
        assert!(check(bad).is_err(), "{bad}");
    }
}

#[test]
fn nesting_stops_where_python_recursion_does() {
    let nest = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(check(&nest(super::MAX_NESTING)), Ok(()));
    assert!(check(&nest(497)).is_err());
}
