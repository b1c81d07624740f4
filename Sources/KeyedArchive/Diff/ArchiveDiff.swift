import PropertyList

/// A semantic comparison of two keyed archives (or two plain property lists): what a reader of
/// each would find different, not how the bytes differ.
///
/// Objects are matched by where they hang in the graph — from each `$top` key through fields and
/// collection elements — never by UID, so a renumbered, re-laid-out or XML copy of the same graph
/// compares equal. Each object pair is compared once, so cycles and shared objects cost nothing
/// extra and the work is linear in the archives' size. `NSDictionary` (`NS.keys` + `NS.objects`)
/// compares by key, `NSSet` as a set, `NSArray` by index, any other object by field name.
///
/// The walk uses a queue of its own, breadth first (the inputs are untrusted), stops collecting after
/// ``Options/maximumDifferences`` (counting the rest), and compares at most
/// ``Options/maximumObjectPairs`` object pairs.
public struct ArchiveDiff: Sendable, CustomStringConvertible {
    /// What to compare and how much to report.
    public struct Options: Hashable, Sendable {
        /// Compare values only: ignore sharing (one object in A, two equal ones in B) and
        /// `$classes` chains beyond `$classname`. Default false.
        public var valuesOnly = false
        /// Most differences kept; later ones are only counted (``ArchiveDiff/omittedCount``).
        /// Default 1,000.
        public var maximumDifferences = 1_000
        /// Most object pairs compared. A graph shared in one archive and not in the other pairs
        /// one object with several; this bounds that work (default 64 Mi pairs).
        public var maximumObjectPairs = 64 << 20

        /// The defaults.
        public init() {}
    }

    /// One difference, at one key path.
    public struct Difference: Hashable, Sendable, CustomStringConvertible {
        /// What kind of difference.
        #if hasFeature(NonexhaustiveAttribute)
        @nonexhaustive
        #endif
        public enum Kind: String, Hashable, Sendable, CaseIterable {
            /// The same kind of value with another value.
            case valueChanged
            /// Another kind of value: integer vs real, 32- vs 64-bit real, string vs data,
            /// an object vs a plain value, a value stored inline vs the same value as an object
            /// of `$objects` (which Foundation's `decodeInteger(forKey:)` reads as 0).
            case typeChanged
            /// A field, dictionary key, set element or `$top` key present only in A.
            case onlyInA
            /// Present only in B.
            case onlyInB
            /// Another `$classname`.
            case classChanged
            /// The same `$classname` with another `$classes` chain, `$classes` only on one side,
            /// or other `$classhints` (ignored with ``Options/valuesOnly``).
            case classChainChanged
            /// A collection with another number of elements.
            case countChanged
            /// Two paths that are one object in one archive and two objects in the other
            /// (ignored with ``Options/valuesOnly``).
            case sharingChanged
        }

        /// The kind of difference.
        public let kind: Kind
        /// Where, as the decoder's errors write it (`root.airplanes[3].registrationNumber`).
        public let path: ArchiveKeyPath
        /// A's side, described for a reader ("" when A has nothing there).
        public let a: String
        /// B's side ("" when B has nothing there).
        public let b: String

        /// Creates a difference.
        public init(kind: Kind, path: ArchiveKeyPath, a: String, b: String) {
            self.kind = kind
            self.path = path
            self.a = a
            self.b = b
        }

        /// One line: `root.x: value changed: "a" → "b"`.
        public var description: String {
            let where_ = path.components.isEmpty ? "(top)" : path.description
            switch kind {
            case .valueChanged: return "\(where_): value changed: \(a) → \(b)"
            case .typeChanged: return "\(where_): type changed: \(a) → \(b)"
            case .onlyInA: return "\(where_): only in A: \(a)"
            case .onlyInB: return "\(where_): only in B: \(b)"
            case .classChanged: return "\(where_): class changed: \(a) → \(b)"
            case .classChainChanged: return "\(where_): class chain changed: \(a) → \(b)"
            case .countChanged: return "\(where_): count changed: \(a) → \(b)"
            case .sharingChanged: return "\(where_): sharing changed: \(a); \(b)"
            }
        }
    }

    /// The differences found, in the order the walk met them (at most
    /// ``Options/maximumDifferences``).
    public private(set) var differences: [Difference] = []
    /// Differences found beyond ``Options/maximumDifferences`` and not kept.
    public private(set) var omittedCount = 0
    /// Set when the comparison stopped before the end (the object-pair budget ran out): what
    /// was not compared is not known to be equal.
    public private(set) var incompleteReason: String?

