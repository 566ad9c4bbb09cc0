//! Every line of docs/serving.md that states a status code, and every row of
//! its limits table, is named in [`SERVING_CLAIMS`] with the tests that check
//! it; each test must exist and each key must still be in the manual, so a
//! new status or limit in the manual, or a renamed test, fails here (shown
//! on a tiny fake manual). The manual's examples: `doc_claims.rs`.

use std::path::Path;

/// Each statement of a status code or a limit in docs/serving.md (a text
/// that starts its table row, or a phrase of its line) and the tests that
/// check it. [`every_status_and_limit_of_the_serving_manual_is_tested`] finds
/// the statements anew (every line naming a status code, every row of the
/// limits table) and fails on one that no key here covers, a key the manual
/// no longer has, or a test that does not exist.
pub(crate) const SERVING_CLAIMS: &[(&str, &[&str])] = &[
    (
        "| `GET /grid` | the leaderboard as answering",
        &["the_grid_and_figure_routes_give_the_command_line_s_bytes_and_refuse_what_they_lack"],
    ),
    (
        "| `GET /compare` | `kld compare` of one run",
        &["the_compare_route_gives_kld_compare_s_bytes_for_one_run_and_never_pools_two"],
    ),
    (
        "and answers 400 for two runs",
        &["the_compare_route_gives_kld_compare_s_bytes_for_one_run_and_never_pools_two"],
    ),
    (
        "answer 200 in their media types, and the page does not scroll",
        &["the_compare_section_draws_both_figures_and_its_downloads_answer"],
    ),
    (
        "| `GET /figure` | a figure as",
        &["the_grid_and_figure_routes_give_the_command_line_s_bytes_and_refuse_what_they_lack"],
    ),
    (
        "logged as `499",
        &["a_request_cancelled_by_its_client_is_logged_and_a_queued_one_says_it_waited"],
    ),
    (
        "Requests refused while their head is read (414",
        &["the_serving_manual_states_the_statuses_and_logging_as_they_are"],
    ),
    (
        "431 for headers past about 256 KiB",
        &["the_serving_manual_states_the_statuses_and_logging_as_they_are"],
    ),
    (
        "after 200 saves it is within 1.5×",
        &["two_hundred_reloads_leave_the_served_store_as_a_fresh_one"],
    ),
    (
        "that runs out of time says so: its 503",
        &["time_spent_following_is_not_called_waiting_for_a_slot"],
    ),
    (
        "runs and is answered 200).",
        &["if_none_match_star_needs_a_current_answer"],
    ),
    (
        "| 200 |",
        &["an_answer_is_streamed_in_chunks_of_about_64_kib"],
    ),
    (
        "| 400 |",
        &[
            "each_refusal_has_its_status",
            "protocol_edges_answer_as_the_protocol_says",
            "deep_and_long_queries_get_a_400_or_an_answer_and_the_server_goes_on",
            "a_long_chain_of_binds_is_refused_at_once",
            "the_serving_manual_states_the_statuses_and_logging_as_they_are",
        ],
    ),
    (
        "| 403 |",
        &[
            "each_refusal_has_its_status",
            "other_websites_cannot_read_and_other_hosts_are_refused",
            "a_host_with_a_byte_that_is_not_ascii_is_refused",
            "cross_site_requests_get_403_before_anything_runs",
        ],
    ),
    (
        "| 406 |",
        &[
            "each_refusal_has_its_status",
            "the_endpoint_answers_406_for_xml_it_cannot_write_and_stays_up",
        ],
    ),
    (
        "| 408 |",
        &["a_trickled_body_is_cut_at_its_deadline_and_an_impossible_length_refused_at_once"],
    ),
    (
        "| 413 |",
        &["a_trickled_body_is_cut_at_its_deadline_and_an_impossible_length_refused_at_once"],
    ),
    (
        "| 415 |",
        &["a_post_body_neither_form_nor_sparql_query_is_415"],
    ),
    (
        "| 503 |",
        &[
            "a_query_past_the_timeout_is_stopped_with_503_and_the_server_goes_on",
            "queries_past_their_memory_limit_end_with_503_and_give_it_back",
            "max_result_bytes_answers_503_before_the_first_chunk_and_cuts_after_it",
            "clients_that_never_read_lose_their_slots_at_the_deadline",
            "silent_connections_neither_lock_others_out_nor_stay_open",
            "eight_runaways_do_not_starve_an_ask_and_sigterm_stops_the_server",
            "time_spent_following_is_not_called_waiting_for_a_slot",
        ],
    ),
    ("| 500 |", &["a_panic_on_the_query_thread_is_an_error"]),
    (
        "| nesting depth |",
        &[
            "deep_and_long_queries_get_a_400_or_an_answer_and_the_server_goes_on",
            "flat_chains_are_measured_as_deep_trees",
            "kld_query_answers_hostile_queries_or_exits_with_a_clear_error",
        ],
    ),
    ("| `BIND`s |", &["a_long_chain_of_binds_is_refused_at_once"]),
    (
        "| `--query-memory` |",
        &[
            "queries_past_their_memory_limit_end_with_503_and_give_it_back",
            "the_machine_sizes_the_default_limits",
        ],
    ),
    (
        "| `--total-memory` |",
        &[
            "queries_past_their_memory_limit_end_with_503_and_give_it_back",
            "concurrent_json_ld_constructs_answer_within_the_budget",
        ],
    ),
    (
        "| optimizer |",
        &[
            "flat_chains_are_measured_as_deep_trees",
            "every_catalogue_query_is_optimized",
        ],
    ),
    (
        "| `--timeout` |",
        &[
            "runaway_queries_stop_at_the_time_limit_and_leave_no_load",
            "clients_that_never_read_lose_their_slots_at_the_deadline",
            "five_hundred_runaways_at_once_end_within_the_limit_plus_two_seconds",
            "a_query_still_parsing_at_the_limit_is_answered_503_at_the_limit",
        ],
    ),
    (
        "| `--max-result-bytes` |",
        &[
            "max_result_bytes_answers_503_before_the_first_chunk_and_cuts_after_it",
            "an_answer_is_streamed_in_chunks_of_about_64_kib",
        ],
    ),
    (
        "| `--max-concurrent` |",
        &[
            "eight_runaways_do_not_starve_an_ask_and_sigterm_stops_the_server",
            "a_request_cancelled_by_its_client_is_logged_and_a_queued_one_says_it_waited",
            "graph_reads_and_files_wait_for_a_query_slot",
            "clients_that_leave_the_queue_do_not_stay_counted_in_it",
            "requests_waiting_for_an_identical_one_leave_their_slots_to_others",
        ],
    ),
    (
        "| request body |",
        &["a_trickled_body_is_cut_at_its_deadline_and_an_impossible_length_refused_at_once"],
    ),
    (
        "| request line and headers |",
        &["the_serving_manual_states_the_statuses_and_logging_as_they_are"],
    ),
    (
        "| header read / idle connection |",
        &[
            "silent_connections_neither_lock_others_out_nor_stay_open",
            "a_connection_expires_idle_or_busy_and_the_idlest_is_shed",
        ],
    ),
    (
        "| listen queue |",
        &[
            "a_burst_of_300_connections_waits_in_the_backlog",
            "five_hundred_runaways_at_once_end_within_the_limit_plus_two_seconds",
        ],
    ),
    (
        "| connections |",
        &[
            "silent_connections_neither_lock_others_out_nor_stay_open",
            "a_connection_expires_idle_or_busy_and_the_idlest_is_shed",
        ],
    ),
    (
        "| stopping |",
        &["eight_runaways_do_not_starve_an_ask_and_sigterm_stops_the_server"],
    ),
    (
        "| 256 silent TCP connections",
        &["silent_connections_neither_lock_others_out_nor_stay_open"],
    ),
    (
        "| a form body trickled at 1 byte/s",
        &["a_trickled_body_is_cut_at_its_deadline_and_an_impossible_length_refused_at_once"],
    ),
    (
        "| `Content-Length: 999999999999`",
        &["a_trickled_body_is_cut_at_its_deadline_and_an_impossible_length_refused_at_once"],
    ),
    (
        "| 4 clients request",
        &["clients_that_never_read_lose_their_slots_at_the_deadline"],
    ),
    (
        "| a cross-site GET of a runaway",
        &["cross_site_requests_get_403_before_anything_runs"],
    ),
    (
        "| `Host: localhost\\xff`",
        &["a_host_with_a_byte_that_is_not_ascii_is_refused"],
    ),
    (
        "| 500 concurrent runaways",
        &["five_hundred_runaways_at_once_end_within_the_limit_plus_two_seconds"],
    ),
    (
        "403 before reading its body or parsing its query",
        &[
            "cross_site_requests_get_403_before_anything_runs",
            "a_page_of_another_origin_gets_403_for_its_script_and_form_and_runs_nothing",
        ],
    ),
    (
        "is refused with 403",
        &[
            "other_websites_cannot_read_and_other_hosts_are_refused",
            "a_host_with_a_byte_that_is_not_ascii_is_refused",
        ],
    ),
    (
        "`SERVICE <endpoint> { … }` is refused with 400",
        &["serve_answers_service_with_400_and_the_reason"],
    ),
    (
        "| negations |",
        &["nested_negations_are_counted_and_side_by_side_ones_are_not"],
    ),
    (
        "shows 100 rows a page (50, 100 or 500 to choose;",
        &["the_results_table_pages_and_sorts_and_every_leaderboard_cell_is_kld_querys"],
    ),
    (
        "\"rows 101–200 of 5000\"",
        &["the_results_table_pages_and_sorts_and_every_leaderboard_cell_is_kld_querys"],
    ),
    (
        "server's 400 answer (`SPARQL syntax error at LINE:COLUMN",
        &[
            "the_sparql_editor_completes_runs_marks_errors_keeps_permalinks_and_history_offline",
            "each_refusal_has_its_status",
        ],
    ),
];

