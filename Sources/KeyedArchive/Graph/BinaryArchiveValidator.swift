import PropertyList

/// The checks of ``BinaryArchiveTable/read(_:options:)``: every check the property-list reader
/// and ``ArchiveGraph`` make on a keyed archive, made on the binary object table in one pass,
/// for the shapes NSKeyedArchiver writes. Every `return nil` means "leave this file to the
/// usual path", which either reads it (an unusual but valid shape) or names its fault.
struct BinaryArchiveValidator {
    struct Result {
        var referenceSize: Int
        /// Each binary object's offset, copied out of the file's offset table, for typed
        /// decoding's reads; empty when the caller reads them in place (`keepingOffsets: false`).
        var offsets: [UInt32]
        /// The file's own offset table, which every validated object index reads within.
        var offsetTable: BinaryOffsetTable
        var entries: [BinaryArchiveTable.Entry]
        var descriptors: [ArchiveGraph.ClassDescriptor]
        var top: PropertyListDictionary
    }

    private let raw: UnsafeRawBufferPointer
    private let options: ArchiveReadingOptions
    /// The property-list reader, for its trailer and count rules.
    private var parser: BinaryPropertyListParser
    private var referenceSize = 1
    private var objectCount = 0
    private var tableStart = 0
    /// Each binary object's offset, then what has been found out about it. Both live only
    /// during ``validate()``, which allocates and frees them.
    private var offsets = UnsafeMutableBufferPointer<UInt32>(start: nil, count: 0)
    private var memo = UnsafeMutableBufferPointer<ObjectMemo>(start: nil, count: 0)

    private struct ObjectMemo {
        /// Whether the object's payload has been counted (the usual reader counts each once).
        var counted = false
        /// The scalar check: 0 not yet, `notScalar`, or the kind's raw value + 1, with `tooLong`
        /// set for a string or data over `maximumValueByteCount`.
        var scalar: UInt8 = 0
        /// As a key: 0 not yet, then one of `KeyRole` + 1.
        var key: UInt8 = 0
        /// As a key, its text as a small integer (equal texts, equal numbers); -1 not yet.
        var identity: Int32 = -1
    }
    private var payloadTotal = 0
    /// Values the file expands to as a tree (a shared object counts once per reference).
    private var expandedTotal = 0
    /// The number of `$objects` entries, once known: the bound for every UID.
    private var uidLimit: UInt64 = 0
    private static let notScalar: UInt8 = 0x3F
    private static let tooLong: UInt8 = 0x40
    /// The names of each `$classes` or `$classhints` array already read, by binary object.
    private var chains: [Int: [String]] = [:]
    /// Strings and data already made, by binary object, so that one made for many references is shared.
    private var madeValues: [Int: PropertyListValue] = [:]
    /// The texts of the keys seen so far, numbered.
    private var keyTexts: [[UInt8]: Int32] = [:]

    private enum KeyRole: UInt8 {
        case invalid, plain, classKey, className, classes, classHints
    }

    /// Asked every ``WorkInterruption/interval`` `$objects` entries, held unretained: this struct
    /// is copied into calls, and a retained class reference cost a retain and a release with
    /// every copy. Set by `validate(interruption:)` for the call, whose argument outlives it.
    private var interruption = Unmanaged.passUnretained(WorkInterruption.never)
    private var untilInterruptionCheck = 1

    /// Whether to stop now; out of line, asked once per interval.
    @inline(never)
    private mutating func interrupted() -> Bool {
        untilInterruptionCheck = WorkInterruption.interval
        return interruption.takeUnretainedValue().stop() != nil
    }

    init(raw: UnsafeRawBufferPointer, options: ArchiveReadingOptions) {
        self.raw = raw
        self.options = options
        parser = BinaryPropertyListParser(bytes: raw, options: options.propertyList)
    }

    private typealias Header = BinaryArchiveTable.Header

