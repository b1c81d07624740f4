import PropertyList

/// What the encoder builds: `$objects` in UID order and `$top`, with each object's keys in the
/// order they were encoded. Serialization turns it into a property list with Apple's key orders
/// (``ArchiveWritingOptions/Era``) and, for ``ArchiveWritingOptions/Sharing/appleInstances``,
/// into an object table whose sharing imitates Apple's instances.
struct ArchiveObjectTable {
    enum Entry {
        case null
        case string(String)
        case integer(PropertyListInteger)
        case real(PropertyListReal)
        case bool(Bool)
        case data([UInt8])
        /// The object's fields are `fields` of `fieldKeys`/`fieldValues`, in encoding order,
        /// without `$class`. (Lists of their own per object were a fifth of an encode: allocating,
        /// growing and freeing them.)
        case instance(classUID: Int, fields: Range<Int>)
        case classDescriptor(name: String, classes: [String])
        /// A class dictionary of another shape than `$classname` and `$classes`: without
        /// `$classes` (Xcode's SpriteKit scene editor), or with `$classhints`. Written with its
        /// keys in the order `$classname`, `$classes`, `$classhints`, each when present.
        case storedClassDescriptor(ArchiveGraph.ClassDescriptor)
        /// A UID taken by an object whose fields are still being encoded.
        case reserved
    }

    var entries: [Entry] = [.null]
    /// `$archiver`: `NSKeyedArchiver`, or the name a rewritten archive had (SceneKit's
    /// `SCNKeyedArchiver`), which ``KeyedArchiver/roundTrip(_:registry:options:)`` keeps.
    var archiverName = ArchiveKeys.archiverName
    /// Stored (escaped) keys by number.
    var keyTexts: [String] = []
    /// A field's value as the table holds it. UIDs and ordinary integers (nearly every field of
    /// an archive), booleans and doubles are held in place, a list of references as a range of
    /// `listUIDs`, any other value in `otherFieldValues`. A list of these is of a trivial type,
    /// so storing, moving and freeing fields copies words, with no retain, release or switch over
    /// `PropertyListValue`'s cases (those were a twentieth of a fleet encode).
    enum FieldValue {
        case uid(PropertyListUID)
        /// An integer in the ordinary (not 16-byte) form.
        case integer(Int64)
        case bool(Bool)
        case double(Double)
        /// An array of UIDs (`NS.objects`, `NS.keys`): `count` UIDs of `listUIDs` from `start`.
        case uidList(start: Int32, count: Int32)
        /// A position in `otherFieldValues`.
        case other(Int)
    }

    /// Every instance's field keys (numbers into `keyTexts`) and values, object after object.
    var fieldKeys: [Int32] = []
    var fieldValues: [FieldValue] = []
    /// The values of `.other` fields, in the order they were set (a value that a later one
    /// replaced stays here, unreferenced).
    var otherFieldValues: [PropertyListValue] = []
    /// The elements of every `.uidList` field, list after list.
    var listUIDs: [PropertyListUID] = []
    /// Whether no two `.string` entries are equal, nor two `.integer` entries (the archiver
    /// shares strings and numbers by value, an integer's form included), so that the binary
    /// writer need only look up those that may equal another string or integer of the document:
    /// a key, a class name, a fixed string, `$version` or a value inside a field.
    var entriesAreDistinctByValue = false
    var topKeys: [String] = []
    var topValues: [PropertyListValue] = []

    /// Where Apple's archiver inserts `$class` among an object's keys: after the fields (it is
    /// set once the object's `encodeWithCoder:` has returned). Only matters for keys that collide.
    static let classKeyIsInsertedLast = true

    /// A field's value in the table's form; a value that has no form of its own is added to
    /// `otherFieldValues`.
    mutating func fieldValue(_ value: PropertyListValue) -> FieldValue {
        switch value {
        case .uid(let uid): return .uid(uid)
        case .integer(let integer) where !integer.isStoredAs128Bit:
            if let signed = integer.int64Value { return .integer(signed) }
        case .bool(let flag): return .bool(flag)
        case .real(.float64(let double)): return .double(double)
        default: break
        }
        otherFieldValues.append(value)
        return .other(otherFieldValues.count - 1)
    }

