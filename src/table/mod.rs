//! The results table: one typed, columnar row per verification result, from
//! which kld's number views compute (issue 45).
//!
//! Why it exists: the quad store holds a result in about 84 quads (some
//! 345 bytes each), and every number aggregated over them by SPARQL reads
//! all of them. Karenina's numbers need a few dozen fields a result; kept as
//! one vector per column, with models, questions, combos and other repeated
//! texts interned once ([`Strings`]), a paper-size run (21,168 results) is a
//! few megabytes and a view is a loop over integers. The quads stay for
//! SPARQL and interop; this table is what counts.
//!
//! The rows are read by the same readers and the same rules as `kld info`
//! (`crate::results::read_path_unhashed` hands on the rows, Karenina's row
//! rules in `crate::numbers` read them, `crate::results::outcome`
//! classifies them), so [`Table::karenina_json`] gives what `kld info
//! --format json` gives for Karenina's numbers (`summary`). A table holds
//! any number of runs ([`RunPart`]: one per results graph, with its binding
//! to a benchmark as the store has it).
//!
//! It persists as Parquet ([`parquet`]: pandas, polars, DuckDB and Arrow
//! open it) and writes as CSV ([`csv`]).

pub mod answers;
mod assemble;
pub mod catalogue_views;
pub mod csv;
pub mod parquet;
pub(crate) mod ratings;
mod score_answers;
pub mod stored;
pub(crate) mod summary;
pub mod views;

pub use assemble::{from_path, Builder};

use std::collections::{BTreeMap, HashMap};

/// An interned text: an index into [`Strings`].
pub(crate) type Sym = u32;

/// Interned texts: each distinct text once.
#[derive(Clone, Debug, Default)]
pub struct Strings {
    texts: Vec<Box<str>>,
    index: HashMap<Box<str>, Sym>,
}

impl Strings {
    /// The symbol of `s`, interning it when new.
    pub(crate) fn intern(&mut self, s: &str) -> Sym {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = Sym::try_from(self.texts.len()).expect("fewer than 2^32 distinct texts");
        self.texts.push(s.into());
        self.index.insert(s.into(), i);
        i
    }

    /// The text of a symbol.
    pub fn get(&self, s: Sym) -> &str {
        &self.texts[s as usize]
    }

    /// Distinct texts.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// No texts.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    fn heap_bytes(&self) -> usize {
        // Each text twice (vector and index key), plus the index's slots.
        self.texts.iter().map(|t| 2 * t.len()).sum::<usize>()
            + self.texts.capacity() * 16
            + self.index.capacity() * (16 + 4 + 8)
    }
}

/// One run of the table: a results graph (one input: an export, a run
/// folder's export, a database run) and what the store says of it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunPart {
    /// The results graph (the input's `file://` URL, as the store names it).
    pub graph: String,
    /// The SHA-256 of the source the rows were read from, as the store
    /// records it (empty when read outside a store): a store directory's
    /// table keeps a run only while its graph's source is unchanged.
    pub sha256: String,
    /// The file's format: `json`, `csv`, `taskeval`, `gui-csv`.
    pub source_format: String,
    /// A CSV export: `verify_result` false and null read alike, no trait
    /// families (`docs/numbers.md`).
    pub csv: bool,
    /// The export's job ID (`metadata.job_id`).
    pub job_id: Option<String>,
    /// The export's time (`metadata.export_timestamp`).
    pub exported: Option<String>,
    /// Labels (`kld load --label K=V`), `K=V` each, sorted.
    pub labels: Vec<String>,
    /// The checkpoint graph the run is bound to, as the store binds it.
    pub benchmark: Option<String>,
    /// That benchmark's name.
    pub benchmark_name: Option<String>,
    /// The first row of the run in the table.
    pub first: usize,
    /// Rows of the run (`first .. first + rows`).
    pub rows: usize,
}

/// The family of a CSV export's trait scores: a CSV does not say a
/// trait's kind (`docs/results.md`), so its columns are
/// `score.unknown.<key>`, as `kld info` lists them.
pub const UNTYPED_FAMILY: &str = "unknown";

