/// The text of `<real>` elements.
///
/// Core Foundation prints reals with C's `%.17g`: 17 significant digits, correctly rounded
/// (ties to even), trailing zeros removed. Swift's own printing is shortest-round-trip, which
/// differs (`0.1` against `0.10000000000000001`), and calling `vsnprintf` through `withVaList`
/// costs an allocation per number. So the common range is done here with exact integer
/// arithmetic, and only values outside it (below 10^-11, at or above 2^64, subnormals) go
/// through the C library.
package enum XMLRealText {
    /// 5^0 … 5^27: every power that fits in 63 bits.
    private static let powersOfFive: [UInt64] = {
        var powers: [UInt64] = [1]
        for _ in 1...27 { powers.append(powers[powers.count - 1] * 5) }
        return powers
    }()

    private static let powersOfTen: [UInt64] = {
        var powers: [UInt64] = [1]
        for _ in 1...19 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    /// Longest text `%.17g` produces: sign, 17 digits, point, "e-308".
    static let maximumLength = 32

    /// Writes Core Foundation's text for `value` at `out` (room for ``maximumLength`` bytes)
    /// and returns its length.
    static func write(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if value.isNaN { return copy("nan", to: out) }
        if value.isInfinite { return copy(value < 0 ? "-infinity" : "+infinity", to: out) }
        // Core Foundation prints both zeros as 0.0, a spelling %.17g never produces.
        if value == 0 { return copy("0.0", to: out) }
        var length = 0
        if value < 0 {
            out[0] = UInt8(ascii: "-")
            length = 1
        }
        let magnitude = value.magnitude
        // Integers below 10^17 print as themselves.
        if magnitude < 1e17, magnitude == magnitude.rounded(.towardZero) {
            return length + writeDecimal(UInt64(magnitude), to: out + length)
        }
        if let (digits, exponent) = seventeenDigits(magnitude) {
            return length + layOut(digits: digits, exponent: exponent, to: out + length)
        }
        return length + printfFallback(magnitude, to: out + length)
    }

    /// C's `printf("%.17g", value)` in the C locale: how Foundation prints the numbers of
    /// geometry strings (`NSStringFromRect`), which keyed archives store for `NSValue`. It
    /// differs from a `<real>` only at zero (`0`, `-0`) and the special values (`inf`, `-inf`,
    /// `nan`).
    package static func percentG17(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &buffer) { raw -> String in
            guard let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return "" }
            let length = write(value, to: out)
            return String(decoding: UnsafeBufferPointer(start: out, count: length), as: UTF8.self)
        }
    }

    /// The 17 significant digits of `magnitude` as an integer in [10^16, 10^17) and the
    /// decimal exponent of the first digit, or nil outside the range done exactly here.
    static func seventeenDigits(_ magnitude: Double) -> (UInt64, Int)? {
        guard magnitude.isNormal else { return nil }
        // magnitude = significand × 2^binaryExponent, exactly.
        let significand = magnitude.significandBitPattern | (1 << 52)
        let binaryExponent = Int(magnitude.exponent) - 52
        // A first guess of the decimal exponent; corrected below when it is off by one.
        var exponent = Int(LibC.log10(magnitude).rounded(.down))
        for _ in 0..<3 {
            guard let digits = scaledRounded(significand: significand, binaryExponent: binaryExponent, decimalShift: 16 - exponent) else { return nil }
            if digits >= powersOfTen[17] {
                exponent += 1
            } else if digits < powersOfTen[16] {
                exponent -= 1
            } else if digits == powersOfTen[16] {
                // Exactly 10^16 is also what a guess one too high gives when the value lies
                // just below 10^exponent and rounds up to it; %g takes the exponent of the
                // value itself, so look one place finer: if that fits in 17 digits, it is it.
                guard let finer = scaledRounded(significand: significand, binaryExponent: binaryExponent, decimalShift: 17 - exponent) else { return nil }
                return finer < powersOfTen[17] ? (finer, exponent - 1) : (digits, exponent)
            } else {
                return (digits, exponent)
            }
        }
        return nil
    }

    /// round(significand × 2^binaryExponent × 10^decimalShift), ties to even, when it can be
    /// computed exactly in 128 bits and the result fits in 64; nil otherwise.
    private static func scaledRounded(significand: UInt64, binaryExponent: Int, decimalShift: Int) -> UInt64? {
        if decimalShift >= 0 {
            guard decimalShift < powersOfFive.count else { return nil }
            // × 10^q = × 5^q × 2^q.
            let product = significand.multipliedFullWidth(by: powersOfFive[decimalShift])
            let shift = binaryExponent + decimalShift
            if shift >= 0 {
                guard product.high == 0, shift < 64, product.low >> (64 - shift) == 0 || shift == 0 else { return nil }
                return product.low << shift
            }
            return shiftRightRounded(high: product.high, low: product.low, by: -shift)
        }
        // Values of 10^17 and above: an integer, divided by a power of ten.
        guard binaryExponent >= 0, binaryExponent < 12, -decimalShift < powersOfTen.count else { return nil }
        let integer = significand << binaryExponent
        let divisor = powersOfTen[-decimalShift]
        let (quotient, remainder) = integer.quotientAndRemainder(dividingBy: divisor)
        let half = divisor / 2
        if remainder > half || (remainder == half && quotient & 1 == 1) { return quotient + 1 }
        return quotient
    }

    /// (high:low) >> shift, rounded half to even, if the result fits in 64 bits.
    private static func shiftRightRounded(high: UInt64, low: UInt64, by shift: Int) -> UInt64? {
        guard shift > 0, shift < 128 else { return nil }
        let quotient: UInt64
        let remainderIsHalf: Bool
        let remainderIsAboveHalf: Bool
        if shift < 64 {
            guard high >> shift == 0 else { return nil }
            quotient = (low >> shift) | (high << (64 - shift))
            let mask = (UInt64(1) << shift) - 1
            let remainder = low & mask
            let half = UInt64(1) << (shift - 1)
            remainderIsHalf = remainder == half
            remainderIsAboveHalf = remainder > half
        } else if shift == 64 {
            quotient = high
            remainderIsHalf = low == 1 << 63
            remainderIsAboveHalf = low > 1 << 63
        } else {
            let highShift = shift - 64
            quotient = high >> highShift
            let mask = (UInt64(1) << highShift) - 1
            let remainderHigh = high & mask
            let halfHigh = UInt64(1) << (highShift - 1)
            remainderIsHalf = remainderHigh == halfHigh && low == 0
            remainderIsAboveHalf = remainderHigh > halfHigh || (remainderHigh == halfHigh && low != 0)
        }
        if remainderIsAboveHalf || (remainderIsHalf && quotient & 1 == 1) {
            let (sum, overflow) = quotient.addingReportingOverflow(1)
            return overflow ? nil : sum
        }
        return quotient
    }

    /// `%g`'s choice between fixed and exponent notation for 17 digits, trailing zeros removed.
    private static func layOut(digits: UInt64, exponent: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &text) { raw -> Int in
            guard let scratch = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            _ = writeDecimal(digits, to: scratch)
            var significant = 17
            while significant > 1 && scratch[significant - 1] == UInt8(ascii: "0") { significant -= 1 }
            var length = 0
            if exponent < -4 || exponent >= 17 {
                out[0] = scratch[0]
                length = 1
                if significant > 1 {
                    out[1] = UInt8(ascii: ".")
                    for index in 1..<significant { out[index + 1] = scratch[index] }
                    length = significant + 1
                }
                out[length] = UInt8(ascii: "e")
                out[length + 1] = exponent < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
                length += 2
                let exponentMagnitude = UInt64(exponent.magnitude)
                if exponentMagnitude < 10 {
                    out[length] = UInt8(ascii: "0")
                    length += 1
                }
                return length + writeDecimal(exponentMagnitude, to: out + length)
            }
            if exponent >= 0 {
                for index in 0...exponent { out[index] = scratch[index] }
                length = exponent + 1
                if significant > exponent + 1 {
                    out[length] = UInt8(ascii: ".")
                    length += 1
                    for index in (exponent + 1)..<significant {
                        out[length] = scratch[index]
                        length += 1
                    }
                }
                return length
            }
            out[0] = UInt8(ascii: "0")
            out[1] = UInt8(ascii: ".")
            length = 2
            for _ in 0..<(-exponent - 1) {
                out[length] = UInt8(ascii: "0")
                length += 1
            }
            for index in 0..<significant {
                out[length] = scratch[index]
                length += 1
            }
            return length
        }
    }

    /// Decimal digits of `value`, most significant first; returns how many.
    @inline(__always)
    static func writeDecimal(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        // Counted against a running power rather than the table: this runs for every integer
        // and UID of an XML file, and reading a global checks its lazy initializer each time.
        var digitCount = 1
        var power: UInt64 = 10
        while digitCount < 20 && value >= power {
            digitCount += 1
            // 10^19 is the last power compared; the one past it wraps and is never read.
            power = power &* 10
        }
        var rest = value
        var index = digitCount
        while index > 0 {
            index -= 1
            let (quotient, remainder) = rest.quotientAndRemainder(dividingBy: 10)
            out[index] = UInt8(truncatingIfNeeded: remainder) &+ 0x30
            rest = quotient
        }
        return digitCount
    }

    private static func copy(_ text: StaticString, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let count = text.utf8CodeUnitCount
        out.update(from: text.utf8Start, count: count)
        return count
    }

    /// The C library's `%.17g`, for the values outside the exact range above. The decimal
    /// separator of the current C locale is replaced by `.`, as Core Foundation formats in
    /// the C locale.
    static func printfFallback(_ magnitude: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &buffer) { raw -> Int in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self) else { return 0 }
            let printed = LibC.printShortestRoundTrip(magnitude, to: base, capacity: raw.count)
            let available = min(max(printed, 0), raw.count - 1)
            var length = 0
            var index = 0
            var inSeparator = false
            while index < available, length < maximumLength - 1 {
                let byte = UInt8(bitPattern: base[index])
                index += 1
                let isNumberByte = (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                if isNumberByte {
                    out[length] = byte
                    length += 1
                    inSeparator = false
                } else if !inSeparator {
                    out[length] = UInt8(ascii: ".")
                    length += 1
                    inSeparator = true
                }
            }
            return length
        }
    }

    // MARK: Reading

    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// Core Foundation's reading of a `<real>`'s text (after entities and CDATA): the
    /// spellings of NaN and the infinities in any case, or optional leading white space and a
    /// decimal number of `0-9 + - . e E` that uses up the rest. Nil if it is not one.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        // The spellings of NaN and infinity start with a letter or a sign and a letter.
        if let first = text.first, first > 0x39 || ((first == 0x2B || first == 0x2D) && text.count > 1 && text[1] > 0x39),
           let special = specialValue(text) {
            return special
        }
        var index = skipLeadingWhitespace(text)
        let start = index
        let count = text.count
        var negative = false
        if index < count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") {
            negative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        // Mantissa digits, kept exactly while they fit; the point moves the exponent.
        var mantissa: UInt64 = 0
        var mantissaDigits = 0
        var significantDigits = 0
        var exponent = 0
        var exact = true
        while index < count, text[index] >= 0x30, text[index] <= 0x39 {
            accumulate(text[index], &mantissa, &significantDigits, &exact, &exponent, afterPoint: false)
            mantissaDigits += 1
            index += 1
        }
        if index < count, text[index] == UInt8(ascii: ".") {
            index += 1
            while index < count, text[index] >= 0x30, text[index] <= 0x39 {
                accumulate(text[index], &mantissa, &significantDigits, &exact, &exponent, afterPoint: true)
                mantissaDigits += 1
                index += 1
            }
        }
        guard mantissaDigits > 0 else { return nil }
        if index < count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            var exponentValue = 0
            var exponentDigits = 0
            while index < count, text[index] >= 0x30, text[index] <= 0x39 {
                // Saturate: any exponent this large already gives 0 or infinity.
                if exponentValue < 100_000 { exponentValue = exponentValue * 10 + Int(text[index] - 0x30) }
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0 else { return nil }
            exponent += exponentNegative ? -exponentValue : exponentValue
        }
        guard index == count else { return nil }
        // Clinger's fast path: an exact mantissa below 2^53 times an exact power of ten is
        // correctly rounded by one IEEE operation.
        if exact, mantissa < 1 << 53, exponent >= -22, exponent <= 22 {
            let base = Double(mantissa)
            let result = exponent < 0 ? base / exactPowersOfTen[-exponent] : base * exactPowersOfTen[exponent]
            return negative ? -result : result
        }
        if exact, let scaled = scaledExactly(mantissa, byPowerOfTen: exponent) {
            return negative ? -scaled : scaled
        }
        // Everything else through the standard library's correctly rounded conversion, which
        // is locale-independent; the grammar was checked above.
        let number = String(decoding: UnsafeBufferPointer(rebasing: text[start..<count]), as: UTF8.self)
        return Double(number)
    }

    /// mantissa × 10^exponent correctly rounded, for |exponent| ≤ 27, computed exactly in
    /// 128 bits: the 17-digit reals Core Foundation writes, which Clinger's fast path cannot
    /// take (their mantissas exceed 2^53). Nil outside that range.
    static func scaledExactly(_ mantissa: UInt64, byPowerOfTen exponent: Int) -> Double? {
        guard mantissa != 0, exponent >= -27, exponent <= 27 else { return nil }
        if exponent >= 0 {
            // mantissa × 5^e × 2^e: round the 128-bit product to 64 bits, keeping a sticky bit
            // so that the final conversion to 53 bits rounds as the exact value would.
            let product = mantissa.multipliedFullWidth(by: powersOfFive[exponent])
            if product.high == 0 {
                return Double(sign: .plus, exponent: exponent, significand: Double(product.low))
            }
            let leadingZeros = product.high.leadingZeroBitCount
            let dropped = 64 - leadingZeros
            var top = leadingZeros == 0 ? product.high : (product.high << leadingZeros) | (product.low >> dropped)
            if product.low << leadingZeros != 0 || (leadingZeros == 0 && product.low != 0) { top |= 1 }
            return Double(sign: .plus, exponent: exponent + dropped, significand: Double(top))
        }
        // mantissa / 5^k × 2^-k: scale the numerator so the 64-bit quotient has at least 62
        // significant bits, then the remainder is the sticky bit.
        let divisor = powersOfFive[-exponent]
        let mantissaBits = 64 - mantissa.leadingZeroBitCount
        let divisorBits = 64 - divisor.leadingZeroBitCount
        let shift = 63 + divisorBits - mantissaBits
        let high: UInt64
        let low: UInt64
        if shift >= 64 {
            high = mantissa << (shift - 64)
            low = 0
        } else {
            high = mantissa >> (64 - shift)
            low = mantissa << shift
        }
        guard high < divisor else { return nil }
        var (quotient, remainder) = divisor.dividingFullWidth((high: high, low: low))
        if remainder != 0 { quotient |= 1 }
        return Double(sign: .plus, exponent: exponent - shift, significand: Double(quotient))
    }

    @inline(__always)
    private static func accumulate(_ digit: UInt8, _ mantissa: inout UInt64, _ significantDigits: inout Int, _ exact: inout Bool, _ exponent: inout Int, afterPoint: Bool) {
        let value = UInt64(digit - 0x30)
        if significantDigits == 0 && value == 0 {
            // Leading zeros carry no digits; after the point they still scale.
            if afterPoint { exponent -= 1 }
            return
        }
        if significantDigits < 19 {
            mantissa = mantissa * 10 + value
            significantDigits += 1
            if afterPoint { exponent -= 1 }
        } else {
            // Digits past 19 no longer fit; the slow path handles such numbers.
            exact = false
            if !afterPoint { exponent += 1 }
        }
    }

    /// nan, inf, +inf, -inf, infinity, +infinity, -infinity, in any case, and nothing else.
    private static func specialValue(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard text.count >= 3, text.count <= 9 else { return nil }
        var lowered: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &lowered) { raw -> Double? in
            for (index, byte) in text.enumerated() {
                raw[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            let word = UnsafeRawBufferPointer(rebasing: raw[0..<text.count])
            func equals(_ candidate: StaticString) -> Bool {
                candidate.utf8CodeUnitCount == word.count && word.elementsEqual(UnsafeBufferPointer(start: candidate.utf8Start, count: candidate.utf8CodeUnitCount))
            }
            if equals("nan") { return .nan }
            if equals("inf") || equals("+inf") || equals("infinity") || equals("+infinity") { return .infinity }
            if equals("-inf") || equals("-infinity") { return -.infinity }
            return nil
        }
    }

    /// Core Foundation's white space before a number, by character: controls and space,
    /// U+007F–U+00A0, U+2000–U+200B and U+3000.
    private static func skipLeadingWhitespace(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        let count = text.count
        while index < count {
            let byte = text[index]
            if byte < 0x21 || byte == 0x7F {
                index += 1
            } else if byte == 0xC2, index + 1 < count, text[index + 1] >= 0x80, text[index + 1] <= 0xA0 {
                index += 2
            } else if byte == 0xE2, index + 2 < count, text[index + 1] == 0x80, text[index + 2] >= 0x80, text[index + 2] <= 0x8B {
                index += 3
            } else if byte == 0xE3, index + 2 < count, text[index + 1] == 0x80, text[index + 2] == 0x80 {
                index += 3
            } else {
                break
            }
        }
        return index
    }
}
