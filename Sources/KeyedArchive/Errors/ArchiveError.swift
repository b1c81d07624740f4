#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
@_spi(KeyedArchiveInternals) import PropertyList

/// Every fault the keyed-archive layer reports, whether decoding (untrusted input) or encoding.
///
/// A struct with a stable ``Code`` rather than an enum so that codes can be added without
/// breaking clients' exhaustive `switch`es. Besides the code it says *where*: the key path from
/// the top of the archive, the object's UID, and for class refusals the archived class chain.
/// Errors compare equal by code, UID and key path; tests should assert those, not messages.
public struct ArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable name for a kind of fault, to assert on and switch over; its raw value is the name.
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The bytes are not a property list (the underlying `PropertyListError` is attached).
        public static let invalidPropertyList = Code(rawValue: "invalidPropertyList")
        /// `$archiver`, `$version`, `$top` or `$objects` is missing or of the wrong type or value.
        public static let invalidArchiveHeader = Code(rawValue: "invalidArchiveHeader")
        /// A UID that is not below the `$objects` count, or that points at an object of the wrong kind.
        public static let invalidReference = Code(rawValue: "invalidReference")
        /// An object's `$class` is missing, or is not a reference to a class dictionary.
        public static let invalidClassReference = Code(rawValue: "invalidClassReference")
        /// A class dictionary whose `$classname`/`$classes`/`$classhints` are missing or mistyped.
        public static let invalidClassDescriptor = Code(rawValue: "invalidClassDescriptor")
        /// The archived class is not admitted by the registry for the type that was asked for.
        public static let classNotAllowed = Code(rawValue: "classNotAllowed")
        /// A Swift type was used for encoding or asked for in decoding without being registered.
        public static let typeNotRegistered = Code(rawValue: "typeNotRegistered")
        /// A value of another kind than the one asked for (a string where a number was expected).
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A required key is absent, or holds `$null`, or the top-level key does not exist.
        public static let valueNotFound = Code(rawValue: "valueNotFound")
        /// A number that does not fit the requested type, or a malformed payload (wrong length).
        public static let valueOutOfRange = Code(rawValue: "valueOutOfRange")
        /// An object was asked for while it is itself still being decoded; back-references must
        /// use the deferred API (``KeyedArchiveDecoder/decode(_:forKey:whenResolved:)``).
        public static let cyclicReference = Code(rawValue: "cyclicReference")
        /// Objects nest (while decoding or encoding) deeper than the configured limit.
        public static let depthLimitExceeded = Code(rawValue: "depthLimitExceeded")
        /// Objects nest (while decoding or encoding) so deep that the thread's stack would run
        /// out: the recursion stopped with `ThreadStackLimit.headroom` bytes still free. The
        /// message says how deep it got and how much stack the thread has; a bigger thread stack
        /// lets the same data through (Docs/Security.md, "Thread stacks").
        public static let stackExhausted = Code(rawValue: "stackExhausted")
        /// A resource budget from the options was exceeded (objects, elements, output size).
        public static let budgetExceeded = Code(rawValue: "budgetExceeded")
        /// A model's own `init(from:)` or `encode(to:)` threw an error that is not an ``ArchiveError``.
        public static let modelError = Code(rawValue: "modelError")
        /// The same key was encoded twice in one object, or an archive being decoded stores a key
        /// twice in one object (readers disagree on which one counts, so decoding refuses it).
        public static let duplicateKey = Code(rawValue: "duplicateKey")
        /// A value the requested archive format cannot carry as it is: written, it would read back
        /// as another value (in XML: a string starting with U+FEFF, −0, a NaN payload, a date's
        /// fraction of a second, a plain `{CF$UID: n}` dictionary). The error names the key path and
        /// the value; ``ArchiveWritingOptions/xmlValueLoss`` can accept the loss instead.
        public static let unrepresentableValue = Code(rawValue: "unrepresentableValue")
        /// The encoder was used after it finished, or an invalid argument was passed to it.
        public static let invalidState = Code(rawValue: "invalidState")
        /// The task running the decode or encode was cancelled: the work stopped at the key
        /// path it had reached (``ArchiveReadingOptions/respondsToCancellation``).
        public static let cancelled = Code(rawValue: "cancelled")
        /// The decode or encode took longer than its ``ArchiveReadingOptions/maximumDuration``
        /// (or ``ArchiveWritingOptions/maximumDuration``): the work stopped at the key path it
        /// had reached.
        public static let timeLimitExceeded = Code(rawValue: "timeLimitExceeded")
    }

    /// The error's fields live in one immutable object, so that an `ArchiveError` is one
    /// pointer wide. Every call that can throw it reserves room for one in its caller's frame;
    /// at some two hundred bytes inline, those slots were a third of the stack a nesting level
    /// of decoding took (Docs/Security.md, "Stack").
    private final class Storage: Sendable {
        let code: Code
        let message: String
        let keyPath: ArchiveKeyPath
        let uid: PropertyListUID?
        let classChain: [String]
        let propertyListError: PropertyListError?
        let underlyingDescription: String?
        let underlyingError: (any Error)?
        let remedy: String?

        init(code: Code, message: String, keyPath: ArchiveKeyPath, uid: PropertyListUID?, classChain: [String],
             propertyListError: PropertyListError?, underlyingDescription: String?, underlyingError: (any Error)?, remedy: String?) {
            self.code = code
            self.message = message
            self.keyPath = keyPath
            self.uid = uid
            self.classChain = classChain
            self.propertyListError = propertyListError
            self.underlyingDescription = underlyingDescription
            self.underlyingError = underlyingError
            self.remedy = remedy
        }
    }
    private let storage: Storage

    /// What kind of fault this is.
    public var code: Code { storage.code }
    /// What was expected and what was found.
    public var message: String { storage.message }
    /// The path from the top of the archive to the faulty value (empty when not applicable).
    public var keyPath: ArchiveKeyPath { storage.keyPath }
    /// The `$objects` index of the object in which the fault was found.
    public var uid: PropertyListUID? { storage.uid }
    /// For class faults: the archived `$classes` chain of the object (its class name first).
    public var classChain: [String] { storage.classChain }
    /// The property-list fault underneath, for ``Code/invalidPropertyList``.
    public var propertyListError: PropertyListError? { storage.propertyListError }
    /// For ``Code/modelError``: a description of the error the model threw.
    public var underlyingDescription: String? { storage.underlyingDescription }
    /// For ``Code/modelError``: the error the model (or a `Codable` value) threw, so that a
    /// caller can catch its own error type again: `if let mine = error.underlyingError as? MyError`.
    /// Not part of equality.
    public var underlyingError: (any Error)? { storage.underlyingError }
    /// For refusals (``Code/classNotAllowed``, ``Code/typeNotRegistered``): the registration
    /// that would admit the object, e.g. `register(Glider.self, className: "Glider", superclass: Airplane.self)`
    /// or `--allow Glider`. Only a hint for a person deciding whether to trust the class.
    public var remedy: String? { storage.remedy }

    /// An error of kind `code`, explained by `message`, with whatever is known of where and why.
    ///
    /// A model's own `init(from:)` or `encode(to:)` may throw one; a key path and UID left empty
    /// are filled in with the place where it was thrown.
    public init(
        _ code: Code,
        _ message: String,
        keyPath: ArchiveKeyPath = .empty,
        uid: PropertyListUID? = nil,
        classChain: [String] = [],
        propertyListError: PropertyListError? = nil,
        underlyingDescription: String? = nil,
        underlyingError: (any Error)? = nil,
        remedy: String? = nil
    ) {
        storage = Storage(code: code, message: message, keyPath: keyPath, uid: uid, classChain: classChain, propertyListError: propertyListError,
                          underlyingDescription: underlyingDescription, underlyingError: underlyingError, remedy: remedy)
    }

    /// An ``Code/invalidPropertyList`` error carrying `error`: the bytes were not a readable
    /// property list. A read the caller stopped (``Code/cancelled``, ``Code/timeLimitExceeded``)
    /// keeps its own code: the bytes may be fine.
    public init(_ error: PropertyListError) {
        switch error.code {
        case .cancelled: self.init(.cancelled, error.description, propertyListError: error)
        case .timeLimitExceeded: self.init(.timeLimitExceeded, error.description, propertyListError: error)
        default: self.init(.invalidPropertyList, error.description, propertyListError: error)
        }
    }

    /// The error that stops work for `stop`, at `keyPath`.
    init(_ stop: WorkInterruption.Stop, keyPath: ArchiveKeyPath = .empty, uid: PropertyListUID? = nil) {
        switch stop {
        case .cancelled:
            self.init(.cancelled, "the task was cancelled", keyPath: keyPath, uid: uid)
        case .timeLimitExceeded(let budget):
            self.init(.timeLimitExceeded, "the work took longer than its budget of \(budget) (maximumDuration)", keyPath: keyPath, uid: uid)
        }
    }

    /// The same error with location details filled in where it had none: an error a caller's
    /// conformance made without a key path gets the one where it was thrown.
    ///
    /// The path is an autoclosure because an error passes through here at every level it unwinds:
    /// built at each, a failure 64,000 objects deep cost two billion path components (issue 31).
    /// Only the first level builds it, for an error that has none.
    @usableFromInline
    func located(keyPath: @autoclosure () -> ArchiveKeyPath, uid: PropertyListUID?) -> ArchiveError {
        // One located already names its own place; an outer object's UID would mislead.
        guard self.keyPath.components.isEmpty else { return self }
        return ArchiveError(
            code, message,
            keyPath: keyPath(),
            uid: self.uid ?? uid,
            classChain: classChain,
            propertyListError: propertyListError,
            underlyingDescription: underlyingDescription,
            underlyingError: underlyingError,
            remedy: remedy)
    }

    public var description: String {
        var text = "\(code)"
        if !keyPath.components.isEmpty { text += " at \(keyPath)" }
        if let uid { text += " (object #\(uid.value))" }
        text += ": \(message)"
        if !classChain.isEmpty {
            // A hostile chain can be long; the error stays short (and on one line).
            let shown = classChain.prefix(16).map { $0.excerptForMessage(128) }
            text += " [classes: \(shown.joined(separator: " < "))\(classChain.count > 16 ? " < … (\(classChain.count) names)" : "")]"
        }
        if let remedy { text += " — to admit it: \(remedy)" }
        return text
    }

    public static func == (lhs: ArchiveError, rhs: ArchiveError) -> Bool {
        lhs.code == rhs.code && lhs.uid == rhs.uid && lhs.keyPath == rhs.keyPath
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(uid)
        hasher.combine(keyPath)
    }
}

/// So that `error.localizedDescription` (Foundation's `NSError` bridging) shows the code, the key
/// path and the UID instead of "The operation could not be completed".
extension ArchiveError: LocalizedError {
    public var errorDescription: String? { description }
}
