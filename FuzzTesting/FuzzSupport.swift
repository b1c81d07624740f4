// Shared checks for the libFuzzer targets. Compiled into every target together with the
// PropertyList sources (one module, see FuzzTesting/run.sh), so it may use internal API — it
// deliberately uses only public API plus its own reference implementations, so that it checks
// the library rather than mirroring it.

/// Every call is a finding: libFuzzer reports the crash and keeps the input.
func fuzzFinding(_ message: @autoclosure () -> String) -> Never {
    fatalError("FUZZ FINDING: \(message())")
}

/// Reading options for fuzzing: the defaults, except a smaller expansion budget so that a
/// legitimately shared structure cannot make one input render millions of values (the budget
/// itself is what the corpus and tests check at its default).
enum FuzzOptions {
    static let reading: PropertyListReadingOptions = {
        var options = PropertyListReadingOptions()
        options.maximumExpandedValueCount = 1 << 18
        return options
    }()
}

enum FuzzChecks {
    /// A reader's error must carry the location its format promises.
    static func checkLocation(_ error: PropertyListError, binary: Bool, inputCount: Int, _ what: String) {
        switch error.location {
        case .byteOffset(let offset):
            guard binary, offset >= 0, offset <= inputCount else { fuzzFinding("\(what): \(error) has a bad byte offset for a \(inputCount)-byte input") }
        case .line(let line, let column):
            guard !binary, line >= 1, column >= 1 else { fuzzFinding("\(what): \(error) has a bad line location") }
        case .none:
            fuzzFinding("\(what): \(error) names no location")
        }
    }

    /// The JSON renderer's output is one strict RFC 8259 value, and rendering is deterministic.
    static func checkJSON(_ value: PropertyListValue) {
        let rendered: [UInt8]
        do {
            rendered = try PropertyListJSONRenderer.render(value)
        } catch {
            // Only nesting beyond the renderer's depth limit, and sets (which the JSON contract,
            // Docs/PlistJSON.md, does not cover), may refuse a value the reader accepted.
            guard error.code == .depthLimitExceeded || error.code == .stackExhausted || (error.code == .unsupportedValue && FuzzXMLImage.containsSet(value)) else {
                fuzzFinding("JSON render refused a readable value: \(error)")
            }
            return
        }
        guard FuzzJSON.isValid(rendered) else {
            fuzzFinding("JSON render produced invalid JSON: \(String(decoding: rendered.prefix(400), as: UTF8.self))")
        }
        guard (try? PropertyListJSONRenderer.render(value)) == rendered else { fuzzFinding("JSON render is not deterministic") }
    }

    /// value → binary (both writer paths) → value is exact.
    static func checkBinaryValueRoundTrip(_ value: PropertyListValue, _ what: String) {
        let written: [UInt8]
        do {
            written = try BinaryPropertyListWriter().write(value)
        } catch {
            guard error.code == .depthLimitExceeded || error.code == .stackExhausted else { fuzzFinding("\(what): binary writer refused a readable value: \(error)") }
            return
        }
        switch Result(catching: { () throws(PropertyListError) in try BinaryPropertyListReader.readValue(written, options: FuzzOptions.reading) }) {
        case .success(let again):
            guard again == value else { fuzzFinding("\(what): value → binary → value changed the value") }
        case .failure(let error):
            fuzzFinding("\(what): our binary output does not read back: \(error)")
        }
        var sharing = BinaryPropertyListWriter()
        sharing.uniquesBooleansAndUIDs = true
        guard let shared = try? sharing.write(value) else { fuzzFinding("\(what): document-path binary writer refused what the value path wrote") }
        guard (try? BinaryPropertyListReader.readValue(shared, options: FuzzOptions.reading)) == value else {
            fuzzFinding("\(what): value → document → binary → value changed the value")
        }
    }