/// HTTP statuses kld answers or logs.
const STATUSES: [&str; 14] = [
    "200", "204", "400", "403", "404", "406", "408", "413", "414", "415", "431", "499", "500",
    "503",
];

/// The lines of a serving manual that state a status code or a limit: a
/// status code standing alone (not inside `1,000` or `2.0`, not a `200 × 50`
/// count, not a flag's argument as in `-n 200`), or a row of the limits table.
pub(crate) fn claim_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let (mut section, mut sub) = (String::new(), false);
    for (i, line) in text.lines().enumerate() {
        if let Some(h) = line.strip_prefix("## ") {
            section = h.to_string();
            sub = false;
        } else if line.starts_with("### ") {
            sub = true;
        }
        let limit_row =
            section == "Limits" && !sub && line.starts_with("| ") && !line.starts_with("| limit |");
        if limit_row || states_status(line) {
            out.push((i + 1, line.to_string()));
        }
    }
    out
}

fn states_status(line: &str) -> bool {
    let b = line.as_bytes();
    STATUSES.iter().any(|code| {
        line.match_indices(code).any(|(at, _)| {
            let end = at + 3;
            let glued_before = at
                .checked_sub(1)
                .is_some_and(|j| b[j].is_ascii_alphanumeric() || b[j] == b',' || b[j] == b'.');
            let glued_after = b.get(end).is_some_and(|c| c.is_ascii_alphanumeric())
                || (matches!(b.get(end), Some(b',' | b'.'))
                    && b.get(end + 1).is_some_and(u8::is_ascii_digit));
            let a_count = line[end..].starts_with(" \u{d7}");
            let a_width = line[end..].starts_with(" px");
            let flag_argument = line[..at].ends_with(' ')
                && line[..at]
                    .split_whitespace()
                    .next_back()
                    .is_some_and(|w| w.starts_with('-'));
            !(glued_before || glued_after || a_count || a_width || flag_argument)
        })
    })
}

