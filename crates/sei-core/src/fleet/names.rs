//! Names that do not exist: the near matches of a mistyped namespace, context or node, for the
//! one-line error every command gives (`sei-demo` for `sei-dmeo`). Pure.

/// How far a name may be from what was typed to be offered: a third of its length, at least
/// 1 and at most 3 edits (a swap of two letters counts as one).
fn allowed(typed: &str) -> usize {
    (typed.chars().count() / 3).clamp(1, 3)
}

/// The optimal string alignment distance of `a` and `b` (insert, delete, substitute, swap two
/// neighbours), case-insensitive.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, cell) in d.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The names of `known` near `typed`, nearest first (at most 3), then names that contain it or
/// that it contains (`sei` for `sei-demo`).
pub fn near<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let lower = typed.to_lowercase();
    let mut scored: Vec<(usize, &str)> = known
        .into_iter()
        .filter(|name| *name != typed)
        .filter_map(|name| {
            let d = distance(typed, name);
            let name_lower = name.to_lowercase();
            let contains =
                !lower.is_empty() && (name_lower.contains(&lower) || lower.contains(&name_lower));
            (d <= allowed(typed) || contains).then_some((d, name))
        })
        .collect();
    scored.sort();
    scored.dedup();
    scored.into_iter().take(3).map(|(_, name)| name).collect()
}

/// ` (did you mean sei-demo?)` (or `sei-a or sei-b?`), empty when nothing is near.
pub fn did_you_mean(near: &[&str]) -> String {
    match near {
        [] => String::new(),
        [one] => format!(" (did you mean {one}?)"),
        [init @ .., last] => format!(" (did you mean {} or {last}?)", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swap_of_two_letters_is_one_edit_and_is_offered() {
        assert_eq!(distance("sei-dmeo", "sei-demo"), 1);
        assert_eq!(
            near("sei-dmeo", ["default", "sei-demo", "kube-system"]),
            ["sei-demo"]
        );
        assert_eq!(did_you_mean(&["sei-demo"]), " (did you mean sei-demo?)");
    }

    #[test]
    fn far_names_are_not_offered_and_near_ones_come_nearest_first() {
        assert!(near("prod", ["default", "kube-system"]).is_empty());
        assert_eq!(
            near(
                "pacific-1-full-2",
                ["pacific-1-full-0", "pacific-1-archive-0", "x"]
            ),
            ["pacific-1-full-0"]
        );
        assert_eq!(
            near("kind", ["kind-sei", "kind-b", "k3d"]),
            ["kind-b", "kind-sei"]
        );
        assert_eq!(did_you_mean(&["a", "b", "c"]), " (did you mean a, b or c?)");
    }
}
