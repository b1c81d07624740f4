import PropertyList

/// An `NSAttributedString` or `NSMutableAttributedString`: its text and its attribute runs, each
/// run's attributes an `NSDictionary` of ``ArchiveValue``s.
///
/// ```swift
/// let text = try decoder.decode(ArchiveAttributedString.self, forKey: "note")
/// for run in text.runs where run.attributes["NSLink"] != nil { … }
/// let bold = ArchiveAttributedString("Hello", runs: [.init(length: 5, attributes: ["Weight": 700])])
/// ```
///
/// Run lengths count UTF-16 code units, as `NSString` does (`"👍"` is two). Decoding keeps the
/// object as the archive stored it, so that encoding a decoded value writes the same fields
/// again (Foundation may store two equal attribute dictionaries as two entries, or a mutable
/// string's text as an `NSMutableString` object); changing any property drops that, and the
/// value is then written as Foundation writes it: `NSString` (an `NSMutableString` object for
/// ``archivesAsMutable``), `NSAttributes` — the one dictionary when a single run covers the text,
/// otherwise an `NSMutableArray` of the distinct dictionaries in order of first use — and
/// `NSAttributeInfo`, an `NSMutableData` of (length, index) pairs as unsigned LEB128 numbers.
///
/// Equality is `isEqualToAttributedString:`'s: the same text with the same attributes at every
/// position, however the runs are split; ``archivesAsMutable`` is ignored.
///
/// Swift's `AttributedString` has no faithful form of these runs (its attributes are typed by
/// keys known when the program is compiled, an archive's by whatever strings it holds), so this
/// type is what an archived attributed string decodes to.
public struct ArchiveAttributedString: Sendable, CustomStringConvertible {
    /// One run of attributes.
    public struct Run: Hashable, Sendable {
        /// How many UTF-16 code units of the text the run covers.
        public var length: Int
        /// The run's attributes by name (`NSFont`, `NSColor`, `NSLink`, …).
        public var attributes: [String: ArchiveValue]

        /// A run of `length` UTF-16 code units with `attributes`.
        public init(length: Int, attributes: [String: ArchiveValue] = [:]) {
            self.length = length
            self.attributes = attributes
        }
    }

    /// The text.
    public var string: String { didSet { stored = nil } }
    /// The runs, in order; their lengths add up to the text's UTF-16 length.
    public var runs: [Run] { didSet { stored = nil } }
    /// Whether it is archived as an `NSMutableAttributedString`.
    public var archivesAsMutable: Bool { didSet { stored = nil } }
    /// The object as decoded, written back as it was until a property changes.
    var stored: ArchiveInstance?

    /// `string` with `runs` (default: one run without attributes over the whole text).
    public init(_ string: String, runs: [Run]? = nil, archivesAsMutable: Bool = false) {
        self.string = string
        let length = string.utf16.count
        self.runs = runs ?? (length > 0 ? [Run(length: length)] : [])
        self.archivesAsMutable = archivesAsMutable
    }

    /// `string` with `attributes` over the whole text.
    public init(_ string: String, attributes: [String: ArchiveValue], archivesAsMutable: Bool = false) {
        let length = string.utf16.count
        self.init(string, runs: length > 0 ? [Run(length: length, attributes: attributes)] : [], archivesAsMutable: archivesAsMutable)
    }

    /// Each run with where it starts in the text (in UTF-16 code units).
    public var attributeRanges: [(location: Int, run: Run)] {
        var location = 0
        return runs.map { run in
            defer { location += run.length }
            return (location, run)
        }
    }

    /// The runs with neighbours of equal attributes merged, and empty runs left out.
    var mergedRuns: [Run] {
        var merged: [Run] = []
        for run in runs where run.length > 0 {
            if let last = merged.last, last.attributes == run.attributes {
                merged[merged.count - 1].length += run.length
            } else {
                merged.append(run)
            }
        }
        return merged
    }

    /// `"Hello"{2 runs}`.
    public var description: String { "\"\(string)\"{\(runs.count) runs}" }
}

extension ArchiveAttributedString: Hashable {
    /// The same text with the same attributes at every position.
    public static func == (lhs: ArchiveAttributedString, rhs: ArchiveAttributedString) -> Bool {
        lhs.string.isExactlyEqual(to: rhs.string) && lhs.mergedRuns == rhs.mergedRuns
    }

    /// Hashes the text and the merged runs.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(string)
        hasher.combine(mergedRuns)
    }
}