/// What a score's value is as the quads type it (`rdf::verification`
/// writes a JSON scalar as a typed literal): what `scores-by-trait` counts
/// (`COUNT(?v)`), takes as true (`?v = true`) and sums (`isNumeric`), so
/// that the table answers it as SPARQL does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub(crate) enum ScoreKind {
    /// No score (the row has no such key, or the score is a metric
    /// trait's dict, scored by its metrics).
    #[default]
    Absent = 0,
    /// A score of null: its node, no `schema:value`.
    Null = 1,
    /// An `xsd:boolean` (the value 1 or 0).
    Bool = 2,
    /// An `xsd:integer` the value holds exactly (within 2^53).
    Integer = 3,
    /// An `xsd:double` that is a number (the value holds it).
    Double = 4,
    /// A value that is neither a boolean nor a number SPARQL sums: a
    /// string, a list or dict as `rdf:JSON`, NaN.
    Other = 5,
    /// A value the table does not hold exactly (an integer past 2^53 or
    /// past 64 bits, an infinity): the quads answer for it.
    Inexact = 6,
}

impl ScoreKind {
    /// The kind of a code ([`ScoreKind::code`]).
    pub(crate) fn from_code(c: u8) -> Option<ScoreKind> {
        use ScoreKind::*;
        [Absent, Null, Bool, Integer, Double, Other, Inexact]
            .get(usize::from(c))
            .copied()
    }

    /// The kind's code (its digit in the Parquet file).
    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    /// A value bound (`COUNT(?v)` counts it).
    pub(crate) fn bound(self) -> bool {
        !matches!(self, ScoreKind::Absent | ScoreKind::Null)
    }
}

/// A rubric trait's scores, one value per row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct TraitColumn {
    /// The trait family (`llm`, `regex`, `callable`, `metric`, `agentic`;
    /// [`UNTYPED_FAMILY`] for a CSV export's scores).
    pub family: &'static str,
    /// The trait's name (the key of Karenina's `*_trait_scores` dict).
    pub name: String,
    /// The row scored this trait (the key is in the row's dict).
    pub present: Vec<bool>,
    /// The score as a number (a boolean as 1 or 0); `None` when absent,
    /// null, or a dict (a metric trait's, in `fields`).
    pub value: Vec<Option<f64>>,
    /// A metric trait's metrics (`precision`, `recall`, …), each a column.
    pub fields: Vec<(String, Vec<Option<f64>>)>,
    /// The kind of `value` per row, as the quads type it ([`ScoreKind`]):
    /// a dict's is [`ScoreKind::Absent`] in the families whose dicts are
    /// metrics (`metric`, [`UNTYPED_FAMILY`]), [`ScoreKind::Other`] (one
    /// `rdf:JSON` score) in the others.
    pub(crate) kind: Vec<ScoreKind>,
    /// The kind of each of `fields` per row, in `fields`' order
    /// ([`ScoreKind::Absent`] where the row's dict lacks the metric).
    pub(crate) field_kinds: Vec<Vec<ScoreKind>>,
}

impl TraitColumn {
    /// The index of metric `f` in `fields`, added (with `rows` empty
    /// values) when new.
    pub(crate) fn field(&mut self, f: &str, rows: usize) -> usize {
        match self.fields.iter().position(|(g, _)| g == f) {
            Some(i) => i,
            None => {
                self.fields.push((f.to_string(), vec![None; rows]));
                self.field_kinds.push(vec![ScoreKind::Absent; rows]);
                self.fields.len() - 1
            }
        }
    }

    /// The score keys as Karenina writes them: the trait's name, or
    /// `trait.metric` for each metric.
    pub fn keys(&self) -> Vec<String> {
        if self.fields.is_empty() {
            vec![self.name.clone()]
        } else {
            self.fields
                .iter()
                .map(|(f, _)| format!("{}.{f}", self.name))
                .collect()
        }
    }
}

/// Token stages kept per row, as `template.usage_metadata` names them.
pub use crate::numbers::TOKEN_STAGES;

