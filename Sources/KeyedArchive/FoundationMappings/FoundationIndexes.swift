#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// NSIndexPath, NSIndexSet and NSOrderedSet, in the shapes Foundation on macOS writes them
// (the macOS 10.14 archives of swift-corelibs-foundation's test fixtures, rebuilt byte for byte
// by `FoundationIndexMappingTests`):
//
// - NSIndexPath: `NSIndexPathLength`; one index as the integer `NSIndexPathValue`, more as
//   `NSIndexPathData`, an `NSMutableData` of the indexes as unsigned LEB128 numbers.
// - NSIndexSet / NSMutableIndexSet: `NSRangeCount`; one range as `NSLocation` and `NSLength`,
//   more as `NSRangeData`, an `NSMutableData` of location–length pairs in the same numbers.
// - NSOrderedSet / NSMutableOrderedSet: the elements under `NS.object.0`, `NS.object.1`, ….

/// Unsigned LEB128: seven bits per byte, least significant group first, the high bit set on
/// every byte but the last. Foundation packs index paths and index sets this way.
enum PackedIndexes {
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: rest))
    }

    enum Number {
        case value(UInt64, next: Int)
        /// The bytes end inside the number.
        case truncated
        /// More than 64 bits.
        case tooLarge
    }

    /// The number starting at `position`.
    static func read(_ bytes: [UInt8], at position: Int) -> Number {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var index = position
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            let group = UInt64(byte & 0x7F)
            // The tenth byte holds bit 63 only.
            guard shift < 63 || (shift == 63 && group <= 1) else { return .tooLarge }
            value |= group << shift
            if byte & 0x80 == 0 { return .value(value, next: index) }
            shift += 7
        }
        return .truncated
    }

    /// Exactly `count` numbers filling `bytes`, or a description of what is wrong with them.
    static func readAll(_ bytes: [UInt8], count: Int) -> Result<[UInt64], Fault> {
        // Each number takes at least one byte: a count the bytes cannot hold is refused before
        // anything is allocated for it.
        guard count <= bytes.count else { return .failure(.countBeyondBytes(expected: count, byteCount: bytes.count)) }
        var values: [UInt64] = []
        values.reserveCapacity(count)
        var position = 0
        while values.count < count {
            switch read(bytes, at: position) {
            case .value(let value, let next):
                values.append(value)
                position = next
            case .truncated:
                return .failure(.tooFewBytes(expected: count, found: values.count, byteCount: bytes.count))
            case .tooLarge:
                return .failure(.overlong(offset: position))
            }
        }
        guard position == bytes.count else { return .failure(.trailingBytes(offset: position, byteCount: bytes.count)) }
        return .success(values)
    }

    enum Fault: Error {
        case countBeyondBytes(expected: Int, byteCount: Int)
        case tooFewBytes(expected: Int, found: Int, byteCount: Int)
        case overlong(offset: Int)
        case trailingBytes(offset: Int, byteCount: Int)

        /// What is wrong, for the field `key` whose count asked for `expected` numbers.
        func message(key: String, countKey: String) -> String {
            switch self {
            case .countBeyondBytes(let expected, let byteCount):
                return "\(countKey) asks for \(expected) numbers, but \(key) has \(byteCount) bytes (at least one per number)"
            case .tooFewBytes(let expected, let found, let byteCount):
                return "\(key) ends after \(found) of the \(expected) numbers \(countKey) asks for (\(byteCount) bytes)"
            case .overlong(let offset):
                return "\(key) has a number at byte \(offset) that does not fit 64 bits"
            case .trailingBytes(let offset, let byteCount):
                return "\(key) has \(byteCount - offset) bytes after the numbers \(countKey) asks for (from byte \(offset))"
            }
        }
    }
}

/// `NSMutableData` with its bytes under `NS.data`: how Foundation stores the packed indexes.
private struct PackedIndexData: ArchiveObjectEncodable {
    let bytes: [UInt8]

    func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: FoundationClass.data.archivedChain) { fields in
            try fields.encodeBytes(bytes, forKey: "NS.data")
        }
    }
}

