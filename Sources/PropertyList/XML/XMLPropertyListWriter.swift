#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Which DOCTYPE line an XML property list carries. Nothing in the values tells them apart, so
/// a byte-exact rewrite must remember it.
public enum XMLPropertyListDoctype: Hashable, Sendable {
    /// `-//Apple//DTD PLIST 1.0//EN`, written by Core Foundation since Mac OS X 10.5.
    case modern
    /// `-//Apple Computer//DTD PLIST 1.0//EN`, written up to Mac OS X 10.4.
    case legacyAppleComputer
}

/// An XML property list as read: its value and the DOCTYPE variant it had.
public struct XMLPropertyListDocument: Hashable, Sendable {
    public var value: PropertyListValue
    public var doctype: XMLPropertyListDoctype

    public init(value: PropertyListValue, doctype: XMLPropertyListDoctype = .modern) {
        self.value = value
        self.doctype = doctype
    }
}

/// Writes XML property lists exactly as Core Foundation does (see `xml-format-notes.md`):
/// tab indentation, only `&`, `<`, `>` escaped, `%.17g` reals, base64 lines whose width
/// depends on depth, keys sorted by UTF-16 code units, UIDs as `{CF$UID: n}` dictionaries.
public struct XMLPropertyListWriter: Sendable {
    public var doctype: XMLPropertyListDoctype
    /// Deepest container nesting written.
    public var maximumDepth = PropertyListReadingOptions.default.maximumDepth

    public init(doctype: XMLPropertyListDoctype = .modern) {
        self.doctype = doctype
    }

    /// - Throws: ``PropertyListError/Code/unsupportedValue`` for a set or a non-finite date,
    ///   ``PropertyListError/Code/depthLimitExceeded`` past ``maximumDepth``.
    public func write(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var sink = XMLTextSink(maximumDepth: maximumDepth)
        sink.out.reserveCapacity(4096)
        sink.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        switch doctype {
        case .modern:
            sink.append("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
        case .legacyAppleComputer:
            sink.append("<!DOCTYPE plist PUBLIC \"-//Apple Computer//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
        }
        sink.append("<plist version=\"1.0\">\n")
        try sink.write(value, depth: 0)
        sink.append("</plist>\n")
        return sink.out
    }
}

struct XMLTextSink {
    var out: [UInt8] = []
    let maximumDepth: Int

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func indent(_ depth: Int) {
        for _ in 0..<depth { out.append(0x09) }
    }

    mutating func appendEscaped(_ string: String) {
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            default: out.append(byte)
            }
        }
    }

    mutating func write(_ value: PropertyListValue, depth: Int) throws(PropertyListError) {
        indent(depth)
        switch value {
        case .string(let string):
            append("<string>")
            appendEscaped(string)
            append("</string>\n")
        case .integer(let integer):
            append("<integer>")
            out.append(contentsOf: integer.description.utf8)
            append("</integer>\n")
        case .real(let real):
            append("<real>")
            XMLNumberText.appendReal(real.doubleValue, to: &out)
            append("</real>\n")
        case .bool(let flag):
            if flag { append("<true/>\n") } else { append("<false/>\n") }
        case .date(let date):
            append("<date>")
            guard XMLDateText.append(date.secondsSinceReferenceDate, to: &out) else {
                throw PropertyListError(.unsupportedValue, "date \(date.secondsSinceReferenceDate) is not finite or is outside the years XML dates can express")
            }
            append("</date>\n")
        case .data(let bytes):
            append("<data>\n")
            appendBase64Lines(bytes, depth: depth)
            indent(depth)
            append("</data>\n")
        case .uid(let uid):
            append("<dict>\n")
            indent(depth + 1)
            append("<key>CF$UID</key>\n")
            indent(depth + 1)
            append("<integer>")
            out.append(contentsOf: String(uid.value).utf8)
            append("</integer>\n")
            indent(depth)
            append("</dict>\n")
        case .array(let elements):
            if elements.isEmpty {
                append("<array/>\n")
                return
            }
            guard depth < maximumDepth else {
                throw PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)")
            }
            append("<array>\n")
            for element in elements { try write(element, depth: depth + 1) }
            indent(depth)
            append("</array>\n")
        case .dictionary(let dictionary):
            if dictionary.isEmpty {
                append("<dict/>\n")
                return
            }
            guard depth < maximumDepth else {
                throw PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)")
            }
            append("<dict>\n")
            for entry in XMLKeyOrder.sorted(dictionary.entries) {
                indent(depth + 1)
                append("<key>")
                appendEscaped(entry.key)
                append("</key>\n")
                try write(entry.value, depth: depth + 1)
            }
            indent(depth)
            append("</dict>\n")
        case .set:
            throw PropertyListError(.unsupportedValue, "a set has no XML property-list form")
        }
    }

    /// Core Foundation's layout: lines of 76 − 8·min(depth, 8) characters, each indented by
    /// min(depth, 8) tabs.
    mutating func appendBase64Lines(_ bytes: [UInt8], depth: Int) {
        let tabs = min(depth, 8)
        let lineWidth = 76 - 8 * tabs
        let encoded = PropertyListBase64Text.encodeBytes(bytes)
        var start = 0
        while start < encoded.count {
            let end = min(start + lineWidth, encoded.count)
            out.append(contentsOf: repeatElement(0x09, count: tabs))
            out.append(contentsOf: encoded[start..<end])
            out.append(0x0A)
            start = end
        }
    }
}

