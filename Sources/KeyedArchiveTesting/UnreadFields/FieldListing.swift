import KeyedArchive

/// How failure texts list fields: up to a bound, then a count of the rest (never cut short
/// silently), and a ready-to-paste `ignoring:` list grouped by `Class.key`.
enum FieldListing {
    /// Most fields listed one per line.
    static let listedLimit = 100
    /// Most `Class.key` groups the `ignoring:` suggestion names.
    static let groupLimit = 100

    /// `count` and the noun, singular for one: `1 field`, `132 fields`.
    static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// Each of `items` indented, at most ``listedLimit`` of them, then `… and N more`.
    static func lines(_ items: [String]) -> [String] {
        var lines = items.prefix(listedLimit).map { "  " + $0 }
        if items.count > listedLimit { lines.append("  … and \(items.count - listedLimit) more") }
        return lines
    }

    /// The fields' `Class.key` groups with their counts, in order of first appearance, as an
    /// `ignoring:` argument to paste: the patterns already given first, then one per group.
    /// - Parameters:
    ///   - fields: each field's class (empty when unknown: the bare key is used) and key.
    ///   - given: the patterns the call already has.
    ///   - purpose: what the list is for, in the line before it.
    static func ignoringSuggestion(_ fields: [(className: String, key: String)], given: [ArchiveFieldPattern], purpose: String) -> [String] {
        var order: [String] = []
        var counts: [String: Int] = [:]
        for field in fields {
            let pattern = field.className.isEmpty || field.className.contains("[") ? field.key : "\(field.className).\(field.key)"
            if counts[pattern] == nil { order.append(pattern) }
            counts[pattern, default: 0] += 1
        }
        var lines = ["\(purpose), pass (grouped by Class.key, with counts):", "  ignoring: ["]
        for pattern in given {
            lines.append("    \(ArchiveSchema.swiftString(pattern.text)),  // given already")
        }
        for pattern in order.prefix(groupLimit) {
            lines.append("    \(ArchiveSchema.swiftString(pattern)),  // \(count(counts[pattern] ?? 0, "field"))")
        }
        if order.count > groupLimit {
            let rest = order.dropFirst(groupLimit).reduce(0) { $0 + (counts[$1] ?? 0) }
            lines.append("    // … and \(order.count - groupLimit) more groups (\(count(rest, "field")))")
        }
        lines.append("  ]")
        return lines
    }
}
