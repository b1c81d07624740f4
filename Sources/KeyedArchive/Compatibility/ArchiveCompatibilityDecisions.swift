import PropertyList

/// Changes a team has accepted on purpose, each with the reason, kept in one reviewable file
/// beside the contracts (`compat-decisions.txt`) that `keyedarchive compat` and the compatibility
/// expectations both read — so a change fixed once is accepted once, not by an ignore list in
/// every command and every test, and not again against every old version.
///
/// The file is text, one decision a line: a pattern, then why (required), as a reviewer reads it.
/// ```text
/// # Changes accepted on purpose; keyedarchive compat and expectArchiveCompatible read this file.
/// keyRemoved:Airplane.licenses  v7 stops writing licenses; v1–v3 read it with decodeIfPresent (PR 412)
/// classRenamed:Glider           Sailplane was renamed Glider in v5; every reader has the alias since v2
/// ```
/// A pattern is what `--ignore` takes — a rule name, a class, `Class.key` (`$top.key` for a
/// top-level key) — or a rule and a class or key, `RULE:CLASS` or `RULE:CLASS.KEY`, which accepts
/// that one kind of change only (the form to prefer: `Airplane.licenses` alone would also accept
/// a later, unrelated change to that key). A pattern names one class: a superclass's key does not
/// cover its subclasses' keys, which are changes of their own classes. Blank lines and lines
/// starting with `#` are comments.
///
/// An accepted change is left out of what fails and listed once, with its reason, at the end of
/// the report. A decision no change matches is not an error (the file serves every version, and a
/// decision about v7 matches nothing between v1 and v2), but one that names a class or key
/// neither side has is reported with the nearest real name, since it is most likely a typo.
public struct ArchiveCompatibilityDecisions: Hashable, Sendable {
    /// One accepted change.
    public struct Decision: Hashable, Sendable {
        /// What it accepts: a rule, a class, `Class.key`, or `RULE:CLASS` / `RULE:CLASS.KEY`.
        public let pattern: String
        /// Why, as written in the file.
        public let reason: String
        /// The line of the file it is on (1-based), 0 when not read from a file.
        public let line: Int

        /// A decision accepting what `pattern` names, for `reason`.
        public init(pattern: String, reason: String, line: Int = 0) {
            self.pattern = pattern
            self.reason = reason
            self.line = line
        }
    }

    /// The name of the file beside the contracts.
    public static let fileName = "compat-decisions.txt"

    /// The decisions, in file order.
    public let decisions: [Decision]
    /// Where they were read from (a path), for reports; empty when made in code.
    public let source: String

    /// Decisions made in code.
    public init(_ decisions: [Decision] = [], source: String = "") {
        self.decisions = decisions
        self.source = source
    }

    /// The decisions of a `compat-decisions.txt` file's text.
    /// - Throws: ``ArchiveSchemaFileError`` with code ``ArchiveSchemaFileError/Code/invalidField``
    ///   and the path `line N` for a line without a reason, a `RULE:` naming no rule, or a
    ///   pattern given twice.
    public init(text: String, source: String) throws(ArchiveSchemaFileError) {
        var decisions: [Decision] = []
        var seen: [String: Int] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let pattern = String(line.prefix { !$0.isWhitespace })
            let reason = String(line.dropFirst(pattern.count)).trimmingWhitespace()
            let path = "line \(lineNumber)"
            guard !reason.isEmpty else {
                throw ArchiveSchemaFileError(.invalidField, "the decision \(pattern.escapedForMessage) says no reason: write why after the pattern, as a reviewer will read it", path: path)
            }
            if let colon = pattern.firstIndex(of: ":") {
                let rule = String(pattern[..<colon])
                guard ArchiveCompatibilityRule(rawValue: rule) != nil else {
                    let rules = Set(ArchiveCompatibilityRule.allCases.map(\.rawValue))
                    let nearest = ArchiveCompatibilityReport.nearest(to: rule, among: rules).map { " (nearest: \($0))" } ?? ""
                    throw ArchiveSchemaFileError(.invalidField, "\(rule.escapedForMessage) in \(pattern.escapedForMessage) is not a rule\(nearest); `keyedarchive compat --help` lists them", path: path)
                }
                guard pattern.index(after: colon) < pattern.endIndex else {
                    throw ArchiveSchemaFileError(.invalidField, "\(pattern.escapedForMessage) names a rule but no class or key after the colon", path: path)
                }
            }
            if let first = seen[pattern] {
                throw ArchiveSchemaFileError(.invalidField, "the pattern \(pattern.escapedForMessage) is decided twice (first on line \(first)): keep one decision, with every reason in it", path: path)
            }
            seen[pattern] = lineNumber
            decisions.append(Decision(pattern: pattern, reason: reason, line: lineNumber))
        }
        self.decisions = decisions
        self.source = source
    }

    /// The decision that accepts `change`, if any: the first in file order.
    func decision(accepting change: ArchiveCompatibility.Change) -> Decision? {
        decisions.first { change.matches($0.pattern) }
    }
}

extension ArchiveCompatibility.Change {
    /// The class or `Class.key` part of a pattern (after `RULE:`), or the pattern itself.
    static func target(of pattern: String) -> String {
        guard let colon = pattern.firstIndex(of: ":"), ArchiveCompatibilityRule(rawValue: String(pattern[..<colon])) != nil else { return pattern }
        return String(pattern[pattern.index(after: colon)...])
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

extension String {
    func trimmingWhitespace() -> String { self[...].trimmingWhitespace() }
}
