@testable import KeyedArchive

/// Typed decoding at `root` through a registry of Foundation classes (the default registry),
/// for the tests of the Foundation mappings.
enum FoundationDecoding {
    static func decode<T: ArchiveObjectDecodable>(_ type: T.Type, _ bytes: [UInt8], registry: ArchiveRegistry = ArchiveRegistry()) throws -> T {
        try KeyedUnarchiver.unarchive(T.self, from: bytes, registry: registry)
    }

    /// The error decoding refuses `bytes` with; nil if it decodes or fails otherwise.
    static func refusal<T: ArchiveObjectDecodable>(_ type: T.Type, _ bytes: [UInt8]) -> ArchiveError? {
        do {
            _ = try decode(T.self, bytes)
            return nil
        } catch let error as ArchiveError {
            return error
        } catch {
            return nil
        }
    }
}