    /// Whether the two sides are equal (no differences, and the whole graph was compared).
    public var isEqual: Bool { differences.isEmpty && omittedCount == 0 && incompleteReason == nil }

    /// Pairs of UIDs (A, B) matched by position, in the order first met: the layout report
    /// reads the numbering and key order from them.
    var matchedObjects: [(a: Int, b: Int, path: Int)] = []
    /// The positions compared, for naming a matched object's path (built only when asked for:
    /// naming every one would be quadratic in a long chain).
    var paths = DiffPaths()

    /// Every difference on its own line, then a line for what was omitted or not compared.
    public var description: String {
        var lines = differences.map(\.description)
        if omittedCount > 0 { lines.append("… and \(omittedCount) more differences") }
        if let incompleteReason { lines.append("comparison incomplete: \(incompleteReason)") }
        return lines.joined(separator: "\n")
    }

    /// Compares two archives' object graphs.
    public init(_ a: ArchiveGraph, _ b: ArchiveGraph, options: Options = Options()) {
        var walk = DiffWalk(a: DiffSide(graph: a), b: DiffSide(graph: b), options: options)
        walk.compareTop(a.top, b.top)
        walk.run()
        self.init(walk)
    }

    /// Compares two plain property lists value by value: dictionaries by key, arrays by index,
    /// sets as sets. Paths start at `root`.
    public init(propertyList a: PropertyListValue, _ b: PropertyListValue, options: Options = Options()) {
        var walk = DiffWalk(a: DiffSide(graph: nil), b: DiffSide(graph: nil), options: options)
        walk.push(path: walk.paths.child(of: -1, .key("root")), a, b)
        walk.run()
        self.init(walk)
    }

    private init(_ walk: DiffWalk) {
        differences = walk.differences
        omittedCount = walk.omitted
        incompleteReason = walk.incompleteReason
        matchedObjects = walk.matched
        paths = walk.paths
    }
}

/// Paths as a tree of parent links: one entry per compared position, turned into an
/// ``ArchiveKeyPath`` only for a reported difference, so memory stays linear.
struct DiffPaths: Sendable {
    var parents: [Int] = []
    var components: [ArchiveKeyPath.Component] = []

    mutating func child(of parent: Int, _ component: ArchiveKeyPath.Component) -> Int {
        parents.append(parent)
        components.append(component)
        return parents.count - 1
    }

    func keyPath(_ node: Int) -> ArchiveKeyPath {
        var reversed: [ArchiveKeyPath.Component] = []
        var current = node
        while current >= 0, current < parents.count {
            reversed.append(components[current])
            current = parents[current]
        }
        return ArchiveKeyPath(reversed.reversed())
    }

    /// The key path of a position, made or not.
    func keyPath(_ position: DiffPosition) -> ArchiveKeyPath {
        switch position {
        case .node(let node): return keyPath(node)
        case .child(let parent, let component):
            var path = keyPath(parent)
            path.components.append(component)
            return path
        }
    }

    /// The node of a position, made the first time it is asked for.
    mutating func node(_ position: DiffPosition) -> Int {
        switch position {
        case .node(let node): return node
        case .child(let parent, let component): return child(of: parent, component)
        }
    }
}

/// A position being compared: a node of ``DiffPaths``, or the child of one that has no node
/// yet. Most positions (equal plain values) never need one: it is made only for an object or a
/// container, whose positions below name it as their parent, and a difference's path is
/// spelt out from the parent.
enum DiffPosition {
    case node(Int)
    case child(of: Int, ArchiveKeyPath.Component)
}

/// One side of the comparison: the graph that resolves UIDs, or nil for a plain property list
/// (where a UID is a value like any other).
struct DiffSide {
    let graph: ArchiveGraph?
    /// Whether `graph` is there, kept apart: testing the optional graph itself on every value
    /// retains and releases its storage (6 % more instructions over a diff of the fleet).
    let isArchive: Bool

    init(graph: ArchiveGraph?) {
        self.graph = graph
        isArchive = graph != nil
    }

    /// What a stored value stands for.
    enum Node {
        case null
        /// A plain value (string, number, date, data, boolean, or a UID in a plain plist).
        case leaf(PropertyListValue)
        /// An object with identity: an instance, a class dictionary, or a container in `$objects`.
        case object(Int)
        /// A container stored inside a field (no identity of its own).
        case container(PropertyListValue)
    }

