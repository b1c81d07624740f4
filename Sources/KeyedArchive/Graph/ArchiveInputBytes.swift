#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

/// The bytes of an archive being decoded, as the caller handed them over: the binary table
/// reads them in place for the whole decode, so it keeps the caller's storage rather than a
/// copy in an array of its own.
enum ArchiveInputBytes {
    case array([UInt8])
    case data(Data)

    @inline(__always)
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch self {
        case .array(let bytes): return bytes.withUnsafeBytes(body)
        case .data(let data): return data.withUnsafeBytes(body)
        }
    }

    /// The same, for a body that throws an ``ArchiveError``.
    func withUnsafeBytes<R>(throwing body: (UnsafeRawBufferPointer) throws(ArchiveError) -> R) throws(ArchiveError) -> R {
        let result: Result<R, ArchiveError> = withUnsafeBytes { buffer in
            do throws(ArchiveError) { return .success(try body(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
