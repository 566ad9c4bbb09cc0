//! Every corpus checkpoint: validation, canonical bytes, idempotence, rejects.

use crate::common::*;
use karenina_ld::model::{analyze, ReadOptions};
use karenina_ld::save::{canonicalize, WriteOptions};
use std::path::Path;

fn canon(p: &Path, bytes: &[u8], read: ReadOptions, write: &WriteOptions) -> String {
    canonicalize(p, bytes, read, write)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .0
}

#[test]
fn every_loadable_file_validates_and_canon_is_idempotent() {
    for p in corpus_files("loads") {
        let bytes = std::fs::read(&p).unwrap();
        let a = analyze(&p, &bytes, ReadOptions::default());
        assert!(!a.report.has_errors(), "{}: {}", p.display(), a.report);
        let once = canon(&p, &bytes, ReadOptions::default(), &WriteOptions::default());
        let twice = canon(
            &p,
            once.as_bytes(),
            ReadOptions::default(),
            &WriteOptions::default(),
        );
        assert_eq!(once, twice, "canon not idempotent on {}", p.display());
        // A canonical file has nothing left to warn about but its own contents:
        // no context, keyword-location or prefix warnings survive canon.
        let again = analyze(&p, once.as_bytes(), ReadOptions::default());
        for d in &again.report.diagnostics {
            assert!(
                !matches!(
                    d.code,
                    "KLD-W002" | "KLD-W003" | "KLD-W004" | "KLD-W005" | "KLD-W006" | "KLD-W007"
                ),
                "{}: canonical output still has {} {}",
                p.display(),
                d.code,
                d.message
            );
        }
    }
}

#[test]
fn karenina_written_files_come_back_byte_identical() {
    let mut n = 0;
    for p in corpus_files("loads")
        .into_iter()
        .filter(|p| karenina_written(p))
    {
        let bytes = std::fs::read(&p).unwrap();
        let out = canon(&p, &bytes, ReadOptions::default(), &WriteOptions::default());
        assert!(
            out.as_bytes() == bytes.as_slice(),
            "{} differs",
            p.display()
        );
        n += 1;
    }
    assert_eq!(n, 4);
}

#[test]
fn other_corpus_files_match_their_expected_canonical_form() {
    let mut n = 0;
    for p in corpus_files("loads")
        .into_iter()
        .filter(|p| !karenina_written(p))
    {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&p).unwrap();
        let expected = std::fs::read(data(&format!("expected/{name}")))
            .unwrap_or_else(|_| panic!("no expected file for {name}"));
        let out = canon(&p, &bytes, ReadOptions::default(), &WriteOptions::default());
        assert!(
            out.as_bytes() == expected.as_slice(),
            "{name}: canon differs from expected"
        );
        let karenina = data(&format!(
            "expected/{}",
            name.replace(".jsonld", ".karenina.jsonld")
        ));
        if karenina.exists() {
            let drop = WriteOptions {
                drop_unknown: true,
                ..Default::default()
            };
            let out = canon(&p, &bytes, ReadOptions::default(), &drop);
            assert!(
                out.as_bytes() == std::fs::read(&karenina).unwrap().as_slice(),
                "{name} --drop-unknown"
            );
        }
        n += 1;
    }
    assert_eq!(n, 16);
}

#[test]
fn upgrade_turns_2025_08_dataset_into_karenina_s_own_datafeed_resave() {
    let up = ReadOptions { upgrade: true };
    for commit in ["439a051e", "44b0b2f9"] {
        let p = corpus().join(format!("rejects/example_benchmark@{commit}.jsonld"));
        let out = canon(
            &p,
            &std::fs::read(&p).unwrap(),
            up,
            &WriteOptions::default(),
        );
        let expected = read_fixture(&data(&format!(
            "expected/example_benchmark@{commit}.upgraded.jsonld"
        )));
        assert!(out.as_bytes() == expected.as_slice(), "{commit}");
    }
    // The 2025-08-18 Dataset file and Karenina's own 2025-08-28 re-save of the
    // same benchmark have the same canonical form.
    let old = corpus().join("rejects/example_benchmark@439a051e.jsonld");
    let new = corpus().join("loads/example_benchmark.jsonld");
    let a = canon(
        &old,
        &std::fs::read(&old).unwrap(),
        up,
        &WriteOptions::default(),
    );
    let b = canon(
        &new,
        &std::fs::read(&new).unwrap(),
        ReadOptions::default(),
        &WriteOptions::default(),
    );
    assert_eq!(a, b);
}