    func node(_ value: PropertyListValue) -> Node {
        switch value {
        case .uid(let uid):
            guard let graph, uid.value < UInt64(graph.objects.count) else { return .leaf(value) }
            let index = Int(uid.value)
            switch graph.objects[index] {
            case .null: return .null
            case .string(let string): return .leaf(.string(string))
            case .integer(let integer): return .leaf(.integer(integer))
            case .real(let real): return .leaf(.real(real))
            case .bool(let flag): return .leaf(.bool(flag))
            case .data(let bytes): return .leaf(.data(bytes))
            case .date(let date): return .leaf(.date(date))
            case .instance, .classDescriptor: return .object(index)
            case .other(let other):
                switch other {
                case .array, .dictionary, .set: return .object(index)
                default: return .leaf(other)
                }
            }
        case .array, .dictionary, .set:
            return .container(value)
        default:
            return .leaf(value)
        }
    }

    /// Whether a stored value is a reference to an object of `$objects` (in an archive; a plain
    /// property list's UIDs are values).
    func isReference(_ value: PropertyListValue) -> Bool {
        guard isArchive, case .uid = value else { return false }
        return true
    }

    /// The class dictionary of an instance.
    func descriptor(of index: Int) -> ArchiveGraph.ClassDescriptor? {
        guard let graph, case .instance(let instance) = graph.objects[index],
              instance.classUID.value < UInt64(graph.objects.count),
              case .classDescriptor(let descriptor) = graph.objects[Int(instance.classUID.value)] else { return nil }
        return descriptor
    }

    /// How the contents of an object or container compare.
    enum Shape {
        /// Fields by name (stored keys, `$class` left out).
        case fields([PropertyListDictionary.Entry])
        case array([PropertyListValue])
        case set([PropertyListValue])
        /// Keys and values side by side (`NS.keys`/`NS.objects`, or a plain dictionary).
        case dictionary(keys: [PropertyListValue], values: [PropertyListValue])
        case classDescriptor(ArchiveGraph.ClassDescriptor)
    }

    func shape(ofObject index: Int) -> Shape {
        guard let graph else { return .fields([]) }
        switch graph.objects[index] {
        case .instance(let instance):
            let name = descriptor(of: index)?.name ?? ""
            let objects = instance.storage["NS.objects"]?.arrayValue
            if let objects, let keys = instance.storage["NS.keys"]?.arrayValue, keys.count == objects.count {
                return .dictionary(keys: keys, values: objects)
            }
            if let objects, instance.storage.count == 2 {
                let isSet = name.hasSuffix("Set") && !name.hasSuffix("OrderedSet")
                return isSet ? .set(objects) : .array(objects)
            }
            return .fields(instance.fields)
        case .classDescriptor(let descriptor):
            return .classDescriptor(descriptor)
        case .other(let value):
            return Self.shape(ofContainer: value)
        default:
            return .fields([])
        }
    }

    static func shape(ofContainer value: PropertyListValue) -> Shape {
        switch value {
        case .array(let elements): return .array(elements)
        case .set(let elements): return .set(elements)
        case .dictionary(let dictionary):
            return .dictionary(keys: dictionary.entries.map { .string($0.key) }, values: dictionary.entries.map(\.value))
        default: return .fields([])
        }
    }

    /// A key as it appears in a path: its text when it is a string, otherwise its class.
    func keyName(_ key: PropertyListValue, text: String) -> String {
        if text.hasPrefix("=") { return String(text.dropFirst()) }
        switch node(key) {
        case .leaf(let leaf): return DiffText.describe(leaf)
        case .object(let index):
            // The first string among its fields tells most keys apart (an NSURL's NS.relative).
            var label = descriptor(of: index)?.name ?? "object"
            if case .fields(let entries) = shape(ofObject: index) {
                for entry in entries.prefix(16) {
                    if case .leaf(.string(let string)) = node(entry.value) {
                        label += " \"\(string.excerptForMessage(48))\""
                        break
                    }
                }
            }
            return "<\(label)>"
        case .container(let container): return "<\(container.kindName)>"
        case .null: return "<nil>"
        }
    }

    /// A dictionary key as it is matched: "=" and the string for a string (an `NSString`
    /// object's `NS.string` too, as `NSDictionary` would find it), "#" and its fingerprint otherwise.
    func keyText(_ key: PropertyListValue) -> String {
        switch node(key) {
        case .leaf(.string(let string)):
            return "=" + string
        case .object(let index):
            if let graph, case .instance(let instance) = graph.objects[index], let stored = instance.storage["NS.string"],
               case .leaf(.string(let string)) = node(stored) {
                return "=" + string
            }
            return "#" + fingerprint(key)
        default:
            return "#" + fingerprint(key)
        }
    }
}