    /// The archive's table, or nil to leave the file to the usual path. `interruption` is asked
    /// every ``WorkInterruption/interval`` objects: a stop leaves the file to the usual path too,
    /// which throws the stop's error at its start.
    ///
    /// `keepingOffsets: false` leaves ``Result/offsets`` empty, for a caller that reads each
    /// object's offset from the file (``BinaryOffsetTable``): building a graph, a copy of every
    /// offset would be 4 bytes per binary object held to the end (6.8 MB of a 24 MB archive).
    mutating func validate(interruption: WorkInterruption = .never, keepingOffsets: Bool = true) -> Result? {
        // Kept unretained for the call: `interruption` (the caller's) outlives it.
        self.interruption = Unmanaged.passUnretained(interruption)
        defer { withExtendedLifetime(interruption) {} }
        guard raw.count <= Int(UInt32.max), let (offsetSize, topObject) = try? parser.parseTrailer() else { return nil }
        referenceSize = parser.objectRefSize
        objectCount = parser.objectCount
        tableStart = parser.offsetTableStart
        // Root → $objects → object → array of references: four levels.
        guard options.propertyList.maximumDepth > 3 else { return nil }
        offsets = .allocate(capacity: objectCount)
        offsets.initialize(repeating: 0)
        memo = .allocate(capacity: objectCount)
        memo.initialize(repeating: ObjectMemo())
        defer {
            offsets.deallocate()
            memo.deallocate()
        }
        var entryPosition = tableStart
        let headerLength = BinaryPropertyListFormat.headerLength
        for index in 0..<objectCount {
            let offset = BinaryArchiveTable.load(raw, at: entryPosition, width: offsetSize)
            guard offset >= headerLength, offset < tableStart else { return nil }
            offsets[index] = UInt32(truncatingIfNeeded: offset)
            entryPosition &+= offsetSize
        }

        // The root: exactly the four header keys.
        guard let root = container(topObject, marker: 0xD) else { return nil }
        guard root.count == 4 else { return nil }
        var archiverObject = -1, versionObject = -1, objectsObject = -1, topDictionaryObject = -1
        for index in 0..<4 {
            guard let key = keyObject(of: root, at: index) else { return nil }
            let value = reference(at: root.payload &+ (4 &+ index) &* referenceSize)
            guard value < objectCount else { return nil }
            if stringEquals(key, ArchiveKeys.archiver), archiverObject < 0 { archiverObject = value }
            else if stringEquals(key, ArchiveKeys.version), versionObject < 0 { versionObject = value }
            else if stringEquals(key, ArchiveKeys.objects), objectsObject < 0 { objectsObject = value }
            else if stringEquals(key, ArchiveKeys.top), topDictionaryObject < 0 { topDictionaryObject = value }
            else { return nil }
        }
        // The root, its four keys, and the two scalar values.
        expandedTotal = 1 &+ 4 &+ 2
        guard scalar(archiverObject) == .string, stringEquals(archiverObject, ArchiveKeys.archiverName) else { return nil }
        guard scalar(versionObject) == .integer,
              case .integer(let version) = valueOf(versionObject),
              version.int64Value == ArchiveKeys.formatVersion else { return nil }

        // $objects.
        guard let objects = container(objectsObject, marker: 0xA) else { return nil }
        guard objects.count >= 1, objects.count <= options.maximumObjectCount else { return nil }
        uidLimit = UInt64(objects.count)
        guard addExpanded(1) else { return nil }
        var entries: [BinaryArchiveTable.Entry] = []
        entries.reserveCapacity(objects.count)
        var descriptors: [ArchiveGraph.ClassDescriptor] = []
        // The entry each binary object was first classified as, so that a shared one is checked once.
        var firstEntry = [Int32](repeating: -1, count: objectCount)
        // The tree size of each entry, so that a shared one is not measured again.
        var sizes: [Int] = []
        sizes.reserveCapacity(objects.count)
        for index in 0..<objects.count {
            untilInterruptionCheck &-= 1
            if untilInterruptionCheck == 0, interrupted() { return nil }
            let object = reference(at: objects.payload &+ index &* referenceSize)
            guard object < objectCount else { return nil }
            if index == 0 {
                guard scalar(object) == .string, stringEquals(object, ArchiveKeys.null) else { return nil }
                entries.append(.init(object: UInt32(truncatingIfNeeded: object), kind: .null, link: 0))
                sizes.append(1)
                guard addExpanded(1) else { return nil }
                continue
            }
            let known = Int(firstEntry[object])
            if known >= 0 {
                // Counted on every reference, as the tree counts a shared object: the budget is
                // checked as it grows, so a small file cannot make this loop long.
                guard addExpanded(sizes[known]) else { return nil }
                entries.append(entries[known])
                sizes.append(sizes[known])
                continue
            }
            guard let (entry, size) = classify(object, descriptors: &descriptors), addExpanded(size) else { return nil }
            if let position = Int32(exactly: entries.count) { firstEntry[object] = position }
            entries.append(entry)
            sizes.append(size)
        }
        for entry in entries where entry.kind == .instance {
            guard entry.link >= 0, Int(entry.link) < entries.count, entries[Int(entry.link)].kind == .classDescriptor else { return nil }
        }

        // $top: references or plain scalars.
        guard let topDictionary = container(topDictionaryObject, marker: 0xD) else { return nil }
        guard addExpanded(1 &+ topDictionary.count) else { return nil }
        var topEntries: [PropertyListDictionary.Entry] = []
        topEntries.reserveCapacity(topDictionary.count)
        for index in 0..<topDictionary.count {
            guard let key = keyObject(of: topDictionary, at: index) else { return nil }
            let value = reference(at: topDictionary.payload &+ (topDictionary.count &+ index) &* referenceSize)
            guard value < objectCount, checkFieldScalar(value), addExpanded(1) else { return nil }
            let keyString: String
            guard case .string(let text) = sharedValue(key) else { return nil }
            keyString = text
            topEntries.append(.init(key: keyString, value: sharedValue(value)))
        }
        guard payloadTotal <= raw.count else { return nil }
        return Result(referenceSize: referenceSize, offsets: keepingOffsets ? Array(offsets) : [],
                      offsetTable: BinaryOffsetTable(start: tableStart, width: offsetSize, count: objectCount),
                      entries: entries, descriptors: descriptors,
                      top: PropertyListDictionary(entries: topEntries))
    }

