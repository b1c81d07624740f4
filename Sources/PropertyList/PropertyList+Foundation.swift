#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

// Conveniences for callers holding Foundation's `Data` and `Date`. The codec itself works on
// bytes; these read `Data` in place (no copy) and convert at the edges.

extension PropertyListDate {
    public init(_ date: Date) {
        self.init(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)
    }

    public var date: Date { Date(timeIntervalSinceReferenceDate: secondsSinceReferenceDate) }
}

extension PropertyListValue {
    public static func date(_ date: Date) -> PropertyListValue { .date(PropertyListDate(date)) }
    public static func data(_ data: Data) -> PropertyListValue { .data([UInt8](data)) }
}

extension BinaryPropertyListReader {
    public static func read(_ data: Data, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> BinaryPropertyListDocument {
        let result: Result<BinaryPropertyListDocument, PropertyListError> = data.withUnsafeBytes { buffer in
            do throws(PropertyListError) { return .success(try read(buffer, options: options)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func readValue(_ data: Data, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListValue {
        let result: Result<PropertyListValue, PropertyListError> = data.withUnsafeBytes { buffer in
            do throws(PropertyListError) { return .success(try readValue(buffer, options: options)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

/// So that `error.localizedDescription` (Foundation's `NSError` bridging) shows what went wrong
/// and where, instead of "The operation could not be completed".
extension PropertyListError: LocalizedError {
    public var errorDescription: String? { description }
}