/// Texts for the two sides of a difference.
enum DiffText {
    static func describe(_ node: DiffSide.Node, in side: DiffSide) -> String {
        switch node {
        case .null: return "nil"
        case .leaf(let value): return describe(value)
        case .container(let value): return "\(value.kindNameWithArticle) of \(countOf(value))"
        case .object(let index):
            guard let graph = side.graph else { return "object" }
            switch graph.objects[index] {
            case .classDescriptor(let descriptor): return "class \(descriptor.name.excerptForMessage(64))"
            case .other(let value): return "\(value.kindNameWithArticle) of \(countOf(value))"
            default: return "\((side.descriptor(of: index)?.name ?? "?").excerptForMessage(64)) object"
            }
        }
    }

    static func countOf(_ value: PropertyListValue) -> Int {
        switch value {
        case .array(let elements), .set(let elements): return elements.count
        case .dictionary(let dictionary): return dictionary.count
        default: return 0
        }
    }

    /// A plain value for a reader: its kind where that is not plain from the text.
    static func describe(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let string): return "\"\(string.excerptForMessage(80))\""
        case .integer(let integer): return integer.isStoredAs128Bit ? "16-byte integer \(integer)" : "integer \(integer)"
        case .real(let real):
            let text = real.doubleValue.isNaN ? "nan" : "\(real.doubleValue)"
            return real.is32Bit ? "32-bit real \(text)" : "real \(text)"
        case .bool(let flag): return flag ? "true" : "false"
        case .date(let date): return "date \(date.secondsSinceReferenceDate)"
        case .data(let bytes):
            let hex = bytes.prefix(16).map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
            return "data of \(bytes.count) bytes <\(hex)\(bytes.count > 16 ? "…" : "")>"
        case .uid(let uid): return "UID \(uid.value)"
        case .array, .set, .dictionary: return "\(value.kindNameWithArticle) of \(countOf(value))"
        }
    }

    /// A plain value with where it is stored, for a difference between an inline value and an
    /// object of `$objects` (`integer 3 stored inline` / `integer 3 as an object in $objects`).
    static func describe(_ value: PropertyListValue, referenced: Bool) -> String {
        describe(value) + (referenced ? " as an object in $objects" : " stored inline")
    }

    /// An exact text for matching: different values never share one.
    static func exact(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let string): return "s:" + string.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: ",")
        case .integer(let integer): return "i:\(integer.high):\(integer.low):\(integer.isStoredAs128Bit)"
        case .real(.float32(let float)): return "f:\(float.bitPattern)"
        case .real(.float64(let double)): return "d:\(double.bitPattern)"
        case .bool(let flag): return "b:\(flag)"
        case .date(let date): return "t:\(date.secondsSinceReferenceDate.bitPattern)"
        case .data(let bytes): return "x:" + bytes.map { String($0) }.joined(separator: ",")
        case .uid(let uid): return "u:\(uid.value)"
        case .array, .set, .dictionary: return value.kindName
        }
    }
}

/// The walk itself: a queue of pairs of positions still to compare, taken breadth first, so
/// that each object is met, and named in differences, by its shortest path from `$top`
/// (`root[2499].name`, not a path through every back-reference that reaches it).
struct DiffWalk {
    let a: DiffSide
    let b: DiffSide
    let options: DiffOptions
    var paths = DiffPaths()
    var differences: [ArchiveDiff.Difference] = []
    var omitted = 0
    var incompleteReason: String?
    var matched: [(a: Int, b: Int, path: Int)] = []

    typealias DiffOptions = ArchiveDiff.Options

    private struct Work {
        let path: Int
        let a: PropertyListValue
        let b: PropertyListValue
        /// False below a sharing difference already reported: every object under it would
        /// repeat the same news.
        let checkSharing: Bool
    }

    /// What is still to compare, first in first out: single pairs, or every pair under one
    /// compared pair (array elements, fields matched by name), compared in turn when the group
    /// comes up — the order of queuing each pair, without a queue entry and a path node per
    /// pair (the 24 MB fleet archive's widest level holds half a million field pairs).
    private enum Pending {
        case pair(Work)
        /// Elements `0..<min(x.count, y.count)`, index for index.
        case elements(parent: Int, x: [PropertyListValue], y: [PropertyListValue], checkSharing: Bool)
        /// `count` fields matched by name, their positions in x and y at `fieldMatches[start …]`.
        case fields(parent: Int, source: FieldSource, start: Int, count: Int, checkSharing: Bool, unescape: Bool)
    }

    /// Where a group's fields are: two objects' (made again when the group comes up, rather
    /// than kept for every object of the queue), or entries of their own (`$top`).
    private enum FieldSource {
        case objects(a: Int, b: Int)
        case entries([PropertyListDictionary.Entry], [PropertyListDictionary.Entry])
    }

