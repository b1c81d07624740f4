/// Writes XML property lists exactly as Core Foundation does (`xml-format-notes.md`, "Writing").
///
/// The layout is Core Foundation's to the byte: one element per line, one tab per level, only
/// `&`, `<` and `>` escaped, integers in full, reals as `%.17g` (32-bit reals widened first,
/// `-0.0` as `0.0`), dates floored to the second in the proleptic Gregorian calendar, base64
/// lines of 76 − 8·min(depth, 8) characters, dictionary keys sorted by UTF-16 code units, and
/// UIDs as `{CF$UID: n}` dictionaries. A document read by ``XMLPropertyListReader`` and written
/// back with its ``XMLPropertyListDocument/doctype`` reproduces the file.
public struct XMLPropertyListWriter: Sendable {
    /// The DOCTYPE line written: ``XMLPropertyListDoctype/modern`` unless reproducing an old file.
    public var doctype: XMLPropertyListDoctype
    /// Deepest container nesting written. Default 512, the deepest Core Foundation reads back.
    public var maximumDepth = PropertyListReadingOptions.default.maximumDepth

    /// A writer of the DOCTYPE `doctype`, today's by default.
    public init(doctype: XMLPropertyListDoctype = .modern) {
        self.doctype = doctype
    }

    /// The XML bytes of `value`.
    ///
    /// - Throws: ``PropertyListError/Code/unsupportedValue`` for a set (XML has no set), an
    ///   integer outside −2^63 … 2^64−1 (a binary file's 16-byte form can hold more; no XML
    ///   reader reads it back), or a date that is not finite or lies beyond about ±2 × 10^9
    ///   years (Core Foundation prints garbage there);
    ///   ``PropertyListError/Code/depthLimitExceeded`` for containers nested deeper than
    ///   ``maximumDepth``.
    public func write(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var builder = XMLPropertyListBuilder(writer: self)
        try builder.add(value, depth: 0)
        return builder.finish()
    }
}

