//! Words for messages: "did you mean" (the known name closest to a misspelt one) and counts
//! with their noun ("1 case", "2 cases").

/// The candidate closest to `name`: one that differs only in case, else the nearest by edit
/// distance (`strsim::levenshtein`) when that is at most a third of `name`'s length (at least
/// 1); `None` when nothing is that close.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    if let Some(c) = candidates.iter().find(|c| c.eq_ignore_ascii_case(name)) {
        return Some(c);
    }
    let limit = (name.chars().count() / 3).max(1);
    let scored = candidates.iter().map(|c| (strsim::levenshtein(name, c), *c));
    scored.filter(|&(d, _)| d <= limit).min_by_key(|&(d, _)| d).map(|(_, c)| c)
}

/// ` (did you mean `X`?)` when a candidate is close to `name`, else nothing.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, candidates).map_or_else(String::new, |c| format!(" (did you mean `{c}`?)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_close_name_is_suggested_and_a_far_one_is_not() {
        let names = ["game_drawn", "game_won_by", "judgment:FIDEArbiter"];
        assert_eq!(closest("game_drawnn", names), Some("game_drawn"));
        assert_eq!(closest("judgment:FideArbiter", names), Some("judgment:FIDEArbiter"));
        assert_eq!(closest("gmae_won_by", names), Some("game_won_by"));
        assert_eq!(closest("castling_legal", names), None);
        assert_eq!(closest("x", names), None);
        assert_eq!(did_you_mean("game_drawnn", names), " (did you mean `game_drawn`?)");
        assert_eq!(did_you_mean("zzz", names), "");
    }
}

/// `n` with `noun`, in the plural unless `n` is 1 (`noun` is regular: "case", "test", "error").
pub fn counted(n: impl Into<u64>, noun: &str) -> String {
    match n.into() {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod counted_tests {
    #[test]
    fn one_is_singular_and_the_rest_plural() {
        assert_eq!(super::counted(1u64, "case"), "1 case");
        assert_eq!(super::counted(0u64, "case"), "0 cases");
        assert_eq!(super::counted(2u64, "test"), "2 tests");
    }
}