extension ArchiveDecodingSession {
    /// A decoder of the fields of the Foundation object of `kind` at `uid` (its class admitted
    /// by ``foundationInstance(_:kind:requested:)``); a type mismatch when the entry is a plain value.
    func foundationFields(_ uid: Int, kind: FoundationClass, requested: @autoclosure () -> String) throws(ArchiveError) -> KeyedArchiveDecoder {
        guard let instance = try foundationInstance(uid, kind: kind, requested: requested()) else {
            throw error(.typeMismatch, "expected an \(kind.defaultNames.first ?? kind.rawValue) for \(requested()), found \(describe(uid))", uid: uid)
        }
        return KeyedArchiveDecoder(session: self, uid: uid, fields: instance.fields, classChain: [])
    }
}

// MARK: IndexPath

extension IndexPath: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        let indexes = Array(self)
        return try encoder.encodeObject(classes: FoundationClass.indexPath.archivedChain) { fields in
            try fields.encode(indexes.count, forKey: "NSIndexPathLength")
            if indexes.count == 1 {
                try fields.encode(indexes[0], forKey: "NSIndexPathValue")
            } else if indexes.count > 1 {
                var bytes: [UInt8] = []
                // NSIndexPath holds NSUIntegers: a negative Swift index is its bit pattern.
                for index in indexes { PackedIndexes.append(UInt64(UInt(bitPattern: index)), to: &bytes) }
                try fields.encode(PackedIndexData(bytes: bytes), forKey: "NSIndexPathData")
            }
        }
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> IndexPath {
        let session = decoder.session
        let uid = try session.index(reference)
        let fields = try session.foundationFields(uid, kind: .indexPath, requested: "IndexPath")
        // Through decodeContainer, so that an index path referenced many times is read once
        // and handed out again (its storage shared), not read — and allocated — per reference.
        return try session.decodeContainer(IndexPath.self, uid: uid, count: 0) { () throws(ArchiveError) in
            let length = try fields.decode(Int.self, forKey: "NSIndexPathLength")
            switch length {
            case 0:
                return IndexPath()
            case 1:
                try session.chargeElements(1, uid: uid)
                return IndexPath(index: try fields.decode(Int.self, forKey: "NSIndexPathValue"))
            case 2...:
                // Foundation writes an NSMutableData object; inline bytes are read too.
                let bytes = try fields.decodeBytes(forKey: "NSIndexPathData")
                switch PackedIndexes.readAll(bytes, count: length) {
                case .success(let values):
                    try session.chargeElements(values.count, uid: uid)
                    return IndexPath(indexes: values.map { Int(bitPattern: UInt(truncatingIfNeeded: $0)) })
                case .failure(let fault):
                    throw fields.error(.valueOutOfRange, fault.message(key: "NSIndexPathData", countKey: "NSIndexPathLength"), key: "NSIndexPathData")
                }
            default:
                throw fields.error(.valueOutOfRange, "NSIndexPathLength is \(length), a length cannot be negative", key: "NSIndexPathLength")
            }
        }
    }
}

// MARK: NSIndexSet

/// A set of non-negative integers kept as sorted, separate ranges: `NSIndexSet` (or, with
/// ``archivesAsMutable``, `NSMutableIndexSet`). The Foundation overlay's `IndexSet` is not part
/// of FoundationEssentials, so this is the package's own form; where Foundation is imported,
/// `IndexSet` and this convert through ``ranges`` in a line each.
///
/// Two sets are equal when they hold the same integers, as `NSIndexSet`s are, whichever class
/// each is archived as.
public struct ArchiveIndexSet: Hashable, Sendable {
    /// Sorted, non-empty, neither overlapping nor touching: the canonical form, as
    /// NSIndexSet keeps it (adding `0..<5` and `5..<10` leaves one range `0..<10`).
    public private(set) var ranges: [Range<Int>] = []
    /// Whether the set is archived as `NSMutableIndexSet` rather than `NSIndexSet`; decoding
    /// sets it from the archived class. Not part of equality.
    public var archivesAsMutable: Bool

