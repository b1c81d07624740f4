/// A floating-point number with the width it was stored in.
///
/// Core Foundation writes a 32-bit float (`0x22`) when the number's storage type is a float,
/// otherwise a 64-bit double (`0x23`); keeping the width makes a round trip byte-exact.
/// Equality and hashing compare bit patterns, so NaN equals itself and `-0.0` differs from `0.0`:
/// a lossless model must tell them apart.
public enum PropertyListReal: Hashable, Sendable, CustomStringConvertible {
    /// A 32-bit float (`0x22` marker in a binary plist).
    case float32(Float)
    /// A 64-bit double (`0x23` marker), the width of every real in an XML plist.
    case float64(Double)

    /// The value widened to `Double`.
    public var doubleValue: Double {
        switch self {
        case .float32(let value): return Double(value)
        case .float64(let value): return value
        }
    }

    /// Whether the real is stored as a 32-bit float.
    public var is32Bit: Bool {
        if case .float32 = self { return true }
        return false
    }

    public static func == (lhs: PropertyListReal, rhs: PropertyListReal) -> Bool {
        switch (lhs, rhs) {
        case let (.float32(a), .float32(b)): return a.bitPattern == b.bitPattern
        case let (.float64(a), .float64(b)): return a.bitPattern == b.bitPattern
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .float32(let value):
            hasher.combine(0 as UInt8)
            hasher.combine(value.bitPattern)
        case .float64(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value.bitPattern)
        }
    }

    public var description: String { doubleValue.description }
}

/// A date as a property list stores it: seconds since 2001-01-01T00:00:00Z (the Core
/// Foundation reference date), as a 64-bit float. Compared by bit pattern, like ``PropertyListReal``.
public struct PropertyListDate: Hashable, Sendable, CustomStringConvertible {
    /// Seconds since 2001-01-01T00:00:00Z, negative before it.
    public let secondsSinceReferenceDate: Double

    /// A date `secondsSinceReferenceDate` seconds after 2001-01-01T00:00:00Z.
    public init(secondsSinceReferenceDate: Double) {
        self.secondsSinceReferenceDate = secondsSinceReferenceDate
    }

    /// Seconds between 1970-01-01 and 2001-01-01.
    public static let unixEpochOffset: Double = 978_307_200

    /// A date `secondsSince1970` seconds after 1970-01-01T00:00:00Z (a Unix timestamp).
    public init(secondsSince1970: Double) {
        self.init(secondsSinceReferenceDate: secondsSince1970 - Self.unixEpochOffset)
    }

    public static func == (lhs: PropertyListDate, rhs: PropertyListDate) -> Bool {
        lhs.secondsSinceReferenceDate.bitPattern == rhs.secondsSinceReferenceDate.bitPattern
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(secondsSinceReferenceDate.bitPattern)
    }

    public var description: String { "date(\(secondsSinceReferenceDate))" }
}

/// A keyed-archive object reference (`CF$UID`): an index into the archive's `$objects` array.
public struct PropertyListUID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The index into `$objects` the UID refers to.
    public let value: UInt64

    /// A UID referring to index `value`; writers refuse one above ``maximumValue``.
    public init(_ value: UInt64) { self.value = value }

    public static func < (lhs: PropertyListUID, rhs: PropertyListUID) -> Bool { lhs.value < rhs.value }

    public var description: String { "CF$UID(\(value))" }

    /// The largest UID Core Foundation reads: 2^32 − 1. Its binary reader refuses a larger one,
    /// and its XML reader cuts it to 32 bits, so the writers refuse to write one.
    public static let maximumValue = UInt64(UInt32.max)

    /// Inlined: the writers call it for every UID they write (two hundred thousand in a fleet
    /// archive of 100k objects), and only the refusal is worth a call.
    @inline(__always)
    static func checkReadable(_ uid: PropertyListUID) throws(PropertyListError) {
        if uid.value > maximumValue { throw tooLarge(uid) }
    }

    @inline(never)
    static func tooLarge(_ uid: PropertyListUID) -> PropertyListError {
        PropertyListError(.unsupportedValue, "UID \(uid.value) is above 2^32 − 1, the largest Core Foundation reads")
    }
}

extension Float {
    /// A double as a `Float`, rounded to nearest; nil when it is finite and beyond `Float`'s range,
    /// which would silently become an infinity (Foundation's `PropertyListDecoder` refuses it too).
    package init?(fitting double: Double) {
        guard !double.isFinite || abs(double) <= Double(Float.greatestFiniteMagnitude) else { return nil }
        self.init(double)
    }
}
