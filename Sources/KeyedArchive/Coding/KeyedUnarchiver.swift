#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// Decodes object graphs from an `NSKeyedArchiver` archive, creating only types admitted by an
/// ``ArchiveRegistry``.
///
/// ```swift
/// let pilot = try KeyedUnarchiver.unarchive(Pilot.self, from: bytes, registry: registry)
/// ```
///
/// Objects shared in the archive decode to one shared instance (across every top-level key of
/// one unarchiver). A failure throws and leaves the unarchiver unusable: no partly decoded graph
/// is ever returned. Not meant to be shared between tasks; create one per decode (the registry
/// and the graph are `Sendable` and can be shared).
public final class KeyedUnarchiver {
    let session: ArchiveDecodingSession
    private let topFields: ArchiveFields

    /// Where each value decoded from now on notes the archived object it came from, so that an
    /// archiver given the same table stores one object again where this archive had one shared
    /// by several fields (see ``ArchiveIdentityTable``). Nil (the default): nothing is noted.
    public var identities: ArchiveIdentityTable? {
        get { session.identities }
        set { session.identities = newValue }
    }
    /// How the generic view is had: built already, or built from the bytes on first use.
    enum GraphSource {
        case built(ArchiveGraph)
        case bytes([UInt8], ArchiveReadingOptions, WorkInterruption)
        case data(Data, ArchiveReadingOptions, WorkInterruption)

        func graph() throws(ArchiveError) -> ArchiveGraph {
            switch self {
            case .built(let graph): return graph
            case .bytes(let bytes, let options, let interruption): return try ArchiveGraph(bytes: bytes, options: options, interruption: interruption)
            case .data(let data, let options, let interruption): return try ArchiveGraph(data: data, options: options, interruption: interruption)
            }
        }
    }
    private var graphSource: GraphSource
    /// Whether one of the `decode` functions is under way: a model that calls another one of
    /// them on this unarchiver from its `init(from:)` would have the back-references of objects
    /// still being built resolved under it, and the outer key path cleared.
    private var running = false

    /// The validated generic view of the archive.
    ///
    /// A binary archive is decoded straight from its bytes, so its graph is built only when
    /// asked for. The bytes were validated as strictly as building the graph validates them;
    /// the error is there only so that a disagreement between the two would surface as one.
    public var graph: ArchiveGraph {
        get throws(ArchiveError) {
            if case .built(let graph) = graphSource { return graph }
            let graph = try graphSource.graph()
            graphSource = .built(graph)
            return graph
        }
    }

    /// `$archiver`: `NSKeyedArchiver`, or another archiver's name (SceneKit's `SCNKeyedArchiver`).
    /// The in-place reader takes only `NSKeyedArchiver`'s files; any other is read as a graph.
    var archiverName: String {
        get throws(ArchiveError) {
            if session.binaryTable != nil { return ArchiveKeys.archiverName }
            return try graph.archiver
        }
    }

    /// - Throws: ``ArchiveError`` if the bytes are not a valid keyed archive.
    public convenience init(bytes: [UInt8], registry: ArchiveRegistry, options: ArchiveReadingOptions = .default) throws(ArchiveError) {
        let interruption = options.startInterruption()
        try self.init(table: BinaryArchiveTable.read(bytes, options: options, interruption: interruption), source: .bytes(bytes, options, interruption),
                      registry: registry, options: options, interruption: interruption)
    }

    /// An unarchiver reading `table`, the binary fast reader's view of the bytes in `source`,
    /// or, when the fast reader left them to the usual path (nil), the graph built from them;
    /// everything it does is under `interruption`, begun before the file was checked.
    init(table: BinaryArchiveTable?, source: GraphSource, registry: ArchiveRegistry, options: ArchiveReadingOptions,
         interruption: WorkInterruption) throws(ArchiveError) {
        if let table {
            session = ArchiveDecodingSession(store: .binary(table), registry: registry, options: options, interruption: interruption)
            topFields = ArchiveFields(table.top)
            graphSource = source
        } else {
            // XML, an unusual binary shape, or a faulty file: the graph path reads it or names the fault.
            let graph = try source.graph()
            session = ArchiveDecodingSession(store: .graph(graph), registry: registry, options: options, interruption: interruption)
            topFields = ArchiveFields(graph.topFields)
            graphSource = .built(graph)
        }
    }

