import PropertyList

/// Where typed decoding reads `$objects` from: a validated ``ArchiveGraph``, or a binary archive
/// read in place (``BinaryArchiveTable``), which skips building the value tree and the graph.
/// Both answer the same questions with the same values, so decoding does not depend on which.
enum ArchiveObjectStore {
    case graph(ArchiveGraph)
    case binary(BinaryArchiveTable)

    var count: Int {
        switch self {
        case .graph(let graph): return graph.objects.count
        case .binary(let table): return table.count
        }
    }

    /// The entry at a UID already checked to be in range.
    @inline(__always)
    func object(_ uid: Int) -> ArchiveObjectView {
        switch self {
        case .graph(let graph):
            return ArchiveObjectView(graph.objects[uid])
        case .binary(let table):
            let entry = table.entries[uid]
            switch entry.kind {
            case .null: return .null
            case .instance:
                return .instance(ArchiveInstanceView(classUID: Int(entry.link), fields: ArchiveFields(table: table, dictionary: .init(object: entry.object, layout: entry.layout))))
            case .classDescriptor: return .classDescriptor(table.descriptors[Int(entry.link)])
            case .string, .integer, .real, .bool, .data, .date:
                switch table.value(ofObject: Int(entry.object)) {
                case .string(let string): return .string(string)
                case .integer(let integer): return .integer(integer)
                case .real(let real): return .real(real)
                case .bool(let flag): return .bool(flag)
                case .data(let bytes): return .data(bytes)
                case .date(let date): return .date(date)
                case let value: return .other(value)
                }
            }
        }
    }

    /// The instance at `uid` with its class dictionary; nil for anything else.
    @inline(__always)
    func instance(_ uid: Int) -> (instance: ArchiveInstanceView, descriptor: ArchiveGraph.ClassDescriptor)? {
        switch self {
        case .graph(let graph):
            guard case .instance(let instance) = graph.objects[uid],
                  case .classDescriptor(let descriptor) = graph.objects[Int(truncatingIfNeeded: instance.classUID.value)] else { return nil }
            return (ArchiveInstanceView(classUID: Int(truncatingIfNeeded: instance.classUID.value), fields: ArchiveFields(instance.storage)), descriptor)
        case .binary(let table):
            return table.instance(uid)
        }
    }

    /// The UID of the class dictionary of the instance at `uid`, without making its view.
    @inline(__always)
    func instanceClassUID(_ uid: Int) -> Int? {
        switch self {
        case .graph(let graph):
            guard case .instance(let instance) = graph.objects[uid] else { return nil }
            return Int(truncatingIfNeeded: instance.classUID.value)
        case .binary(let table):
            let entry = table.entries[uid]
            return entry.kind == .instance ? Int(entry.link) : nil
        }
    }

    /// The class dictionary of the instance at `uid`.
    func classDescriptor(of uid: Int) -> ArchiveGraph.ClassDescriptor? {
        instance(uid)?.descriptor
    }

    /// "an object of class X", "a string", …: for "expected …, found …" messages.
    func describe(_ uid: Int) -> String {
        let view = object(uid)
        if case .instance = view { return "an object of class \(classDescriptor(of: uid)?.name.excerptForMessage(128) ?? "?")" }
        return view.kindDescription
    }
}

extension BinaryArchiveTable {
    /// The instance at `uid` with its class dictionary; nil for anything else.
    @inline(__always)
    func instance(_ uid: Int) -> (instance: ArchiveInstanceView, descriptor: ArchiveGraph.ClassDescriptor)? {
        let entry = entries[uid]
        guard entry.kind == .instance else { return nil }
        let classEntry = entries[Int(entry.link)]
        guard classEntry.kind == .classDescriptor else { return nil }
        return (ArchiveInstanceView(classUID: Int(entry.link), fields: ArchiveFields(table: self, dictionary: .init(object: entry.object, layout: entry.layout))),
                descriptors[Int(classEntry.link)])
    }
}

/// One `$objects` entry as typed decoding sees it.
enum ArchiveObjectView {
    case null
    case string(String)
    case integer(PropertyListInteger)
    case real(PropertyListReal)
    case bool(Bool)
    case data([UInt8])
    case date(PropertyListDate)
    case instance(ArchiveInstanceView)
    case classDescriptor(ArchiveGraph.ClassDescriptor)
    case other(PropertyListValue)

    /// A graph's entry as typed decoding sees it.
    init(_ object: ArchiveGraph.Object) {
        switch object {
        case .null: self = .null
        case .string(let string): self = .string(string)
        case .integer(let integer): self = .integer(integer)
        case .real(let real): self = .real(real)
        case .bool(let flag): self = .bool(flag)
        case .data(let bytes): self = .data(bytes)
        case .date(let date): self = .date(date)
        case .instance(let instance):
            self = .instance(ArchiveInstanceView(classUID: Int(truncatingIfNeeded: instance.classUID.value), fields: ArchiveFields(instance.storage)))
        case .classDescriptor(let descriptor): self = .classDescriptor(descriptor)
        case .other(let value): self = .other(value)
        }
    }