#[test]
fn rejects_fail_with_a_located_reason() {
    let expect = [
        ("example_benchmark@439a051e.jsonld", "KLD-E015", "Dataset"),
        ("example_benchmark@44b0b2f9.jsonld", "KLD-E015", "Dataset"),
        ("example_benchmark@9fd6a8f5.jsonld", "KLD-E015", "Dataset"),
        ("src__sample-checkpoint.jsonld", "KLD-E014", "string"),
        (
            "src__sample-checkpoint@9af57d33.jsonld",
            "KLD-E014",
            "string",
        ),
    ];
    for (name, code, reason) in expect {
        let p = corpus().join("rejects").join(name);
        let a = analyze(&p, &std::fs::read(&p).unwrap(), ReadOptions::default());
        assert!(a.checkpoint.is_none(), "{name} must not load");
        let d = a
            .report
            .errors()
            .find(|d| d.code == code)
            .unwrap_or_else(|| panic!("{name}: no {code}: {}", a.report));
        assert!(d.message.contains(reason), "{name}: {}", d.message);
        let loc = d.location.expect("located");
        assert!(loc.line > 1, "{name}: {loc:?}");
        let rendered = a.report.render(d);
        assert!(
            rendered.starts_with(&format!(
                "{}:{}:{}: error[{code}] at /",
                p.display(),
                loc.line,
                loc.column
            )),
            "{rendered}"
        );
    }
    // The GUI sample's ratings lack additionalType: each one is reported.
    let p = corpus().join("rejects/src__sample-checkpoint.jsonld");
    let a = analyze(&p, &std::fs::read(&p).unwrap(), ReadOptions::default());
    let missing: Vec<_> = a
        .report
        .errors()
        .filter(|d| d.code == "KLD-E011")
        .map(|d| d.path.to_string())
        .collect();
    assert_eq!(missing.len(), 6);
    assert_eq!(
        missing[0],
        "/dataFeedElement/0/item/rating/0/additionalType"
    );
}

#[test]
fn generated_checkpoints_are_already_canonical() {
    // The generator reproduces Karenina's save() output, hostile IDs included.
    let dir = generate(&[
        "-n",
        "6",
        "-q",
        "30",
        "-s",
        "11",
        "--all-kinds",
        "--edge-rate",
        "0.3",
    ]);
    let files = jsonld_in(dir.path());
    assert_eq!(files.len(), 6);
    for p in files {
        let bytes = std::fs::read(&p).unwrap();
        let a = analyze(&p, &bytes, ReadOptions::default());
        assert!(!a.report.has_errors(), "{}", a.report);
        let out = canon(&p, &bytes, ReadOptions::default(), &WriteOptions::default());
        assert!(
            out.as_bytes() == bytes.as_slice(),
            "{} changed",
            p.display()
        );
    }
}

#[test]
fn strip_deep_judgment_reproduces_karenina_s_default_save() {
    // probe_dj was saved with save_deep_judgment_config=True, probe_default with
    // the default (stripped). Stripping the first must give the second, apart
    // from the save timestamp.
    let dj = corpus().join("loads/karenina-output__probe_dj.jsonld");
    let def = corpus().join("loads/karenina-output__probe_default.jsonld");
    let def_bytes = std::fs::read_to_string(&def).unwrap();
    let modified = def_bytes
        .lines()
        .find(|l| l.starts_with("  \"dateModified\""))
        .unwrap();
    let stamp = modified.split('"').nth(3).unwrap().to_string();
    let opts = WriteOptions {
        strip_deep_judgment: true,
        date_modified: Some(stamp),
        ..Default::default()
    };
    let out = canon(
        &dj,
        &std::fs::read(&dj).unwrap(),
        ReadOptions::default(),
        &opts,
    );
    assert_eq!(out, def_bytes);
}

/// The committed generator snapshots (`tests/data/generated/*/ARGS`) are
/// exactly what the shared generator writes today, byte for byte.
#[test]
#[ignore = "interop tier: runs ../shared/tools/gen_checkpoints.py (python3); cargo test -- --include-ignored"]
fn generated_snapshots_match_the_generator() {
    let root = crate::common::data("generated");
    let mut checked = 0;
    for snap in std::fs::read_dir(&root).unwrap().flatten() {
        let args_text = std::fs::read_to_string(snap.path().join("ARGS")).unwrap();
        let args: Vec<&str> = args_text.split_whitespace().collect();
        assert_eq!(
            crate::common::snapshot_key(&args),
            snap.file_name().to_string_lossy(),
            "the folder is named after its ARGS"
        );
        let fresh = tempfile::tempdir().unwrap();
        crate::common::run_generator(&args, fresh.path());
        let mut names: Vec<_> = std::fs::read_dir(fresh.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        names.sort();
        let mut kept: Vec<_> = std::fs::read_dir(snap.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| n != "ARGS")
            .collect();
        kept.sort();
        assert_eq!(names, kept, "{args_text}");
        for n in names {
            assert_eq!(
                std::fs::read(fresh.path().join(&n)).unwrap(),
                std::fs::read(snap.path().join(&n)).unwrap(),
                "{args_text}: {n:?} differs from the generator's output; regenerate the snapshot"
            );
        }
        checked += 1;
    }
    assert!(checked >= 7, "{checked} snapshots");
}