    /// The fields the group's positions refer to: those compareByName matched.
    private func fields(_ source: FieldSource) -> (x: [PropertyListDictionary.Entry], y: [PropertyListDictionary.Entry]) {
        switch source {
        case .entries(let x, let y): return (x, y)
        case .objects(let left, let right):
            guard case .fields(let x) = a.shape(ofObject: left), case .fields(let y) = b.shape(ofObject: right) else { return ([], []) }
            return (x, y)
        }
    }

    private var queue: [Pending] = []
    /// Positions of matched fields (x, y), in the order of the groups in `queue`; the first
    /// `fieldMatchesDropped` have gone with their groups.
    private var fieldMatches: [(x: UInt32, y: UInt32)] = []
    private var fieldMatchesDropped = 0
    /// Where the fields of the groups compared so far end (counted from the very first match).
    private var fieldMatchesDone = 0
    /// The next entry of `queue` to compare; the entries before it are dropped now and then.
    private var head = 0
    private var visitedPairs: Set<Int> = []
    /// The B object each A object was first matched with, and where (-1: not yet).
    private var partnerOfA: [Int]
    private var partnerOfB: [Int]
    private var firstPathOfA: [Int]
    private var firstPathOfB: [Int]
    private let countB: Int

    init(a: DiffSide, b: DiffSide, options: ArchiveDiff.Options) {
        self.a = a
        self.b = b
        self.options = options
        let countA = a.graph?.objects.count ?? 0
        countB = b.graph?.objects.count ?? 0
        partnerOfA = [Int](repeating: -1, count: countA)
        partnerOfB = [Int](repeating: -1, count: countB)
        firstPathOfA = [Int](repeating: -1, count: countA)
        firstPathOfB = [Int](repeating: -1, count: countB)
    }

    mutating func report(_ kind: ArchiveDiff.Difference.Kind, at path: Int, _ aText: String, _ bText: String) {
        report(kind, at: .node(path), aText, bText)
    }

    /// A difference at a position that may have no node yet.
    mutating func report(_ kind: ArchiveDiff.Difference.Kind, at position: DiffPosition, _ aText: String, _ bText: String) {
        guard differences.count < options.maximumDifferences else {
            omitted &+= 1
            return
        }
        differences.append(ArchiveDiff.Difference(kind: kind, path: paths.keyPath(position), a: aText, b: bText))
    }

    mutating func push(path: Int, _ aValue: PropertyListValue, _ bValue: PropertyListValue, checkSharing: Bool = true) {
        queue.append(.pair(Work(path: path, a: aValue, b: bValue, checkSharing: checkSharing)))
    }

    /// Queues pairs each with its own path node, in order.
    private mutating func enqueue(_ pairs: [Work]) {
        for work in pairs { queue.append(.pair(work)) }
    }

    mutating func compareTop(_ topA: [ArchiveGraph.TopEntry], _ topB: [ArchiveGraph.TopEntry]) {
        let entriesA = topA.map { PropertyListDictionary.Entry(key: $0.key, value: $0.value) }
        let entriesB = topB.map { PropertyListDictionary.Entry(key: $0.key, value: $0.value) }
        compareByName(entriesA, entriesB, parent: -1, checkSharing: true, unescape: false, objects: nil)
    }

    mutating func run() {
        while head < queue.count {
            let pending = queue[head]
            head &+= 1
            switch pending {
            case .pair(let work):
                compare(work.a, work.b, at: .node(work.path), checkSharing: work.checkSharing)
            case .elements(let parent, let x, let y, let checkSharing):
                for index in 0..<min(x.count, y.count) where incompleteReason == nil {
                    compare(x[index], y[index], at: .child(of: parent, .index(index)), checkSharing: checkSharing)
                }
            case .fields(let parent, let source, let start, let count, let checkSharing, let unescape):
                let (x, y) = fields(source)
                for match in start..<(start &+ count) where incompleteReason == nil {
                    let (positionX, positionY) = fieldMatches[match &- fieldMatchesDropped]
                    let entry = x[Int(positionX)]
                    let name = unescape ? (ArchiveKeys.unescape(entry.key) ?? entry.key) : entry.key
                    compare(entry.value, y[Int(positionY)].value, at: .child(of: parent, .key(name)), checkSharing: checkSharing)
                }
                fieldMatchesDone = start &+ count
            }
            if incompleteReason != nil { return }
            // The compared half is dropped once it is most of the queue: memory stays the
            // width of the graph, and each entry moves at most once.
            if head >= 4096, head &* 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            let done = fieldMatchesDone &- fieldMatchesDropped
            if done >= 4096, done &* 2 >= fieldMatches.count {
                fieldMatches.removeFirst(done)
                fieldMatchesDropped = fieldMatchesDone
            }
        }
    }

