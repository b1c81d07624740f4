import Foundation
import Testing
@testable import PropertyList

/// The `<real>` text in both directions against the C library: our `%.17g` (exact integer
/// arithmetic over most of the range) must print what `vsnprintf` prints, and our parsing
/// (Clinger's fast path and the 128-bit one) must give what the correctly rounded `strtod`
/// gives.
@Suite struct XMLRealTextTests {
    static func printf(_ value: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = buffer.withUnsafeMutableBufferPointer { pointer in
            withVaList([value]) { vsnprintf(pointer.baseAddress, 64, "%.17g", $0) }
        }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func ours(_ value: Double) -> String {
        var buffer = [UInt8](repeating: 0, count: XMLRealText.maximumLength)
        let length = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.baseAddress.map { XMLRealText.write(value, to: $0) } ?? 0
        }
        return String(decoding: buffer.prefix(length), as: UTF8.self)
    }

    /// Core Foundation's spellings where `%.17g` is not used.
    /// Integers and UIDs are written by `writeDecimal`: every digit count, at each power of
    /// ten and one below it, against the standard library's own decimal text.
    @Test func decimalsAtEveryDigitCount() {
        var values: [UInt64] = [0, 1, 9, UInt64.max, UInt64.max - 1]
        var power: UInt64 = 10
        for _ in 1...19 {
            values += [power - 1, power, power + 1]
            if power > UInt64.max / 10 { break }
            power *= 10
        }
        for value in values {
            var buffer = [UInt8](repeating: 0, count: 24)
            let length = buffer.withUnsafeMutableBufferPointer { out in
                out.baseAddress.map { XMLRealText.writeDecimal(value, to: $0) } ?? 0
            }
            #expect(String(decoding: buffer[0..<length], as: UTF8.self) == String(value))
        }
    }

    @Test func specialValues() {
        #expect(Self.ours(.nan) == "nan")
        #expect(Self.ours(-.nan) == "nan")
        #expect(Self.ours(.infinity) == "+infinity")
        #expect(Self.ours(-.infinity) == "-infinity")
        #expect(Self.ours(0) == "0.0")
        #expect(Self.ours(-0.0) == "0.0")
    }

    /// The examples of xml-format-notes.md.
    @Test func documentedExamples() {
        let examples: [(Double, String)] = [
            (1, "1"), (100, "100"), (1.5, "1.5"), (0.1, "0.10000000000000001"), (1.0 / 3, "0.33333333333333331"),
            (1e16, "10000000000000000"), (1e17, "1e+17"), (1e300, "1.0000000000000001e+300"), (1e-5, "1.0000000000000001e-05"),
            (0.0001, "0.0001"), (Double.leastNonzeroMagnitude, "4.9406564584124654e-324"), (Double(Float(0.1)), "0.10000000149011612"),
        ]
        for (value, text) in examples {
            #expect(Self.ours(value) == text, "\(value)")
        }
    }

    static func boundaryValues() -> [Double] {
        var values: [Double] = []
        // Powers of ten and their neighbours, where the decimal exponent guess is most fragile.
        for exponent in -330...310 {
            guard let power = Double("1e\(exponent)"), power.isFinite, power > 0 else { continue }
            values += [power, power.nextUp, power.nextDown, power * 9.999999999999999, power * 5]
        }
        // Powers of two: their expansions end in 5, the ties of rounding to 17 digits.
        for exponent in -1074...1023 {
            values.append(Double(sign: .plus, exponent: exponent, significand: 1))
        }
        // Integers around 2^53, 10^17 and 2^64.
        for base in [9_007_199_254_740_992.0, 1e17, 18_446_744_073_709_551_616.0, 1e19] {
            var value = base
            for _ in 0..<20 { values += [value, -value]; value = value.nextUp }
        }
        values += [Double.leastNonzeroMagnitude, Double.leastNormalMagnitude, Double.greatestFiniteMagnitude, 0.1, 0.2, 0.3, 2.0 / 3, 123.456, 1e-11, 9.9999999999999e-12, 0.000099999999999999991]
        return values
    }