/// Writes an XML property list element by element, in Core Foundation's layout: the way
/// ``XMLPropertyListWriter`` writes a ``PropertyListValue`` (``add(_:depth:)``), open to a layer
/// above that writes its own structure without building a value tree first. The caller opens a
/// container, writes a dictionary's keys in ``writingOrder(ofKeys:)`` each followed by its value,
/// and closes it; `depth` is the nesting of the element being written (the top element is at 0).
package struct XMLPropertyListBuilder: ~Copyable {
    var emitter: XMLPropertyListEmitter

    /// Starts a document with the writer's DOCTYPE; its depth limit applies.
    package init(writer: XMLPropertyListWriter = XMLPropertyListWriter()) {
        emitter = XMLPropertyListEmitter(maximumDepth: writer.maximumDepth)
        emitter.out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        switch writer.doctype {
        case .modern:
            emitter.out.append("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
        case .legacyAppleComputer:
            emitter.out.append("<!DOCTYPE plist PUBLIC \"-//Apple Computer//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
        }
        emitter.out.append("<plist version=\"1.0\">\n")
    }

    deinit { emitter.out.deallocate() }

    /// Writes a value and everything in it.
    /// - Throws: ``PropertyListError/Code/depthLimitExceeded`` for a `depth` below 0 or above
    ///   the writer's `maximumDepth` (where no open element can be), and what writing the value throws.
    package mutating func add(_ value: PropertyListValue, depth: Int) throws(PropertyListError) {
        guard depth >= 0, depth <= depthLimit else {
            throw PropertyListError(.depthLimitExceeded, "a value at depth \(depth) cannot be written (0 to \(depthLimit), the writer's maximumDepth, at most \(Self.depthCeiling))")
        }
        try emitter.write(value, depth: depth)
    }

    /// Opens a dictionary of `count` entries (an empty one is written whole: do not close it).
    package mutating func beginDictionary(count: Int, depth: Int) throws(PropertyListError) {
        try open("<dict>\n", empty: "<dict/>\n", count: count, depth: depth)
    }

    /// Closes a dictionary opened at `depth` with at least one entry.
    package mutating func endDictionary(depth: Int) {
        close("</dict>\n", depth: depth)
    }

    /// Opens an array of `count` elements (an empty one is written whole: do not close it).
    package mutating func beginArray(count: Int, depth: Int) throws(PropertyListError) {
        try open("<array>\n", empty: "<array/>\n", count: count, depth: depth)
    }

    /// Closes an array opened at `depth` with at least one element.
    package mutating func endArray(depth: Int) {
        close("</array>\n", depth: depth)
    }

    /// Indentation for a closing tag or a key. These calls cannot throw, and no open element can
    /// be deeper than the depth limit (opening one past it throws), so a larger `depth` from a
    /// caller is held to the limit rather than allocating that many tabs.
    private mutating func indent(_ depth: Int) {
        emitter.out.appendTabs(min(depth, depthLimit &+ 1))
    }

    /// Depths are the caller's numbers and each costs a tab per line, so even a writer whose
    /// `maximumDepth` was raised without bound indents no deeper than this.
    static let depthCeiling = 1 << 16

    private var depthLimit: Int { min(emitter.maximumDepth, Self.depthCeiling) }

    private mutating func open(_ tag: StaticString, empty: StaticString, count: Int, depth: Int) throws(PropertyListError) {
        if count == 0 {
            indent(depth)
            emitter.out.append(empty)
            return
        }
        guard depth < depthLimit else { throw emitter.depthError() }
        indent(depth)
        emitter.out.append(tag)
    }

    private mutating func close(_ tag: StaticString, depth: Int) {
        indent(depth)
        emitter.out.append(tag)
    }

    /// A dictionary key rendered once (`<key>…</key>`, escaped), for keys written many times.
    package struct KeyLine: Sendable {
        fileprivate let bytes: [UInt8]
    }

    /// Renders `key` as `addKey(_:depth:)` writes it.
    package static func keyLine(_ key: String) -> KeyLine {
        var emitter = XMLPropertyListEmitter(maximumDepth: 0, capacity: key.utf8.count &+ 16)
        defer { emitter.out.deallocate() }
        emitter.out.append("<key>")
        emitter.appendEscaped(key)
        emitter.out.append("</key>\n")
        return KeyLine(bytes: emitter.out.makeArray())
    }

    /// Writes a key rendered by ``keyLine(_:)``.
    package mutating func addKey(_ line: KeyLine, depth: Int) {
        indent(depth)
        line.bytes.withUnsafeBufferPointer { emitter.out.append($0) }
    }

    /// Writes a dictionary key; `depth` is the dictionary's depth plus one, as for its value.
    package mutating func addKey(_ key: String, depth: Int) {
        indent(depth)
        emitter.out.append("<key>")
        emitter.appendEscaped(key)
        emitter.out.append("</key>\n")
    }

    /// Refuses keys an XML reader would not keep apart: Core Foundation's reader drops one
    /// leading U+FEFF from a key, so `a` and `\u{FEFF}a` come back as one key and one value is
    /// lost (`unsupportedValue`, naming the key). The common case — no key starts with U+FEFF —
    /// is decided by each key's first byte. Exact twins are not looked for here (the writer
    /// finds them while sorting; an archive's encoder refuses them).
    package static func checkKeysSurviveReading(_ keys: some Sequence<String>) throws(PropertyListError) {
        guard keys.contains(where: { $0.utf8.first == 0xEF && $0.unicodeScalars.first == "\u{FEFF}" }) else { return }
        var seen: Set<ExactString> = []
        for key in keys {
            let read = key.unicodeScalars.first == "\u{FEFF}" ? String(key.unicodeScalars.dropFirst()) : key
            guard seen.insert(ExactString(read)).inserted else {
                throw PropertyListError(.unsupportedValue, "the key \"\(key.excerptForMessage(128))\" reads back from XML as another key of its dictionary (Core Foundation's reader drops a leading U+FEFF), so one of their values would be lost")
            }
        }
    }

    /// The order Core Foundation writes these dictionary keys in (UTF-16 order, equal keys in
    /// their given order), as positions into `keys`.
    package static func writingOrder(ofKeys keys: [String]) -> [Int] {
        XMLKeyOrder.writingOrder(keys.map { PropertyListDictionary.Entry(key: $0, value: .bool(false)) }) ?? Array(keys.indices)
    }

    /// Writes a dictionary key given as UTF-8 (valid, as a `String`'s), as `addKey(_:depth:)` writes a `String` key.
    package mutating func addKey(utf8 key: UnsafeBufferPointer<UInt8>, depth: Int) {
        indent(depth)
        emitter.out.append("<key>")
        emitter.appendEscaped(key)
        emitter.out.append("</key>\n")
    }

    /// How many bytes are written and not yet handed on by ``drain(_:)``.
    package var bufferedCount: Int { emitter.out.count }

    /// Hands the bytes written so far to `output` and forgets them: a document streamed as it
    /// is written (the XML of a binary file, `BinaryPropertyListTree`).
    package mutating func drain(_ output: (UnsafeRawBufferPointer) -> Void) {
        output(UnsafeRawBufferPointer(emitter.out.contents))
        emitter.out.removeAll()
    }

    /// Closes a document streamed with ``drain(_:)``, handing its last bytes to `output`
    /// (nothing may be added after it).
    package mutating func finish(_ output: (UnsafeRawBufferPointer) -> Void) {
        emitter.out.append("</plist>\n")
        drain(output)
    }

    /// Closes the document and returns its bytes. Consuming: the bytes move into the returned
    /// array, so nothing can be added to a finished document, and it cannot be finished twice.
    package consuming func finish() -> [UInt8] {
        emitter.out.append("</plist>\n")
        return emitter.out.moveIntoArray()
    }
}

/// A growable byte buffer written through a raw pointer: one capacity check per element
/// instead of one per byte, which is most of the difference from appending to `[UInt8]`.
/// Owned by one writer call, which deallocates it. Its memory is ``OutputMemory``'s.
struct XMLOutputBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = OutputMemory.reallocate(nil, to: self.capacity).bindMemory(to: UInt8.self, capacity: self.capacity)
    }

    func deallocate() {
        OutputMemory.release(base)
    }

    /// Room for `extra` more bytes; returns where they go.
    @inline(__always)
    mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - count < extra { grow(extra) }
        return base + count
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let needed = count + extra
        var newCapacity = capacity
        while newCapacity < needed { newCapacity = newCapacity > Int.max / 2 ? needed : newCapacity * 2 }
        base = OutputMemory.reallocate(base, to: newCapacity).bindMemory(to: UInt8.self, capacity: newCapacity)
        capacity = newCapacity
    }

    /// Records `written` bytes at the pointer ``reserve(_:)`` returned.
    @inline(__always)
    mutating func commit(_ written: Int) {
        count += written
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        let length = text.utf8CodeUnitCount
        let destination = reserve(length)
        destination.update(from: text.utf8Start, count: length)
        count += length
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        let destination = reserve(bytes.count)
        destination.update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func appendTabs(_ tabs: Int) {
        guard tabs > 0 else { return }
        // Up to eight tabs (nearly all indentation) in one store instead of a memset call.
        let destination = reserve(max(tabs, 8))
        if tabs <= 8 {
            UnsafeMutableRawPointer(destination).storeBytes(of: 0x0909_0909_0909_0909 as UInt64, as: UInt64.self)
        } else {
            destination.update(repeating: 0x09, count: tabs)
        }
        count += tabs
    }

    func makeArray() -> [UInt8] {
        Array(contents)
    }

    /// The bytes as an array, leaving the buffer empty (``OutputMemory/moveIntoArray(_:count:capacity:)``).
    mutating func moveIntoArray() -> [UInt8] {
        var memory = UnsafeMutableRawPointer(base)
        let result = OutputMemory.moveIntoArray(&memory, count: count, capacity: &capacity)
        base = memory.bindMemory(to: UInt8.self, capacity: capacity)
        count = 0
        return result
    }

    var contents: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base, count: count)
    }

    mutating func removeAll() {
        count = 0
    }

    mutating func appendUTF8(_ scalar: Unicode.Scalar) {
        let value = scalar.value
        let destination = reserve(4)
        switch value {
        case 0..<0x80:
            destination[0] = UInt8(truncatingIfNeeded: value)
            count += 1
        case 0x80..<0x800:
            destination[0] = 0xC0 | UInt8(truncatingIfNeeded: value >> 6)
            destination[1] = 0x80 | UInt8(truncatingIfNeeded: value & 0x3F)
            count += 2
        case 0x800..<0x10000:
            destination[0] = 0xE0 | UInt8(truncatingIfNeeded: value >> 12)
            destination[1] = 0x80 | UInt8(truncatingIfNeeded: value >> 6 & 0x3F)
            destination[2] = 0x80 | UInt8(truncatingIfNeeded: value & 0x3F)
            count += 3
        default:
            destination[0] = 0xF0 | UInt8(truncatingIfNeeded: value >> 18)
            destination[1] = 0x80 | UInt8(truncatingIfNeeded: value >> 12 & 0x3F)
            destination[2] = 0x80 | UInt8(truncatingIfNeeded: value >> 6 & 0x3F)
            destination[3] = 0x80 | UInt8(truncatingIfNeeded: value & 0x3F)
            count += 4
        }
    }
}

