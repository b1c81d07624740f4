/// A property-list dictionary that keeps its entries in file order.
///
/// Order matters twice over: Apple's binary writer stores keys in its hash-table order, and a
/// byte-exact rewrite must reproduce it; and readers diffing two archives want to see what the
/// file says. Duplicate keys (possible in a hand-made binary file) are kept as entries; lookup
/// returns the last one, which is what Core Foundation's readers do.
public struct PropertyListDictionary: Hashable, Sendable, RandomAccessCollection {
    /// One key and its value, at its position in the dictionary.
    public struct Entry: Hashable, Sendable {
        /// The entry's key.
        public var key: String
        /// The entry's value.
        public var value: PropertyListValue

        /// An entry of `key` and `value`.
        public init(key: String, value: PropertyListValue) {
            self.key = key
            self.value = value
        }

        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.key.isExactlyEqual(to: rhs.key) && lhs.value == rhs.value
        }
    }

    /// The entries in file order, duplicate keys included.
    public private(set) var entries: [Entry]

    /// Large dictionaries get a hash index so that lookups stay O(1); small ones scan, which is
    /// faster than hashing for the handful of keys an archived object has.
    private var index: [ExactString: Int]?
    private static let indexThreshold = 24

    /// An empty dictionary.
    public init() {
        entries = []
        index = nil
    }

    /// A dictionary of `entries`, in that order (duplicate keys are kept).
    public init(entries: [Entry]) {
        self.entries = entries
        rebuildIndexIfNeeded()
    }

    /// A dictionary of `pairs`, in the order written, e.g. `PropertyListDictionary(["name": "Ada", "age": 36])`.
    public init(_ pairs: KeyValuePairs<String, PropertyListValue>) {
        self.init(entries: pairs.map { Entry(key: $0.key, value: $0.value) })
    }

    /// A dictionary of the key–value pairs of `pairs`, in sequence order.
    public init<S: Sequence>(pairs: S) where S.Element == (String, PropertyListValue) {
        self.init(entries: pairs.map { Entry(key: $0.0, value: $0.1) })
    }

    private mutating func rebuildIndexIfNeeded() {
        guard entries.count >= Self.indexThreshold else {
            index = nil
            return
        }
        var built = [ExactString: Int](minimumCapacity: entries.count)
        for (position, entry) in entries.enumerated() {
            built[ExactString(entry.key)] = position
        }
        index = built
    }

    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(position: Int) -> Entry { entries[position] }

    /// The keys in entry order (a duplicated key appears once per entry).
    public var keys: [String] { entries.map(\.key) }
    /// The values in entry order.
    public var values: [PropertyListValue] { entries.map(\.value) }

    /// Position of the entry that lookup by `key` returns (the last one with that key).
    public func position(of key: String) -> Int? {
        if let index { return index[ExactString(key)] }
        var position = entries.count
        while position > 0 {
            position -= 1
            if entries[position].key.isExactlyEqual(to: key) { return position }
        }
        return nil
    }

    /// The value for `key`. Setting replaces the value in place (keeping the key's position) or
    /// appends a new entry; setting nil removes every entry with that key.
    public subscript(key: String) -> PropertyListValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return entries[position].value
        }
        set {
            if let newValue {
                if let position = position(of: key) {
                    entries[position].value = newValue
                } else {
                    entries.append(Entry(key: key, value: newValue))
                    if index != nil {
                        index?[ExactString(key)] = entries.count - 1
                    } else if entries.count >= Self.indexThreshold {
                        rebuildIndexIfNeeded()
                    }
                }
            } else {
                entries.removeAll { $0.key.isExactlyEqual(to: key) }
                rebuildIndexIfNeeded()
            }
        }
    }

    /// Appends an entry without looking for an existing key (used by readers, which must keep
    /// duplicates to stay lossless).
    public mutating func append(key: String, value: PropertyListValue) {
        entries.append(Entry(key: key, value: value))
        if index != nil {
            index?[ExactString(key)] = entries.count - 1
        } else if entries.count >= Self.indexThreshold {
            rebuildIndexIfNeeded()
        }
    }

    /// The first key that appears more than once, with how many times it appears; nil when
    /// every key is distinct. Only a hand-made binary file can hold a key twice, and readers
    /// then disagree on which one counts (Core Foundation's binary reader keeps the first, its
    /// XML reader the last), so a consumer that must mean what Apple means refuses such a
    /// dictionary. Linear in the number of entries.
    public func firstDuplicateKey() -> (key: String, occurrences: Int)? {
        guard entries.count > 1 else { return nil }
        var duplicated: String?
        if entries.count <= 8 {
            // The few keys of an archived object: comparing pairs beats hashing, and comparing
            // their UTF-8 lengths (taken once each) rules out almost every pair before the bytes.
            duplicated = withUnsafeTemporaryAllocation(of: Int.self, capacity: entries.count) { lengths -> String? in
                for position in entries.indices { lengths[position] = entries[position].key.utf8.count }
                for later in 1..<entries.count {
                    for earlier in 0..<later where lengths[earlier] == lengths[later]
                        && entries[earlier].key.isExactlyEqual(to: entries[later].key) {
                        return entries[earlier].key
                    }
                }
                return nil
            }
        } else {
            var seen = Set<ExactString>(minimumCapacity: entries.count)
            for entry in entries where !seen.insert(ExactString(entry.key)).inserted {
                duplicated = entry.key
                break
            }
        }
        guard let key = duplicated else { return nil }
        var occurrences = 0
        for entry in entries where entry.key.isExactlyEqual(to: key) { occurrences += 1 }
        return (key, occurrences)
    }

    /// Replaces one entry in place; the index is rebuilt if the key changed.
    mutating func replaceEntry(at position: Int, with entry: Entry) {
        let keyChanged = !entries[position].key.isExactlyEqual(to: entry.key)
        entries[position] = entry
        if keyChanged { rebuildIndexIfNeeded() }
    }

    /// Reserves room for `count` entries, for a caller that knows how many it will append.
    public mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
    }

    // Equality and hashing are by entries in order; the index is derived state.
    public static func == (lhs: PropertyListDictionary, rhs: PropertyListDictionary) -> Bool {
        lhs.entries == rhs.entries
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries)
    }
}

extension PropertyListDictionary: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self.init(pairs: elements)
    }
}