    func propertyListValue(_ field: FieldValue) -> PropertyListValue {
        switch field {
        case .uid(let uid): return .uid(uid)
        case .integer(let integer): return .integer(PropertyListInteger(integer))
        case .bool(let flag): return .bool(flag)
        case .double(let double): return .real(.float64(double))
        case .uidList(let start, let count): return .array(listUIDs[Int(start)..<Int(start) + Int(count)].map(PropertyListValue.uid))
        case .other(let position): return otherFieldValues[position]
        }
    }

    // MARK: Key order

    /// Memoized CF hash-table orders: objects of one class almost always have the same keys.
    final class OrderCache {
        var orders: [[ArchiveExactKey]: [Int]] = [:]
        var hashes: [ArchiveExactKey: UInt64] = [:]

        func hash(_ key: String) -> UInt64 {
            let exact = ArchiveExactKey(key)
            if let known = hashes[exact] { return known }
            let value = CFStringHash.hash64(key)
            hashes[exact] = value
            return value
        }

        /// The last key list of each class and its storage order: objects of one class
        /// nearly always repeat it, and comparing it costs less than hashing it.
        var lastByClass: [Int: (keys: [Int32], allKeys: [String], order: [Int])] = [:]

        func order(_ keys: [String], sizing: CFHashTableOrder.Sizing) -> [Int] {
            let signature = keys.map(ArchiveExactKey.init)
            if let known = orders[signature] { return known }
            let computed = CFHashTableOrder.order(hashes: keys.map(hash), sizing: sizing)
            orders[signature] = computed
            return computed
        }
    }

    /// An instance's keys (`$class` last) and their storage order, as positions among its
    /// fields: position `fields.count` stands for `$class`.
    func instanceKeyOrder(_ fields: Range<Int>, classUID: Int, cache: OrderCache) -> (keys: [String], order: [Int]) {
        let numbers = fieldKeys[fields]
        if let last = cache.lastByClass[classUID], last.keys.elementsEqual(numbers) {
            return (last.allKeys, last.order)
        }
        let computed = Self.instanceKeyOrder(numbers.map { keyTexts[Int($0)] }, cache: cache)
        cache.lastByClass[classUID] = (Array(numbers), computed.keys, computed.order)
        return computed
    }

    private static func instanceKeyOrder(_ keys: [String], cache: OrderCache) -> (keys: [String], order: [Int]) {
        var all = keys
        if classKeyIsInsertedLast {
            all.append(ArchiveKeys.classKey)
            return (all, cache.order(all, sizing: .growth))
        }
        all.insert(ArchiveKeys.classKey, at: 0)
        let order = cache.order(all, sizing: .growth).map { $0 == 0 ? keys.count : $0 - 1 }
        return (keys + [ArchiveKeys.classKey], order)
    }

    static func rootKeyOrder(_ era: ArchiveWritingOptions.Era) -> [String] {
        switch era {
        case .current: return [ArchiveKeys.version, ArchiveKeys.archiver, ArchiveKeys.top, ArchiveKeys.objects]
        case .classic: return [ArchiveKeys.version, ArchiveKeys.objects, ArchiveKeys.archiver, ArchiveKeys.top]
        }
    }

    /// A class dictionary of any shape as a property list: `$classname`, then `$classes` and
    /// `$classhints` when the descriptor has them.
    static func classDictionary(_ descriptor: ArchiveGraph.ClassDescriptor) -> PropertyListDictionary {
        var dictionary = PropertyListDictionary()
        dictionary.append(key: ArchiveKeys.className, value: .string(descriptor.name))
        if descriptor.storesClasses {
            dictionary.append(key: ArchiveKeys.classes, value: .array(descriptor.classes.map(PropertyListValue.string)))
        }
        if let hints = descriptor.hints {
            dictionary.append(key: ArchiveKeys.classHints, value: .array(hints.map(PropertyListValue.string)))
        }
        return dictionary
    }

    // MARK: Property-list value (sharing by value)

