/// The "did you mean" of a missing-key error: the stored key nearest to the one asked for, by
/// edit distance over Unicode scalars, when it is near enough to be a misspelling. The keys come
/// from the input, so the work is bounded: keys longer than ``maximumLength`` scalars are
/// skipped, and the comparisons stop after ``cellBudget`` steps in all.
enum NearestKey {
    static let maximumLength = 256
    static let cellBudget = 1 << 22

    /// The nearest of `candidates` to `wanted`, or nil when none is within a third of
    /// `wanted`'s length in edits (a case difference counts half an edit, and a key differing
    /// from it only in case is always near enough). The first of equally near keys wins.
    static func nearest(to wanted: String, in candidates: [String]) -> String? {
        let target = Array(wanted.unicodeScalars)
        guard !target.isEmpty, target.count <= maximumLength else { return nil }
        let targetLower = target.map(lowered)
        // In half edits: a third of the length, at least one whole edit.
        let threshold = max(2, 2 * target.count / 3)
        var budget = cellBudget
        var best: (key: String, cost: Int)?
        for candidate in candidates {
            let scalars = Array(candidate.unicodeScalars)
            guard scalars.count <= maximumLength else { continue }
            let lower = scalars.map(lowered)
            let caseOnly = lower == targetLower
            guard caseOnly || abs(scalars.count - target.count) * 2 <= threshold else { continue }
            budget -= max(1, scalars.count * target.count)
            guard budget >= 0 else { break }
            let cost = distance(target, targetLower, scalars, lower)
            guard cost > 0, caseOnly || cost <= threshold else { continue }
            if let current = best, current.cost <= cost { continue }
            best = (candidate, cost)
        }
        return best?.key
    }

    /// A scalar's simple lowercase form (the scalar itself when it lowercases to several).
    private static func lowered(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let mapping = scalar.properties.lowercaseMapping.unicodeScalars
        return mapping.count == 1 ? mapping.first ?? scalar : scalar
    }

    /// Levenshtein distance in half edits: an insertion, deletion or substitution costs 2, a
    /// substitution by the same letter in the other case 1.
    static func distance(_ a: [Unicode.Scalar], _ aLower: [Unicode.Scalar], _ b: [Unicode.Scalar], _ bLower: [Unicode.Scalar]) -> Int {
        var previous = Array(stride(from: 0, through: 2 * b.count, by: 2))
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in a.indices {
            current[0] = 2 * (i + 1)
            for j in b.indices {
                let substitution = a[i] == b[j] ? 0 : aLower[i] == bLower[j] ? 1 : 2
                current[j + 1] = min(previous[j] + substitution, previous[j + 1] + 2, current[j] + 2)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
