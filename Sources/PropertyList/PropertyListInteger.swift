/// An integer as a property list stores it.
///
/// Binary property lists hold signed 64-bit integers, and unsigned values above `Int64.max`
/// in a 16-byte form; Core Foundation picks the 16-byte form by the number's *storage type*
/// (a 128-bit `CFNumber`), not by its magnitude, so a small value may legitimately be stored
/// in 16 bytes. The value is kept as a 128-bit two's-complement pair so that every integer a
/// file can hold is represented exactly, and `isStoredAs128Bit` keeps the storage form so that
/// a file can be written back byte for byte.
public struct PropertyListInteger: Hashable, Sendable, CustomStringConvertible {
    /// High 64 bits of the 128-bit two's-complement value.
    public let high: Int64
    /// Low 64 bits of the 128-bit two's-complement value.
    public let low: UInt64
    /// Whether the value is stored in the 16-byte form (`0x14` marker) when written as binary.
    public let isStoredAs128Bit: Bool

    /// Creates an integer from its 128-bit two's-complement halves.
    public init(high: Int64, low: UInt64, isStoredAs128Bit: Bool) {
        self.high = high
        self.low = low
        self.isStoredAs128Bit = isStoredAs128Bit
    }

    /// A signed 64-bit value, stored in the ordinary form.
    public init(_ value: Int64) {
        self.init(high: value < 0 ? -1 : 0, low: UInt64(bitPattern: value), isStoredAs128Bit: false)
    }

    /// An unsigned 64-bit value. Values above `Int64.max` need the 16-byte form, as in Core Foundation.
    public init(_ value: UInt64) {
        self.init(high: 0, low: value, isStoredAs128Bit: value > UInt64(Int64.max))
    }

    /// Any fixed-width integer; values above `Int64.max` use the 16-byte form.
    public init<T: BinaryInteger>(integer value: T) {
        if value < 0 {
            // Every negative value a plist can hold fits Int64; clamp the impossible rest.
            self.init(Int64(clamping: value))
        } else {
            self.init(UInt64(clamping: value))
        }
    }

    /// The value as `Int64`, or nil if it does not fit.
    public var int64Value: Int64? {
        let candidate = Int64(bitPattern: low)
        if high == 0 && candidate >= 0 { return candidate }
        if high == -1 && candidate < 0 { return candidate }
        return nil
    }

    /// The value as `UInt64`, or nil if it is negative or too large.
    public var uint64Value: UInt64? {
        high == 0 ? low : nil
    }

    /// The value as `Int`, or nil if it does not fit.
    public var intValue: Int? {
        int64Value.flatMap { Int(exactly: $0) }
    }

    /// Whether the value is below zero.
    public var isNegative: Bool { high < 0 }

    /// Exact decimal text over the whole 128-bit range.
    public var description: String {
        if let signed = int64Value { return String(signed) }
        if let unsigned = uint64Value { return String(unsigned) }
        return Self.decimalText(high: high, low: low)
    }

    private static func decimalText(high: Int64, low: UInt64) -> String {
        let negative = high < 0
        // Magnitude of the 128-bit value as (hi, lo) unsigned halves.
        var hi = UInt64(bitPattern: high)
        var lo = low
        if negative {
            lo = ~lo
            hi = ~hi
            let (sum, overflow) = lo.addingReportingOverflow(1)
            lo = sum
            if overflow { hi = hi &+ 1 }
        }
        var digits: [UInt8] = []
        while hi != 0 || lo != 0 {
            // Divide the 128-bit magnitude by 10, collecting the remainder.
            let (qHigh, rHigh) = hi.quotientAndRemainder(dividingBy: 10)
            let (qLow, rLow) = (10 as UInt64).dividingFullWidth((high: rHigh, low: lo))
            hi = qHigh
            lo = qLow
            digits.append(UInt8(truncatingIfNeeded: rLow) &+ 48)
        }
        if digits.isEmpty { digits.append(48) }
        if negative { digits.append(45) }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }
}

extension PropertyListInteger: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(value) }
}

extension PropertyListInteger: Comparable {
    public static func < (lhs: PropertyListInteger, rhs: PropertyListInteger) -> Bool {
        if lhs.high != rhs.high { return lhs.high < rhs.high }
        return lhs.low < rhs.low
    }
}
