#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// Lets `encodeEncodable` see that the value it was handed is a nil optional: the value is
/// generic, so only a protocol the optional conforms to can say so.
protocol ArchiveOptionalValue {
    var isNone: Bool { get }
}

extension Optional: ArchiveOptionalValue {
    var isNone: Bool { self == nil }
}

extension KeyedArchiveEncoder {
    /// Whether `value` is a nil optional, which `encodeEncodable` stores as a reference to
    /// `$null`, as ``encode(_:forKey:)-(T?,_)`` stores a nil object.
    static func isNilOptional<T>(_ value: T) -> Bool {
        (value as? any ArchiveOptionalValue)?.isNone ?? false
    }
}

// One call for a `Codable` root, as Apple's overlay offers `encodeEncodable`/`decodeDecodable`
// on an archiver of one's own: the value is the tree `encodeEncodable` makes, under `root`.

extension KeyedArchiver {
    /// Archives a `Codable` value under the key `root`, as
    /// ``KeyedArchiveEncoder/encodeEncodable(_:forKey:)`` stores it (the tree of
    /// `NSMutableDictionary`, `NSMutableArray` and plist values Foundation's `PropertyListEncoder`
    /// makes), so Apple's `decodeDecodable(_:forKey:)` reads it:
    /// ```swift
    /// let registry = ArchiveRegistry(foundation: .propertyListClasses)
    /// let bytes = try KeyedArchiver.archive(encodable: report, registry: registry)
    /// let report = try KeyedUnarchiver.unarchive(decodable: WeatherReport.self, from: bytes, registry: registry)
    /// ```
    /// The registry matters only for its Foundation classes: ``FoundationClassSet/propertyListClasses``
    /// is all a `Codable` tree is made of. It is asked for, as the typed API asks for one, so that
    /// what a decode admits is always written where it happens.
    /// - Throws: ``ArchiveError``, as ``KeyedArchiveEncoder/encodeEncodable(_:forKey:)`` and ``finish(format:)``.
    public static func archive<T: Encodable>(
        encodable root: T,
        registry: ArchiveRegistry,
        format: ArchiveFormat = .binary,
        options: ArchiveWritingOptions = .default
    ) throws(ArchiveError) -> [UInt8] {
        let archiver = KeyedArchiver(registry: registry, options: options)
        try archiver.encodeEncodable(root, forKey: ArchiveKeys.rootKey)
        return try archiver.finish(format: format)
    }

    /// ``archive(encodable:registry:format:options:)`` as `Data`.
    public static func archivedData<T: Encodable>(
        encodable root: T,
        registry: ArchiveRegistry,
        format: ArchiveFormat = .binary,
        options: ArchiveWritingOptions = .default
    ) throws(ArchiveError) -> Data {
        Data(try archive(encodable: root, registry: registry, format: format, options: options))
    }
}

extension KeyedUnarchiver {
    /// Decodes the `Codable` value under `root`, stored as ``KeyedArchiver/archive(encodable:registry:format:options:)``
    /// or Apple's `encodeEncodable(_:forKey:)` store it.
    /// - Throws: ``ArchiveError``: ``ArchiveError/Code/valueNotFound`` when `root` is absent or
    ///   `$null` (a nil optional was archived: ask for the optional type with
    ///   ``decodeDecodable(_:forKey:)`` to get nil), and everything
    ///   ``KeyedArchiveDecoder/decodeDecodable(_:forKey:)`` throws.
    public static func unarchive<T: Decodable>(
        decodable type: T.Type,
        from bytes: [UInt8],
        registry: ArchiveRegistry,
        options: ArchiveReadingOptions = .default
    ) throws(ArchiveError) -> T {
        try KeyedUnarchiver(bytes: bytes, registry: registry, options: options).decodeRootDecodable(type)
    }

    /// The same as `unarchive(decodable:from:registry:options:)` for `[UInt8]`, reading `Data` in place.
    public static func unarchive<T: Decodable>(
        decodable type: T.Type,
        from data: Data,
        registry: ArchiveRegistry,
        options: ArchiveReadingOptions = .default
    ) throws(ArchiveError) -> T {
        try KeyedUnarchiver(data: data, registry: registry, options: options).decodeRootDecodable(type)
    }

    private func decodeRootDecodable<T: Decodable>(_ type: T.Type) throws(ArchiveError) -> T {
        guard let value = try decodeDecodable(type, forKey: ArchiveKeys.rootKey) else {
            throw ArchiveError(.valueNotFound, "expected \(T.self), found \(topLevelDecoder.contains(ArchiveKeys.rootKey) ? "$null" : "no value")",
                               keyPath: ArchiveKeyPath([.key(ArchiveKeys.rootKey)]))
        }
        return value
    }
}
