#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

// `Data` beside `[UInt8]` at every reader's entry: Swift code holds file contents as `Data`,
// and converting to an array would copy every byte before reading began. `Data` is always
// contiguous, so each of these reads the caller's storage in place through the
// `UnsafeRawBufferPointer` reader.

extension Data {
    /// Runs `body` on the bytes in place, passing a typed error through (`withUnsafeBytes`
    /// itself only rethrows untyped errors).
    package func withUnsafeBytesTyped<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBytes { buffer in
            do throws(E) { return .success(try body(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

extension PropertyListCodec {
    /// The format of `data` by its first bytes, or nil if it is neither.
    public static func detectFormat(_ data: Data) -> PropertyListFormat? {
        data.withUnsafeBytes { detectFormat($0) }
    }

    /// Reads a file of either format from `data` in place (see ``readFile(_:options:)-(UnsafeRawBufferPointer,_)``).
    public static func readFile(_ data: Data, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListFile {
        try data.withUnsafeBytesTyped { (buffer) throws(PropertyListError) in try readFile(buffer, options: options) }
    }

    /// The value held by `data` in either format, read in place.
    public static func decode(_ data: Data, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListValue {
        try data.withUnsafeBytesTyped { (buffer) throws(PropertyListError) in try decode(buffer, options: options) }
    }

    /// `value` written in `format`, as `Data` (the bytes of ``encode(_:format:)``).
    public static func encodedData(_ value: PropertyListValue, format: PropertyListFormat) throws(PropertyListError) -> Data {
        Data(try encode(value, format: format))
    }
}

extension XMLPropertyListReader {
    /// Reads the XML property list in `data` in place when it is UTF-8 (see
    /// ``read(_:options:)-(UnsafeRawBufferPointer,_)``).
    public static func read(_ data: Data, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> XMLPropertyListDocument {
        try data.withUnsafeBytesTyped { (buffer) throws(PropertyListError) in try read(buffer, options: options) }
    }
}