    /// value → XML → value gives what XML can hold of the value (``FuzzXMLImage``); a value XML
    /// cannot hold at all is refused with `unsupportedValue`, never written unreadably.
    static func checkXMLRoundTrip(_ value: PropertyListValue, doctype: XMLPropertyListDoctype, _ what: String) -> [UInt8]? {
        let written: [UInt8]
        do {
            written = try XMLPropertyListWriter(doctype: doctype).write(value)
        } catch {
            guard error.code == .unsupportedValue || error.code == .depthLimitExceeded || error.code == .stackExhausted else {
                fuzzFinding("\(what): XML writer failed with \(error)")
            }
            guard FuzzXMLImage.of(value) == nil || error.code == .depthLimitExceeded || error.code == .stackExhausted || FuzzXMLImage.hasInexpressibleDate(value) else {
                fuzzFinding("\(what): XML writer refused an expressible value: \(error)")
            }
            return nil
        }
        guard let image = FuzzXMLImage.of(value) else {
            if FuzzOpenFindings.xmlWriterWritesIntegersBeyond64Bits, FuzzXMLImage.hasIntegerBeyond64Bits(value) { return nil }
            fuzzFinding("\(what): XML writer wrote a value XML cannot hold (a set or a 128-bit integer)")
        }
        switch Result(catching: { () throws(PropertyListError) in try XMLPropertyListReader.read(written, options: FuzzOptions.reading) }) {
        case .success(let document):
            guard FuzzXMLImage.matches(image, document.value) else {
                fuzzFinding("\(what): value → XML → value changed the value\nwritten:\n\(String(decoding: written.prefix(2000), as: UTF8.self))")
            }
            guard document.doctype == doctype else { fuzzFinding("\(what): XML doctype not kept") }
            // Our XML output is canonical: for a value XML holds exactly, writing what it reads
            // gives the same bytes.
            if FuzzXMLImage.holdsExactly(value, image: image), (try? XMLPropertyListWriter(doctype: doctype).write(document.value)) != written {
                fuzzFinding("\(what): XML rewrite is not stable")
            }
        case .failure(let error):
            fuzzFinding("\(what): our XML output does not read back: \(error)\nwritten:\n\(String(decoding: written.prefix(2000), as: UTF8.self))")
        }
        return written
    }
}

/// Findings that are known and still open, tolerated so that a long run explores past them
/// (each has a failing regression test and an entry in Docs/Development/Fuzzing.md). Set a flag to false
/// when its bug is fixed, and the target checks it again.
enum FuzzOpenFindings {
    /// F2: the XML writer printed a 128-bit integer beyond −2^63…2^64−1, which no XML reader
    /// (ours or Core Foundation's) reads back, instead of refusing it with `unsupportedValue`.
    /// Fixed in 7cfe65d.
    static let xmlWriterWritesIntegersBeyond64Bits = false
}