    /// An empty set, archived as `NSMutableIndexSet` when `archivesAsMutable` is true.
    public init(archivesAsMutable: Bool = false) {
        self.archivesAsMutable = archivesAsMutable
    }

    /// The union of `ranges`, in any order.
    /// - Precondition: no range has a negative lower bound (NSIndexSet holds non-negative integers).
    public init(ranges: some Sequence<Range<Int>>, archivesAsMutable: Bool = false) {
        self.archivesAsMutable = archivesAsMutable
        let given = Array(ranges)
        for range in given { precondition(range.lowerBound >= 0, "NSIndexSet holds non-negative integers") }
        self.ranges = Self.canonical(given)
    }

    /// The set of `integers`.
    /// - Precondition: none is negative or `Int.max` (NSIndexSet's largest index is `Int.max - 1`).
    public init(integers: some Sequence<Int>, archivesAsMutable: Bool = false) {
        self.init(ranges: integers.map { integer -> Range<Int> in
            precondition(integer < Int.max, "NSIndexSet's largest index is Int.max - 1")
            return integer..<(integer + 1)
        }, archivesAsMutable: archivesAsMutable)
    }

    /// How many integers the set holds (at most `Int.max`: the ranges are disjoint and lie in
    /// `0..<Int.max`).
    public var count: Int { ranges.reduce(0) { $0 + $1.count } }

    /// Whether the set holds no integer.
    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether the set holds `integer`, by binary search over the ranges.
    public func contains(_ integer: Int) -> Bool {
        let position = firstRange(endingAfter: integer)
        return position < ranges.count && ranges[position].contains(integer)
    }

    /// Adds the integers of `range`, merging it with the ranges it overlaps or touches. Linear
    /// in the number of ranges; ``init(ranges:archivesAsMutable:)`` builds a set from many at once.
    /// - Precondition: `range.lowerBound >= 0`.
    public mutating func insert(contentsOf range: Range<Int>) {
        precondition(range.lowerBound >= 0, "NSIndexSet holds non-negative integers")
        guard !range.isEmpty else { return }
        // Every range from the first that ends at or after the new one's start (so touching it)
        // to the last that starts at or before its end merges with it.
        let first = firstRange(endingAfter: range.lowerBound - 1)
        var last = first
        var merged = range
        while last < ranges.count, ranges[last].lowerBound <= range.upperBound {
            merged = Swift.min(merged.lowerBound, ranges[last].lowerBound)..<Swift.max(merged.upperBound, ranges[last].upperBound)
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: [merged])
    }