    func propertyList(era: ArchiveWritingOptions.Era) -> PropertyListValue {
        let cache = OrderCache()
        var objects: [PropertyListValue] = []
        objects.reserveCapacity(entries.count)
        for entry in entries {
            switch entry {
            case .null, .reserved: objects.append(.string(ArchiveKeys.null))
            case .string(let string): objects.append(.string(string))
            case .integer(let integer): objects.append(.integer(integer))
            case .real(let real): objects.append(.real(real))
            case .bool(let flag): objects.append(.bool(flag))
            case .data(let bytes): objects.append(.data(bytes))
            case .instance(let classUID, let fields):
                let (allKeys, order) = instanceKeyOrder(fields, classUID: classUID, cache: cache)
                var dictionary = PropertyListDictionary()
                dictionary.reserveCapacity(allKeys.count)
                for position in order {
                    let value = position == fields.count
                        ? PropertyListValue.uid(PropertyListUID(UInt64(classUID)))
                        : propertyListValue(fieldValues[fields.lowerBound + position])
                    dictionary.append(key: allKeys[position], value: value)
                }
                objects.append(.dictionary(dictionary))
            case .classDescriptor(let name, let classes):
                var dictionary = PropertyListDictionary()
                dictionary.append(key: ArchiveKeys.className, value: .string(name))
                dictionary.append(key: ArchiveKeys.classes, value: .array(classes.map(PropertyListValue.string)))
                objects.append(.dictionary(dictionary))
            case .storedClassDescriptor(let descriptor):
                objects.append(.dictionary(Self.classDictionary(descriptor)))
            }
        }
        var top = PropertyListDictionary()
        for position in cache.order(topKeys, sizing: .growth) {
            top.append(key: topKeys[position], value: topValues[position])
        }
        var root = PropertyListDictionary()
        for key in Self.rootKeyOrder(era) {
            switch key {
            case ArchiveKeys.version: root.append(key: key, value: .integer(PropertyListInteger(ArchiveKeys.formatVersion)))
            case ArchiveKeys.archiver: root.append(key: key, value: .string(archiverName))
            case ArchiveKeys.top: root.append(key: key, value: .dictionary(top))
            default: root.append(key: key, value: .array(objects))
            }
        }
        return .dictionary(root)
    }

    // MARK: Object table imitating Apple's instances

    /// - Throws: ``PropertyListError/Code/depthLimitExceeded`` for inline values nested past
    ///   `maximumDepth` (an archive's objects sit three levels down: root, `$objects`, object).
    func appleDocument(era: ArchiveWritingOptions.Era, maximumDepth: Int = BinaryPropertyListWriter().maximumDepth) throws(PropertyListError) -> BinaryPropertyListDocument {
        var builder = AppleInstanceBuilder(maximumDepth: maximumDepth)
        let cache = OrderCache()
        let versionKey = builder.constant(ArchiveKeys.version)
        let archiverKey = builder.constant(ArchiveKeys.archiver)
        let topKey = builder.constant(ArchiveKeys.top)
        let objectsKey = builder.constant(ArchiveKeys.objects)
        let versionValue = builder.fresh(.integer(PropertyListInteger(ArchiveKeys.formatVersion)))
        let archiverValue = builder.fresh(.string(archiverName))

        var objectNumbers: [Int] = []
        objectNumbers.reserveCapacity(entries.count)
        for entry in entries {
            switch entry {
            case .null, .reserved: objectNumbers.append(builder.fresh(.string(ArchiveKeys.null)))
            case .string(let string): objectNumbers.append(builder.fresh(.string(string)))
            case .integer(let integer): objectNumbers.append(try builder.number(.integer(integer)))
            case .real(let real): objectNumbers.append(try builder.number(.real(real)))
            case .bool(let flag): objectNumbers.append(builder.bool(flag))
            case .data(let bytes): objectNumbers.append(builder.fresh(.data(bytes)))
            case .instance(let classUID, let fields):
                let (allKeys, order) = instanceKeyOrder(fields, classUID: classUID, cache: cache)
                var keyNumbers: [Int] = []
                var valueNumbers: [Int] = []
                keyNumbers.reserveCapacity(order.count)
                valueNumbers.reserveCapacity(order.count)
                for position in order {
                    keyNumbers.append(builder.constant(allKeys[position]))
                    if position == fields.count {
                        valueNumbers.append(builder.uid(UInt64(classUID)))
                    } else {
                        valueNumbers.append(try builder.value(propertyListValue(fieldValues[fields.lowerBound + position]), depth: 3))
                    }
                }
                objectNumbers.append(builder.fresh(.dictionary(keys: keyNumbers, values: valueNumbers)))
            case .classDescriptor(let name, let classes):
                let keys = [builder.constant(ArchiveKeys.className), builder.constant(ArchiveKeys.classes)]
                let nameObject = builder.className(name)
                var chain: [Int] = []
                for (position, className) in classes.enumerated() {
                    if position == 0 && className.isExactlyEqual(to: name) && AppleInstanceBuilder.sharesClassName(name) {
                        chain.append(nameObject)
                    } else {
                        chain.append(builder.className(className))
                    }
                }
                let names = builder.fresh(.array(chain))
                objectNumbers.append(builder.fresh(.dictionary(keys: keys, values: [nameObject, names])))
            case .storedClassDescriptor(let descriptor):
                var keys = [builder.constant(ArchiveKeys.className)]
                var values = [builder.className(descriptor.name)]
                if descriptor.storesClasses {
                    keys.append(builder.constant(ArchiveKeys.classes))
                    values.append(builder.fresh(.array(descriptor.classes.map { builder.className($0) })))
                }
                if let hints = descriptor.hints {
                    keys.append(builder.constant(ArchiveKeys.classHints))
                    values.append(builder.fresh(.array(hints.map { builder.className($0) })))
                }
                objectNumbers.append(builder.fresh(.dictionary(keys: keys, values: values)))
            }
        }
        let objectsArray = builder.fresh(.array(objectNumbers))
        var topKeyNumbers: [Int] = []
        var topValueNumbers: [Int] = []
        for position in cache.order(topKeys, sizing: .growth) {
            topKeyNumbers.append(builder.constant(topKeys[position]))
            topValueNumbers.append(try builder.value(topValues[position], depth: 2))
        }
        let topDictionary = builder.fresh(.dictionary(keys: topKeyNumbers, values: topValueNumbers))
        var rootKeys: [Int] = []
        var rootValues: [Int] = []
        for key in Self.rootKeyOrder(era) {
            switch key {
            case ArchiveKeys.version: rootKeys.append(versionKey); rootValues.append(versionValue)
            case ArchiveKeys.archiver: rootKeys.append(archiverKey); rootValues.append(archiverValue)
            case ArchiveKeys.top: rootKeys.append(topKey); rootValues.append(topDictionary)
            default: rootKeys.append(objectsKey); rootValues.append(objectsArray)
            }
        }
        let root = builder.fresh(.dictionary(keys: rootKeys, values: rootValues))
        return BinaryPropertyListDocument(objects: builder.objects, topObject: root)
    }
}