    @Test func boundariesMatchPrintf() {
        var mismatches: [String] = []
        for value in Self.boundaryValues() where value.isFinite && value != 0 && Self.ours(value) != Self.printf(value) {
            mismatches.append("\(value.bitPattern): ours \(Self.ours(value)), printf \(Self.printf(value))")
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    /// Random bit patterns (every exponent equally likely) and random decimal-looking values.
    @Test(arguments: [UInt64(41), 42, 43])
    func randomValuesMatchPrintf(seed: UInt64) {
        var generator = RandomPropertyListGenerator(seed: seed)
        var mismatches: [String] = []
        for index in 0..<60_000 {
            let value: Double
            switch index % 3 {
            case 0: value = Double(bitPattern: generator.next())
            case 1: value = Double(Int64(bitPattern: generator.next()) % 1_000_000_000) / Double([1, 7, 10, 100, 1000, 3600][generator.below(6)])
            default: value = Double(Float(bitPattern: UInt32(truncatingIfNeeded: generator.next())))
            }
            guard value.isFinite, value != 0 else { continue }
            if Self.ours(value) != Self.printf(value) {
                mismatches.append("seed \(seed) #\(index) bits \(value.bitPattern): ours \(Self.ours(value)), printf \(Self.printf(value))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    static func parse(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBufferPointer { XMLRealText.parse($0) }
    }

    /// Every text our writer produces reads back to the same bits (what a round trip needs),
    /// and to what `strtod` reads.
    @Test(arguments: [UInt64(51), 52])
    func writtenTextReadsBackExactly(seed: UInt64) {
        var generator = RandomPropertyListGenerator(seed: seed)
        var mismatches: [String] = []
        for index in 0..<60_000 {
            var value = Double(bitPattern: generator.next())
            if index % 2 == 0 { value = Double(Int64(bitPattern: generator.next()) % 10_000_000) / 997 }
            guard value.isFinite, value != 0 else { continue }
            let text = Self.ours(value)
            let parsed = Self.parse(text)
            if parsed?.bitPattern != value.bitPattern || parsed?.bitPattern != strtod(text, nil).bitPattern {
                mismatches.append("seed \(seed) #\(index): \(text) read as \(String(describing: parsed))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    /// Decimal texts of up to 25 digits with exponents around the 128-bit path's limits, rounded
    /// as `strtod` rounds them (including ties, which need the sticky bit).
    @Test(arguments: [UInt64(61), 62])
    func decimalTextMatchesStrtod(seed: UInt64) {
        var generator = RandomPropertyListGenerator(seed: seed)
        var mismatches: [String] = []
        for index in 0..<60_000 {
            let digitCount = 1 + generator.below(25)
            var digits = String((0..<digitCount).map { _ in Character(Unicode.Scalar(UInt8(48 + generator.below(10)))) })
            if generator.below(4) == 0 { digits = "9007199254740993" + String(repeating: "0", count: generator.below(4)) }
            let point = generator.below(digitCount + 1)
            var text = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
            if text == "." { text = "0" }
            if generator.below(2) == 0 { text += "e\(generator.below(70) - 35)" }
            if generator.below(5) == 0 { text = "-" + text }
            let expected = strtod(text, nil)
            if Self.parse(text)?.bitPattern != expected.bitPattern {
                mismatches.append("seed \(seed) #\(index): \(text) ours \(String(describing: Self.parse(text))), strtod \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test func grammar() {
        for text in ["1", ".5", "5.", "-0", "+2", "1E3", "1e-3", "00001.5", " 2.5", "\u{A0}2.5", "\u{3000}2.5", "NaN", "-INFINITY", "+inf", "1e400", "1e-400"] {
            #expect(Self.parse(text) != nil, "\(text)")
        }
        for text in ["", ".", "e5", "1e", "1e+", "1.2.3", "--1", "+-1", "1e5e5", "0x10", "1,5", "1-2", "2.5 ", "+nan", "infinit", "\u{2028}2.5"] {
            #expect(Self.parse(text) == nil, "\(text.debugDescription)")
        }
        #expect(Self.parse("-0")?.sign == .minus)
        #expect(Self.parse("1e400") == .infinity)
    }
}
