/// Every fault either reader or writer can report.
///
/// A struct with a stable ``Code`` rather than an enum, so that codes can be added without
/// breaking exhaustive `switch`es in client code; errors compare equal by code and location,
/// and tests should assert codes, not message text.
public struct PropertyListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable name for a kind of fault, to assert on and switch over; its raw value is the name.
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The input is neither `bplist00` nor XML.
        public static let unknownFormat = Code(rawValue: "unknownFormat")
        /// The input ends before a structure it announces.
        public static let truncated = Code(rawValue: "truncated")
        /// Header is not `bplist00`.
        public static let invalidHeader = Code(rawValue: "invalidHeader")
        /// The 32-byte trailer holds impossible sizes or counts.
        public static let invalidTrailer = Code(rawValue: "invalidTrailer")
        /// An offset-table entry points outside the object region (or into the header).
        public static let invalidOffset = Code(rawValue: "invalidOffset")
        /// An object reference is not below the object count.
        public static let invalidReference = Code(rawValue: "invalidReference")
        /// An object marker byte that no Core Foundation version defines.
        public static let invalidObjectMarker = Code(rawValue: "invalidObjectMarker")
        /// A count or length that runs past the object region or does not fit.
        public static let invalidLength = Code(rawValue: "invalidLength")
        /// A container that contains itself, directly or through others.
        public static let recursiveContainer = Code(rawValue: "recursiveContainer")
        /// A dictionary key that is not a string.
        public static let nonStringKey = Code(rawValue: "nonStringKey")
        /// Text that is not valid UTF-8/UTF-16/ASCII.
        public static let invalidText = Code(rawValue: "invalidText")
        /// Nesting deeper than ``PropertyListReadingOptions/maximumDepth``.
        public static let depthLimitExceeded = Code(rawValue: "depthLimitExceeded")
        /// Values nest so deep that the thread's stack would run out (a `Codable` value's own
        /// `init(from:)` or `encode(to:)` runs at every level); Docs/Security.md, "Stack safety", says how the room left is found.
        public static let stackExhausted = Code(rawValue: "stackExhausted")
        /// A size budget from ``PropertyListReadingOptions`` was exceeded.
        public static let sizeLimitExceeded = Code(rawValue: "sizeLimitExceeded")
        /// Malformed XML markup.
        public static let xmlSyntax = Code(rawValue: "xmlSyntax")
        /// A well-formed XML element that is not allowed where it stands.
        public static let xmlUnexpectedElement = Code(rawValue: "xmlUnexpectedElement")
        /// An `<integer>` or `<real>` whose text is not a number in range.
        public static let invalidNumber = Code(rawValue: "invalidNumber")
        /// A `<date>` whose text is not `YYYY-MM-DDTHH:MM:SSZ`.
        public static let invalidDate = Code(rawValue: "invalidDate")
        /// An `&...;` entity that XML plists do not define.
        public static let invalidEntity = Code(rawValue: "invalidEntity")
        /// A value the target format cannot express (a set in XML, a non-string key).
        public static let unsupportedValue = Code(rawValue: "unsupportedValue")
        /// The task running the work was cancelled (``PropertyListReadingOptions/respondsToCancellation``).
        public static let cancelled = Code(rawValue: "cancelled")
        /// The work took longer than ``PropertyListReadingOptions/maximumDuration``.
        public static let timeLimitExceeded = Code(rawValue: "timeLimitExceeded")
    }

    /// Where in the input the fault was found.
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
    public enum Location: Hashable, Sendable, CustomStringConvertible {
        /// No position is known (a writer's error, or one about the whole input).
        case none
        /// Byte offset from the start of a binary file.
        case byteOffset(Int)
        /// 1-based line (and byte column on that line) of an XML file.
        case line(Int, column: Int)

        public var description: String {
            switch self {
            case .none: return ""
            case .byteOffset(let offset): return "at byte offset \(offset)"
            case .line(let line, let column): return "at line \(line), column \(column)"
            }
        }
    }

    /// What kind of fault this is.
    public let code: Code
    /// Where in the input it was found.
    public let location: Location
    /// A human-readable explanation: what was expected and what was found.
    public let message: String

    /// An error of kind `code`, explained by `message`, found at `location`.
    public init(_ code: Code, _ message: String, at location: Location = .none) {
        self.code = code
        self.message = message
        self.location = location
    }

    public var description: String {
        switch location {
        case .none: return "\(code): \(message)"
        default: return "\(code) \(location): \(message)"
        }
    }

    public static func == (lhs: PropertyListError, rhs: PropertyListError) -> Bool {
        lhs.code == rhs.code && lhs.location == rhs.location
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(location)
    }
}
