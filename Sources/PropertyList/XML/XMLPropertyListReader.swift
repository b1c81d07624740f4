/// Reads XML property lists the way Core Foundation's parser does (`xml-format-notes.md`,
/// "Reading"), with a byte scanner of our own (no XMLParser, no libxml2).
///
/// What it accepts is what Core Foundation accepts, value for value: raw control characters
/// and raw CR inside `<string>` (kept as they are, CR not turned into LF), the five entities and
/// numeric character references, CDATA, lenient base64, hex and signed integers, unchecked date
/// fields, `<plist>` wrappers anywhere, comments and processing instructions between elements,
/// anything after the root element ignored. A dictionary holding only `CF$UID` with a number
/// becomes a ``PropertyListUID`` (truncated to 32 bits, as Core Foundation does).
///
/// **Duplicate keys**: the last value wins, as in Core Foundation, and the entry stays at the
/// position where the key first appeared; the dictionary keeps document order otherwise.
///
/// **Limits**: containers may nest ``PropertyListReadingOptions/maximumDepth`` deep (512 by
/// default, Core Foundation's limit: 512 nested arrays read, 513 do not). The parser itself is
/// iterative, so no input can exhaust the stack. Strings and data are bounded by
/// ``PropertyListReadingOptions/maximumValueLength``, containers by
/// ``PropertyListReadingOptions/maximumCollectionElementCount``.
///
/// **Encodings**: UTF-8 (with or without a byte-order mark) is read in place. UTF-16 and UTF-32
/// with a byte-order mark, and the declared encodings US-ASCII, ISO-8859-1, Windows-1252 and
/// ISO-8859-15, are converted to UTF-8 first; other declared encodings are refused
/// (Core Foundation on Linux reads every encoding ICU knows).
///
/// Errors carry the 1-based line and byte column where the fault was found.
public enum XMLPropertyListReader {
    /// Reads the property list in `bytes`, without copying them when they are UTF-8.
    ///
    /// - Throws: ``PropertyListError`` with ``PropertyListError/Code/truncated`` (the input ends
    ///   inside the document), ``PropertyListError/Code/xmlSyntax`` (malformed markup, text
    ///   between elements, a key without a value), ``PropertyListError/Code/xmlUnexpectedElement``
    ///   (an unknown element, or a non-key where a key belongs),
    ///   ``PropertyListError/Code/invalidEntity``, ``PropertyListError/Code/invalidText``
    ///   (invalid UTF-8), ``PropertyListError/Code/invalidNumber``,
    ///   ``PropertyListError/Code/invalidDate``, ``PropertyListError/Code/depthLimitExceeded``
    ///   or ``PropertyListError/Code/sizeLimitExceeded``.
    public static func read(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> XMLPropertyListDocument {
        switch try XMLInputEncoding.plan(for: bytes) {
        case .inPlace(let skip):
            guard let base = bytes.baseAddress, bytes.count > skip else {
                throw PropertyListError(.truncated, "no root element", at: .line(1, column: 1))
            }
            var parser = XMLPropertyListParser(bytes: base.assumingMemoryBound(to: UInt8.self) + skip, count: bytes.count - skip, options: options)
            defer { parser.releaseStorage() }
            return try parser.parseDocument()
        case .converted(let utf8):
            let result: Result<XMLPropertyListDocument, PropertyListError> = utf8.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress, !buffer.isEmpty else {
                    return .failure(PropertyListError(.truncated, "no root element", at: .line(1, column: 1)))
                }
                var parser = XMLPropertyListParser(bytes: base, count: buffer.count, options: options)
                defer { parser.releaseStorage() }
                do throws(PropertyListError) { return .success(try parser.parseDocument()) } catch { return .failure(error) }
            }
            return try result.get()
        }
    }