/// What a writer worked out for an instance's key list (its storage order, its keys' objects),
/// remembered per class: objects of one class nearly always repeat one of a few key lists.
struct InstanceLayoutCache<Layout> {
    private var first: [Int32]
    private var layouts: [(keys: [Int32], layout: Layout, next: Int32)] = []

    init(classCount: Int) {
        first = [Int32](repeating: -1, count: max(classCount, 0))
    }

    func layout(classUID: Int, keys: ArraySlice<Int32>) -> Layout? {
        guard classUID >= 0, classUID < first.count else { return nil }
        var candidate = Int(first[classUID])
        while candidate >= 0 {
            if layouts[candidate].keys.elementsEqual(keys) { return layouts[candidate].layout }
            candidate = Int(layouts[candidate].next)
        }
        return nil
    }

    mutating func insert(_ layout: Layout, classUID: Int, keys: ArraySlice<Int32>) {
        guard classUID >= 0, classUID < first.count, let index = Int32(exactly: layouts.count) else { return }
        layouts.append((Array(keys), layout, first[classUID]))
        first[classUID] = index
    }
}

/// Decides which values of a new archive are one instance, as Apple's archiver would hold them
/// (format-notes §1.2 and §4): constant key strings and class names once per value, one UID
/// object per target, the two boolean singletons, small numbers once per value (tagged
/// pointers), everything else a new instance.
private struct AppleInstanceBuilder {
    let maximumDepth: Int
    var objects: [BinaryPropertyListDocument.Object] = []
    private var constants: [ArchiveExactKey: Int] = [:]
    private var classNames: [ArchiveExactKey: Int] = [:]
    /// By the full 64-bit target: a hand-made field (`encodeRaw`) may hold any UID.
    private var uids: [UInt64: Int] = [:]
    private var numbers: [PropertyListValue: Int] = [:]
    private var trueObject: Int?
    private var falseObject: Int?

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    mutating func fresh(_ object: BinaryPropertyListDocument.Object) -> Int {
        objects.append(object)
        return objects.count - 1
    }

