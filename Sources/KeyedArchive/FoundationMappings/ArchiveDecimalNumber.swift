#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// An `NSDecimalNumber`, exactly as `NSDecimal` holds it: a mantissa of up to 128 bits (eight
/// 16-bit words, least significant first), a power-of-ten exponent from −128 to 127, a sign,
/// and Foundation's "compact" flag (no trailing zeros in the mantissa). No `Double` is involved
/// either way: `-123.4500` stays the mantissa 1234500 with the exponent −4.
///
/// ```swift
/// let price = try decoder.decode(Decimal.self, forKey: "price")            // or ArchiveDecimalNumber
/// try encoder.encode(ArchiveDecimalNumber(Decimal(string: "19.99")!), forKey: "price")
/// ```
///
/// An empty mantissa is zero, or with ``isNegative`` NaN (`NSDecimalNumber.notANumber`), as in
/// `NSDecimal`. Decoding keeps the object as stored — Interface Builder's
/// `NSDecimalNumberPlaceholder` class, and the bytes of the 16-byte `NS.mantissa` past the
/// words in use, which a Mac leaves as they were in memory — so that a decoded value encodes
/// back to the same fields; changing a property drops that.
///
/// Equality is exact, as for the other numbers of ``ArchiveValue``: the same sign, exponent and
/// mantissa (`1.0` and `1.00` differ; compare ``decimalValue``s for numeric equality).
public struct ArchiveDecimalNumber: Sendable, CustomStringConvertible {
    /// The power of ten, −128…127.
    public var exponent: Int { didSet { stored = nil } }
    /// Whether the number is negative (with an empty mantissa: NaN).
    public var isNegative: Bool { didSet { stored = nil } }
    /// The mantissa's 16-bit words, least significant first (at most 8; none for zero and NaN).
    public var mantissa: [UInt16] { didSet { stored = nil } }
    /// `NSDecimal`'s `_isCompact` (the mantissa has no trailing decimal zeros).
    public var isCompact: Bool { didSet { stored = nil } }
    /// The object as decoded, written back as it was until a property changes.
    var stored: ArchiveInstance?

    /// A number of `mantissa` (words least significant first, trailing zero words dropped) ×
    /// 10^`exponent`, negative when `isNegative`.
    /// - Precondition: `exponent` is in −128…127 and `mantissa` has at most 8 words.
    public init(mantissa: [UInt16], exponent: Int, isNegative: Bool, isCompact: Bool? = nil) {
        precondition((-128...127).contains(exponent), "an NSDecimal's exponent is −128…127")
        precondition(mantissa.count <= 8, "an NSDecimal's mantissa has at most 8 words")
        var words = mantissa
        while words.last == 0 { words.removeLast() }
        self.mantissa = words
        self.exponent = exponent
        self.isNegative = isNegative
        self.isCompact = isCompact ?? Self.hasNoTrailingZero(words)
    }

    /// The exact value of a `Decimal`, compacted as `NSDecimalNumber` stores it.
    public init(_ decimal: Decimal) {
        guard !decimal.isNaN else {
            self.init(mantissa: [], exponent: 0, isNegative: true, isCompact: false)
            return
        }
        // Decimal's text is exact (all its digits, no exponent): read back as words.
        var words: [UInt16] = []
        var exponent = 0
        var seenPoint = false
        var digits: [UInt8] = []
        for byte in decimal.magnitude.description.utf8 {
            if byte == UInt8(ascii: ".") { seenPoint = true; continue }
            guard byte >= 0x30 && byte <= 0x39 else { continue }
            digits.append(byte - 0x30)
            if seenPoint { exponent -= 1 }
        }
        // Trailing zeros into the exponent, as NSDecimalCompact does.
        while digits.count > 1, digits.last == 0, exponent < 127 {
            digits.removeLast()
            exponent += 1
        }
        for digit in digits { DecimalWords.multiplyAdd(&words, 10, UInt32(digit)) }
        let isZero = words.allSatisfy { $0 == 0 }
        self.init(mantissa: isZero ? [] : words, exponent: isZero ? 0 : max(-128, min(127, exponent)), isNegative: !isZero && decimal.sign == .minus)
    }

    /// Whether this is NaN (`NSDecimalNumber.notANumber`).
    public var isNaN: Bool { mantissa.isEmpty && isNegative }

    /// The mantissa in decimal digits (`"1234500"`; `"0"` for zero and NaN).
    public var mantissaDigits: String { DecimalWords.decimalText(mantissa) }

    /// The value as a `Decimal` (`Decimal.nan` for NaN); exact, since a `Decimal` holds every
    /// `NSDecimal`.
    public var decimalValue: Decimal {
        if isNaN { return .nan }
        if mantissa.isEmpty { return 0 }
        return Decimal(string: (isNegative ? "-" : "") + mantissaDigits + "e" + String(exponent)) ?? .nan
    }

    /// `-123.4500` as `-1234500e-4`; `NaN`.
    public var description: String {
        isNaN ? "NaN" : (isNegative ? "-" : "") + mantissaDigits + (exponent == 0 ? "" : "e\(exponent)")
    }

    static func hasNoTrailingZero(_ words: [UInt16]) -> Bool {
        var copy = words
        return !copy.isEmpty && DecimalWords.divide(&copy, by: 10) != 0
    }
}

extension ArchiveDecimalNumber: Hashable {
    /// The same sign, exponent and mantissa (the compact flag and the stored form ignored).
    public static func == (lhs: ArchiveDecimalNumber, rhs: ArchiveDecimalNumber) -> Bool {
        lhs.isNegative == rhs.isNegative && lhs.mantissa == rhs.mantissa && (lhs.mantissa.isEmpty || lhs.exponent == rhs.exponent)
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(isNegative)
        hasher.combine(mantissa)
        if !mantissa.isEmpty { hasher.combine(exponent) }
    }
}

/// Arithmetic on a mantissa of 16-bit words, least significant first: at most 8 words, so
/// nothing here is more than a few dozen steps.
enum DecimalWords {
    /// `words = words × factor + addend`, growing by a word when it carries out.
    static func multiplyAdd(_ words: inout [UInt16], _ factor: UInt32, _ addend: UInt32) {
        var carry = addend
        for index in words.indices {
            let product = UInt32(words[index]) &* factor &+ carry
            words[index] = UInt16(truncatingIfNeeded: product)
            carry = product >> 16
        }
        while carry > 0 {
            words.append(UInt16(truncatingIfNeeded: carry))
            carry >>= 16
        }
    }

    /// Divides in place; returns the remainder.
    static func divide(_ words: inout [UInt16], by divisor: UInt32) -> UInt32 {
        var remainder: UInt32 = 0
        for index in words.indices.reversed() {
            let value = remainder << 16 | UInt32(words[index])
            words[index] = UInt16(truncatingIfNeeded: value / divisor)
            remainder = value % divisor
        }
        while words.last == 0 { words.removeLast() }
        return remainder
    }

    /// The decimal digits of the number.
    static func decimalText(_ words: [UInt16]) -> String {
        var copy = words
        while copy.last == 0 { copy.removeLast() }
        guard !copy.isEmpty else { return "0" }
        var digits: [UInt8] = []
        while !copy.isEmpty { digits.append(UInt8(truncatingIfNeeded: divide(&copy, by: 10)) + 0x30) }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }
}
