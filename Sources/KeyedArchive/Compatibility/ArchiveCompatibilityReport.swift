import PropertyList

/// The outcome of checking a new version against one old version, or against several (the
/// transitive modes), under a ``ArchiveCompatibility/Mode``, in the forms `keyedarchive compat`
/// prints: text (one line per change, then a verdict), JSON, JUnit XML and GitHub annotations.
/// `KeyedArchiveTesting`'s compatibility expectation fails with the same lines.
public struct ArchiveCompatibilityReport: Sendable {
    /// The comparisons, one per old version, in the order given.
    public let comparisons: [ArchiveCompatibility]
    /// What fails.
    public let mode: ArchiveCompatibility.Mode
    /// Whether the new version was checked against every old version listed (Confluent's
    /// `…_TRANSITIVE`), rather than one.
    public let isTransitive: Bool

    /// A report of `comparisons` under `mode`, without the changes `ignoring` names (rule
    /// names, classes, or `Class.key`).
    public init(_ comparisons: [ArchiveCompatibility], mode: ArchiveCompatibility.Mode = .full, transitive: Bool = false, ignoring: [String] = []) {
        self.comparisons = comparisons.map { $0.ignoring(ignoring) }
        self.mode = mode
        isTransitive = transitive
        var unmatched: [UnmatchedIgnore] = []
        var seen: Set<String> = []
        for pattern in ignoring where seen.insert(pattern).inserted {
            guard !comparisons.contains(where: { $0.changes.contains { $0.matches(pattern) } }) else { continue }
            let names = comparisons.reduce(into: Set<String>()) { $0.formUnion($1.nameablePatterns) }
            unmatched.append(UnmatchedIgnore(pattern: pattern, nearest: Self.nearest(to: pattern, among: names)))
        }
        unmatchedIgnores = unmatched
    }

    /// An ignore pattern that names no change of any comparison: a typo, a list in one
    /// argument, a superclass's key for its subclasses', an old name after a rename — or a
    /// change that is no longer there. Left in a test, it would hide a later break on what it
    /// names, so the CLI and the expectations refuse it.
    public struct UnmatchedIgnore: Hashable, Sendable, CustomStringConvertible {
        /// The pattern as given.
        public let pattern: String
        /// The rule, class or `Class.key` of either side nearest to it, if any is near.
        public let nearest: String?

        /// `ignore pattern "Pilot.rnak" matches no change (nearest: Pilot.rank)`.
        public var description: String {
            "ignore pattern \"\(pattern.escapedForMessage)\" matches no change" + (nearest.map { " (nearest: \($0.escapedForMessage))" } ?? "")
                + "; remove it: a pattern that matches nothing would hide a later break on what it names"
        }
    }

    /// The ignore patterns that matched no change, in the order given.
    public let unmatchedIgnores: [UnmatchedIgnore]