struct XMLPropertyListEmitter {
    var out: XMLOutputBuffer
    let maximumDepth: Int

    init(maximumDepth: Int, capacity: Int = 1 << 16) {
        self.maximumDepth = maximumDepth
        out = XMLOutputBuffer(capacity: capacity)
    }

    mutating func write(_ value: PropertyListValue, depth: Int) throws(PropertyListError) {
        out.appendTabs(depth)
        switch value {
        case .string(let string):
            out.append("<string>")
            appendEscaped(string)
            out.append("</string>\n")
        case .integer(let integer):
            out.append("<integer>")
            try appendInteger(integer)
            out.append("</integer>\n")
        case .real(let real):
            out.append("<real>")
            let destination = out.reserve(XMLRealText.maximumLength)
            out.commit(XMLRealText.write(real.doubleValue, to: destination))
            out.append("</real>\n")
        case .bool(let flag):
            if flag { out.append("<true/>\n") } else { out.append("<false/>\n") }
        case .date(let date):
            try appendDate(date.secondsSinceReferenceDate)
        case .data(let bytes):
            out.append("<data>\n")
            bytes.withUnsafeBufferPointer { buffer in
                let size = PropertyListBase64.encodedSize(byteCount: buffer.count, depth: depth)
                let destination = out.reserve(size)
                out.commit(PropertyListBase64.encodeLines(buffer, depth: depth, to: destination))
            }
            out.appendTabs(depth)
            out.append("</data>\n")
        case .uid(let uid):
            try PropertyListUID.checkReadable(uid)
            out.append("<dict>\n")
            out.appendTabs(depth + 1)
            out.append("<key>CF$UID</key>\n")
            out.appendTabs(depth + 1)
            out.append("<integer>")
            appendDecimal(uid.value, negative: false)
            out.append("</integer>\n")
            out.appendTabs(depth)
            out.append("</dict>\n")
        case .array(let elements):
            if elements.isEmpty {
                out.append("<array/>\n")
                return
            }
            try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
            out.append("<array>\n")
            for element in elements { try write(element, depth: depth + 1) }
            out.appendTabs(depth)
            out.append("</array>\n")
        case .dictionary(let dictionary):
            if dictionary.isEmpty {
                out.append("<dict/>\n")
                return
            }
            try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
            out.append("<dict>\n")
            let entries = dictionary.entries
            try XMLPropertyListBuilder.checkKeysSurviveReading(entries.lazy.map(\.key))
            if let order = XMLKeyOrder.writingOrder(entries) {
                // Sorted, a key stored twice sits beside its twin. Core Foundation's binary
                // reader keeps the first value and every XML reader the last: written out, the
                // dictionary would change meaning on the way (a dictionary read from XML has
                // no twins, so this runs only for binary or built values).
                for index in 1..<order.count where XMLKeyOrder.compare(entries[order[index - 1]].key, entries[order[index]].key) == 0 {
                    throw PropertyListError(.unsupportedValue, "a dictionary stores the key \"\(entries[order[index]].key.excerptForMessage(128))\" twice: Core Foundation's binary reader keeps the first value, XML readers the last, so XML cannot say which this dictionary holds")
                }
                for position in order { try writeEntry(entries[position], depth: depth + 1) }
            } else {
                for entry in entries { try writeEntry(entry, depth: depth + 1) }
            }
            out.appendTabs(depth)
            out.append("</dict>\n")
        case .set:
            throw PropertyListError(.unsupportedValue, "a set has no XML property-list form")
        }
    }