    /// Whether adding `values` would keep the tree size within the budget.
    private func fitsExpanded(_ values: Int) -> Bool {
        let (sum, overflow) = expandedTotal.addingReportingOverflow(values)
        return !overflow && sum <= options.propertyList.maximumExpandedValueCount
    }

    /// Adds to the tree size (saturating, as the reader does) and says whether it is still
    /// within `maximumExpandedValueCount`.
    private mutating func addExpanded(_ values: Int) -> Bool {
        let (sum, overflow) = expandedTotal.addingReportingOverflow(values)
        expandedTotal = overflow ? Int.max : sum
        return expandedTotal <= options.propertyList.maximumExpandedValueCount
    }

    // MARK: Objects

    /// Classifies one `$objects` entry seen for the first time.
    private mutating func classify(_ object: Int, descriptors: inout [ArchiveGraph.ClassDescriptor]) -> (entry: BinaryArchiveTable.Entry, size: Int)? {
        let offset = Int(offsets[object])
        let compact = UInt32(truncatingIfNeeded: object)
        if raw[offset] >> 4 != 0xD {
            guard let kind = scalar(object), kind != .null, !isTooLong(object) else { return nil }
            return (.init(object: compact, kind: kind, link: 0), 1)
        }
        guard let dictionary = container(object, marker: 0xD) else { return nil }
        // The dictionary, its keys, and its values as the tree counts them.
        var size = 1 &+ dictionary.count
        if let (classPosition, layout) = knownLayout(dictionary) {
            // The same key objects as an instance already checked: their roles and distinctness
            // are known, and only the values are checked.
            for index in 0..<dictionary.count {
                let value = reference(at: dictionary.payload &+ (dictionary.count &+ index) &* referenceSize)
                guard value < objectCount, let valueSize = checkField(value) else { return nil }
                size &+= valueSize
                guard fitsExpanded(size) else { return nil }
            }
            let classValue = reference(at: dictionary.payload &+ (dictionary.count &+ classPosition) &* referenceSize)
            guard var entry = instanceEntry(compact, classValue: classValue) else { return nil }
            entry.layout = layout
            return (entry, size)
        }
        var classValue = -1, classOccurrences = 0, classPosition = 0
        var nameValue = -1, nameOccurrences = 0, chainValue = -1, chainOccurrences = 0, hintsValue = -1, hintsOccurrences = 0
        for index in 0..<dictionary.count {
            let key = reference(at: dictionary.payload &+ index &* referenceSize)
            let value = reference(at: dictionary.payload &+ (dictionary.count &+ index) &* referenceSize)
            guard key < objectCount, value < objectCount else { return nil }
            switch keyRole(key) {
            case .invalid: return nil
            case .plain: break
            case .classKey: classValue = value; classOccurrences &+= 1; classPosition = index
            case .className: nameValue = value; nameOccurrences &+= 1
            case .classes: chainValue = value; chainOccurrences &+= 1
            case .classHints: hintsValue = value; hintsOccurrences &+= 1
            }
            // Fields of objects and the other keys of class dictionaries alike: plain values,
            // UIDs naming entries, or arrays of them.
            guard let valueSize = checkField(value) else { return nil }
            size &+= valueSize
            guard fitsExpanded(size) else { return nil }
        }
        if classOccurrences > 0 {
            guard classOccurrences == 1, keysAreDistinct(dictionary), var entry = instanceEntry(compact, classValue: classValue) else { return nil }
            entry.layout = rememberLayout(dictionary, classPosition: classPosition) ?? BinaryArchiveTable.noLayout
            return (entry, size)
        }
        // Within the budget before any name is made (the caller adds `size` next).
        guard nameOccurrences == 1, chainOccurrences == 1, hintsOccurrences <= 1,
              fitsExpanded(size),
              scalar(nameValue) == .string, !isTooLong(nameValue),
              let classes = stringArray(chainValue) else { return nil }
        var hints: [String]?
        if hintsOccurrences == 1 {
            guard let names = stringArray(hintsValue) else { return nil }
            hints = names
        }
        guard case .string(let name) = sharedValue(nameValue),
              let slot = Int32(exactly: descriptors.count) else { return nil }
        descriptors.append(ArchiveGraph.ClassDescriptor(name: name, classes: classes, hints: hints))
        return (.init(object: compact, kind: .classDescriptor, link: slot), size)
    }