    /// An unarchiver of an already built ``ArchiveGraph``, admitting the classes `registry` allows.
    public init(graph: ArchiveGraph, registry: ArchiveRegistry, options: ArchiveReadingOptions = .default) {
        session = ArchiveDecodingSession(store: .graph(graph), registry: registry, options: options, interruption: options.startInterruption())
        topFields = ArchiveFields(graph.topFields)
        graphSource = .built(graph)
    }

    /// The decoder of `$top` itself (top-level keys are its fields). Back-references registered
    /// by objects decoded through it directly are delivered only by this unarchiver's own
    /// `decode` functions, which resolve them when they finish; decode graphs with
    /// back-references through those.
    public var topLevelDecoder: KeyedArchiveDecoder {
        KeyedArchiveDecoder(session: session, uid: -1, fields: topFields, classChain: [])
    }

    deinit {
        // Work registered through `topLevelDecoder` and never resolved holds decoders, which
        // hold the session: dropped here, or the session and its objects would leak.
        session.discardDeferred()
    }

    func run<R>(_ body: () throws(ArchiveError) -> R) throws(ArchiveError) -> R {
        guard !session.failed else {
            throw ArchiveError(.invalidState, "an earlier error ended this unarchiver")
        }
        guard !running else {
            throw ArchiveError(.invalidState, "a decode of this unarchiver was called while another is under way (from a model's init(from:)); decode nested objects through the decoder it was given")
        }
        running = true
        defer { running = false }
        session.beginStackWatch()
        do {
            try session.checkInterruption()
            try session.checkKeysAreUnique(topFields, uid: nil)
            func decode() throws(ArchiveError) -> R {
                let result = try body()
                try session.resolveDeferred()
                return result
            }
            // A binary table reads the caller's bytes in place for the whole decode.
            if let table = session.binaryTable { return try table.withBytesInPlace(decode) }
            return try decode()
        } catch {
            session.failed = true
            session.discardDeferred()
            throw error
        }
    }

    /// Decodes the top-level value under `key`: an object, or a number or boolean, which may be
    /// stored inline (what Apple's archiver writes for `encode(_:forKey:)` of a number) or as a
    /// reference to an `NSNumber` object.
    /// - Throws: ``ArchiveError``: ``ArchiveError/Code/valueNotFound`` if the key is absent or
    ///   `$null`, ``ArchiveError/Code/classNotAllowed`` for a class the registry does not admit
    ///   for `T` (anywhere in the graph), and every structural or type fault, with its key path.
    public func decode<T: ArchiveObjectDecodable>(_ type: T.Type, forKey key: String = "root") throws(ArchiveError) -> T {
        try run { () throws(ArchiveError) in
            let decoder = topLevelDecoder
            if let scalar = T.self as? any TopLevelScalar.Type {
                return try Self.typed(try scalar.decode(from: decoder, forKey: key), as: T.self)
            }
            return try decoder.decode(type, forKey: key)
        }
    }

    /// Like `decode(_:forKey:)`, but nil when the key is absent or refers to `$null` (an empty archive).
    public func decodeIfPresent<T: ArchiveObjectDecodable>(_ type: T.Type, forKey key: String = "root") throws(ArchiveError) -> T? {
        try run { () throws(ArchiveError) in
            let decoder = topLevelDecoder
            if let scalar = T.self as? any TopLevelScalar.Type {
                guard let value = try scalar.decodeIfPresent(from: decoder, forKey: key) else { return nil }
                return try Self.typed(value, as: T.self)
            }
            return try decoder.decodeIfPresent(type, forKey: key)
        }
    }

    /// `value` as `T`, which it is: `TopLevelScalar` returns the conforming type itself.
    private static func typed<T>(_ value: any TopLevelScalar, as type: T.Type) throws(ArchiveError) -> T {
        guard let typed = value as? T else { throw ArchiveError(.invalidState, "a \(Swift.type(of: value)) was decoded for \(T.self)") }
        return typed
    }

