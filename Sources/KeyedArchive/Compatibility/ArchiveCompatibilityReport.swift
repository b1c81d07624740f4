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

    /// A report of `comparisons` under `mode`, without the changes `ignoring` names and those
    /// `decisions` accept (see ``ArchiveCompatibilityDecisions`` for the patterns), which are
    /// listed once, with their reasons, instead of failing.
    public init(_ comparisons: [ArchiveCompatibility], mode: ArchiveCompatibility.Mode = .full, transitive: Bool = false, ignoring: [String] = [],
                decisions: ArchiveCompatibilityDecisions = ArchiveCompatibilityDecisions()) {
        self.mode = mode
        isTransitive = transitive
        self.decisions = decisions
        let names = comparisons.reduce(into: Set<String>()) { $0.formUnion($1.nameablePatterns) }
        var unmatched: [UnmatchedIgnore] = []
        var covered: [PatternCoverage] = []
        var seen: Set<String> = []
        for pattern in ignoring where seen.insert(pattern).inserted {
            var matched: [(ArchiveCompatibility.Change, String)] = []
            for comparison in comparisons {
                for change in comparison.changes where change.matches(pattern) { matched.append((change, comparison.oldName)) }
            }
            if matched.isEmpty {
                unmatched.append(UnmatchedIgnore(pattern: pattern, nearest: Self.nearest(to: pattern, among: names),
                                                 sameKeyElsewhere: Self.sameKey(as: pattern, in: comparisons)))
            } else {
                covered.append(PatternCoverage(pattern: pattern, reason: nil, line: 0, changes: matched))
            }
        }
        unmatchedIgnores = unmatched
        var kept = comparisons.map { $0.ignoring(ignoring) }
        var accepted: [String: [(ArchiveCompatibility.Change, String)]] = [:]
        for index in kept.indices {
            var remaining: [ArchiveCompatibility.Change] = []
            for change in kept[index].changes {
                if let decision = decisions.decision(accepting: change) {
                    accepted[decision.pattern, default: []].append((change, kept[index].oldName))
                } else {
                    remaining.append(change)
                }
            }
            kept[index].acceptedCount = kept[index].changes.count - remaining.count
            kept[index].changes = remaining
        }
        self.comparisons = kept
        var unknown: [UnmatchedIgnore] = []
        for decision in decisions.decisions {
            if let matched = accepted[decision.pattern] {
                covered.append(PatternCoverage(pattern: decision.pattern, reason: decision.reason, line: decision.line, changes: matched))
                continue
            }
            let target = ArchiveCompatibility.Change.target(of: decision.pattern)
            guard !names.contains(target) else { continue }
            unknown.append(UnmatchedIgnore(pattern: decision.pattern, nearest: Self.nearest(to: target, among: names),
                                           sameKeyElsewhere: Self.sameKey(as: target, in: comparisons)))
        }
        coverage = covered
        unknownDecisions = unknown
    }

    /// The changes of other classes whose key a `Class.key` pattern ends with: a superclass's
    /// key given for its subclasses' changes, or a class's old name after a rename.
    static func sameKey(as pattern: String, in comparisons: [ArchiveCompatibility]) -> [String] {
        var found: [String] = []
        for comparison in comparisons {
            for change in comparison.changes {
                guard let key = change.key, change.location != pattern, pattern.hasSuffix("." + key), !found.contains(change.location) else { continue }
                found.append(change.location)
            }
        }
        return found.sorted()
    }

    /// The decisions read (empty when none were given).
    public let decisions: ArchiveCompatibilityDecisions

    /// What one ignore pattern or decision took out of the report: every change it matched,
    /// with the old version it was found against, so that a pattern naming a class says which
    /// changes that covers.
    public struct PatternCoverage: Sendable {
        /// The pattern as given.
        public let pattern: String
        /// The decision's reason; nil for an `ignoring:` pattern.
        public let reason: String?
        /// The decision's line in its file; 0 for an `ignoring:` pattern.
        public let line: Int
        /// The changes matched, each with the name of the old version it was found against.
        public let changes: [(change: ArchiveCompatibility.Change, against: String)]

        /// `Airplane (a class): 3 changes — keyAdded Airplane.seats, …; against v1, v2`.
        public var summary: String {
            var kinds: [String] = []
            for (change, _) in changes where !kinds.contains("\(change.rule.rawValue) \(change.location)") {
                kinds.append("\(change.rule.rawValue) \(change.location)")
            }
            var versions: [String] = []
            for (_, against) in changes where !versions.contains(against) { versions.append(against) }
            let what = pattern.contains(":") ? "" : pattern.contains(".") ? "" : ArchiveCompatibilityRule(rawValue: pattern) != nil ? " (a rule: every change of that kind)" : " (a class: every change to it and its keys)"
            var text = "\(pattern.escapedForMessage)\(what): \(kinds.count) change\(kinds.count == 1 ? "" : "s")"
            text += " — " + kinds.prefix(6).map(\.escapedForMessage).joined(separator: ", ") + (kinds.count > 6 ? ", …" : "")
            text += "; against " + versions.map(\.escapedForMessage).joined(separator: ", ")
            if let reason { text += "; why: " + reason.escapedForMessage }
            return text
        }
    }

    /// What each ignore pattern and each decision that matched took out, ignore patterns first,
    /// then decisions in file order.
    public let coverage: [PatternCoverage]

    /// Decisions that match no change and name a class or key neither side has: most likely a
    /// typo or an old name (reported, not failed: the file serves every version).
    public let unknownDecisions: [UnmatchedIgnore]

    /// An ignore pattern that names no change of any comparison: a typo, a list in one
    /// argument, a superclass's key for its subclasses', an old name after a rename — or a
    /// change that is no longer there. Left in a test, it would hide a later break on what it
    /// names, so the CLI and the expectations refuse it.
    public struct UnmatchedIgnore: Hashable, Sendable, CustomStringConvertible {
        /// The pattern as given.
        public let pattern: String
        /// The rule, class or `Class.key` of either side nearest to it, if any is near.
        public let nearest: String?
        /// Changes to the same key on other classes (`Glider.wingspan` for a pattern
        /// `Airplane.wingspan`): a pattern names one class, never its subclasses.
        public let sameKeyElsewhere: [String]

        init(pattern: String, nearest: String?, sameKeyElsewhere: [String] = []) {
            self.pattern = pattern
            self.nearest = nearest
            self.sameKeyElsewhere = sameKeyElsewhere
        }

        /// `ignore pattern "Pilot.rnak" matches no change (nearest: Pilot.rank)`.
        public var description: String {
            var text = "ignore pattern \"\(pattern.escapedForMessage)\" matches no change"
            if !sameKeyElsewhere.isEmpty {
                text += "; a pattern names one class, not its subclasses or other names: the key changed on "
                    + sameKeyElsewhere.map(\.escapedForMessage).joined(separator: ", ") + " (name each)"
            } else if let nearest {
                text += " (nearest: \(nearest.escapedForMessage))"
            }
            return text + "; remove it: a pattern that matches nothing would hide a later break on what it names"
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
        let accepted = comparison.map { $0.acceptedCount } ?? comparisons.reduce(0) { $0 + $1.acceptedCount }
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
        if accepted > 0 { parts.append("\(accepted) accepted by decisions") }
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
        let ignored = coverage.filter { $0.reason == nil }, accepted = coverage.filter { $0.reason != nil }
        if !ignored.isEmpty {
            text += "ignored (ignoring:/--ignore):\n" + ignored.map { "  " + $0.summary + "\n" }.joined()
        }
        if !accepted.isEmpty {
            text += "accepted by \(decisions.source.isEmpty ? "decisions" : decisions.source.escapedForMessage):\n"
                + accepted.map { "  " + $0.summary + " (line \($0.line))\n" }.joined()
        }
        // Only where a failing verdict rests on it: a key called required on one or two samples.
        let presenceRules: Set<ArchiveCompatibilityRule> = [.keyAdded, .keyRemoved, .keyBecameOptional, .keyBecameRequired, .nullAdded, .nullRemoved]
        var few: [String] = []
        for comparison in comparisons {
            let resting = Set(comparison.changes.filter { presenceRules.contains($0.rule) && $0.isBreaking(under: mode) }.map(\.className))
            for sample in comparison.fewSamples where resting.contains(sample.className) && !few.contains(sample.description) { few.append(sample.description) }
        }
        if !few.isEmpty {
            text += "note: few samples, so \"required\" may be chance: " + few.prefix(8).joined(separator: "; ") + (few.count > 8 ? "; …" : "")
                + ". Keep at least \(ArchiveCompatibility.recommendedInstanceCount) instances of each class in a contract's archives\n"
        }
        for comparison in comparisons where !comparison.uncomparedKinds.isEmpty {
            text += "note: compared like with like; the old side's archives of kind " + comparison.uncomparedKinds.map(\.escapedForMessage).joined(separator: "; ")
                + " were not compared: the new side has none of that kind\n"
        }
        for unknown in unknownDecisions {
            text += "note: decision \"\(unknown.pattern.escapedForMessage)\" names nothing either side has"
                + (unknown.nearest.map { " (nearest: \($0.escapedForMessage))" } ?? "") + "\n"
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
        var acceptedItems: [String] = []
        for covered in coverage {
            guard let reason = covered.reason else { continue }
            for (change, against) in covered.changes {
                acceptedItems.append("{\"pattern\": \(string(covered.pattern)), \"reason\": \(string(reason)), \"line\": \(covered.line), "
                    + "\"rule\": \(string(change.rule.rawValue)), \"class\": \(string(change.className)), \"key\": \(string(change.key)), \"against\": \(string(against))}")
            }
        }
        out += "  \"accepted\": [" + (acceptedItems.isEmpty ? "" : "\n    " + acceptedItems.joined(separator: ",\n    ") + "\n  ") + "],\n"
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
    /// a compatible change; then the verdict. A change found against several old versions (the
    /// transitive modes) is one annotation naming them all. Each points at the new side — the
    /// code under review: at the change's example when that is a new archive, else at the new
    /// side's first archive (none when the new side is a schema file).
    public var githubDescription: String {
        var out = ""
        var order: [String] = []
        var grouped: [String: (change: ArchiveCompatibility.Change, file: String?, against: [String])] = [:]
        for comparison in comparisons {
            for change in comparison.changes {
                let identity = "\(change.rule.rawValue)\u{0}\(change.location)\u{0}\(change.new)"
                if grouped[identity] == nil {
                    order.append(identity)
                    grouped[identity] = (change, change.exampleIsNew ? change.exampleArchive : comparison.newArchiveName, [])
                }
                grouped[identity]?.against.append(comparison.oldName)
            }
        }
        for identity in order {
            guard let (change, file, against) = grouped[identity] else { continue }
            let level = change.isBreaking(under: mode) ? "error" : (change.isWarning || !change.breaks.isEmpty) ? "warning" : "notice"
            var properties = ["title=\(Self.githubProperty("keyedarchive compat: \(change.rule.rawValue)"))"]
            if let file { properties.insert("file=\(Self.githubProperty(file))", at: 0) }
            var message = line(change)
            if comparisons.count > 1 { message += "  (against \(against.joined(separator: ", ")))" }
            out += "::\(level) \(properties.joined(separator: ","))::\(Self.githubData(message))\n"
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