    /// An instance whose `$class` value is the binary object `classValue`.
    private mutating func instanceEntry(_ compact: UInt32, classValue: Int) -> BinaryArchiveTable.Entry? {
        guard raw[Int(offsets[classValue])] >> 4 == 0x8, case .uid(let classUID) = valueOf(classValue),
              let link = Int32(exactly: classUID.value) else { return nil }
        return .init(object: compact, kind: .instance, link: link)
    }

    // MARK: Key layouts

    /// The key objects of a few instances already checked — one `$class`, the other keys plain,
    /// all distinct — and where `$class` is among them. Objects of one class store the same key
    /// objects in the same order, so most instances match one and skip the key checks. Each
    /// instance's entry keeps the number of its layout, by which the table remembers where a
    /// key is (``BinaryArchiveTable/Entry/layout``).
    private struct KeyLayout {
        var keysStart: Int
        var count: Int
        var classPosition: Int
    }
    private var layouts: [KeyLayout] = []
    private var layoutKeys: [Int] = []
    private static let maximumLayouts = BinaryArchiveTable.layoutCount
    private static let maximumLayoutKeys = BinaryArchiveTable.maximumLayoutKeys

    /// Where `$class` is and the layout's number, when the dictionary's keys are those of a
    /// remembered layout.
    private mutating func knownLayout(_ dictionary: Header) -> (classPosition: Int, layout: UInt8)? {
        for (number, layout) in layouts.enumerated() where layout.count == dictionary.count {
            var index = 0
            while index < layout.count,
                  layoutKeys[layout.keysStart &+ index] == reference(at: dictionary.payload &+ index &* referenceSize) {
                index &+= 1
            }
            if index == layout.count { return (layout.classPosition, UInt8(truncatingIfNeeded: number)) }
        }
        return nil
    }