    private mutating func compare(_ aValue: PropertyListValue, _ bValue: PropertyListValue, at position: DiffPosition, checkSharing: Bool) {
        let nodeA = a.node(aValue)
        let nodeB = b.node(bValue)
        switch (nodeA, nodeB) {
        case (.null, .null):
            return
        case (.leaf(let left), .leaf(let right)):
            // A number (or string, data…) stored inline in one archive and as an object of
            // `$objects` in the other reads differently: Foundation's `decodeInteger(forKey:)`
            // of a reference is 0, and `decodeObject(forKey:)` of an inline number is nil.
            let referencedA = a.isReference(aValue), referencedB = b.isReference(bValue)
            guard referencedA == referencedB else {
                report(.typeChanged, at: position, DiffText.describe(left, referenced: referencedA), DiffText.describe(right, referenced: referencedB))
                return
            }
            compareLeaves(left, right, at: position)
        case (.object(let left), .object(let right)):
            compareObjects(left, right, at: position, checkSharing: checkSharing)
        case (.container(let left), .container(let right)) where left.kindName == right.kindName:
            compareShapes(DiffSide.shape(ofContainer: left), DiffSide.shape(ofContainer: right), at: paths.node(position), checkSharing: checkSharing)
        case (.object(let left), .container(let right)):
            // A container inline in one file and in `$objects` in the other: the same value.
            compareShapes(a.shape(ofObject: left), DiffSide.shape(ofContainer: right), at: paths.node(position), checkSharing: false)
        case (.container(let left), .object(let right)):
            compareShapes(DiffSide.shape(ofContainer: left), b.shape(ofObject: right), at: paths.node(position), checkSharing: false)
        default:
            report(.typeChanged, at: position, DiffText.describe(nodeA, in: a), DiffText.describe(nodeB, in: b))
        }
    }

    private mutating func compareLeaves(_ left: PropertyListValue, _ right: PropertyListValue, at path: DiffPosition) {
        switch (left, right) {
        case (.integer(let x), .integer(let y)):
            if x.high != y.high || x.low != y.low {
                report(.valueChanged, at: path, DiffText.describe(left), DiffText.describe(right))
            } else if x.isStoredAs128Bit != y.isStoredAs128Bit {
                report(.typeChanged, at: path, DiffText.describe(left), DiffText.describe(right))
            }
        case (.real(let x), .real(let y)):
            if x.is32Bit != y.is32Bit {
                report(.typeChanged, at: path, DiffText.describe(left), DiffText.describe(right))
            } else if x != y {
                report(.valueChanged, at: path, DiffText.describe(left), DiffText.describe(right))
            }
        default:
            guard left.kindName == right.kindName else {
                report(.typeChanged, at: path, DiffText.describe(left), DiffText.describe(right))
                return
            }
            if left != right {
                report(.valueChanged, at: path, DiffText.describe(left), DiffText.describe(right))
            }
        }
    }

    private mutating func compareObjects(_ left: Int, _ right: Int, at position: DiffPosition, checkSharing: Bool) {
        let pairKey = left &* max(countB, 1) &+ right
        if visitedPairs.contains(pairKey) { return }
        let path = paths.node(position)
        var childSharing = checkSharing
        if checkSharing && !options.valuesOnly {
            if partnerOfA[left] >= 0, partnerOfA[left] != right {
                report(.sharingChanged, at: path, "in A the same object as \(paths.keyPath(firstPathOfA[left]))", "in B another object")
                childSharing = false
            } else if partnerOfB[right] >= 0, partnerOfB[right] != left {
                report(.sharingChanged, at: path, "in A another object", "in B the same object as \(paths.keyPath(firstPathOfB[right]))")
                childSharing = false
            }
        }
        if partnerOfA[left] < 0 {
            partnerOfA[left] = right
            firstPathOfA[left] = path
        }
        if partnerOfB[right] < 0 {
            partnerOfB[right] = left
            firstPathOfB[right] = path
        }
        guard visitedPairs.count < options.maximumObjectPairs else {
            incompleteReason = "more than \(options.maximumObjectPairs) object pairs to compare (one side shares what the other does not, many times over)"
            return
        }
        visitedPairs.insert(pairKey)
        matched.append((left, right, path))

        let descriptorA = a.descriptor(of: left)
        let descriptorB = b.descriptor(of: right)
        if let descriptorA, let descriptorB {
            if !descriptorA.name.isExactlyEqual(to: descriptorB.name) {
                report(.classChanged, at: path, descriptorA.name.excerptForMessage(80), descriptorB.name.excerptForMessage(80))
            } else if !options.valuesOnly, !Self.sameClassDictionary(descriptorA, descriptorB) {
                report(.classChainChanged, at: path, Self.chain(descriptorA), Self.chain(descriptorB))
            }
        } else if (descriptorA == nil) != (descriptorB == nil) {
            report(.typeChanged, at: path, DiffText.describe(.object(left), in: a), DiffText.describe(.object(right), in: b))
            return
        }
        compareShapes(a.shape(ofObject: left), b.shape(ofObject: right), at: path, checkSharing: childSharing, objects: (left, right))
    }