/// The results table.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Interned texts (models, questions, combos, names).
    pub strings: Strings,
    /// The runs, in the order their rows were added.
    pub runs: Vec<RunPart>,
    /// Per row: its run (an index into `runs`).
    pub run: Vec<u32>,
    /// `metadata.run_name`.
    pub run_name: Vec<Option<Sym>>,
    /// `metadata.question_id`.
    pub question: Vec<Sym>,
    /// The answering model (`ModelIdentity.display_string`).
    pub answering: Vec<Sym>,
    /// The answering model's interface (`karenina:answeringInterface`).
    pub answering_interface: Vec<Sym>,
    /// The answering model's name (`karenina:answeringModelName`).
    pub answering_model_name: Vec<Sym>,
    /// The parsing model (the judge), the same way.
    pub parsing: Vec<Sym>,
    /// The answering MCP servers, sorted, joined by `, `; `None` for none.
    pub mcp: Vec<Option<Sym>>,
    /// Karenina's combo string (`answering | parsing[ | mcp…]`).
    pub combo: Vec<Sym>,
    /// `metadata.replicate`.
    pub replicate: Vec<Option<i64>>,
    /// A scenario turn's scenario (`metadata.scenario_id`).
    pub scenario: Vec<Option<Sym>>,
    /// A scenario turn's node (`metadata.scenario_node`).
    pub scenario_node: Vec<Option<Sym>>,
    /// The row's question (a scenario turn: its scenario and node) is in
    /// the benchmark its run is bound to: only such rows count for a
    /// benchmark (`docs/results.md`, "Linking"). False while unbound.
    pub in_benchmark: Vec<bool>,
    /// `metadata.timestamp`.
    pub timestamp: Vec<Option<Sym>>,
    /// `metadata.execution_time` (seconds).
    pub execution_time: Vec<Option<f64>>,
    /// `template.template_verification_performed`.
    pub template_performed: Vec<bool>,
    /// `template.verify_result` (a CSV keeps only true).
    pub verify: Vec<Option<bool>>,
    /// `rubric.rubric_evaluation_performed`.
    pub rubric_performed: Vec<bool>,
    /// `deep_judgment.deep_judgment_performed`.
    pub judgment_performed: Vec<bool>,
    /// No failure (`metadata.failure` null): Karenina's completed.
    pub completed: Vec<bool>,
    /// The outcome class (`docs/results.md`): `passed`, a failure group,
    /// `no_verdict`; `None` for a failure whose group the file does not
    /// keep (a CSV's: `unclassified`).
    pub outcome: Vec<Option<Sym>>,
    /// The failure's category.
    pub failure_category: Vec<Option<Sym>>,
    /// The failure's group (Karenina's `FailureGroup`).
    pub failure_group: Vec<Option<Sym>>,
    /// The failure's stage.
    pub failure_stage: Vec<Option<Sym>>,
    /// Input and output tokens per stage of [`TOKEN_STAGES`]
    /// (`[stage][0]` input, `[stage][1]` output), each a valid number as
    /// Karenina reads it (`usage.get(key, 0)`: a stage without the key is 0;
    /// `None` when the stage is absent or its value not a number).
    pub tokens: [[Vec<Option<i64>>; 2]; 4],
    /// `template.agent_metrics.iterations`.
    pub iterations: Vec<Option<f64>>,
    /// `template.agent_metrics.tool_call_counts` as JSON text, when not empty.
    pub tool_calls: Vec<Option<Sym>>,
    /// A row had agent metrics with tool call counts.
    pub has_tool_counts: Vec<bool>,
    /// Trait scores, one column per trait.
    pub traits: Vec<TraitColumn>,
    /// Some trait columns lack their [`ScoreKind`]s (a table file written
    /// before kld kept them): the trait views the kinds decide
    /// (`scores-by-trait`) are then the quads'.
    pub(crate) untyped_scores: bool,
    /// The rubric traits of each checkpoint graph a run is bound to, by
    /// graph ([`ratings::Ratings`]), as `table::stored` reads them from the
    /// store; a bound run whose checkpoint is not here leaves the trait
    /// views to the quads.
    pub(crate) ratings: BTreeMap<String, ratings::Ratings>,
}

impl Table {
    /// Rows (verification results).
    pub fn len(&self) -> usize {
        self.question.len()
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.question.is_empty()
    }

    /// A symbol's text.
    pub fn text(&self, s: Sym) -> &str {
        self.strings.get(s)
    }

    /// An optional symbol's text.
    pub(crate) fn opt_text(&self, s: Option<Sym>) -> Option<&str> {
        s.map(|s| self.strings.get(s))
    }

    /// The run of row `i`.
    pub(crate) fn run_of(&self, i: usize) -> &RunPart {
        &self.runs[self.run[i] as usize]
    }

    /// The rows of run `r`.
    pub(crate) fn rows_of(&self, r: usize) -> std::ops::Range<usize> {
        let p = &self.runs[r];
        p.first..p.first + p.rows
    }