    /// Remembers the dictionary's keys as a layout and returns its number; nil when the table
    /// of layouts is full or the dictionary has too many keys.
    private mutating func rememberLayout(_ dictionary: Header, classPosition: Int) -> UInt8? {
        guard layouts.count < Self.maximumLayouts, dictionary.count <= Self.maximumLayoutKeys else { return nil }
        let number = UInt8(truncatingIfNeeded: layouts.count)
        layouts.append(KeyLayout(keysStart: layoutKeys.count, count: dictionary.count, classPosition: classPosition))
        for index in 0..<dictionary.count { layoutKeys.append(reference(at: dictionary.payload &+ index &* referenceSize)) }
        return number
    }

    /// `$classes` or `$classhints`: an array of strings within the chain limit.
    private mutating func stringArray(_ object: Int) -> [String]? {
        // Class dictionaries may share one `$classes` array: its names are made once.
        if let known = chains[object] { return known }
        guard let array = container(object, marker: 0xA), array.count <= options.maximumClassChainLength else { return nil }
        var names: [String] = []
        names.reserveCapacity(array.count)
        for index in 0..<array.count {
            let element = reference(at: array.payload &+ index &* referenceSize)
            guard element < objectCount, scalar(element) == .string, !isTooLong(element),
                  case .string(let name) = sharedValue(element) else { return nil }
            names.append(name)
        }
        chains[object] = names
        return names
    }

    /// A field of an object: a scalar, a UID, or an array of them. Returns the values it
    /// expands to (1, or 1 plus the elements); nil when it is anything else.
    private mutating func checkField(_ object: Int) -> Int? {
        if raw[Int(offsets[object])] >> 4 == 0xA {
            guard let array = container(object, marker: 0xA) else { return nil }
            for index in 0..<array.count {
                let element = reference(at: array.payload &+ index &* referenceSize)
                guard element < objectCount, checkFieldScalar(element) else { return nil }
            }
            return 1 &+ array.count
        }
        return checkFieldScalar(object) ? 1 : nil
    }

    /// A scalar field or `$top` value: UIDs must name an entry, strings and data fit the limit.
    private mutating func checkFieldScalar(_ object: Int) -> Bool {
        // Most fields are UIDs, each usually an object of its own (Core Foundation's writer
        // does not share them): checked here in full (the checks `checkScalar` makes for marker
        // 0x8, then the UID limit), without the memo, which would not be asked about them again.
        let offset = Int(offsets[object])
        let marker = raw[offset]
        if marker >> 4 == 0x8 {
            let width = Int(marker & 0x0F) &+ 1
            guard width <= 8, width <= tableStart &- offset &- 1 else { return false }
            return UInt64(truncatingIfNeeded: BinaryArchiveTable.load(raw, at: offset &+ 1, width: width)) < uidLimit
        }
        guard let kind = scalar(object) else { return false }
        return kind == .string || kind == .data ? !isTooLong(object) : true
    }


    // MARK: Keys

    /// What a dictionary key is: a reserved key, a plain one, or not a valid key at all.
    private mutating func keyRole(_ key: Int) -> KeyRole {
        let known = memo[key].key
        if known != 0, let role = KeyRole(rawValue: known &- 1) { return role }
        var role = KeyRole.invalid
        if let kind = scalar(key), kind == .string, memo[key].scalar & Self.tooLong == 0 {
            role = .plain
            let header = header(at: Int(offsets[key]))
            if header.marker >> 4 != 0x5 || (header.count > 0 && raw[header.payload] == UInt8(ascii: "$")) {
                if stringEquals(key, ArchiveKeys.classKey) { role = .classKey }
                else if stringEquals(key, ArchiveKeys.className) { role = .className }
                else if stringEquals(key, ArchiveKeys.classes) { role = .classes }
                else if stringEquals(key, ArchiveKeys.classHints) { role = .classHints }
            }
        }
        memo[key].key = role.rawValue &+ 1
        return role
    }