/// Names of the functions that take no arguments (tests) under tests/, src/
/// and crates/.
fn test_names() -> std::collections::HashSet<String> {
    fn walk(dir: &Path, names: &mut std::collections::HashSet<String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, names);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                for rest in text.split("fn ").skip(1) {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && rest[name.len()..].starts_with("()") {
                        names.insert(name);
                    }
                }
            }
        }
    }
    let repo = Path::new(env!("KLD_SOURCE_ROOT"));
    let mut names = std::collections::HashSet::new();
    walk(&repo.join("tests"), &mut names);
    walk(&repo.join("src"), &mut names);
    walk(&repo.join("crates"), &mut names);
    names
}

/// Statements of `text` no claim key covers, keys `text` lacks, and tests
/// that do not exist.
pub(crate) fn unchecked_claims(text: &str, claims: &[(&str, &[&str])]) -> Vec<String> {
    let names = test_names();
    let mut problems = Vec::new();
    for (n, line) in claim_lines(text) {
        if !claims.iter().any(|(key, _)| line.contains(key)) {
            problems.push(format!("docs/serving.md:{n}: no test named for: {line}"));
        }
    }
    for (key, tests) in claims {
        if !text.contains(key) {
            problems.push(format!("no longer in the manual: {key:?}"));
        }
        if tests.is_empty() {
            problems.push(format!("no test for {key:?}"));
        }
        for t in *tests {
            if !names.contains(*t) {
                problems.push(format!("{key:?}: no test named {t}"));
            }
        }
    }
    problems
}

#[test]
fn every_status_and_limit_of_the_serving_manual_is_tested() {
    let path = Path::new(env!("KLD_SOURCE_ROOT")).join("docs/serving.md");
    let text = std::fs::read_to_string(path).unwrap();
    let lines = claim_lines(&text);
    assert!(lines.len() >= 30, "found only {} statements", lines.len());
    let problems = unchecked_claims(&text, SERVING_CLAIMS);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn a_new_status_or_a_renamed_test_in_the_serving_manual_is_reported() {
    let fake = "# Serving\n\nA GET past 1,000 levels gets 400.\nThe same 200 \u{d7} 50 checkpoints (`gen -n 200`).\n\n\
                ## Limits\n\n| limit | default | why |\n|---|---|---|\n| `--timeout` | 60 s | bounds time |\n";
    let lines: Vec<usize> = claim_lines(fake).iter().map(|(n, _)| *n).collect();
    assert_eq!(lines, [3, 10], "a status line and a limits row, not counts");
    assert!(
        claim_lines("At 400 px wide the table scrolls.").is_empty(),
        "a width"
    );
    let claims: &[(&str, &[&str])] = &[
        ("gets 400", &["each_refusal_has_its_status"]),
        ("| `--timeout` |", &["no_such_test_anywhere"]),
        ("| gone |", &["each_refusal_has_its_status"]),
    ];
    let problems = unchecked_claims(fake, claims);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems[0].contains("no test named no_such_test_anywhere"),
        "{problems:?}"
    );
    assert!(
        problems[1].contains("no longer in the manual: \"| gone |\""),
        "{problems:?}"
    );
    let uncovered = unchecked_claims(fake, &claims[..1]);
    assert_eq!(uncovered.len(), 1, "{uncovered:?}");
    assert!(
        uncovered[0].starts_with("docs/serving.md:10: no test named for"),
        "{uncovered:?}"
    );
}