    /// Appends `other`'s runs and rows (its texts re-interned here).
    pub fn append(&mut self, other: &Table) {
        let base = self.len();
        let run_base = self.runs.len() as u32;
        for p in &other.runs {
            let mut p = p.clone();
            p.first += base;
            self.runs.push(p);
        }
        let mut map: HashMap<Sym, Sym> = HashMap::new();
        let mut sym = |s: Sym, strings: &mut Strings| -> Sym {
            *map.entry(s)
                .or_insert_with(|| strings.intern(other.strings.get(s)))
        };
        macro_rules! syms {
            ($col:ident) => {
                for &s in &other.$col {
                    let v = sym(s, &mut self.strings);
                    self.$col.push(v);
                }
            };
        }
        macro_rules! opt_syms {
            ($col:ident) => {
                for &s in &other.$col {
                    let v = s.map(|s| sym(s, &mut self.strings));
                    self.$col.push(v);
                }
            };
        }
        self.run.extend(other.run.iter().map(|r| r + run_base));
        opt_syms!(run_name);
        syms!(question);
        syms!(answering);
        syms!(answering_interface);
        syms!(answering_model_name);
        syms!(parsing);
        opt_syms!(mcp);
        syms!(combo);
        opt_syms!(timestamp);
        opt_syms!(outcome);
        opt_syms!(failure_category);
        opt_syms!(failure_group);
        opt_syms!(failure_stage);
        opt_syms!(tool_calls);
        opt_syms!(scenario);
        opt_syms!(scenario_node);
        self.in_benchmark.extend_from_slice(&other.in_benchmark);
        self.replicate.extend_from_slice(&other.replicate);
        self.execution_time.extend_from_slice(&other.execution_time);
        self.template_performed
            .extend_from_slice(&other.template_performed);
        self.verify.extend_from_slice(&other.verify);
        self.rubric_performed
            .extend_from_slice(&other.rubric_performed);
        self.judgment_performed
            .extend_from_slice(&other.judgment_performed);
        self.completed.extend_from_slice(&other.completed);
        for s in 0..4 {
            for d in 0..2 {
                self.tokens[s][d].extend_from_slice(&other.tokens[s][d]);
            }
        }
        self.iterations.extend_from_slice(&other.iterations);
        self.has_tool_counts
            .extend_from_slice(&other.has_tool_counts);
        let n = self.len();
        for t in &other.traits {
            let col = self.trait_column(t.family, &t.name, base);
            col.present.extend_from_slice(&t.present);
            col.value.extend_from_slice(&t.value);
            col.kind.extend_from_slice(&t.kind);
            for (k, (f, v)) in t.fields.iter().enumerate() {
                let i = col.field(f, base);
                col.fields[i].1.extend_from_slice(v);
                col.field_kinds[i].extend_from_slice(&t.field_kinds[k]);
            }
        }
        self.pad_traits(n);
        self.untyped_scores |= other.untyped_scores;
        for (g, r) in &other.ratings {
            self.ratings.entry(g.clone()).or_insert_with(|| r.clone());
        }
    }

    /// The column of trait `name` of `family`, created (with `rows` empty
    /// values) when new.
    pub(crate) fn trait_column(
        &mut self,
        family: &'static str,
        name: &str,
        rows: usize,
    ) -> &mut TraitColumn {
        let i = match self
            .traits
            .iter()
            .position(|t| t.family == family && t.name == name)
        {
            Some(i) => i,
            None => {
                self.traits.push(TraitColumn {
                    family,
                    name: name.to_string(),
                    present: vec![false; rows],
                    value: vec![None; rows],
                    fields: Vec::new(),
                    kind: vec![ScoreKind::Absent; rows],
                    field_kinds: Vec::new(),
                });
                self.traits.len() - 1
            }
        };
        &mut self.traits[i]
    }

    /// Pads every trait column to `rows` values.
    pub(crate) fn pad_traits(&mut self, rows: usize) {
        for t in &mut self.traits {
            t.present.resize(rows, false);
            t.value.resize(rows, None);
            t.kind.resize(rows, ScoreKind::Absent);
            for (_, v) in &mut t.fields {
                v.resize(rows, None);
            }
            for k in &mut t.field_kinds {
                k.resize(rows, ScoreKind::Absent);
            }
        }
    }

    /// Appends run `r` of `other` (its rows and texts).
    pub(crate) fn append_run(&mut self, other: &Table, r: usize) {
        self.append(&other.slice_run(r));
    }

