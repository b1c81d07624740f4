#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// Every entry point that takes an archive's bytes takes `Data` too. The property-list readers
// and the generic view read the caller's storage in place. The unarchiver's fast reader keeps
// the bytes it reads as an array for the whole decode: reading a `Data` in place there put a
// branch and `Data`'s access into every field read, which cost decoding from an array about 2 %
// of its instructions (callgrind, fleet decode); so a `Data` is copied into one array once — a
// memcpy, some 0.3 % of decoding the same archive.

extension ArchiveGraph {
    /// Reads and validates an archive from binary or XML property-list bytes held in `data`,
    /// without copying them (see ``init(bytes:options:)``).
    /// - Throws: ``ArchiveError``, as ``init(bytes:options:)``.
    public init(data: Data, options: ArchiveReadingOptions = .default) throws(ArchiveError) {
        let value: PropertyListValue
        do {
            value = try data.withUnsafeBytesTyped { (buffer) throws(PropertyListError) in
                try PropertyListCodec.decode(buffer, options: options.propertyList)
            }
        } catch {
            throw ArchiveError(error)
        }
        try self.init(propertyList: value, options: options)
    }
}

extension KeyedUnarchiver {
    /// An unarchiver reading the archive in `data` (copied once into the array the binary fast
    /// reader keeps while it decodes).
    /// - Throws: ``ArchiveError`` if the bytes are not a valid keyed archive.
    public convenience init(data: Data, registry: ArchiveRegistry, options: ArchiveReadingOptions = .default) throws(ArchiveError) {
        try self.init(bytes: [UInt8](data), registry: registry, options: options)
    }

    /// Decodes the object under `root` of the archive in `data`.
    /// ```swift
    /// let pilot = try KeyedUnarchiver.unarchive(Pilot.self, from: data, registry: registry)
    /// ```
    /// - Throws: ``ArchiveError``, as `decode(_:forKey:)`.
    public static func unarchive<T: ArchiveObjectDecodable>(
        _ type: T.Type,
        from data: Data,
        registry: ArchiveRegistry,
        options: ArchiveReadingOptions = .default
    ) throws(ArchiveError) -> T {
        try KeyedUnarchiver(data: data, registry: registry, options: options).decode(type, forKey: ArchiveKeys.rootKey)
    }
}
