//! Placeholder benchmarks: with a database configured and no benchmark of
//! the run's name in it, Karenina's verification (`auto_save_results`,
//! `DBSink`) creates one, described "Auto-created for verification run:
//! RUN", whose every answer is "[Placeholder - see template]". It has the
//! real benchmark's name and question IDs but none of its answers, so a run
//! bound to it by name is bound to a stand-in.

use super::Checkpoint;

/// The answer Karenina gives every question of a placeholder benchmark.
pub(crate) const ANSWER: &str = "[Placeholder - see template]";

/// How the description of a placeholder benchmark starts (the run's name
/// follows).
pub(crate) const DESCRIPTION: &str = "Auto-created for verification run: ";

/// What makes a benchmark a placeholder, said for a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placeholder {
    /// Questions whose answer is `ANSWER`.
    pub placeholders: usize,
    /// Questions.
    pub questions: usize,
    /// The run it was created for, from its description.
    pub run: Option<String>,
}

impl Placeholder {
    /// A benchmark with these counts and description, if it is one: every
    /// answer (one at least) a placeholder.
    pub fn of(placeholders: usize, questions: usize, description: Option<&str>) -> Option<Self> {
        (questions > 0 && placeholders == questions).then(|| Placeholder {
            placeholders,
            questions,
            run: description
                .and_then(|d| d.strip_prefix(DESCRIPTION))
                .map(str::to_string),
        })
    }

    /// "a placeholder benchmark Karenina auto-created for verification run
    /// R: its N answers are "[Placeholder - see template]""
    pub fn describe(&self) -> String {
        let made = match &self.run {
            Some(r) => format!(" for verification run {r:?}"),
            None => String::new(),
        };
        format!(
            "a placeholder benchmark Karenina auto-created{made} when its database held none of this name: its {} answer(s) are {ANSWER:?}, not the benchmark's",
            self.questions
        )
    }
}

/// [`Placeholder::of`] a checkpoint.
pub(crate) fn of_checkpoint(cp: &Checkpoint) -> Option<Placeholder> {
    let n = cp
        .items
        .iter()
        .filter(|i| i.question.accepted_answer.text == ANSWER)
        .count();
    Placeholder::of(n, cp.items.len(), cp.description.as_deref())
}