    /// Reads the property list in `bytes` (see ``read(_:options:)-(UnsafeRawBufferPointer,_)``).
    public static func read(_ bytes: [UInt8], options: PropertyListReadingOptions = .default) throws(PropertyListError) -> XMLPropertyListDocument {
        let result: Result<XMLPropertyListDocument, PropertyListError> = bytes.withUnsafeBytes { buffer in
            do throws(PropertyListError) { return .success(try read(buffer, options: options)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Reads the property list in any contiguous bytes (`Data`, `ArraySlice<UInt8>`, …) in place.
    public static func read<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> XMLPropertyListDocument {
        let result: Result<XMLPropertyListDocument, PropertyListError>? = bytes.withContiguousStorageIfAvailable { buffer in
            do throws(PropertyListError) { return .success(try read(UnsafeRawBufferPointer(buffer), options: options)) } catch { return .failure(error) }
        }
        if let result { return try result.get() }
        return try read(Array(bytes), options: options)
    }
}

/// Builds the value tree over the scanner, without recursion: open containers are frames on a
/// stack, and finished children wait on two flat stacks (values, and dictionary keys) until
/// their container closes and takes them. Each element's content is read exactly as Core
/// Foundation reads it (see `XMLPropertyListParser+Content.swift`).
struct XMLPropertyListParser {
    var scanner: XMLPropertyListScanner
    let options: PropertyListReadingOptions

    enum FrameKind {
        case array, dictionary, plist
    }

    struct Frame {
        var kind: FrameKind
        var valueStart: Int
        var keyStart: Int
        var tagStart: Int
        /// The previous key's bytes in the input, and whether every key so far was plain and
        /// greater than the one before: then the dictionary has no duplicates to look for.
        var previousKeyStart = 0
        var previousKeyLength = -1
        var keysAscending = true
    }

    var frames: [Frame] = []
    var values = XMLValueStack<PropertyListValue>()
    var keys = XMLValueStack<String>()
    /// Arrays and dictionaries open; `<plist>` wrappers do not count, as in Core Foundation.
    var containerDepth = 0
    var root: PropertyListValue?
    /// Reused for text that needs decoding (entities, CDATA).
    var textBuffer = XMLOutputBuffer(capacity: 256)
    /// The input bytes of the last `<string>` or `<key>` read, when it needed no decoding.
    var lastPlainText: Range<Int>?
    /// Keys seen recently, so that a key repeated in thousands of dictionaries is validated
    /// and allocated once.
    var keyCache = XMLKeyCache()

    init(bytes: UnsafePointer<UInt8>, count: Int, options: PropertyListReadingOptions) {
        scanner = XMLPropertyListScanner(bytes: bytes, count: count)
        self.options = options
    }

    /// Frees the stacks (and whatever an error left on them). Called once, after parsing.
    func releaseStorage() {
        values.release()
        keys.release()
        textBuffer.deallocate()
    }

    mutating func parseDocument() throws(PropertyListError) -> XMLPropertyListDocument {
        let legacy = try scanner.skipProlog()
        try beginElement()
        let interruption = WorkInterruption(options)
        var untilCheck = WorkInterruption.interval
        while !frames.isEmpty {
            untilCheck &-= 1
            if untilCheck == 0 {
                untilCheck = WorkInterruption.interval
                if let stop = interruption.stop() { throw scanner.error(stop.code, WorkInterruption.error(stop).message) }
            }
            switch try scanner.nextContentItem() {
            case .element: try beginElement()
            case .endTag: try closeFrame()
            }
        }
        // Like Core Foundation, anything after the root element is ignored.
        guard let root else { throw scanner.error(.xmlSyntax, "no value") }
        return XMLPropertyListDocument(value: root, doctype: legacy ? .legacyAppleComputer : .modern)
    }

    // MARK: Elements

    /// Reads one element at the cursor: a scalar entirely, a container's start tag only.
    @inline(__always)
    mutating func beginElement() throws(PropertyListError) {
        let tag = try scanner.readStartTag()
        guard let kind = tag.kind else {
            throw scanner.error(.xmlUnexpectedElement, "unknown element <\(scanner.excerpt(tag.nameStart..<tag.nameEnd))>", at: tag.start)
        }
        if kind != .key, let frame = frames.last {
            if frame.kind == .dictionary, keys.count - frame.keyStart == values.count - frame.valueStart {
                throw scanner.error(.xmlUnexpectedElement, "expected <key> in a dictionary, found <\(kind.name)>", at: tag.start)
            }
            if frame.kind == .plist, values.count > frame.valueStart {
                throw scanner.error(.xmlSyntax, "a plist element holds more than one value", at: tag.start)
            }
        }
        switch kind {
        case .plist:
            guard !tag.isEmpty else { throw scanner.error(.xmlSyntax, "empty <plist/>", at: tag.start) }
            frames.append(Frame(kind: .plist, valueStart: values.count, keyStart: keys.count, tagStart: tag.start))
        case .array, .dict:
            if tag.isEmpty {
                try deliver(kind == .array ? .array([]) : .dictionary(PropertyListDictionary()), at: tag.start)
                return
            }
            guard containerDepth < options.maximumDepth else {
                throw scanner.error(.depthLimitExceeded, "containers nest deeper than \(options.maximumDepth)", at: tag.start)
            }
            guard ThreadStackLimit.canHoldValue(depth: containerDepth &+ 1) else {
                throw scanner.error(.stackExhausted, PropertyListError.valueTooDeepForStack(containerDepth &+ 1).message, at: tag.start)
            }
            if kind == .dict, options.maximumCollectionElementCount > 0, let uid = scanner.readUIDDictionaryBody() {
                try deliver(.uid(uid), at: tag.start)
                return
            }
            containerDepth += 1
            frames.append(Frame(kind: kind == .array ? .array : .dictionary, valueStart: values.count, keyStart: keys.count, tagStart: tag.start))
        case .key:
            let text: String
            if tag.isEmpty {
                text = ""
                lastPlainText = scanner.position..<scanner.position
            } else {
                text = try readString(.key)
            }
            if let frame = frames.last, frame.kind == .dictionary, keys.count - frame.keyStart == values.count - frame.valueStart {
                guard keys.count - frame.keyStart < options.maximumCollectionElementCount else {
                    throw scanner.error(.sizeLimitExceeded, "dictionary of more than \(options.maximumCollectionElementCount) entries", at: tag.start)
                }
                keys.push(text)
                noteKeyOrder()
            } else {
                // A <key> anywhere but a dictionary's key position reads as a string.
                if let frame = frames.last, frame.kind == .plist, values.count > frame.valueStart {
                    throw scanner.error(.xmlSyntax, "a plist element holds more than one value", at: tag.start)
                }
                try deliver(.string(text), at: tag.start)
            }
        case .string:
            try deliver(.string(tag.isEmpty ? "" : try readString(.string)), at: tag.start)
        case .integer:
            guard !tag.isEmpty else { throw scanner.error(.invalidNumber, "empty <integer/>", at: tag.start) }
            try deliver(.integer(try readInteger()), at: tag.start)
        case .real:
            guard !tag.isEmpty else { throw scanner.error(.invalidNumber, "empty <real/>", at: tag.start) }
            try deliver(.real(.float64(try readReal())), at: tag.start)
        case .date:
            guard !tag.isEmpty else { throw scanner.error(.invalidDate, "empty <date/>", at: tag.start) }
            try deliver(.date(PropertyListDate(secondsSinceReferenceDate: try readDate())), at: tag.start)
        case .data:
            guard !tag.isEmpty else { throw scanner.error(.xmlSyntax, "empty <data/> is not allowed", at: tag.start) }
            try deliver(.data(try readData()), at: tag.start)
        case .true, .false:
            // <true></true> is allowed, with nothing between the tags.
            if !tag.isEmpty { try scanner.readEndTag(kind) }
            try deliver(.bool(kind == .true), at: tag.start)
        }
    }

    /// Keeps track, from the raw bytes, of whether the open dictionary's keys are strictly
    /// ascending (as Core Foundation writes them), which rules out duplicates.
    @inline(__always)
    mutating func noteKeyOrder() {
        let top = frames.count - 1
        guard frames[top].keysAscending else { return }
        guard let range = lastPlainText else {
            frames[top].keysAscending = false
            return
        }
        if frames[top].previousKeyLength >= 0 {
            let previous = UnsafeBufferPointer(start: scanner.bytes + frames[top].previousKeyStart, count: frames[top].previousKeyLength)
            let current = UnsafeBufferPointer(start: scanner.bytes + range.lowerBound, count: range.count)
            if XMLKeyOrder.compare(previous, current) >= 0 {
                frames[top].keysAscending = false
                return
            }
        }
        frames[top].previousKeyStart = range.lowerBound
        frames[top].previousKeyLength = range.count
    }

    /// Hands a finished value to the open container, or makes it the root.
    @inline(__always)
    mutating func deliver(_ value: PropertyListValue, at tagStart: Int) throws(PropertyListError) {
        guard let frame = frames.last else {
            root = value
            return
        }
        if frame.kind == .array, values.count - frame.valueStart >= options.maximumCollectionElementCount {
            throw scanner.error(.sizeLimitExceeded, "array of more than \(options.maximumCollectionElementCount) elements", at: tagStart)
        }
        values.push(value)
    }

    /// Reads the end tag of the innermost open container and hands its value on.
    mutating func closeFrame() throws(PropertyListError) {
        guard let frame = frames.popLast() else { return }
        let value: PropertyListValue
        switch frame.kind {
        case .array:
            try scanner.readEndTag(.array)
            value = .array(values.popArray(from: frame.valueStart))
            containerDepth -= 1
        case .dictionary:
            let keyCount = keys.count - frame.keyStart
            guard keyCount == values.count - frame.valueStart else {
                let key = keys.count > frame.keyStart ? keys[keys.count - 1].excerptForMessage(40) : ""
                throw scanner.error(.xmlSyntax, "key '\(key)' has no value")
            }
            try scanner.readEndTag(.dict)
            containerDepth -= 1
            // Keyed archives hold a UID in nearly every object: recognise it without building
            // the one-entry dictionary it is written as.
            if keyCount == 1, let uid = Self.uid(key: keys[frame.keyStart], value: values[frame.valueStart]) {
                _ = keys.popLast()
                _ = values.popLast()
                value = .uid(uid)
            } else {
                var entries: [PropertyListDictionary.Entry] = []
                entries.reserveCapacity(keyCount)
                for offset in 0..<keyCount {
                    entries.append(PropertyListDictionary.Entry(key: keys.move(at: frame.keyStart + offset), value: values.move(at: frame.valueStart + offset)))
                }
                keys.forgetMoved(from: frame.keyStart)
                values.forgetMoved(from: frame.valueStart)
                value = Self.dictionaryValue(entries, knownAscending: frame.keysAscending)
            }
        case .plist:
            guard values.count > frame.valueStart else {
                throw scanner.error(.xmlSyntax, "empty <plist> element", at: frame.tagStart)
            }
            try scanner.readEndTag(.plist)
            value = values.popLast()
        }
        try deliver(value, at: frame.tagStart)
    }

    /// A dictionary with Core Foundation's reading rules: the last value of a duplicate key
    /// wins (at the key's first position), and a lone `CF$UID` with a number is a UID.
    static func dictionaryValue(_ read: [PropertyListDictionary.Entry], knownAscending: Bool = false) -> PropertyListValue {
        var entries = read
        // Core Foundation writes keys sorted, so this check nearly always proves there are no
        // duplicates (usually already done on the raw bytes while reading).
        if entries.count > 1, !knownAscending, !XMLKeyOrder.isStrictlyIncreasing(entries) {
            entries = collapsingDuplicateKeys(entries)
        }
        if entries.count == 1, let uid = uid(key: entries[0].key, value: entries[0].value) {
            return .uid(uid)
        }
        return .dictionary(PropertyListDictionary(entries: entries))
    }

    /// The UID a one-entry dictionary stands for: key `CF$UID`, value an integer or a real,
    /// truncated to 32 bits as Core Foundation does.
    @inline(__always)
    static func uid(key: String, value: PropertyListValue) -> PropertyListUID? {
        switch value {
        case .integer(let integer):
            guard key.isExactlyEqual(to: uidKey) else { return nil }
            return PropertyListUID(UInt64(UInt32(truncatingIfNeeded: integer.low)))
        case .real(let real):
            guard key.isExactlyEqual(to: uidKey) else { return nil }
            return PropertyListUID(UInt64(uidBits(real.doubleValue)))
        default:
            return nil
        }
    }

    static let uidKey = "CF$UID"

    /// Core Foundation's conversion of a real to its 32-bit UID value on x86-64: truncation
    /// toward zero, and 0x80000000 for NaN and anything outside the signed 32-bit range.
    static func uidBits(_ value: Double) -> UInt32 {
        let truncated = value.rounded(.towardZero)
        guard truncated >= -2_147_483_648, truncated < 2_147_483_648 else { return 0x8000_0000 }
        return UInt32(bitPattern: Int32(truncated))
    }

    static func collapsingDuplicateKeys(_ entries: [PropertyListDictionary.Entry]) -> [PropertyListDictionary.Entry] {
        var result: [PropertyListDictionary.Entry] = []
        result.reserveCapacity(entries.count)
        if entries.count < 16 {
            outer: for entry in entries {
                for position in result.indices where result[position].key.isExactlyEqual(to: entry.key) {
                    result[position].value = entry.value
                    continue outer
                }
                result.append(entry)
            }
            return result
        }
        var positions: [ExactString: Int] = [:]
        positions.reserveCapacity(entries.count)
        for entry in entries {
            let key = ExactString(entry.key)
            if let position = positions[key] {
                result[position].value = entry.value
            } else {
                positions[key] = result.count
                result.append(entry)
            }
        }
        return result
    }
}