/// What an XML round trip keeps of a value, from Apple's XML plist rules
/// (`xml-format-notes.md`, "What an XML round trip cannot keep"): keys sorted in UTF-16 order,
/// strings and keys without one leading U+FEFF (Core Foundation's reader drops it; keys then
/// equal make the writer refuse the dictionary), reals as 64-bit with −0 → +0 and NaN
/// as the positive quiet NaN, dates floored to the second (compared by `matches`), and a
/// dictionary holding only `CF$UID` with a number read back as a UID. Nil when XML cannot hold
/// the value at all (a set, an integer beyond 64 bits, a non-finite date, a UID past 32 bits,
/// a dictionary that stores a key twice or two keys a reader takes for one).
enum FuzzXMLImage {
    static func of(_ value: PropertyListValue) -> PropertyListValue? {
        switch value {
        case .string(let string):
            return .string(droppingByteOrderMark(string))
        case .bool, .data:
            return value
        case .integer(let integer):
            if let signed = integer.int64Value { return .integer(PropertyListInteger(signed)) }
            if let unsigned = integer.uint64Value { return .integer(PropertyListInteger(unsigned)) }
            return nil
        case .real(let real):
            return .real(.float64(image(real.doubleValue)))
        case .date(let date):
            // Kept as is: `matches` compares a read-back date with the floor of this one.
            guard date.secondsSinceReferenceDate.isFinite else { return nil }
            return value
        case .uid(let uid):
            // The writers refuse a UID past 32 bits (no Core Foundation reader keeps one).
            return uid.value <= PropertyListUID.maximumValue ? value : nil
        case .set:
            return nil
        case .array(let elements):
            var images: [PropertyListValue] = []
            images.reserveCapacity(elements.count)
            for element in elements {
                guard let image = of(element) else { return nil }
                images.append(image)
            }
            return .array(images)
        case .dictionary(let dictionary):
            // Stable sort by UTF-16 code units.
            let sorted = dictionary.entries.enumerated().sorted { lhs, rhs in
                if precedes(lhs.element.key, rhs.element.key) { return true }
                if precedes(rhs.element.key, lhs.element.key) { return false }
                return lhs.offset < rhs.offset
            }.map(\.element)
            var entries: [PropertyListDictionary.Entry] = []
            entries.reserveCapacity(sorted.count)
            var previousKey: String?
            var anyMarked = false
            for entry in sorted {
                guard let image = of(entry.value) else { return nil }
                // A key stored twice: the XML writer refuses the dictionary (Core Foundation's
                // binary reader and XML readers would give it different meanings).
                if let previousKey, previousKey.unicodeScalars.elementsEqual(entry.key.unicodeScalars) { return nil }
                previousKey = entry.key
                // Read back, a key loses a leading U+FEFF; keys then equal would be one key, so
                // the writer refuses the dictionary.
                let key = droppingByteOrderMark(entry.key)
                if key.utf8.count != entry.key.utf8.count { anyMarked = true }
                entries.append(PropertyListDictionary.Entry(key: key, value: image))
            }
            if anyMarked {
                var readKeys = Set<[Unicode.Scalar]>()
                for entry in entries where !readKeys.insert(Array(entry.key.unicodeScalars)).inserted { return nil }
            }
            if entries.count == 1, entries[0].key == "CF$UID" {
                switch entries[0].value {
                case .integer(let integer):
                    return .uid(PropertyListUID(UInt64(UInt32(truncatingIfNeeded: integer.low))))
                case .real(let real):
                    let truncated = real.doubleValue.rounded(.towardZero)
                    if truncated.isFinite, abs(truncated) < 9.2e18 {
                        return .uid(PropertyListUID(UInt64(UInt32(truncatingIfNeeded: Int64(truncated)))))
                    }
                default:
                    break
                }
            }
            return .dictionary(PropertyListDictionary(entries: entries))
        }
    }

    /// `reread` equals `image` except that dates match when the read-back one is the original
    /// floored to the second — or shows Core Foundation's field quirk (F3, F7): a date a hair
    /// below a whole second (closer than about 1e-14 s relative) prints a seconds field of 60,
    /// so it reads back up to 60 s later; and for the tiniest negative times (−1.6e-322 s …
    /// −2.1e-319 s) the day and hour divisions underflow to −0 while the minute one does not,
    /// so the minute (and hour) fields print 59 (and 23) without borrowing from the day:
    /// `2001-01-01T00:59:60Z` or `2001-01-01T23:59:60Z`, an hour or a day later. Our writer
    /// prints exactly what Core Foundation prints (HostileFuzzFindingTests checks it against
    /// Foundation).
    static func matches(_ image: PropertyListValue, _ reread: PropertyListValue) -> Bool {
        switch (image, reread) {
        case (.date(let original), .date(let back)):
            let seconds = original.secondsSinceReferenceDate
            let read = back.secondsSinceReferenceDate
            if read == seconds.rounded(.down) { return true }
            // From 2^53 s (some 285 million years) a double no longer holds every second, and
            // Core Foundation's floating-point date fields are off by a unit or two of the last
            // place, both ways (F12: its own output reads back 8 s off at 6e16 s).
            if abs(seconds) >= 0x1p53 { return abs(read - seconds) <= 4 * seconds.ulp }
            let next = seconds.rounded(.up)
            guard seconds != next && next - seconds <= 1e-9 * max(1, abs(seconds)) else { return false }
            if read >= next && read <= next + 60 { return true }
            return abs(seconds) < 1e-300 && (read == next + 3600 || read == next + 86_400)
        case (.array(let lhs), .array(let rhs)):
            return lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { matches($0, $1) }
        case (.dictionary(let lhs), .dictionary(let rhs)):
            return lhs.count == rhs.count && zip(lhs.entries, rhs.entries).allSatisfy {
                Array($0.key.unicodeScalars) == Array($1.key.unicodeScalars) && matches($0.value, $1.value)
            }
        default:
            return image == reread
        }
    }

