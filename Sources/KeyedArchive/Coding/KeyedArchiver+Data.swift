#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

// `Data` out beside `[UInt8]`: the writers build the file in an array, which `Data` cannot take
// over, so these cost one copy of the finished archive.

extension KeyedArchiver {
    /// Ends encoding and returns the archive as `Data` (see ``finish(format:)``).
    /// - Throws: ``ArchiveError``, as ``finish(format:)``.
    public func finishData(format: ArchiveFormat = .binary) throws(ArchiveError) -> Data {
        Data(try finish(format: format))
    }

    /// Archives one root object under the key `root` and returns the archive as `Data`:
    /// ```swift
    /// let data = try KeyedArchiver.archivedData(pilot, registry: registry)
    /// try data.write(to: url)
    /// ```
    /// - Throws: ``ArchiveError``, as ``archive(_:registry:format:options:)``.
    public static func archivedData<T: ArchiveObjectEncodable>(
        _ root: T,
        registry: ArchiveRegistry,
        format: ArchiveFormat = .binary,
        options: ArchiveWritingOptions = .default
    ) throws(ArchiveError) -> Data {
        Data(try archive(root, registry: registry, format: format, options: options))
    }
}