    /// Decodes a top-level member of a registered family that is not itself decodable (a
    /// protocol of struct models).
    public func decodeObject<T>(of type: T.Type, forKey key: String = "root") throws(ArchiveError) -> T {
        try run { () throws(ArchiveError) in try topLevelDecoder.decodeObject(of: type, forKey: key) }
    }

    /// Decodes a top-level `NSArray` whose elements are members of a registered family that is
    /// not itself decodable (`decodeArray(of: (any AirplaneRecord).self)`).
    public func decodeArray<T>(of type: T.Type, forKey key: String = "root") throws(ArchiveError) -> [T] {
        try run { () throws(ArchiveError) in try topLevelDecoder.decodeArray(of: type, forKey: key) }
    }

    /// Decodes a top-level value stored without a key (`$0`, `$1`, …).
    public func decodeUnkeyed<T: ArchiveObjectDecodable>(_ type: T.Type, at index: Int) throws(ArchiveError) -> T {
        try run { () throws(ArchiveError) in try topLevelDecoder.decodeUnkeyed(type, at: index) }
    }

    /// Decodes the object under `root`.
    public static func unarchive<T: ArchiveObjectDecodable>(
        _ type: T.Type,
        from bytes: [UInt8],
        registry: ArchiveRegistry,
        options: ArchiveReadingOptions = .default
    ) throws(ArchiveError) -> T {
        try KeyedUnarchiver(bytes: bytes, registry: registry, options: options).decode(type, forKey: ArchiveKeys.rootKey)
    }
}

/// The number and boolean types whose top-level value may be stored inline, decoded through the
/// decoder's own overloads for them (which read an inline value or an `NSNumber` object), so that
/// the unarchiver's one generic `decode` serves objects and numbers alike. The decoder's generic
/// `decode(_:forKey:)` reads a field's inline number through them too (as a raw value for
/// `RawRepresentable` types: `KeyedArchiveDecoder.inlineValue`).
protocol TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Self
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Self?
}

extension Bool: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Bool { try decoder.decode(Bool.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Bool? { try decoder.decodeIfPresent(Bool.self, forKey: key) }
}

extension Int: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Int { try decoder.decode(Int.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Int? { try decoder.decodeIfPresent(Int.self, forKey: key) }
}

extension Int8: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Int8 { try decoder.decode(Int8.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Int8? { try decoder.decodeIfPresent(Int8.self, forKey: key) }
}

extension Int16: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Int16 { try decoder.decode(Int16.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Int16? { try decoder.decodeIfPresent(Int16.self, forKey: key) }
}

extension Int32: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Int32 { try decoder.decode(Int32.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Int32? { try decoder.decodeIfPresent(Int32.self, forKey: key) }
}

extension Int64: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Int64 { try decoder.decode(Int64.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Int64? { try decoder.decodeIfPresent(Int64.self, forKey: key) }
}

extension UInt: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> UInt { try decoder.decode(UInt.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> UInt? { try decoder.decodeIfPresent(UInt.self, forKey: key) }
}

extension UInt8: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> UInt8 { try decoder.decode(UInt8.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> UInt8? { try decoder.decodeIfPresent(UInt8.self, forKey: key) }
}

extension UInt16: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> UInt16 { try decoder.decode(UInt16.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> UInt16? { try decoder.decodeIfPresent(UInt16.self, forKey: key) }
}

extension UInt32: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> UInt32 { try decoder.decode(UInt32.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> UInt32? { try decoder.decodeIfPresent(UInt32.self, forKey: key) }
}

extension UInt64: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> UInt64 { try decoder.decode(UInt64.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> UInt64? { try decoder.decodeIfPresent(UInt64.self, forKey: key) }
}

extension Float: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Float { try decoder.decode(Float.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Float? { try decoder.decodeIfPresent(Float.self, forKey: key) }
}

extension Double: TopLevelScalar {
    static func decode(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Double { try decoder.decode(Double.self, forKey: key) }
    static func decodeIfPresent(from decoder: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> Double? { try decoder.decodeIfPresent(Double.self, forKey: key) }
}