    private static func chain(_ classes: [String]) -> String {
        classes.prefix(16).map { $0.excerptForMessage(64) }.joined(separator: " < ") + (classes.count > 16 ? " < …" : "")
    }

    /// The `$classes` chain as ``chain(_:)`` writes it, "no $classes" when the dictionary has
    /// none, then its `$classhints` when present.
    private static func chain(_ descriptor: ArchiveGraph.ClassDescriptor) -> String {
        let classes = descriptor.storesClasses ? chain(descriptor.classes) : "no $classes"
        guard let hints = descriptor.hints else { return classes }
        return classes + " ($classhints: " + hints.prefix(16).map { $0.excerptForMessage(64) }.joined(separator: ", ") + (hints.count > 16 ? ", …" : "") + ")"
    }

    /// The same `$classes` (or none on both sides) and the same `$classhints` (or none).
    private static func sameClassDictionary(_ a: ArchiveGraph.ClassDescriptor, _ b: ArchiveGraph.ClassDescriptor) -> Bool {
        a.storesClasses == b.storesClasses && a.classes.isExactlyEqual(to: b.classes) && ArchiveInstance.sameHints(a.hints, b.hints)
    }

    /// `objects`: the objects whose shapes these are, if both are.
    private mutating func compareShapes(_ left: DiffSide.Shape, _ right: DiffSide.Shape, at path: Int, checkSharing: Bool, objects: (a: Int, b: Int)? = nil) {
        switch (left, right) {
        case (.fields(let x), .fields(let y)):
            compareByName(x, y, parent: path, checkSharing: checkSharing, unescape: a.graph != nil, objects: objects)
        case (.array(let x), .array(let y)):
            if x.count != y.count {
                report(.countChanged, at: path, "\(x.count) elements", "\(y.count) elements")
            }
            // In index order: the queue is first in, first out, so [0] is reported before [7].
            if min(x.count, y.count) > 0 { queue.append(.elements(parent: path, x: x, y: y, checkSharing: checkSharing)) }
        case (.set(let x), .set(let y)):
            compareSets(x, y, at: path, checkSharing: checkSharing)
        case (.dictionary(let keysX, let valuesX), .dictionary(let keysY, let valuesY)):
            compareDictionaries(keysX, valuesX, keysY, valuesY, at: path, checkSharing: checkSharing)
        case (.classDescriptor(let x), .classDescriptor(let y)):
            if !x.name.isExactlyEqual(to: y.name) {
                report(.classChanged, at: path, x.name.excerptForMessage(80), y.name.excerptForMessage(80))
            }
        default:
            report(.typeChanged, at: path, Self.shapeName(left), Self.shapeName(right))
        }
    }

    private static func shapeName(_ shape: DiffSide.Shape) -> String {
        switch shape {
        case .fields(let entries): return "an object of \(entries.count) fields"
        case .array(let elements): return "an array of \(elements.count)"
        case .set(let elements): return "a set of \(elements.count)"
        case .dictionary(let keys, _): return "a dictionary of \(keys.count)"
        case .classDescriptor(let descriptor): return "class \(descriptor.name.excerptForMessage(64))"
        }
    }