    /// Whether no key of an object repeats (by text, as typed decoding compares keys). The
    /// usual path refuses a repeated key when it decodes the object; this path leaves such a
    /// file to it.
    private mutating func keysAreDistinct(_ dictionary: Header) -> Bool {
        guard dictionary.count > 1 else { return true }
        if dictionary.count <= 8 {
            var identities: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0, 0, 0, 0)
            return withUnsafeMutableBytes(of: &identities) { storage -> Bool in
                let seen = storage.bindMemory(to: Int32.self)
                for index in 0..<dictionary.count {
                    let identity = keyText(reference(at: dictionary.payload &+ index &* referenceSize))
                    for earlier in 0..<index where seen[earlier] == identity { return false }
                    seen[index] = identity
                }
                return true
            }
        }
        var seen = Set<Int32>(minimumCapacity: dictionary.count)
        for index in 0..<dictionary.count where !seen.insert(keyText(reference(at: dictionary.payload &+ index &* referenceSize))).inserted {
            return false
        }
        return true
    }

    /// A number standing for a checked key's text.
    private mutating func keyText(_ key: Int) -> Int32 {
        let known = memo[key].identity
        if known >= 0 { return known }
        let text: [UInt8]
        if case .string(let string) = valueOf(key) {
            text = Array(string.utf8)
        } else {
            text = []
        }
        let identity: Int32
        if let existing = keyTexts[text] {
            identity = existing
        } else {
            identity = Int32(truncatingIfNeeded: keyTexts.count)
            keyTexts[text] = identity
        }
        memo[key].identity = identity
        return identity
    }

    // MARK: Binary objects

    /// Checks a non-container object as the property-list reader does and returns its kind
    /// (`.null` stands for a UID); nil for a container or an object this path leaves alone.
    /// Each object is checked once; a string or data over `maximumValueByteCount` is marked.
    private mutating func scalar(_ object: Int) -> BinaryArchiveTable.Kind? {
        let known = memo[object].scalar
        if known != 0 {
            if known == Self.notScalar { return nil }
            return BinaryArchiveTable.Kind(rawValue: (known & ~Self.tooLong) &- 1)
        }
        guard let kind = checkScalar(object) else {
            memo[object].scalar = Self.notScalar
            return nil
        }
        var result = kind.rawValue &+ 1
        if kind == .string || kind == .data {
            if let length = Self.utf8Length(object, raw: raw, offsets: offsets), length <= options.maximumValueByteCount {} else { result |= Self.tooLong }
        }
        memo[object].scalar = result
        return kind
    }

    private func isTooLong(_ object: Int) -> Bool {
        memo[object].scalar & Self.tooLong != 0
    }

    private mutating func checkScalar(_ object: Int) -> BinaryArchiveTable.Kind? {
        let offset = Int(offsets[object])
        let marker = raw[offset]
        let available = tableStart &- offset &- 1
        switch marker >> 4 {
        case 0x0:
            return marker == 0x08 || marker == 0x09 ? .bool : nil
        case 0x1:
            // 1 to 8 bytes, and the 16-byte form Core Foundation (and our writer) uses for
            // values from 2^63 to 2^64 − 1.
            guard marker & 0x0F <= 4, 1 &<< Int(marker & 0x0F) <= available else { return nil }
            return .integer
        case 0x2:
            guard marker == 0x22 ? available >= 4 : (marker == 0x23 && available >= 8) else { return nil }
            return .real
        case 0x3:
            guard marker == 0x33, available >= 8 else { return nil }
            return .date
        case 0x4, 0x5, 0x6:
            guard let header = countedHeader(at: offset) else { return nil }
            let width = marker >> 4 == 0x6 ? 2 : 1
            guard header.count <= options.propertyList.maximumValueLength else { return nil }
            let (span, overflow) = header.count.multipliedReportingOverflow(by: width)
            guard !overflow, span <= tableStart &- header.payload else { return nil }
            let body = UnsafeRawBufferPointer(rebasing: raw[header.payload..<(header.payload &+ span)])
            if marker >> 4 == 0x5 { guard BinaryText.isASCII(body) else { return nil } }
            if marker >> 4 == 0x6 { guard Self.utf16ToUTF8Length(body) != nil else { return nil } }
            guard countPayload(object, span) else { return nil }
            return marker >> 4 == 0x4 ? .data : .string
        case 0x8:
            guard marker & 0x0F <= 7, Int(marker & 0x0F) &+ 1 <= available else { return nil }
            return .null
        default:
            return nil
        }
    }

    /// A container with the given marker type, checked as the reader checks one, its
    /// payload counted once.
    private mutating func container(_ object: Int, marker expected: UInt8) -> Header? {
        guard object >= 0, object < objectCount else { return nil }
        let offset = Int(offsets[object])
        guard raw[offset] >> 4 == expected, let header = countedHeader(at: offset),
              header.count <= options.propertyList.maximumCollectionElementCount else { return nil }
        let children = expected == 0xD ? header.count &* 2 : header.count
        let (span, overflow) = children.multipliedReportingOverflow(by: referenceSize)
        guard !overflow, span <= tableStart &- header.payload else { return nil }
        guard countPayload(object, span) else { return nil }
        return header
    }

    /// The key object at `index` of a checked dictionary, if it is a valid key.
    private mutating func keyObject(of dictionary: Header, at index: Int) -> Int? {
        let key = reference(at: dictionary.payload &+ index &* referenceSize)
        guard key < objectCount, keyRole(key) != .invalid else { return nil }
        return key
    }

    @discardableResult
    private mutating func countPayload(_ object: Int, _ span: Int) -> Bool {
        guard !memo[object].counted else { return true }
        memo[object].counted = true
        payloadTotal = payloadTotal.addingReportingOverflow(span).overflow ? Int.max : payloadTotal &+ span
        return payloadTotal <= raw.count
    }

    /// The count after a marker, as the reader reads it; nil where the reader would fail.
    private func countedHeader(at offset: Int) -> Header? {
        guard let (count, payload) = try? parser.readContainerCount(marker: raw[offset], at: offset) else { return nil }
        return Header(marker: raw[offset], count: count, payload: payload)
    }

    private func header(at offset: Int) -> Header {
        BinaryArchiveTable.header(raw, at: offset)
    }

    @inline(__always)
    private func reference(at position: Int) -> Int {
        // An 8-byte reference with the top bit set loads negative: make it fail every
        // `< objectCount` check rather than index backwards.
        let reference = BinaryArchiveTable.load(raw, at: position, width: referenceSize)
        return reference >= 0 ? reference : Int.max
    }

    /// The value of a checked scalar, made once per binary object.
    private mutating func sharedValue(_ object: Int) -> PropertyListValue {
        if let known = madeValues[object] { return known }
        let value = valueOf(object)
        madeValues[object] = value
        return value
    }

    /// The value of a checked scalar or array of scalars.
    private func valueOf(_ object: Int) -> PropertyListValue {
        BinaryArchiveTable.value(raw, offsets: UnsafeBufferPointer(offsets), referenceSize: referenceSize, object: object)
    }

    /// Whether a checked string object holds exactly `text`.
    private func stringEquals(_ object: Int, _ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { BinaryArchiveTable.stringObject(raw, at: Int(offsets[object]), equals: $0) }
    }

    /// The UTF-8 length of a checked string or data object (data: its byte count).
    /// Static, with what it reads passed in: called from a `mutating` method, an instance
    /// method on this 328-byte struct was given a copy of it, one `memcpy` per string.
    private static func utf8Length(_ object: Int, raw: UnsafeRawBufferPointer, offsets: UnsafeMutableBufferPointer<UInt32>) -> Int? {
        let header = BinaryArchiveTable.header(raw, at: Int(offsets[object]))
        guard header.marker >> 4 == 0x6 else { return header.count }
        return Self.utf16ToUTF8Length(UnsafeRawBufferPointer(rebasing: raw[header.payload..<(header.payload &+ header.count &* 2)]))
    }

    /// The UTF-8 length of big-endian UTF-16 text; nil on an unpaired surrogate.
    static func utf16ToUTF8Length(_ body: UnsafeRawBufferPointer) -> Int? {
        let units = body.count / 2
        var index = 0
        var length = 0
        while index < units {
            let unit = Int(body[index &* 2]) << 8 | Int(body[index &* 2 &+ 1])
            index &+= 1
            if unit < 0x80 { length &+= 1 }
            else if unit < 0x800 { length &+= 2 }
            else if unit & 0xF800 != 0xD800 { length &+= 3 }
            else {
                guard unit <= 0xDBFF, index < units else { return nil }
                let next = Int(body[index &* 2]) << 8 | Int(body[index &* 2 &+ 1])
                guard next & 0xFC00 == 0xDC00 else { return nil }
                index &+= 1
                length &+= 4
            }
        }
        return length
    }
}