    /// The name nearest to `pattern` by edit distance, when it is within a third of its length
    /// (at least 2 edits); ties go to the name that sorts first.
    static func nearest(to pattern: String, among names: Set<String>) -> String? {
        let target = Array(pattern.unicodeScalars)
        guard target.count <= 256 else { return nil }
        let limit = max(2, target.count / 3)
        var best: (distance: Int, name: String)?
        for name in names.sorted() {
            let candidate = Array(name.unicodeScalars)
            guard candidate.count <= 256, abs(candidate.count - target.count) <= limit else { continue }
            var previous = Array(0...candidate.count)
            for (i, a) in target.enumerated() {
                var current = [i + 1] + [Int](repeating: 0, count: candidate.count)
                for (j, b) in candidate.enumerated() {
                    current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a == b ? 0 : 1))
                }
                previous = current
            }
            let distance = previous[candidate.count]
            if distance <= limit, distance < (best?.distance ?? .max) { best = (distance, name) }
        }
        return best?.name
    }

    /// Whether no change of any comparison fails under ``mode``.
    public var isCompatible: Bool {
        comparisons.allSatisfy { $0.isCompatible(under: mode) }
    }

    private var modeName: String {
        isTransitive ? "\(mode.rawValue) transitive" : mode.rawValue
    }

    // MARK: Text

    /// One change as a line: rule, the directions it breaks, `Class.key`, old → new, the
    /// example where there is one, and the advice. Text from the archives is escaped.
    public func line(_ change: ArchiveCompatibility.Change) -> String {
        var text = "\(change.rule.rawValue)  \(status(change))  \(change.location.escapedForMessage)  \(change.old.escapedForMessage) → \(change.new.escapedForMessage)"
        if let example = change.example { text += "  at \(example.escapedForMessage)" }
        return text + "  — \(change.advice.escapedForMessage)"
    }

    private func status(_ change: ArchiveCompatibility.Change) -> String {
        let directions = change.breaks.map(\.rawValue).joined(separator: "+")
        if change.breaks.isEmpty { return "compatible" }
        if change.isWarning { return "warning \(directions)" }
        return change.isBreaking(under: mode) ? "breaks \(directions)" : "breaks \(directions) (not checked under \(mode.rawValue))"
    }

    /// The verdict line of one comparison or, without one, of all.
    public func verdict(of comparison: ArchiveCompatibility? = nil) -> String {
        let changes = comparison.map { $0.changes } ?? comparisons.flatMap(\.changes)
        let ignored = comparison.map { $0.ignoredCount } ?? comparisons.reduce(0) { $0 + $1.ignoredCount }
        let compatible = comparison.map { $0.isCompatible(under: mode) } ?? isCompatible
        let breaking = changes.filter { $0.isBreaking(under: mode) }.count
        let warnings = changes.filter(\.isWarning).count
        var text = "\(compatible ? "compatible" : "incompatible") under \(comparison == nil ? modeName : mode.rawValue)"
        if comparison == nil && isTransitive { text += " against \(comparisons.count) version\(comparisons.count == 1 ? "" : "s")" }
        text += ": "
        var parts: [String] = []
        if changes.isEmpty {
            parts.append("no changes")
        } else {
            parts.append("\(changes.count) change\(changes.count == 1 ? "" : "s")")
            parts.append("\(breaking) breaking")
            if warnings > 0 { parts.append("\(warnings) warning\(warnings == 1 ? "" : "s")") }
        }
        if ignored > 0 { parts.append("\(ignored) ignored") }
        return text + parts.joined(separator: ", ")
    }

    /// The text report: each change's line, then the verdict. Against several versions, each
    /// comparison's lines come after an `against OLD` line and end with its own verdict.
    public var textDescription: String {
        var text = ""
        for comparison in comparisons {
            if comparisons.count > 1 || isTransitive { text += "against \(comparison.oldName.escapedForMessage)\n" }
            for change in comparison.changes { text += line(change) + "\n" }
            if comparisons.count > 1 || isTransitive { text += "  " + verdict(of: comparison) + "\n" }
        }
        return text + verdict() + "\n"
    }

    // MARK: JSON

    /// The report as JSON: `{"compatible", "mode", "transitive", "new", "against", "changes":
    /// [{"rule", "breaks", "breaking", "warning", "class", "key", "old", "new", "example",
    /// "advice", "against"}], "ignored"}`; `breaking` says whether the change fails under the
    /// mode, `key` and `example` are null where there is none.
    public var jsonDescription: String {
        func string(_ text: String?) -> String { text.map(ArchiveSchema.jsonString) ?? "null" }
        var out = "{\n  \"compatible\": \(isCompatible),\n  \"mode\": \(string(mode.rawValue)),\n  \"transitive\": \(isTransitive),\n"
        out += "  \"new\": \(string(comparisons.first?.newName)),\n"
        out += "  \"against\": [\(comparisons.map { string($0.oldName) }.joined(separator: ", "))],\n"
        out += "  \"changes\": ["
        var lines: [String] = []
        for comparison in comparisons {
            for change in comparison.changes {
                var item = "{\"rule\": \(string(change.rule.rawValue)), \"breaks\": [\(change.breaks.map { string($0.rawValue) }.joined(separator: ", "))], "
                item += "\"breaking\": \(change.isBreaking(under: mode)), \"warning\": \(change.isWarning), "
                item += "\"class\": \(string(change.className)), \"key\": \(string(change.key)), \"old\": \(string(change.old)), \"new\": \(string(change.new)), "
                item += "\"example\": \(string(change.example)), \"advice\": \(string(change.advice)), \"against\": \(string(comparison.oldName))}"
                lines.append(item)
            }
        }
        out += lines.isEmpty ? "],\n" : "\n    " + lines.joined(separator: ",\n    ") + "\n  ],\n"
        out += "  \"ignored\": \(comparisons.reduce(0) { $0 + $1.ignoredCount })\n}\n"
        return out
    }

    // MARK: CI formats

    /// The report as JUnit XML, as CI systems read test results: a test suite per old version,
    /// a test case per change (failed when it breaks under the mode), or one passing case
    /// `compatible` when nothing changed.
    public var junitDescription: String {
        let total = comparisons.reduce(0) { $0 + max(1, $1.changes.count) }
        let failures = comparisons.reduce(0) { $0 + $1.changes.filter { $0.isBreaking(under: mode) }.count }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"keyedarchive compat\" tests=\"\(total)\" failures=\"\(failures)\">\n"
        for comparison in comparisons {
            let breaking = comparison.changes.filter { $0.isBreaking(under: mode) }.count
            out += "  <testsuite name=\"\(Self.xml("compat \(mode.rawValue) against \(comparison.oldName)"))\" tests=\"\(max(1, comparison.changes.count))\" failures=\"\(breaking)\">\n"
            if comparison.changes.isEmpty {
                out += "    <testcase classname=\"\(Self.xml(comparison.newName))\" name=\"compatible\"/>\n"
            }
            for change in comparison.changes {
                out += "    <testcase classname=\"\(Self.xml(change.className))\" name=\"\(Self.xml("\(change.rule.rawValue) \(change.location)"))\""
                if change.isBreaking(under: mode) {
                    out += ">\n      <failure type=\"\(Self.xml(change.rule.rawValue))\" message=\"\(Self.xml(line(change)))\">\(Self.xml(change.advice))</failure>\n    </testcase>\n"
                } else {
                    out += ">\n      <system-out>\(Self.xml(line(change)))</system-out>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    /// The report as GitHub Actions workflow commands: `::error` for a change that breaks under
    /// the mode, `::warning` for a warning or a break the mode does not check, `::notice` for
    /// a compatible change, each on the example archive when there is one; then the verdict.
    public var githubDescription: String {
        var out = ""
        for comparison in comparisons {
            for change in comparison.changes {
                let level = change.isBreaking(under: mode) ? "error" : (change.isWarning || !change.breaks.isEmpty) ? "warning" : "notice"
                var properties = ["title=\(Self.githubProperty("keyedarchive compat: \(change.rule.rawValue)"))"]
                if let file = change.exampleArchive { properties.insert("file=\(Self.githubProperty(file))", at: 0) }
                out += "::\(level) \(properties.joined(separator: ","))::\(Self.githubData(line(change)))\n"
            }
        }
        return out + verdict() + "\n"
    }

    /// Text in XML character data or an attribute: markup escaped, and what XML 1.0 cannot hold
    /// (controls, lone surrogates are impossible in a Swift string) as U+FFFD.
    static func xml(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            default:
                let value = scalar.value
                if value < 0x20 || value == 0xFFFE || value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A workflow command's message: `%`, CR and LF escaped as GitHub reads them.
    static func githubData(_ text: String) -> String {
        text.replacingEvery("%", with: "%25").replacingEvery("\r", with: "%0D").replacingEvery("\n", with: "%0A")
    }

    /// A workflow command's property value: also `:` and `,` escaped.
    static func githubProperty(_ text: String) -> String {
        githubData(text).replacingEvery(":", with: "%3A").replacingEvery(",", with: "%2C")
    }
}

private extension String {
    /// Every occurrence of `target` replaced (without Foundation, which the library avoids here).
    /// Scalar by scalar, so that a CR LF pair (one `Character`) is two matches.
    func replacingEvery(_ target: Unicode.Scalar, with replacement: String) -> String {
        var out = ""
        for scalar in unicodeScalars {
            if scalar == target { out += replacement } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