    /// Whether XML holds `value` exactly, so that writing what it reads back gives the same bytes.
    static func holdsExactly(_ value: PropertyListValue, image: PropertyListValue) -> Bool {
        image == value && !hasInexactDate(value)
    }

    static func hasInexactDate(_ value: PropertyListValue) -> Bool {
        switch value {
        case .date(let date):
            // A date past 2^53 s counts as inexact too: Core Foundation's fields for it do not
            // read back as the same double (F12).
            let seconds = date.secondsSinceReferenceDate
            return seconds.rounded(.down) != seconds || abs(seconds) >= 0x1p53
        case .array(let elements), .set(let elements): return elements.contains(where: hasInexactDate)
        case .dictionary(let dictionary): return dictionary.entries.contains { hasInexactDate($0.value) }
        default: return false
        }
    }

    /// The text Core Foundation's XML reader makes of `text`: one leading U+FEFF dropped.
    static func droppingByteOrderMark(_ text: String) -> String {
        guard text.utf8.first == 0xEF, text.unicodeScalars.first == "\u{FEFF}" else { return text }
        return String(text.unicodeScalars.dropFirst())
    }

    static func image(_ double: Double) -> Double {
        if double.isNaN { return .nan }
        if double == 0 { return 0 }
        return double
    }

    /// UTF-16 code-unit order, Core Foundation's key order in XML.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf16.lexicographicallyPrecedes(rhs.utf16)
    }

    static func containsSet(_ value: PropertyListValue) -> Bool {
        switch value {
        case .set: return true
        case .array(let elements): return elements.contains(where: containsSet)
        case .dictionary(let dictionary): return dictionary.entries.contains { containsSet($0.value) }
        default: return false
        }
    }

    static func hasIntegerBeyond64Bits(_ value: PropertyListValue) -> Bool {
        switch value {
        case .integer(let integer): return integer.int64Value == nil && integer.uint64Value == nil
        case .array(let elements), .set(let elements): return elements.contains(where: hasIntegerBeyond64Bits)
        case .dictionary(let dictionary): return dictionary.entries.contains { hasIntegerBeyond64Bits($0.value) }
        default: return false
        }
    }

    /// Dates the XML writer may refuse as outside the years it can print.
    static func hasInexpressibleDate(_ value: PropertyListValue) -> Bool {
        switch value {
        case .date(let date):
            let seconds = date.secondsSinceReferenceDate
            // ±2^31 years, where Core Foundation's own output turns to garbage.
            return !seconds.isFinite || abs(seconds) > 6.7e16
        case .array(let elements), .set(let elements): return elements.contains(where: hasInexpressibleDate)
        case .dictionary(let dictionary): return dictionary.entries.contains { hasInexpressibleDate($0.value) }
        default: return false
        }
    }
}

