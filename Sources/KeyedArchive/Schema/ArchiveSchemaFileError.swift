import PropertyList

/// Why a schema file (the JSON `keyedarchive schema --json` writes, Docs/Compatibility.md
/// "The schema file") could not be read back: not JSON, JSON of something else, a newer format
/// version, or a member that is missing, mistyped, out of range or inconsistent.
///
/// A struct with a stable ``Code``, as ``ArchiveError`` is. It says where: the member's path in
/// the document (`classes[3].keys[0].present`), and for text that is not JSON the line and
/// column of the `PropertyListError` underneath. Errors compare equal by code and path.
public struct ArchiveSchemaFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable name for a kind of fault; its raw value is the name.
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The text is not JSON (or uses what the format never writes: `null`, a fraction, an
        /// exponent); ``ArchiveSchemaFileError/propertyListError`` has the line and column.
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        /// Well-formed JSON without `"format": "keyedarchive-schema"`: some other document.
        public static let notASchema = Code(rawValue: "notASchema")
        /// A schema file of a format version newer than this package reads (``ArchiveSchema/fileFormatVersion``).
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// A member missing, of the wrong type, unknown, out of range, written twice, or
        /// inconsistent with another (a key present more often than its class has instances).
        public static let invalidField = Code(rawValue: "invalidField")
    }

    /// What kind of fault this is.
    public let code: Code
    /// What was expected and what was found (text from the file escaped and cut short).
    public let message: String
    /// Where in the document: `classes[3].keys[0].present`; empty for the document itself.
    public let path: String
    /// For ``Code/invalidJSON``: the JSON reader's fault, with its line and column.
    public let propertyListError: PropertyListError?

    /// An error of kind `code` at `path`, explained by `message`.
    public init(_ code: Code, _ message: String, path: String = "", propertyListError: PropertyListError? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.propertyListError = propertyListError
    }

    public var description: String {
        var text = code.rawValue
        if !path.isEmpty { text += " at \(path)" }
        return text + ": " + message
    }

    public static func == (lhs: ArchiveSchemaFileError, rhs: ArchiveSchemaFileError) -> Bool {
        lhs.code == rhs.code && lhs.path == rhs.path
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(path)
    }
}
