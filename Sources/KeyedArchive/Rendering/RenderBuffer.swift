import PropertyList

/// A UTF-8 output buffer with the few formatting routines both renderers share.
struct RenderBuffer {
    var bytes: [UInt8] = []
    /// Where the text goes in chunks as it is made, when it is streamed; nil keeps it all in
    /// `bytes`.
    var output: ((ArraySlice<UInt8>) -> Void)?
    static let chunkSize = 1 << 16

    /// Hands a full chunk to `output`: a streamed rendering holds at most about one chunk.
    mutating func flushIfFull() {
        guard let output, bytes.count >= Self.chunkSize else { return }
        output(bytes[...])
        bytes.removeAll(keepingCapacity: true)
    }

    /// Hands whatever is left to `output`.
    mutating func flush() {
        guard let output, !bytes.isEmpty else { return }
        output(bytes[...])
        bytes.removeAll(keepingCapacity: true)
    }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    mutating func indent(_ depth: Int, width: Int = 2, cap: Int = 32) {
        // Capped so that a pathologically deep archive still prints in linear size.
        var remaining = min(depth, cap) * width
        while remaining > 0 {
            bytes.append(UInt8(ascii: " "))
            remaining -= 1
        }
    }

    /// A JSON string literal: quotes and backslash escaped, and every character that could
    /// drive a terminal or reorder what is shown — the C0 and C1 controls, DEL, the line and
    /// paragraph separators and the bidirectional controls (the set error messages escape,
    /// `MessageText.needsEscape`) — as `\uXXXX`; everything else as UTF-8. The JSON reads back
    /// to the same string.
    mutating func appendJSONString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in string.unicodeScalars {
            switch scalar.value {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x20..<0x7F: bytes.append(UInt8(truncatingIfNeeded: scalar.value))
            case _ where MessageText.needsEscape(scalar):
                // All of these lie in the Basic Multilingual Plane: four hex digits.
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u")])
                for shift in stride(from: 12, through: 0, by: -4) {
                    bytes.append(Self.hexDigit(UInt8(truncatingIfNeeded: scalar.value >> UInt32(shift)) & 0xF))
                }
            default: UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }

    mutating func appendHex(_ data: [UInt8], limit: Int) {
        var position = 0
        let end = min(limit, data.count)
        while position < end {
            if position > 0 && position % 4 == 0 { bytes.append(UInt8(ascii: " ")) }
            bytes.append(Self.hexDigit(data[position] >> 4))
            bytes.append(Self.hexDigit(data[position] & 0xF))
            position += 1
        }
    }

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    mutating func appendBase64(_ data: [UInt8]) {
        let alphabet = Self.base64Alphabet
        var position = 0
        while position + 3 <= data.count {
            let chunk = UInt32(data[position]) << 16 | UInt32(data[position + 1]) << 8 | UInt32(data[position + 2])
            bytes.append(alphabet[Int(chunk >> 18 & 63)])
            bytes.append(alphabet[Int(chunk >> 12 & 63)])
            bytes.append(alphabet[Int(chunk >> 6 & 63)])
            bytes.append(alphabet[Int(chunk & 63)])
            position += 3
        }
        let remaining = data.count - position
        if remaining == 1 {
            let chunk = UInt32(data[position]) << 16
            bytes.append(alphabet[Int(chunk >> 18 & 63)])
            bytes.append(alphabet[Int(chunk >> 12 & 63)])
            bytes.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")])
        } else if remaining == 2 {
            let chunk = UInt32(data[position]) << 16 | UInt32(data[position + 1]) << 8
            bytes.append(alphabet[Int(chunk >> 18 & 63)])
            bytes.append(alphabet[Int(chunk >> 12 & 63)])
            bytes.append(alphabet[Int(chunk >> 6 & 63)])
            bytes.append(UInt8(ascii: "="))
        }
    }

    /// The shortest decimal that reads back to the same double (Swift's own algorithm), or the
    /// JSON-safe words for non-finite values.
    static func realText(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return value.description
    }

    /// ISO 8601 UTC text for a Core Foundation absolute time, or nil when out of the range we
    /// print as a calendar date.
    static func isoDate(_ date: PropertyListDate) -> String? {
        let seconds = date.secondsSinceReferenceDate
        guard seconds.isFinite, abs(seconds) < 1e14 else { return nil }
        let whole = seconds.rounded(.down)
        let total = Int64(whole) + 978_307_200
        var days = total / 86_400
        var secondsOfDay = total % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        // Civil-from-days (proleptic Gregorian), after H. Hinnant's public-domain derivation.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        var year = yearOfEra + era * 400
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        if month <= 2 { year += 1 }
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        // ISO 8601's four-digit year (0000 for 1 BC, -0001 before it), as every reader expects.
        let digits = String(year.magnitude)
        let yearText = (year < 0 ? "-" : "") + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        var text = "\(yearText)-\(two(month))-\(two(day))T\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60))"
        let fraction = seconds - whole
        if fraction > 0 {
            let millis = Int64((fraction * 1000).rounded())
            if millis > 0 && millis < 1000 {
                text += "." + String(String(millis + 1000).dropFirst())
            }
        }
        return text + "Z"
    }
}

/// A renderer's sink: it writes into a ``RenderBuffer``.
protocol RenderingSink: ArchiveWalkSink {
    init()
    var out: RenderBuffer { get set }
}

enum StreamedRendering {
    /// Reads `bytes` as an archive and renders it with `render` into a new sink whose text goes
    /// to `output` in chunks as it is made.
    /// - Throws: the graph's error before any output; `budgetExceeded` when `render` stops at
    ///   `maximumExpansionCount`, after the text made until then.
    static func run<Sink: RenderingSink>(_ bytes: [UInt8], options: ArchiveReadingOptions, output: (ArraySlice<UInt8>) -> Void,
                                         _ render: (ArchiveGraph, Int, inout Sink) -> Bool) throws(ArchiveError) {
        try run(ArchiveGraph(bytes: bytes, options: options), options: options, output: output, render)
    }

    /// The same for a graph already read.
    static func run<Sink: RenderingSink>(_ graph: ArchiveGraph, options: ArchiveReadingOptions, output: (ArraySlice<UInt8>) -> Void,
                                         _ render: (ArchiveGraph, Int, inout Sink) -> Bool) throws(ArchiveError) {
        let budget = options.maximumExpansionCount
        let finished = withoutActuallyEscaping(output) { output in
            var sink = Sink()
            sink.out.output = output
            defer { sink.out.flush() }
            return render(graph, budget, &sink)
        }
        guard finished else { throw budgetError(budget) }
    }

    static func budgetError(_ budget: Int) -> ArchiveError {
        ArchiveError(.budgetExceeded, "rendering the graph would produce more than \(budget) nodes (maximumExpansionCount)")
    }
}
