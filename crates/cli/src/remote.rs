//! `kld push` and the server arguments shared with `query` / `extract`.

use super::inputs::files_of;
use super::{ReportFormat, INVALID, OK, USAGE};
use anyhow::{bail, Context};
use karenina_ld::terminal::escape_controls as esc;
use karenina_ld::Error;
use karenina_ld_remote::plan::{self, Deletion, Reason};
use karenina_ld_remote::push;
use karenina_ld_remote::{self as remote, Auth, AuthKind, Endpoints, RemoteClient};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Which SPARQL server to use (`--endpoint` / `--graph-store`, or `--server`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ServerArgs {
    /// SPARQL 1.1 Protocol query URL of an existing server.
    #[arg(long)]
    pub endpoint: Option<String>,
    /// Graph Store Protocol URL of that server (`?graph=IRI` is appended).
    #[arg(long)]
    pub graph_store: Option<String>,
    /// A known server: KIND BASE_URL, KIND one of oxigraph, virtuoso, fuseki, qlever.
    #[arg(long, num_args = 2, value_names = ["KIND", "BASE_URL"], conflicts_with_all = ["endpoint", "graph_store"])]
    pub server: Option<Vec<String>>,
    /// User name for the server.
    #[arg(long)]
    pub user: Option<String>,
    /// Environment variable holding the password (never a flag value, never printed).
    #[arg(long, requires = "user")]
    pub password_env: Option<String>,
    /// basic or digest (default: digest for --server virtuoso, else basic).
    #[arg(long, value_parser = ["basic", "digest"], requires = "user")]
    pub auth: Option<String>,
    /// Environment variable holding a bearer token, sent as `Authorization: Bearer` (QLever's write token; never printed).
    #[arg(long, value_name = "VAR", conflicts_with_all = ["user", "token_file"])]
    pub token_env: Option<String>,
    /// File holding a bearer token (surrounding whitespace ignored; never printed).
    #[arg(long, value_name = "FILE", conflicts_with = "user")]
    pub token_file: Option<PathBuf>,
}

impl ServerArgs {
    /// True when a server was named.
    pub fn given(&self) -> bool {
        self.endpoint.is_some() || self.server.is_some()
    }

    /// The client for the named server.
    pub fn client(&self) -> anyhow::Result<RemoteClient> {
        let endpoints = match (&self.server, &self.endpoint) {
            (Some(s), _) => remote::server(&s[0], &s[1])?,
            (None, Some(q)) => Endpoints {
                query: q.clone(),
                graph_store: self.graph_store.clone(),
                graph_param: "graph".into(),
            },
            (None, None) => {
                bail!("name a server: --endpoint URL [--graph-store URL] or --server KIND BASE_URL")
            }
        };
        let token = match (&self.token_env, &self.token_file) {
            (Some(var), _) => Some(std::env::var(var).with_context(|| {
                format!("--token-env {var}: the environment variable is not set")
            })?),
            (None, Some(f)) => Some(
                std::fs::read_to_string(f)
                    .with_context(|| format!("reading the token file {}", f.display()))?,
            ),
            (None, None) => None,
        };
        if token.as_deref().is_some_and(|t| t.trim().is_empty()) {
            bail!("the bearer token is empty");
        }
        let auth = match &self.user {
            None => token.map(|t| Auth {
                kind: AuthKind::Bearer,
                user: String::new(),
                password: t.trim().to_string(),
            }),
            Some(user) => {
                let var = self.password_env.as_deref().unwrap_or("KLD_PASSWORD");
                let password = std::env::var(var).with_context(|| {
                    format!("the password must be in the environment variable {var}")
                })?;
                let virtuoso = self.server.as_ref().is_some_and(|s| s[0] == "virtuoso");
                let kind = match self.auth.as_deref() {
                    Some("digest") => AuthKind::Digest,
                    Some(_) => AuthKind::Basic,
                    None if virtuoso => AuthKind::Digest,
                    None => AuthKind::Basic,
                };
                Some(Auth {
                    kind,
                    user: user.clone(),
                    password,
                })
            }
        };
        Ok(RemoteClient::new(endpoints, auth)?)
    }
}

/// Says on stderr, once, when the server's default graph is not the union
/// of its named graphs (the catalogue's queries would answer with a header
/// only), with the fix for each server. A check that cannot be made says
/// nothing: it must not fail the command it follows.
pub(super) fn warn_unless_union(client: &RemoteClient) {
    use karenina_ld_remote::default_graph::{check, DefaultGraph, UNION_FIXES};
    if let Ok(DefaultGraph::Separate { graph }) = check(client) {
        eprintln!(
            "kld: warning: the server's default graph is not the union of its named graphs (a triple of <{}> is not in it): queries that read the default graph (the catalogue's pass-rate-by-benchmark, runs, graphs…) answer with a header only. Fix: {UNION_FIXES}",
            karenina_ld::terminal::escape_controls(&graph)
        );
    }
}

/// Arguments of `kld push`.
#[derive(clap::Args, Debug)]
pub struct PushArgs {
    /// Checkpoints, results exports or directories.
    pub inputs: Vec<PathBuf>,
    /// Also push the checkpoints of this store directory (their source files).
    #[arg(long)]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub server: ServerArgs,
    /// Delete the server's graphs whose files are no longer among the inputs.
    #[arg(long)]
    pub prune: bool,
    /// Print what would be sent, replaced and deleted; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Graphs sent at once.
    #[arg(long, default_value_t = 4)]
    pub jobs: usize,
    /// Output format: the summary line (and --dry-run's lines), or one JSON document on stdout.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReportFormat,
}

/// One line of `kld push --format json`'s `graphs`: what was (or, with
/// --dry-run, would be) done to a graph.
fn action(
    action: &str,
    graph: &str,
    file: Option<&std::path::Path>,
    ok: Option<bool>,
) -> serde_json::Value {
    serde_json::json!({ "action": action, "graph": graph, "file": file, "ok": ok })
}

fn store_sources(dir: &std::path::Path) -> anyhow::Result<Vec<PathBuf>> {
    let index = dir.join("index.tsv");
    let text = karenina_ld::fsutil::read_regular_to_string(&index)?;
    Ok(text
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').nth(1))
        .map(PathBuf::from)
        .collect())
}

pub fn push(a: PushArgs) -> anyhow::Result<u8> {
    if a.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let client = a.server.client()?;
    if client.endpoints.graph_store.is_none() {
        bail!("kld push needs the Graph Store Protocol URL: --graph-store URL or --server KIND BASE_URL");
    }
    let (mut files, io_failed) = files_of(&a.inputs);
    if let Some(dir) = &a.store {
        files.extend(store_sources(dir)?);
    }
    files.sort();
    files.dedup();
    if files.is_empty() && !a.prune {
        bail!("nothing to push: give checkpoint files, directories or --store DIR");
    }
    let mut status = if io_failed { USAGE } else { OK };
    // The inputs read as `kld query` reads them, so the server gets what a
    // local load holds: bad inputs reported, each run once.
    let local = plan::read_inputs(&files, Default::default(), &|_, _| {})?;
    for (f, e) in &local.failed {
        status = status.max(super::report_failure(f, e, "not pushed"));
    }
    local.runs.iter().for_each(super::inputs::report_binding);
    for (f, errors) in &local.partial {
        status = status.max(super::inputs::report_partial(f, errors, "pushed"));
    }
    let plan = plan::plan(&client, &local, &files, a.prune)?;
    for (f, kept) in &plan.same_run {
        eprintln!(
            "kld: {}: not pushed: the same run as {kept}, already on the server (that one is kept)",
            f.display()
        );
    }
    let verb = |why: &Reason| {
        if *why == Reason::New {
            "send"
        } else {
            "replace"
        }
    };
    let json = a.format == ReportFormat::Json;
    if a.dry_run {
        let mut graphs = Vec::new();
        for (f, g, why) in &plan.send {
            if json {
                graphs.push(action(verb(why), g, Some(f), None));
            } else {
                outln!(
                    "{}\t{}\t{}",
                    verb(why),
                    esc(g),
                    esc(&f.display().to_string())
                );
            }
        }
        for (f, g) in &plan.unchanged {
            if json {
                graphs.push(action("unchanged", g, Some(f), None));
            } else {
                outln!("unchanged\t{}\t{}", esc(g), esc(&f.display().to_string()));
            }
        }
        for (g, _) in &plan.delete {
            if json {
                graphs.push(action("delete", g, None, None));
            } else {
                outln!("delete\t{}", esc(g));
            }
        }
        if json {
            let doc = serde_json::json!({
                "dry_run": true,
                "graphs": graphs,
                "sent": plan.send.len(),
                "unchanged": plan.unchanged.len(),
                "deleted": plan.delete.len(),
                "failed": 0,
            });
            outln!("{}", serde_json::to_string_pretty(&doc)?);
        }
        warn_unless_union(&client);
        return Ok(status);
    }
    let mut graphs = Vec::new();
    let bar = (std::io::stderr().is_terminal() && plan.send.len() >= 20).then(|| {
        let b = indicatif::ProgressBar::new(plan.send.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} graphs pushed {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let unreachable = std::sync::atomic::AtomicBool::new(false);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.jobs)
        .build()?;
    let results: Vec<Result<push::Pushed, Error>> = pool.install(|| {
        use rayon::prelude::*;
        plan.send
            .par_iter()
            .map(|(f, g, _)| {
                // After the server became unreachable, the rest fail fast.
                if unreachable.load(std::sync::atomic::Ordering::SeqCst) {
                    return Err(Error::NotSent);
                }
                let r = push::push_file(&client, f, g);
                if let Err(e) = &r {
                    if remote::client::is_unreachable(e) {
                        unreachable.store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                }
                if let Some(b) = &bar {
                    b.inc(1);
                }
                r
            })
            .collect()
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut provenance: BTreeMap<String, push::Pushed> = plan.server.clone();
    let (mut sent, mut failed) = (0, 0);
    for ((f, g, why), r) in plan.send.iter().zip(results) {
        graphs.push(action(verb(why), g, Some(f), Some(r.is_ok())));
        match r {
            Ok(mut p) => {
                if let Some(id) = plan.runs.get(&p.graph) {
                    p.run_keys = id.keys_digest.clone();
                    p.run_format = if id.json { "json" } else { "csv" }.into();
                }
                provenance.insert(p.graph.clone(), p);
                sent += 1;
            }
            Err(e) => {
                failed += 1;
                status = status.max(super::report_failure(f, &e, "not pushed"));
            }
        }
    }
    let mut deleted = 0;
    for (f, g) in &plan.unchanged {
        graphs.push(action("unchanged", g, Some(f), Some(true)));
    }
    for (g, why) in &plan.delete {
        let r = client.delete_graph(g);
        graphs.push(action("delete", g, None, Some(r.is_ok())));
        match r {
            Ok(()) => {
                if let Deletion::SameRun(kept) = why {
                    let source = provenance.get(g).map_or(g.as_str(), |p| p.source.as_str());
                    eprintln!("kld: {source}: deleted from the server: the same run as {kept}");
                }
                provenance.remove(g);
                deleted += 1;
            }
            Err(e) => {
                eprintln!("kld: deleting {g}: {e}");
                status = status.max(INVALID);
            }
        }
    }
    if sent > 0 || deleted > 0 {
        // Bind results runs to checkpoints on the server (new files, or
        // checkpoints that came or went, can change any binding).
        let bound_locally: BTreeMap<String, String> = local
            .store
            .graphs()
            .filter_map(|i| Some((i.graph.clone(), i.binding.as_ref()?.checkpoint.clone())))
            .collect();
        match push::bind_on_server(&client, &mut provenance, &bound_locally) {
            Ok(links) => {
                for (g, l) in links {
                    let source = provenance.get(&g).map_or(g.clone(), |p| p.source.clone());
                    super::inputs::report_binding(&karenina_ld::store::Bound {
                        graph: g,
                        source,
                        link: l,
                        requested: true,
                    });
                }
            }
            Err(e) => {
                eprintln!("kld: binding results on the server: {e}");
                status = status.max(INVALID);
            }
        }
        if let Err(e) = push::put_provenance(&client, &provenance) {
            eprintln!("kld: writing the provenance graph: {e}");
            status = status.max(INVALID);
        }
    }
    eprintln!(
        "kld push: {sent} sent, {} unchanged, {deleted} deleted, {failed} failed",
        plan.unchanged.len()
    );
    warn_unless_union(&client);
    if json {
        let doc = serde_json::json!({
            "dry_run": false,
            "graphs": graphs,
            "sent": sent,
            "unchanged": plan.unchanged.len(),
            "deleted": deleted,
            "failed": failed,
        });
        outln!("{}", serde_json::to_string_pretty(&doc)?);
    }
    Ok(status)
}
