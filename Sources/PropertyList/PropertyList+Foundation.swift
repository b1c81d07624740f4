#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

// Conveniences for callers holding Foundation's `Data` and `Date`. The codec itself works on
// bytes; these read `Data` in place (no copy) and convert at the edges.

extension PropertyListDate {
    /// The date `date` stands for, kept as seconds since the reference date (2001-01-01).
    public init(_ date: Date) {
        self.init(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)
    }

    /// The date as Foundation's `Date`.
    public var date: Date { Date(timeIntervalSinceReferenceDate: secondsSinceReferenceDate) }
}

extension PropertyListValue {
    /// The `.date` case holding `date`, converted to seconds since the reference date.
    public static func date(_ date: Date) -> PropertyListValue { .date(PropertyListDate(date)) }
    /// The `.data` case holding a copy of `data`'s bytes.
    public static func data(_ data: Data) -> PropertyListValue { .data([UInt8](data)) }
}

extension BinaryPropertyListReader {
    /// Reads a binary property list from `data` in place (no copy), keeping its object table and layout.
    public static func read(_ data: Data, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> BinaryPropertyListDocument {
        let result: Result<BinaryPropertyListDocument, PropertyListError> = data.withUnsafeBytes { buffer in
            do throws(PropertyListError) { return .success(try read(buffer, options: options)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Reads a binary property list from `data` in place (no copy) into its top value.
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