/// A strict RFC 8259 validator: one value surrounded by optional whitespace, strings with valid
/// escapes and no raw control characters, valid UTF-8, numbers by the grammar. Iterative.
enum FuzzJSON {
    static func isValid(_ bytes: [UInt8]) -> Bool {
        guard String(validating: bytes, as: UTF8.self) != nil else { return false }
        var index = 0
        let count = bytes.count
        func skipWhitespace() {
            while index < count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D { index += 1 }
        }
        func literal(_ text: StaticString) -> Bool {
            let length = text.utf8CodeUnitCount
            guard count - index >= length else { return false }
            for offset in 0..<length where bytes[index + offset] != text.utf8Start[offset] { return false }
            index += length
            return true
        }
        func string() -> Bool {
            guard index < count, bytes[index] == UInt8(ascii: "\"") else { return false }
            index += 1
            while index < count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") { index += 1; return true }
                if byte < 0x20 { return false }
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard index < count else { return false }
                    switch bytes[index] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 1
                    case UInt8(ascii: "u"):
                        guard count - index >= 5 else { return false }
                        for offset in 1...4 where !isHexDigit(bytes[index + offset]) { return false }
                        index += 5
                    default:
                        return false
                    }
                    continue
                }
                index += 1
            }
            return false
        }
        func number() -> Bool {
            if index < count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < count else { return false }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if isDigit(bytes[index]) {
                while index < count, isDigit(bytes[index]) { index += 1 }
            } else {
                return false
            }
            if index < count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < count, isDigit(bytes[index]) else { return false }
                while index < count, isDigit(bytes[index]) { index += 1 }
            }
            if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < count, isDigit(bytes[index]) else { return false }
                while index < count, isDigit(bytes[index]) { index += 1 }
            }
            return true
        }
        // Containers as an explicit stack: true for an object, false for an array.
        var stack: [Bool] = []
        var expectValue = true
        skipWhitespace()
        while true {
            if expectValue {
                skipWhitespace()
                guard index < count else { return false }
                switch bytes[index] {
                case UInt8(ascii: "{"):
                    index += 1
                    skipWhitespace()
                    if index < count, bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        expectValue = false
                    } else {
                        stack.append(true)
                        guard string() else { return false }
                        skipWhitespace()
                        guard index < count, bytes[index] == UInt8(ascii: ":") else { return false }
                        index += 1
                        continue
                    }
                case UInt8(ascii: "["):
                    index += 1
                    skipWhitespace()
                    if index < count, bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        expectValue = false
                    } else {
                        stack.append(false)
                        continue
                    }
                case UInt8(ascii: "\""):
                    guard string() else { return false }
                    expectValue = false
                case UInt8(ascii: "t"):
                    guard literal("true") else { return false }
                    expectValue = false
                case UInt8(ascii: "f"):
                    guard literal("false") else { return false }
                    expectValue = false
                case UInt8(ascii: "n"):
                    guard literal("null") else { return false }
                    expectValue = false
                default:
                    guard number() else { return false }
                    expectValue = false
                }
            }
            // After a value: close containers or go to the next member.
            skipWhitespace()
            guard let isObject = stack.last else {
                return index == count
            }
            guard index < count else { return false }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if isObject {
                    guard string() else { return false }
                    skipWhitespace()
                    guard index < count, bytes[index] == UInt8(ascii: ":") else { return false }
                    index += 1
                }
                expectValue = true
                continue
            }
            guard bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
            index += 1
            stack.removeLast()
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Differential checks of the XML reader's number and date text against independent oracles:
/// libc's `strtod` for reals, plain arithmetic for integers, a proleptic-Gregorian day count for
/// dates. Only texts in a strict subset of each grammar are compared (everything Core Foundation
/// accepts beyond it — whitespace, signs, hex, field overflow — is left to the round-trip checks).
enum FuzzScalarText {
    /// The input as a short printable-ASCII text that can stand inside an element, or nil.
    static func text(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        for byte in bytes where byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func read(_ element: String, _ text: String) -> Result<PropertyListValue, PropertyListError> {
        let document = Array("<plist><\(element)>\(text)</\(element)></plist>".utf8)
        return Result { () throws(PropertyListError) in try XMLPropertyListReader.read(document).value }
    }

    static func check(_ text: String) {
        checkReal(text)
        checkInteger(text)
        checkDate(text)
    }

    /// `[+-]?(D+(.D*)?|.D+)([eE][+-]?D+)?`: Core Foundation reads it, as strtod does.
    static func isStrictReal(_ text: String) -> Bool {
        var scalars = Array(text.utf8)[...]
        func digits() -> Int {
            let count = scalars.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            scalars = scalars.dropFirst(count)
            return count
        }
        if let first = scalars.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { scalars = scalars.dropFirst() }
        var mantissa = digits()
        if scalars.first == UInt8(ascii: ".") {
            scalars = scalars.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let first = scalars.first, first == UInt8(ascii: "e") || first == UInt8(ascii: "E") {
            scalars = scalars.dropFirst()
            if let sign = scalars.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { scalars = scalars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return scalars.isEmpty
    }

    static func checkReal(_ text: String) {
        let result = read("real", text)
        guard isStrictReal(text) else {
            if case .success(let value) = result {
                guard case .real(.float64) = value else { fuzzFinding("<real>\(text)</real> read as \(value)") }
            }
            return
        }
        let expected = text.withCString { strtod($0, nil) }
        switch result {
        case .success(.real(.float64(let value))):
            guard value.bitPattern == expected.bitPattern else {
                fuzzFinding("<real>\(text)</real> read as \(value) (bits \(String(value.bitPattern, radix: 16))), strtod gives \(expected) (bits \(String(expected.bitPattern, radix: 16)))")
            }
        case .success(let other):
            fuzzFinding("<real>\(text)</real> read as \(other)")
        case .failure(let error):
            fuzzFinding("<real>\(text)</real> refused: \(error)")
        }
    }

    /// `-?D+` and `0xH+` (any number of leading zeros): in range −2^63…2^64−1 it is that
    /// integer, beyond it `invalidNumber`.
    static func checkInteger(_ text: String) {
        let utf8 = Array(text.utf8)
        var negative = false
        var digits = utf8[...]
        var radix: UInt64 = 10
        if digits.first == UInt8(ascii: "-") {
            negative = true
            digits = digits.dropFirst()
        } else if digits.count > 2, digits.starts(with: Array("0x".utf8)) {
            radix = 16
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty, digits.allSatisfy({ FuzzJSON.isDigit($0) || (radix == 16 && FuzzJSON.isHexDigit($0)) }) else { return }
        var magnitude: UInt64 = 0
        var overflow = false
        for digit in digits {
            let value = UInt64(FuzzJSON.isDigit(digit) ? digit - 0x30 : (digit | 0x20) - 0x61 + 10)
            let (shifted, o1) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, o2) = shifted.addingReportingOverflow(value)
            overflow = overflow || o1 || o2
            magnitude = sum
        }
        let expected: PropertyListInteger?
        if overflow || (negative && magnitude > UInt64(Int64.max) + 1) {
            expected = nil
        } else if negative {
            expected = PropertyListInteger(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        } else {
            expected = PropertyListInteger(magnitude)
        }
        switch (read("integer", text), expected) {
        case (.success(.integer(let value)), .some(let expected)):
            guard value.high == expected.high, value.low == expected.low else { fuzzFinding("<integer>\(text)</integer> read as \(value), expected \(expected)") }
        case (.failure(let error), .none):
            guard error.code == .invalidNumber else { fuzzFinding("<integer>\(text)</integer> (out of range) refused with \(error)") }
        case (let result, let expected):
            fuzzFinding("<integer>\(text)</integer> gave \(result), expected \(expected.map(\.description) ?? "invalidNumber")")
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` with every field in its calendar range: seconds from 2001-01-01.
    static func checkDate(_ text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 20 else { return }
        func field(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard FuzzJSON.isDigit(utf8[index]) else { return nil }
                value = value * 10 + Int(utf8[index] - 0x30)
            }
            return value
        }
        guard utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"), utf8[10] == UInt8(ascii: "T"), utf8[13] == UInt8(ascii: ":"),
              utf8[16] == UInt8(ascii: ":"), utf8[19] == UInt8(ascii: "Z"),
              let year = field(0..<4), let month = field(5..<7), let day = field(8..<10),
              let hour = field(11..<13), let minute = field(14..<16), let second = field(17..<19),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60, second < 60 else { return }
        let days = daysFromCivil(year: year, month: month, day: day) - daysFromCivil(year: 2001, month: 1, day: 1)
        let expected = Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
        switch read("date", text) {
        case .success(.date(let date)):
            guard date.secondsSinceReferenceDate == expected else {
                fuzzFinding("<date>\(text)</date> read as \(date.secondsSinceReferenceDate) s, expected \(expected) s")
            }
        case let other:
            fuzzFinding("<date>\(text)</date> gave \(other)")
        }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