    func depthError() -> PropertyListError {
        PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)")
    }

    @inline(__always)
    private mutating func writeEntry(_ entry: PropertyListDictionary.Entry, depth: Int) throws(PropertyListError) {
        out.appendTabs(depth)
        out.append("<key>")
        appendEscaped(entry.key)
        out.append("</key>\n")
        try write(entry.value, depth: depth)
    }

    /// `&`, `<` and `>` become entities; every other character, controls and CR included, is
    /// written as raw UTF-8.
    mutating func appendEscaped(_ string: String) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { appendEscaped($0) }
        if done == nil {
            let copy = Array(string.utf8)
            copy.withUnsafeBufferPointer { appendEscaped($0) }
        }
    }

    mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        guard let source = text.baseAddress else { return }
        let count = text.count
        // Markup characters are rare: find the first, copy everything before it in one go.
        var runStart = 0
        var index = XMLTextScanning.firstMarkupCharacter(source, count: count, from: 0)
        while index < count {
            out.append(UnsafeBufferPointer(start: source + runStart, count: index - runStart))
            switch source[index] {
            case UInt8(ascii: "&"): out.append("&amp;")
            case UInt8(ascii: "<"): out.append("&lt;")
            default: out.append("&gt;")
            }
            runStart = index + 1
            index = XMLTextScanning.firstMarkupCharacter(source, count: count, from: runStart)
        }
        out.append(UnsafeBufferPointer(start: source + runStart, count: count - runStart))
    }

    /// Decimal digits, with a minus sign for negatives.
    @inline(__always)
    mutating func appendDecimal(_ magnitude: UInt64, negative: Bool) {
        let destination = out.reserve(21)
        var length = 0
        if negative {
            destination[0] = UInt8(ascii: "-")
            length = 1
        }
        length += XMLRealText.writeDecimal(magnitude, to: destination + length)
        out.commit(length)
    }

    /// −2^63 … 2^64−1, the range XML readers (ours and Core Foundation's) read back.
    mutating func appendInteger(_ integer: PropertyListInteger) throws(PropertyListError) {
        if let signed = integer.int64Value {
            appendDecimal(signed.magnitude, negative: signed < 0)
        } else if let unsigned = integer.uint64Value {
            appendDecimal(unsigned, negative: false)
        } else {
            // Only a binary file's 16-byte integers reach beyond; written out in full they would
            // make a file no XML reader accepts.
            throw PropertyListError(.unsupportedValue, "integer \(integer) is outside −2^63 … 2^64−1, which XML property lists cannot hold")
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` with the year as C's `%04d` (at least four characters, the
    /// minus sign included).
    mutating func appendDate(_ seconds: Double) throws(PropertyListError) {
        guard PropertyListCalendar.isWritable(seconds) else {
            throw PropertyListError(.unsupportedValue, "date \(seconds) is not finite or is outside the years XML dates can express")
        }
        let fields = PropertyListCalendar.writerFields(seconds)
        out.append("<date>")
        let destination = out.reserve(40)
        var length = 0
        if fields.year < 0 {
            destination[0] = UInt8(ascii: "-")
            length = 1
        }
        let yearMagnitude = fields.year.magnitude
        let minimumDigits = fields.year < 0 ? 3 : 4
        var yearDigits = 1
        var scale: UInt64 = 10
        while yearDigits < 19 && yearMagnitude >= scale {
            yearDigits += 1
            scale *= 10
        }
        for _ in yearDigits..<max(yearDigits, minimumDigits) {
            destination[length] = UInt8(ascii: "0")
            length += 1
        }
        length += XMLRealText.writeDecimal(yearMagnitude, to: destination + length)
        func twoDigits(_ value: Int, after separator: UInt8) {
            destination[length] = separator
            destination[length + 1] = UInt8(truncatingIfNeeded: value / 10 % 10) &+ 0x30
            destination[length + 2] = UInt8(truncatingIfNeeded: value % 10) &+ 0x30
            length += 3
        }
        twoDigits(Int(fields.month), after: UInt8(ascii: "-"))
        twoDigits(Int(fields.day), after: UInt8(ascii: "-"))
        twoDigits(fields.hour, after: UInt8(ascii: "T"))
        twoDigits(fields.minute, after: UInt8(ascii: ":"))
        twoDigits(fields.second, after: UInt8(ascii: ":"))
        destination[length] = UInt8(ascii: "Z")
        out.commit(length + 1)
        out.append("</date>\n")
    }
}