    /// Fields, dictionary entries or `$top` keys by name: order never matters; a name stored
    /// twice is matched by its first occurrence.
    /// `objects`: the objects these are the fields of, if they are.
    private mutating func compareByName(_ x: [PropertyListDictionary.Entry], _ y: [PropertyListDictionary.Entry], parent: Int, checkSharing: Bool, unescape: Bool,
                                        objects: (a: Int, b: Int)?) {
        // Names match by their exact scalars, as the archive's own dictionaries tell them apart.
        var positionsY: [ExactString: Int] = [:]
        positionsY.reserveCapacity(y.count)
        for (position, entry) in y.enumerated() where positionsY[ExactString(entry.key)] == nil {
            positionsY[ExactString(entry.key)] = position
        }
        var matchedY = [Bool](repeating: false, count: y.count)
        // The matched pairs are compared when their group comes up (the names made again then).
        let start = fieldMatchesDropped &+ fieldMatches.count
        for (positionX, entry) in x.enumerated() {
            if let position = positionsY[ExactString(entry.key)], !matchedY[position] {
                matchedY[position] = true
                fieldMatches.append((UInt32(truncatingIfNeeded: positionX), UInt32(truncatingIfNeeded: position)))
            } else {
                let name = unescape ? (ArchiveKeys.unescape(entry.key) ?? entry.key) : entry.key
                report(.onlyInA, at: .child(of: parent, .key(name)), DiffText.describe(a.node(entry.value), in: a), "")
            }
        }
        for (position, entry) in y.enumerated() where !matchedY[position] {
            let name = unescape ? (ArchiveKeys.unescape(entry.key) ?? entry.key) : entry.key
            report(.onlyInB, at: .child(of: parent, .key(name)), "", DiffText.describe(b.node(entry.value), in: b))
        }
        let count = fieldMatchesDropped &+ fieldMatches.count &- start
        if count > 0 {
            let source = objects.map { FieldSource.objects(a: $0.a, b: $0.b) } ?? .entries(x, y)
            queue.append(.fields(parent: parent, source: source, start: start, count: count, checkSharing: checkSharing, unescape: unescape))
        }
    }

    /// Dictionary entries by key: string keys by their text, object keys by fingerprint; a key
    /// that matches several entries (a key stored twice, or fingerprints cut short) pairs them
    /// in stored order. Paths name the key's text. Keys that are objects on both sides are
    /// compared too, as objects (at `key <the key>`): a key's fields may share objects with the
    /// rest of the archive, and its fingerprint says nothing of sharing.
    private mutating func compareDictionaries(_ keysX: [PropertyListValue], _ valuesX: [PropertyListValue], _ keysY: [PropertyListValue], _ valuesY: [PropertyListValue],
                                              at path: Int, checkSharing: Bool) {
        var available: [ExactString: [Int]] = [:]
        for (position, key) in keysY.enumerated().reversed() {
            available[ExactString(b.keyText(key)), default: []].append(position)
        }
        var matchedY = [Bool](repeating: false, count: keysY.count)
        var pending: [Work] = []
        for (position, key) in keysX.enumerated() {
            let text = a.keyText(key)
            let entryPath = paths.child(of: path, .key(a.keyName(key, text: text)))
            if let other = available[ExactString(text)]?.popLast() {
                matchedY[other] = true
                if case .object = a.node(key), case .object = b.node(keysY[other]) {
                    let keyObjectPath = paths.child(of: path, .key("key " + a.keyName(key, text: text)))
                    pending.append(Work(path: keyObjectPath, a: key, b: keysY[other], checkSharing: checkSharing))
                }
                pending.append(Work(path: entryPath, a: valuesX[position], b: valuesY[other], checkSharing: checkSharing))
            } else {
                report(.onlyInA, at: entryPath, DiffText.describe(a.node(valuesX[position]), in: a), "")
            }
        }
        for (position, key) in keysY.enumerated() where !matchedY[position] {
            let text = b.keyText(key)
            report(.onlyInB, at: paths.child(of: path, .key(b.keyName(key, text: text))), "", DiffText.describe(b.node(valuesY[position]), in: b))
        }
        enqueue(pending)
    }

    /// Set elements matched by fingerprint (a multiset), then compared pairwise; the rest are
    /// only in one side, at their index in that side's stored order.
    private mutating func compareSets(_ x: [PropertyListValue], _ y: [PropertyListValue], at path: Int, checkSharing: Bool) {
        if x.count != y.count {
            report(.countChanged, at: path, "\(x.count) elements", "\(y.count) elements")
        }
        var available: [ExactString: [Int]] = [:]
        for (position, element) in y.enumerated().reversed() {
            available[ExactString(b.fingerprint(element)), default: []].append(position)
        }
        var matchedY = [Bool](repeating: false, count: y.count)
        var pending: [Work] = []
        for (position, element) in x.enumerated() {
            let key = ExactString(a.fingerprint(element))
            let elementPath = paths.child(of: path, .index(position))
            if let other = available[key]?.popLast() {
                matchedY[other] = true
                pending.append(Work(path: elementPath, a: element, b: y[other], checkSharing: checkSharing))
            } else {
                report(.onlyInA, at: elementPath, "set element " + DiffText.describe(a.node(element), in: a), "")
            }
        }
        for (position, element) in y.enumerated() where !matchedY[position] {
            report(.onlyInB, at: paths.child(of: path, .index(position)), "", "set element " + DiffText.describe(b.node(element), in: b))
        }
        enqueue(pending)
    }
}
