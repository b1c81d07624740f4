#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// Every entry point that takes an archive's bytes takes `Data` too, reading the caller's storage
// in place: a binary archive is decoded straight from it (the unarchiver keeps the `Data`, not
// a copy, for as long as it reads), and the property-list readers parse it where it lies.

extension ArchiveGraph {
    /// Reads and validates an archive from binary or XML property-list bytes held in `data`,
    /// without copying them (see ``init(bytes:options:)``).
    /// - Throws: ``ArchiveError``, as ``init(bytes:options:)``.
    public init(data: Data, options: ArchiveReadingOptions = .default) throws(ArchiveError) {
        try self.init(input: .data(data), options: options)
    }

    init(input: ArchiveInputBytes, options: ArchiveReadingOptions) throws(ArchiveError) {
        let value = try input.withUnsafeBytes { (buffer) throws(ArchiveError) -> PropertyListValue in
            do throws(PropertyListError) {
                return try PropertyListCodec.decode(buffer, options: options.propertyList)
            } catch {
                throw ArchiveError(error)
            }
        }
        try self.init(propertyList: value, options: options)
    }
}

extension KeyedUnarchiver {
    /// An unarchiver reading the archive in `data` in place: a binary archive is decoded from
    /// the `Data`'s own storage, which the unarchiver keeps until it is released.
    /// - Throws: ``ArchiveError`` if the bytes are not a valid keyed archive.
    public convenience init(data: Data, registry: ArchiveRegistry, options: ArchiveReadingOptions = .default) throws(ArchiveError) {
        try self.init(input: .data(data), registry: registry, options: options)
    }

    /// Decodes the object under `root` of the archive in `data`, read in place.
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
