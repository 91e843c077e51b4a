//! What one stage may read of the others once every stage is configured: a stage
//! that acts on behalf of others (`prefetch` decides before fetching what
//! `extract`, `exclude` and `split` would decide after) takes their resolved,
//! validated options from here instead of a copy in its own table, and a stage that
//! shares a resource with another (the Archive's politeness) names it.
//!
//! The plan calls [`crate::StageConfig::link`] on each stage with its [`Peers`]:
//! every other configured stage by name, its kind, its configuration (downcast to
//! the kind's own type) and where it lies in the graph.

use std::any::Any;
use std::collections::{HashMap, HashSet};

/// Any `'static` type as [`Any`]: the supertrait that lets a peer's
/// configuration be downcast to its kind's own type.
pub trait AsAny: Any {
    /// `self` as [`Any`].
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// One other stage of the pipeline, as a linking stage sees it.
#[derive(Clone, Copy)]
pub struct Peer<'a> {
    /// Its name in the file.
    pub name: &'a str,
    /// Its kind's name.
    pub kind: &'a str,
    config: &'a dyn AsAny,
    shared: Option<&'a dyn Any>,
    gives: &'static [&'static str],
}

impl<'a> Peer<'a> {
    /// What it shares with the stages that name it (see
    /// [`crate::StageConfig::shared`]), as `T`, if it shares a `T`.
    pub fn shared<T: 'static>(&self) -> Option<&'a T> {
        self.shared?.downcast_ref::<T>()
    }

    /// Whether its records carry the path-template field `field` (see
    /// [`crate::StageConfig::gives_fields`]).
    pub fn gives(&self, field: &str) -> bool {
        self.gives.contains(&field)
    }

    /// Its configuration as the kind's own type `T`, if it is one.
    pub fn config<T: 'static>(&self) -> Option<&'a T> {
        self.config.as_any().downcast_ref::<T>()
    }
}

/// The other stages of a pipeline, and who reads from whom.
pub struct Peers<'a> {
    me: &'a str,
    stages: HashMap<&'a str, Peer<'a>>,
    /// Stage -> the stages that read its ports (inputs and side inputs).
    readers: HashMap<&'a str, Vec<&'a str>>,
    /// Stages of the file left unconfigured: their own problems are reported.
    unconfigured: HashSet<&'a str>,
}

impl<'a> Peers<'a> {
    /// The peers of stage `me`: `(name, kind, configuration, what it shares, the
    /// fields it gives)` of every other configured stage, `(producer, consumer)`
    /// for every input and side input, and the stages of the file that could not
    /// be configured.
    #[allow(clippy::type_complexity)]
    pub fn new(
        me: &'a str,
        stages: impl IntoIterator<
            Item = (
                &'a str,
                &'a str,
                &'a dyn AsAny,
                Option<&'a dyn Any>,
                &'static [&'static str],
            ),
        >,
        edges: impl IntoIterator<Item = (&'a str, &'a str)>,
        unconfigured: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let mut readers: HashMap<&str, Vec<&str>> = HashMap::new();
        for (from, to) in edges {
            readers.entry(from).or_default().push(to);
        }
        Self {
            me,
            stages: stages
                .into_iter()
                .map(|(name, kind, config, shared, gives)| {
                    let peer = Peer {
                        name,
                        kind,
                        config,
                        shared,
                        gives,
                    };
                    (name, peer)
                })
                .collect(),
            readers,
            unconfigured: unconfigured.into_iter().collect(),
        }
    }

    /// The stage being linked.
    pub fn me(&self) -> &'a str {
        self.me
    }

    /// The stage named `name`, if it is configured.
    pub fn get(&self, name: &str) -> Option<Peer<'a>> {
        self.stages.get(name).copied()
    }

    /// Why there is no peer `name` ([`Peers::get`] gave none), for the stage that
    /// names it: `unknown stage` when the file has no such stage; `None` when it
    /// has one whose own options have problems, reported at their keys already
    /// (a second message, at the naming stage, would only mislead).
    pub fn missing(&self, name: &str) -> Option<String> {
        (!self.unconfigured.contains(name)).then(|| format!("unknown stage `{name}`"))
    }

    /// Every other configured stage, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = Peer<'a>> + '_ {
        self.stages.values().copied()
    }

    /// Whether `later` reads, directly or through other stages, what `earlier` emits.
    pub fn is_downstream(&self, earlier: &str, later: &str) -> bool {
        let mut seen = HashSet::new();
        let mut todo = vec![earlier];
        while let Some(stage) = todo.pop() {
            for &next in self.readers.get(stage).into_iter().flatten() {
                if next == later {
                    return true;
                }
                if seen.insert(next) {
                    todo.push(next);
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Any configuration type will do: a peer's is downcast to its kind's own.
    struct One;
    struct Two;

    #[test]
    fn a_peer_is_found_by_name_downcast_to_its_type_and_placed_in_the_graph() {
        let peers = Peers::new(
            "a",
            [
                ("a", "one", &One as &dyn AsAny, None, &[][..]),
                (
                    "b",
                    "two",
                    &Two as &dyn AsAny,
                    Some(&7u32 as &dyn Any),
                    &["split"],
                ),
            ],
            [("a", "b"), ("b", "c")],
            ["broken"],
        );
        assert_eq!(peers.me(), "a");
        let b = peers.get("b").unwrap();
        assert_eq!((b.name, b.kind), ("b", "two"));
        assert!(b.config::<Two>().is_some());
        assert!(b.gives("split") && !b.gives("novelty"));
        assert!(b.config::<One>().is_none());
        assert_eq!(b.shared::<u32>(), Some(&7));
        assert!(b.shared::<String>().is_none());
        assert!(peers.get("a").unwrap().shared::<u32>().is_none());
        assert!(peers.get("c").is_none());
        assert_eq!(peers.missing("c").as_deref(), Some("unknown stage `c`"));
        assert!(peers.get("broken").is_none());
        assert_eq!(peers.missing("broken"), None, "its own problems say it");
        assert!(peers.is_downstream("a", "c"));
        assert!(peers.is_downstream("a", "b"));
        assert!(!peers.is_downstream("c", "a"));
        assert!(!peers.is_downstream("b", "a"));
    }
}