    /// "a string", "an object", …: what the entry is, for messages.
    var kindDescription: String {
        switch self {
        case .null: return "$null"
        case .string: return "a string"
        case .integer: return "an integer"
        case .real: return "a real"
        case .bool: return "a boolean"
        case .data: return "data"
        case .date: return "a date"
        case .instance: return "an object"
        case .classDescriptor: return "a class dictionary"
        case .other(let value): return "a plain \(value.kindName)"
        }
    }
}

/// An object with a class: the UID of its class dictionary and its stored fields.
@usableFromInline
struct ArchiveInstanceView {
    let classUID: Int
    let fields: ArchiveFields

    func value(forStoredKey storedKey: String) -> PropertyListValue? {
        fields[storedKey]
    }
}

/// The stored fields of one object (or of `$top`), keys as the file spells them.
struct ArchiveFields {
    private enum Storage {
        case tree(PropertyListDictionary)
        case binary(BinaryArchiveTable, dictionary: BinaryArchiveTable.FieldDictionary)
    }
    private let storage: Storage

    init(_ dictionary: PropertyListDictionary) {
        storage = .tree(dictionary)
    }

    init(table: BinaryArchiveTable, dictionary: BinaryArchiveTable.FieldDictionary) {
        storage = .binary(table, dictionary: dictionary)
    }

    /// The binary dictionary the fields are read from; nil for a tree.
    var binaryDictionary: BinaryArchiveTable.FieldDictionary? {
        if case .binary(_, let dictionary) = storage { return dictionary }
        return nil
    }

    /// The value under a stored key (the last one, should the key repeat).
    @inline(__always)
    subscript(storedKey: String) -> PropertyListValue? {
        switch storage {
        case .tree(let dictionary): return dictionary[storedKey]
        case .binary(let table, let dictionary): return table.field(storedKey, inDictionary: dictionary)
        }
    }

    /// The references of an array of UIDs under a stored key, read from the bytes as they are
    /// used; nil when absent, anything else, or already made (the caller then reads the value).
    func references(forStoredKey storedKey: String) -> ArchiveReferenceList? {
        switch storage {
        case .tree:
            // The value is already made: the caller's general path reads it.
            return nil
        case .binary(let table, let dictionary):
            guard let (payload, count) = table.referenceArray(storedKey, inDictionary: dictionary) else { return nil }
            return ArchiveReferenceList(table: table, payload: payload, count: count)
        }
    }

    /// The stored keys in file order.
    var storedKeys: [String] {
        switch storage {
        case .tree(let dictionary): return dictionary.keys
        case .binary(let table, let dictionary): return table.pairs(ofDictionary: Int(dictionary.object)).map { table.string(ofObject: $0.key) }
        }
    }

    /// The fields as a dictionary, in file order.
    var dictionary: PropertyListDictionary {
        switch storage {
        case .tree(let dictionary): return dictionary
        case .binary(let table, let dictionary):
            return PropertyListDictionary(entries: table.pairs(ofDictionary: Int(dictionary.object)).map {
                PropertyListDictionary.Entry(key: table.string(ofObject: $0.key), value: table.value(ofObject: $0.value))
            })
        }
    }

    /// The first key stored more than once and how often, as
    /// ``PropertyListDictionary/firstDuplicateKey()`` reports it.
    func firstDuplicateKey() -> (key: String, occurrences: Int)? {
        switch storage {
        case .tree(let dictionary):
            return dictionary.firstDuplicateKey()
        case .binary:
            // The binary table admits only objects whose keys are all distinct.
            return nil
        }
    }
}

/// The references of a collection (`NS.objects`, `NS.keys`). From a binary table they are read
/// from the bytes when asked for, so that decoding a collection allocates no list of them.
@usableFromInline
struct ArchiveReferenceList {
    private let array: [ArchiveReference]
    private let table: BinaryArchiveTable?
    private let payload: Int
    @usableFromInline let count: Int

    init(_ array: [ArchiveReference]) {
        self.array = array
        table = nil
        payload = 0
        count = array.count
    }

    /// An array whose elements `table.referenceArray` checked to be UIDs.
    init(table: BinaryArchiveTable, payload: Int, count: Int) {
        array = []
        self.table = table
        self.payload = payload
        self.count = count
    }

    @usableFromInline
    subscript(position: Int) -> ArchiveReference {
        assert(position >= 0 && position < count)
        if let table { return table.reference(inArrayAt: payload, position: position) }
        return array[position]
    }
}