    /// Run `r` alone: its rows, its trait columns, the texts (shared).
    pub(crate) fn slice_run(&self, r: usize) -> Table {
        let range = self.rows_of(r);
        macro_rules! cut {
            ($($col:ident),*) => { Table {
                strings: self.strings.clone(),
                runs: vec![RunPart { first: 0, ..self.runs[r].clone() }],
                run: vec![0; range.len()],
                tokens: std::array::from_fn(|s| {
                    std::array::from_fn(|d| self.tokens[s][d][range.clone()].to_vec())
                }),
                traits: self
                    .traits
                    .iter()
                    .filter(|t| t.present[range.clone()].iter().any(|p| *p))
                    .map(|t| TraitColumn {
                        family: t.family,
                        name: t.name.clone(),
                        present: t.present[range.clone()].to_vec(),
                        value: t.value[range.clone()].to_vec(),
                        fields: t
                            .fields
                            .iter()
                            .map(|(f, v)| (f.clone(), v[range.clone()].to_vec()))
                            .collect(),
                        kind: t.kind[range.clone()].to_vec(),
                        field_kinds: t
                            .field_kinds
                            .iter()
                            .map(|k| k[range.clone()].to_vec())
                            .collect(),
                    })
                    .collect(),
                untyped_scores: self.untyped_scores,
                // (Only its checkpoint's ratings.)
                ratings: self.runs[r]
                    .benchmark
                    .as_ref()
                    .and_then(|g| Some((g.clone(), self.ratings.get(g)?.clone())))
                    .into_iter()
                    .collect(),
                $( $col: self.$col[range.clone()].to_vec(), )*
            } };
        }
        cut!(
            run_name,
            question,
            answering,
            answering_interface,
            answering_model_name,
            parsing,
            mcp,
            combo,
            replicate,
            scenario,
            scenario_node,
            in_benchmark,
            timestamp,
            execution_time,
            template_performed,
            verify,
            rubric_performed,
            judgment_performed,
            completed,
            outcome,
            failure_category,
            failure_group,
            failure_stage,
            iterations,
            tool_calls,
            has_tool_counts
        )
    }

    /// Drops the runs from `n` on, and their rows (a run whose read failed).
    pub(crate) fn truncate_runs(&mut self, n: usize) {
        let Some(first) = self.runs.get(n).map(|p| p.first) else {
            return;
        };
        self.runs.truncate(n);
        macro_rules! cut {
            ($($col:ident),*) => { $( self.$col.truncate(first); )* };
        }
        cut!(
            run,
            run_name,
            question,
            answering,
            answering_interface,
            answering_model_name,
            parsing,
            mcp,
            combo,
            replicate,
            scenario,
            scenario_node,
            in_benchmark,
            timestamp,
            execution_time,
            template_performed,
            verify,
            rubric_performed,
            judgment_performed,
            completed,
            outcome,
            failure_category,
            failure_group,
            failure_stage,
            iterations,
            tool_calls,
            has_tool_counts
        );
        for s in &mut self.tokens {
            for d in s {
                d.truncate(first);
            }
        }
        for t in &mut self.traits {
            t.present.truncate(first);
            t.value.truncate(first);
            t.kind.truncate(first);
            for (_, f) in &mut t.fields {
                f.truncate(first);
            }
            for k in &mut t.field_kinds {
                k.truncate(first);
            }
        }
    }

    /// Sets the binding of the run of results graph `graph` (the
    /// checkpoint graph and the benchmark's name), as the store has it.
    pub fn bind(&mut self, graph: &str, benchmark: Option<String>, name: Option<String>) {
        for p in self.runs.iter_mut().filter(|p| p.graph == graph) {
            p.benchmark = benchmark.clone();
            p.benchmark_name = name.clone();
        }
    }

    /// The bytes the table holds on the heap (its vectors' capacities and
    /// the interned texts), for the memory per result.
    pub fn heap_bytes(&self) -> usize {
        fn v<T>(c: &Vec<T>) -> usize {
            c.capacity() * std::mem::size_of::<T>()
        }
        let mut n = self.strings.heap_bytes()
            + v(&self.run)
            + v(&self.run_name)
            + v(&self.question)
            + v(&self.answering)
            + v(&self.answering_interface)
            + v(&self.answering_model_name)
            + v(&self.parsing)
            + v(&self.mcp)
            + v(&self.combo)
            + v(&self.replicate)
            + v(&self.timestamp)
            + v(&self.execution_time)
            + v(&self.template_performed)
            + v(&self.verify)
            + v(&self.rubric_performed)
            + v(&self.judgment_performed)
            + v(&self.completed)
            + v(&self.outcome)
            + v(&self.failure_category)
            + v(&self.failure_group)
            + v(&self.failure_stage)
            + v(&self.iterations)
            + v(&self.tool_calls)
            + v(&self.has_tool_counts)
            + v(&self.scenario)
            + v(&self.scenario_node)
            + v(&self.in_benchmark);
        for s in &self.tokens {
            for d in s {
                n += v(d);
            }
        }
        for t in &self.traits {
            n += v(&t.present) + v(&t.value) + v(&t.kind);
            for (_, f) in &t.fields {
                n += v(f);
            }
            for k in &t.field_kinds {
                n += v(k);
            }
        }
        n + self.runs.len() * std::mem::size_of::<RunPart>()
    }
}
