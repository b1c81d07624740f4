#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// Every entry point that takes an archive's bytes takes `Data` too, and reads the caller's
// storage in place: the property-list readers and the generic view while they read; the
// unarchiver's binary fast reader during each of its `decode` calls. The unarchiver keeps the
// `Data`, whose bytes no one can change under it (a `Data` is a value).

extension ArchiveGraph {
    /// Reads and validates an archive from binary or XML property-list bytes held in `data`,
    /// without copying them (see ``init(bytes:options:)``).
    /// - Throws: ``ArchiveError``, as ``init(bytes:options:)``.
    public init(data: Data, options: ArchiveReadingOptions = .default) throws(ArchiveError) {
        try self.init(data: data, options: options, interruption: options.startInterruption())
    }

    /// The same, under a budget already started.
    init(data: Data, options: ArchiveReadingOptions, interruption: WorkInterruption) throws(ArchiveError) {
        if let stop = interruption.stop() { throw ArchiveError(stop) }
        if let graph = data.withUnsafeBytes({ ArchiveGraph.fromObjectTable($0, options: options, interruption: interruption) }) {
            self = graph
            return
        }
        self = try data.withUnsafeBytesTyped { (raw) throws(ArchiveError) in try ArchiveGraph(valueTreeOf: raw, options: options, interruption: interruption) }
    }
}

extension KeyedUnarchiver {
    /// An unarchiver reading the archive in `data` in place: it keeps `data` while it lives,
    /// and its `decode` calls read those bytes without copying them.
    /// - Throws: ``ArchiveError`` if the bytes are not a valid keyed archive.
    public convenience init(data: Data, registry: ArchiveRegistry, options: ArchiveReadingOptions = .default) throws(ArchiveError) {
        let interruption = options.startInterruption()
        try self.init(table: BinaryArchiveTable.read(data, options: options, interruption: interruption), source: .data(data, options, interruption),
                      registry: registry, options: options, interruption: interruption)
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