    /// The position of the first range whose upper bound is above `integer`.
    private func firstRange(endingAfter integer: Int) -> Int {
        var low = 0, high = ranges.count
        while low < high {
            let middle = low + (high - low) / 2
            if ranges[middle].upperBound <= integer { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// `ranges` sorted, without empty ones, overlapping and touching ones merged: in one pass
    /// when they come sorted and apart (as Foundation writes them), else after a sort.
    private static func canonical(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var given = ranges.filter { !$0.isEmpty }
        if !zip(given, given.dropFirst()).allSatisfy({ $0.upperBound < $1.lowerBound }) {
            given.sort { $0.lowerBound < $1.lowerBound }
        }
        var result: [Range<Int>] = []
        result.reserveCapacity(given.count)
        for range in given {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<Swift.max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.ranges == rhs.ranges }

    public func hash(into hasher: inout Hasher) { hasher.combine(ranges) }

    /// The `$classes` of an `NSIndexSet`.
    public static var indexSetClasses: [String] { FoundationClass.indexSet.archivedChain }
    /// The `$classes` of an `NSMutableIndexSet`.
    public static let mutableIndexSetClasses = ["NSMutableIndexSet", "NSIndexSet", "NSObject"]
}

extension ArchiveIndexSet: Sequence, CustomStringConvertible {
    /// The integers, in ascending order.
    public func makeIterator() -> FlattenSequence<[Range<Int>]>.Iterator {
        ranges.joined().makeIterator()
    }

    public var underestimatedCount: Int { count }

    /// The ranges, as NSIndexSet prints them: `[0..<3, 10..<12]`.
    public var description: String { "[" + ranges.map { "\($0.lowerBound)..<\($0.upperBound)" }.joined(separator: ", ") + "]" }
}

extension ArchiveIndexSet: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: archivesAsMutable ? Self.mutableIndexSetClasses : Self.indexSetClasses) { fields in
            try fields.encode(ranges.count, forKey: "NSRangeCount")
            if ranges.count == 1 {
                try fields.encode(ranges[0].lowerBound, forKey: "NSLocation")
                try fields.encode(ranges[0].count, forKey: "NSLength")
            } else if ranges.count > 1 {
                var bytes: [UInt8] = []
                for range in ranges {
                    PackedIndexes.append(UInt64(range.lowerBound), to: &bytes)
                    PackedIndexes.append(UInt64(range.count), to: &bytes)
                }
                try fields.encode(PackedIndexData(bytes: bytes), forKey: "NSRangeData")
            }
        }
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveIndexSet {
        let session = decoder.session
        let uid = try session.index(reference)
        let fields = try session.foundationFields(uid, kind: .indexSet, requested: "ArchiveIndexSet")
        let archivesAsMutable = session.classChain(ofInstance: uid).contains("NSMutableIndexSet")
        // Read once however often it is referenced, as an index path is.
        return try session.decodeContainer(ArchiveIndexSet.self, uid: uid, count: 0) { () throws(ArchiveError) in
            // Absent, the count is 0, as Foundation's decodeInteger reads an absent key.
            let rangeCount = try fields.decodeIfPresent(Int.self, forKey: "NSRangeCount") ?? 0
            func range(location: UInt64, length: UInt64, key: String) throws(ArchiveError) -> Range<Int> {
                // An NSIndexSet's indexes run from 0 to Int.max - 1: the range must end by Int.max.
                guard location <= UInt64(Int.max), length <= UInt64(Int.max) - location else {
                    throw fields.error(.valueOutOfRange, "the range at \(location) of length \(length) goes past Int.max", key: key)
                }
                return Int(location)..<Int(location + length)
            }
            var ranges: [Range<Int>] = []
            switch rangeCount {
            case 0:
                break
            case 1:
                let location = try fields.decode(Int.self, forKey: "NSLocation")
                let length = try fields.decode(Int.self, forKey: "NSLength")
                guard location >= 0 else { throw fields.error(.valueOutOfRange, "NSLocation is \(location), an index cannot be negative", key: "NSLocation") }
                guard length >= 0 else { throw fields.error(.valueOutOfRange, "NSLength is \(length), a length cannot be negative", key: "NSLength") }
                ranges = [try range(location: UInt64(location), length: UInt64(length), key: "NSLength")]
            case 2...:
                // Foundation writes an NSMutableData object; inline bytes are read too.
                let bytes = try fields.decodeBytes(forKey: "NSRangeData")
                // Two numbers per range; a count beyond Int.max / 2 cannot fit any data.
                let (numbers, overflow) = rangeCount.multipliedReportingOverflow(by: 2)
                let values: [UInt64]
                switch PackedIndexes.readAll(bytes, count: overflow ? Int.max : numbers) {
                case .success(let read): values = read
                case .failure(let fault): throw fields.error(.valueOutOfRange, fault.message(key: "NSRangeData", countKey: "NSRangeCount (two per range)"), key: "NSRangeData")
                }
                ranges.reserveCapacity(rangeCount)
                for pair in 0..<rangeCount {
                    ranges.append(try range(location: values[2 * pair], length: values[2 * pair + 1], key: "NSRangeData"))
                }
            default:
                throw fields.error(.valueOutOfRange, "NSRangeCount is \(rangeCount), a count cannot be negative", key: "NSRangeCount")
            }
            try session.chargeElements(ranges.count, uid: uid)
            // Foundation adds the ranges one by one, merging: ranges out of order or
            // overlapping give the same set (sorted in O(n log n), never merged one by one).
            return ArchiveIndexSet(ranges: ranges, archivesAsMutable: archivesAsMutable)
        }
    }
}

// MARK: NSOrderedSet

/// Distinct elements in a chosen order: `NSOrderedSet` (or, with ``archivesAsMutable``,
/// `NSMutableOrderedSet`), whose elements Foundation stores under `NS.object.0`, `NS.object.1`, ….
///
/// Two sets are equal when they hold equal elements in the same order, whichever class each is
/// archived as.
public struct ArchiveOrderedSet<Element: Hashable>: Hashable, RandomAccessCollection {
    /// The elements, in order, each once.
    public private(set) var elements: [Element] = []
    private var members: Set<Element> = []
    /// Whether the set is archived as `NSMutableOrderedSet` rather than `NSOrderedSet`;
    /// decoding sets it from the archived class. Not part of equality.
    public var archivesAsMutable: Bool

    /// An empty set, archived as `NSMutableOrderedSet` when `archivesAsMutable` is true.
    public init(archivesAsMutable: Bool = false) {
        self.archivesAsMutable = archivesAsMutable
    }

    /// The distinct elements of `elements`, each where it first occurs (as `NSOrderedSet`'s
    /// `initWithArray:` keeps them).
    public init(_ elements: some Sequence<Element>, archivesAsMutable: Bool = false) {
        self.archivesAsMutable = archivesAsMutable
        for element in elements { append(element) }
    }

    /// Appends `element` unless the set already holds it; returns whether it was added.
    @discardableResult
    public mutating func append(_ element: Element) -> Bool {
        guard members.insert(element).inserted else { return false }
        elements.append(element)
        return true
    }

    /// Removes `element`; returns whether the set held it.
    @discardableResult
    public mutating func remove(_ element: Element) -> Bool {
        guard members.remove(element) != nil, let position = elements.firstIndex(of: element) else { return false }
        elements.remove(at: position)
        return true
    }

    /// Whether the set holds `element`, by hash lookup.
    public func contains(_ element: Element) -> Bool { members.contains(element) }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Element { elements[position] }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.elements == rhs.elements }

    public func hash(into hasher: inout Hasher) { hasher.combine(elements) }

    /// The `$classes` of an `NSOrderedSet`.
    public static var orderedSetClasses: [String] { FoundationClass.orderedSet.archivedChain }
    // Computed: a generic type has no stored static properties.
    /// The `$classes` of an `NSMutableOrderedSet`.
    public static var mutableOrderedSetClasses: [String] { ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"] }
}

extension ArchiveOrderedSet: Sendable where Element: Sendable {}

extension ArchiveOrderedSet: CustomStringConvertible {
    /// The elements, as an array prints them.
    public var description: String { "\(elements)" }
}

extension ArchiveOrderedSet: ArchiveObjectEncodable where Element: ArchiveObjectEncodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: archivesAsMutable ? Self.mutableOrderedSetClasses : Self.orderedSetClasses) { fields in
            for (position, element) in elements.enumerated() {
                try fields.encode(element, forKey: "NS.object.\(position)")
            }
        }
    }
}

extension ArchiveOrderedSet: ArchiveObjectDecodable where Element: ArchiveObjectDecodable {
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveOrderedSet<Element> {
        let session = decoder.session
        let uid = try session.index(reference)
        func requested() -> String { "ArchiveOrderedSet<\(Element.self)>" }
        let fields = try session.foundationFields(uid, kind: .orderedSet, requested: requested())
        // As Foundation reads one: NS.object.0, NS.object.1, … up to the first missing number.
        // Each number is a field, so the fields bound the count.
        var count = 0
        while fields.contains("NS.object.\(count)") { count += 1 }
        let archivesAsMutable = session.classChain(ofInstance: uid).contains("NSMutableOrderedSet")
        return try session.decodeContainer(ArchiveOrderedSet<Element>.self, uid: uid, count: count) { () throws(ArchiveError) in
            var set = ArchiveOrderedSet(archivesAsMutable: archivesAsMutable)
            for position in 0..<count {
                // A repeated element is kept where it first occurs, as Foundation's
                // initWithArray: keeps it.
                set.append(try fields.decode(Element.self, forKey: "NS.object.\(position)"))
            }
            return set
        }
    }
}