/// Keys in `CFStringCompare` order: UTF-16 code units, ordinal, a proper prefix first.
/// The sort is stable, so duplicate keys keep their relative order.
enum XMLKeyOrder {
    static func sorted(_ entries: [PropertyListDictionary.Entry]) -> [PropertyListDictionary.Entry] {
        // Already-sorted input (anything we read from XML) is common: check first.
        var isSorted = true
        var index = 1
        while index < entries.count {
            if precedes(entries[index].key, entries[index - 1].key) { isSorted = false; break }
            index += 1
        }
        if isSorted { return entries }
        let indexed = entries.enumerated().sorted { lhs, rhs in
            if precedes(lhs.element.key, rhs.element.key) { return true }
            if precedes(rhs.element.key, lhs.element.key) { return false }
            return lhs.offset < rhs.offset
        }
        return indexed.map(\.element)
    }

    @inline(__always)
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        // UTF-8 byte order is code-point order, which is UTF-16 order except between
        // U+E000–U+FFFF (lead bytes EE, EF) and characters above U+FFFF (lead F0–F4), whose
        // surrogates sort first in UTF-16. Compare bytes and flip just that case.
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return false
            case (nil, _): return true
            case (_, nil): return false
            case let (l?, r?):
                if l == r { continue }
                let leftHighBMP = l == 0xEE || l == 0xEF
                let rightHighBMP = r == 0xEE || r == 0xEF
                if leftHighBMP && r >= 0xF0 { return false }
                if rightHighBMP && l >= 0xF0 { return true }
                return l < r
            }
        }
    }
}

enum XMLNumberText {
    /// `%.17g`, with Core Foundation's spellings for zero and the non-finite values.
    static func appendReal(_ value: Double, to out: inout [UInt8]) {
        if value.isNaN { out.append(contentsOf: "nan".utf8); return }
        if value.isInfinite { out.append(contentsOf: (value < 0 ? "-infinity" : "+infinity").utf8); return }
        if value == 0 { out.append(contentsOf: "0.0".utf8); return }
        if value == value.rounded(), abs(value) < 1e15 {
            // Integral values below 10^15 print as plain integers under %.17g; skip printf.
            out.append(contentsOf: String(Int64(value)).utf8)
            return
        }
        // %.17g is what Core Foundation prints; it is exact only through the C library.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 40) { buffer in
            guard let base = buffer.baseAddress else { return }
            let length = Int(withVaList([value]) { vsnprintf(base, 40, "%.17g", $0) })
            for index in 0..<max(0, min(length, 39)) {
                out.append(UInt8(bitPattern: base[index]))
            }
        }
    }
}

/// Core Foundation's date text: proleptic Gregorian calendar with a year 0, UTC, the time
/// floored to the second, the year printed like `%04d`.
enum XMLDateText {
    /// Days from 0000-03-01 (the start of a 400-year cycle) to the 2001-01-01 reference date.
    static let referenceDays: Int64 = 730_791

    static func format(_ seconds: Double) -> String? {
        var out: [UInt8] = []
        guard append(seconds, to: &out) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the date text; false for a date that is not finite or beyond ±2 × 10^9 years.
    static func append(_ seconds: Double, to out: inout [UInt8]) -> Bool {
        guard seconds.isFinite, abs(seconds) < 6.7e16 else { return false }
        let whole = Int64(seconds.rounded(.down))
        let days = floorDivide(whole, 86_400)
        let secondOfDay = whole - days * 86_400
        let (year, month, day) = civil(fromDaysSinceReference: days)
        // %04d: at least four characters, the minus sign included.
        let magnitude = year < 0 ? -year : year
        var digits: [UInt8] = []
        var rest = magnitude
        repeat {
            digits.append(UInt8(rest % 10) + 48)
            rest /= 10
        } while rest > 0
        if year < 0 { out.append(UInt8(ascii: "-")) }
        let width = year < 0 ? 3 : 4
        if digits.count < width { out.append(contentsOf: repeatElement(48, count: width - digits.count)) }
        out.append(contentsOf: digits.reversed())
        func two(_ value: Int64, _ out: inout [UInt8]) {
            out.append(UInt8(value / 10) + 48)
            out.append(UInt8(value % 10) + 48)
        }
        out.append(UInt8(ascii: "-")); two(month, &out)
        out.append(UInt8(ascii: "-")); two(day, &out)
        out.append(UInt8(ascii: "T")); two(secondOfDay / 3600, &out)
        out.append(UInt8(ascii: ":")); two(secondOfDay / 60 % 60, &out)
        out.append(UInt8(ascii: ":")); two(secondOfDay % 60, &out)
        out.append(UInt8(ascii: "Z"))
        return true
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    /// Days since 2001-01-01 to (year, month, day) in the proleptic Gregorian calendar.
    static func civil(fromDaysSinceReference days: Int64) -> (Int64, Int64, Int64) {
        // Shift to an era-based count starting 0000-03-01, the start of a 400-year cycle.
        let z = days + referenceDays
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// (year, month, day) to days since 2001-01-01; out-of-range fields add arithmetically.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        // Normalise the month into the year first (month 13 is January of the next year).
        let monthZero = month - 1
        let adjustedYear = year + floorDivide(monthZero, 12)
        let normalizedMonth = monthZero - floorDivide(monthZero, 12) * 12 + 1
        let y = normalizedMonth <= 2 ? adjustedYear - 1 : adjustedYear
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let monthIndex = normalizedMonth > 2 ? normalizedMonth - 3 : normalizedMonth + 9
        let dayOfYear = (153 * monthIndex + 2) / 5
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - referenceDays + (day - 1)
    }
}