    mutating func constant(_ string: String) -> Int {
        let key = ArchiveExactKey(string)
        if let known = constants[key] { return known }
        let number = fresh(.string(string))
        constants[key] = number
        return number
    }

    /// Class names that Apple's archiver holds as one instance wherever they appear in class
    /// dictionaries (`$classname`, `$classes[0]`, a superclass entry). Measured on the corpus:
    /// Foundation's toll-free-bridged and other core classes always share (NSArray 51/51,
    /// NSDictionary 51/51, NSMutableData 50/51, …); other classes — Foundation's own less
    /// common ones and every app class seen but one — write a new string at each place
    /// (NSIndexPath 0/21, NSIndexSet 0/7, DVTDocumentLocation 0/35, …).
    static let sharedClassNames: Set<String> = [
        "NSObject", "NSArray", "NSMutableArray", "NSDictionary", "NSMutableDictionary", "NSSet", "NSMutableSet",
        "NSString", "NSMutableString", "NSData", "NSMutableData", "NSDate", "NSURL", "NSUUID", "NSNull", "NSValue",
        "NSNumber", "NSColor", "NSFont", "NSLocale", "NSParagraphStyle", "NSUnit",
    ]

    static func sharesClassName(_ name: String) -> Bool {
        sharedClassNames.contains(name)
    }

    mutating func className(_ string: String) -> Int {
        guard Self.sharesClassName(string) else { return fresh(.string(string)) }
        let key = ArchiveExactKey(string)
        if let known = classNames[key] { return known }
        let number = fresh(.string(string))
        classNames[key] = number
        return number
    }

    mutating func uid(_ target: UInt64) -> Int {
        if let known = uids[target] { return known }
        let number = fresh(.uid(PropertyListUID(target)))
        uids[target] = number
        return number
    }

    mutating func bool(_ flag: Bool) -> Int {
        if flag {
            if let trueObject { return trueObject }
            let number = fresh(.bool(true))
            trueObject = number
            return number
        }
        if let falseObject { return falseObject }
        let number = fresh(.bool(false))
        falseObject = number
        return number
    }

    /// Numbers that fit a tagged pointer on a 64-bit Mac are one instance per value and type.
    mutating func number(_ value: PropertyListValue) throws(PropertyListError) -> Int {
        let object: BinaryPropertyListDocument.Object
        var tagged = false
        switch value {
        case .integer(let integer):
            object = .integer(integer)
            if let signed = integer.int64Value, !integer.isStoredAs128Bit, signed >= -(1 << 55), signed < (1 << 55) { tagged = true }
        case .real(let real):
            object = .real(real)
            tagged = true
        default:
            return try self.value(value, depth: 0)
        }
        guard tagged else { return fresh(object) }
        if let known = numbers[value] { return known }
        let number = fresh(object)
        numbers[value] = number
        return number
    }

    /// An inline field value at nesting `depth`. A caller's raw value (`encodeRaw`) can nest
    /// arbitrarily, so the depth is checked here, before the recursion could exhaust the stack.
    mutating func value(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        switch value {
        case .uid(let uid): return self.uid(uid.value)
        case .bool(let flag): return bool(flag)
        case .integer, .real: return try number(value)
        case .string(let string): return fresh(.string(string))
        case .data(let bytes): return fresh(.data(bytes))
        case .date(let date): return fresh(.date(date))
        case .array(let elements), .set(let elements):
            try checkDepth(depth)
            var numbers: [Int] = []
            numbers.reserveCapacity(elements.count)
            for element in elements { numbers.append(try self.value(element, depth: depth &+ 1)) }
            if case .set = value { return fresh(.set(numbers)) }
            return fresh(.array(numbers))
        case .dictionary(let dictionary):
            try checkDepth(depth)
            let keys = dictionary.entries.map { constant($0.key) }
            var values: [Int] = []
            values.reserveCapacity(dictionary.count)
            for entry in dictionary.entries { values.append(try self.value(entry.value, depth: depth &+ 1)) }
            return fresh(.dictionary(keys: keys, values: values))
        }
    }

    private func checkDepth(_ depth: Int) throws(PropertyListError) {
        try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
    }
}
