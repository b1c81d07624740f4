@testable import PropertyList

/// Deterministic pseudo-random values for property-based tests; the seed is in every failure message.
struct RandomPropertyListGenerator {
    private var state: UInt64
    let seed: UInt64

    init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    /// SplitMix64: tiny, fast, good enough to explore shapes.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(max(bound, 1)))
    }

    static let alphabet: [Unicode.Scalar] = [
        "a", "b", "Z", "0", " ", "$", "&", "<", ">", "\"", "\n", "\t", "\r", "\u{01}", "\u{7F}",
        "é", "e", "\u{301}", "ß", "\u{FF}", "€", "中", "\u{2028}", "\u{FEFF}", "😀", "\u{1F600}", "\u{10FFFF}", "]",
    ]

    mutating func string() -> String {
        let length = below(4) == 0 ? below(40) : below(8)
        var scalars = String.UnicodeScalarView()
        let asciiOnly = below(2) == 0
        for _ in 0..<length {
            if asciiOnly {
                scalars.append(Unicode.Scalar(UInt8(32 + below(95))))
            } else {
                scalars.append(Self.alphabet[below(Self.alphabet.count)])
            }
        }
        return String(scalars)
    }

    mutating func integer() -> PropertyListInteger {
        switch below(8) {
        case 0: return PropertyListInteger(Int64(below(256)))
        case 1: return PropertyListInteger(Int64(bitPattern: next()))
        case 2: return PropertyListInteger(next())
        case 3: return PropertyListInteger(high: 0, low: UInt64(below(4)), isStoredAs128Bit: true)
        case 4: return PropertyListInteger(-Int64(below(1000)))
        default:
            let widths: [UInt64] = [0xFF, 0x100, 0xFFFF, 0x1_0000, 0xFFFF_FFFF, 0x1_0000_0000, UInt64(Int64.max), UInt64.max]
            return PropertyListInteger(widths[below(widths.count)])
        }
    }

    mutating func scalarValue() -> PropertyListValue {
        switch below(9) {
        case 0: return .string(string())
        case 1: return .integer(integer())
        case 2:
            let specials: [Double] = [0, -0.0, .nan, .infinity, -.infinity, 0.1, 1e300, Double.leastNonzeroMagnitude, 1.5]
            return below(2) == 0 ? .real(.float64(specials[below(specials.count)])) : .real(.float64(Double(bitPattern: next())))
        case 3: return .real(.float32(below(2) == 0 ? Float(below(1000)) / 7 : Float(bitPattern: UInt32(truncatingIfNeeded: next()))))
        case 4: return .bool(below(2) == 0)
        case 5: return .date(PropertyListDate(secondsSinceReferenceDate: Double(Int64(bitPattern: next()) % 4_000_000_000) + (below(2) == 0 ? 0 : 0.5)))
        case 6: return .data((0..<below(100)).map { _ in UInt8(truncatingIfNeeded: next()) })
        case 7: return .uid(PropertyListUID(below(3) == 0 ? next() >> 32 : UInt64(below(300))))
        default: return .string(["NS.objects", "$class", "root", "a"][below(4)])
        }
    }

    mutating func value(depth: Int, allowSets: Bool) -> PropertyListValue {
        if depth >= 5 || below(3) != 0 { return scalarValue() }
        switch below(allowSets ? 3 : 2) {
        case 0:
            return .array((0..<below(20)).map { _ in value(depth: depth + 1, allowSets: allowSets) })
        case 1:
            var dictionary = PropertyListDictionary()
            for _ in 0..<below(20) {
                // Unique keys: a dictionary built in memory has no duplicates to keep.
                let key = string()
                if dictionary[key] == nil { dictionary.append(key: key, value: value(depth: depth + 1, allowSets: allowSets)) }
            }
            return .dictionary(dictionary)
        default:
            return .set((0..<below(6)).map { _ in scalarValue() })
        }
    }
}

/// Hand-picked values at every boundary the binary format has.
enum EdgeCaseValues {
    static let integers: [PropertyListInteger] = [
        0, 1, 14, 15, 16, 127, 128, 255, 256, 65535, 65536, 0xFFFF_FFFF, 0x1_0000_0000, Int64.max.asInteger,
        PropertyListInteger(UInt64(Int64.max) + 1), PropertyListInteger(UInt64.max), -1, -128, -129, -32768, -2_147_483_649, Int64.min.asInteger,
    ]

    static let all: [PropertyListValue] = {
        var values: [PropertyListValue] = [
            [], [:], "", .data([]), true, false,
            .array(integers.map(PropertyListValue.integer)),
            .array([.double(.nan), .double(.infinity), .double(-.infinity), .double(-0.0), .double(0.1), .double(Double.leastNonzeroMagnitude), .float(0.1), .float(.nan)]),
            .array(["é", "ÿ", "Latin-1 ÀÉÎ", "😀 non-BMP", "中文", .string(String(repeating: "x", count: 14)), .string(String(repeating: "y", count: 15)), .string(String(repeating: "é", count: 300))]),
            .data(Array(repeating: 0xAB, count: 100_000)),
            .array([.date(PropertyListDate(secondsSinceReferenceDate: 0)), .date(PropertyListDate(secondsSinceReferenceDate: -3_000_000_000.25)), .date(PropertyListDate(secondsSinceReferenceDate: 1.5))]),
        ]
        // The same scalars in many places: written once each.
        values.append(.array(Array(repeating: ["k": "shared", "n": 42, "r": 2.5], count: 50)))
        // More than 255 and more than 65535 objects: reference widths grow to 2 and 4 bytes.
        values.append(.array((0..<300).map { .int($0 * 1000) }))
        values.append(.array((0..<70_000).map { .int($0) }))
        return values
    }()
}

extension Int64 {
    var asInteger: PropertyListInteger { PropertyListInteger(self) }
}
