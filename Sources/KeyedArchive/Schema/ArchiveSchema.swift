import PropertyList

/// The classes of one or more archives, inferred from what they store: per archived class name,
/// how many instances, its `$classes` chains, every key with the kinds of value stored under it
/// and how often it is there, which references close a cycle and which objects are shared.
///
/// Built from ``ArchiveGraph``s (the generic view), so nothing is instantiated and any archive
/// can be described. Every pass is iterative and linear in the archives' size (a collection's
/// element kinds are summarized once per collection, whatever the number of references to it),
/// so a hostile file costs time and memory in proportion to its own size, never a crash.
///
/// `keyedarchive schema` prints it (``textDescription``, ``jsonDescription``) and
/// `keyedarchive schema --swift` turns it into models (``swiftSource(name:public:)``).
public struct ArchiveSchema: Sendable {
    /// What one stored value is.
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
    public enum ValueKind: Hashable, Sendable {
        /// An integer stored inline (`encodeInt:`); the width is the fewest bytes that hold it.
        case inlineInteger(byteWidth: Int)
        /// A real stored inline: 32 (`encodeFloat:`) or 64 bits (`encodeDouble:`).
        case inlineReal(bits: Int)
        /// A boolean stored inline (`encodeBool:`).
        case inlineBool
        /// Bytes stored inline (`encodeBytes:length:`).
        case inlineData
        /// A string stored inline (not written by Apple's archiver, legal in a property list).
        case inlineString
        /// A date stored inline.
        case inlineDate
        /// An inline array, set or dictionary (`NS.objects`-like shapes): its kind name.
        case inlineContainer(String)
        /// A reference to `$null`.
        case null
        /// A reference to a plain string (NSString).
        case string
        /// A reference to a plain integer (NSNumber), with its width in bytes.
        case integer(byteWidth: Int)
        /// A reference to a plain real (NSNumber), 32 or 64 bits.
        case real(bits: Int)
        /// A reference to a plain boolean (NSNumber).
        case bool
        /// A reference to plain data (NSData).
        case data
        /// A reference to a plain date entry.
        case date
        /// A reference to an object of the named class.
        case object(String)
        /// A reference to anything else (a class dictionary, a bare array in `$objects`).
        case otherObject(String)

        /// Whether the value is stored inline in the object rather than referenced.
        public var isInline: Bool {
            switch self {
            case .inlineInteger, .inlineReal, .inlineBool, .inlineData, .inlineString, .inlineDate, .inlineContainer: return true
            default: return false
            }
        }

        /// How the kind reads in the text report.
        public var description: String {
            switch self {
            case .inlineInteger(let width): return "int\(width * 8)"
            case .inlineReal(let bits): return bits == 32 ? "float" : "double"
            case .inlineBool: return "bool"
            case .inlineData: return "bytes"
            case .inlineString: return "inline string"
            case .inlineDate: return "inline date"
            case .inlineContainer(let kind): return "inline \(kind)"
            case .null: return "$null"
            case .string: return "NSString"
            case .integer(let width): return "NSNumber(int\(width * 8))"
            case .real(let bits): return bits == 32 ? "NSNumber(float)" : "NSNumber(double)"
            case .bool: return "NSNumber(bool)"
            case .data: return "NSData"
            case .date: return "date"
            case .object(let name): return name
            case .otherObject(let kind): return "<\(kind)>"
            }
        }
    }

    /// Kinds in the order first seen, each with how many times it was seen.
    public struct KindCounts: Hashable, Sendable {
        /// The kinds, first seen first.
        public private(set) var kinds: [ValueKind] = []
        /// How many times each kind was seen.
        public private(set) var counts: [ValueKind: Int] = [:]

        /// A kind list with nothing counted.
        public init() {}

        /// Counts one more `kind`, `times` times.
        mutating func add(_ kind: ValueKind, times: Int = 1) {
            if let count = counts[kind] {
                counts[kind] = count &+ times
            } else {
                kinds.append(kind)
                counts[kind] = times
            }
        }

        mutating func merge(_ other: KindCounts) {
            for kind in other.kinds { add(kind, times: other.counts[kind] ?? 0) }
        }

        /// Whether nothing was counted.
        public var isEmpty: Bool { kinds.isEmpty }
    }

    /// What the collections referenced under a key hold, per collection class.
    public struct Contents: Hashable, Sendable {
        /// The collection's class (`NSArray`, `NSMutableDictionary`, …).
        public let className: String
        /// The kinds of its elements (for a dictionary: of its values).
        public internal(set) var elements = KindCounts()
        /// The kinds of a dictionary's keys (empty for arrays and sets).
        public internal(set) var keys = KindCounts()
        /// Whether more distinct kinds were seen than are kept (64 per collection).
        public internal(set) var isTruncated = false
    }

    /// One key of a class.
    public struct Key: Hashable, Sendable {
        /// The key as stored (a user key beginning with `$` appears escaped, `$$name`).
        public let storedKey: String
        /// In how many instances the key is present.
        public internal(set) var presentCount = 0
        /// The kinds of value stored under it.
        public internal(set) var kinds = KindCounts()
        /// What the referenced collections hold, in the order their classes were first seen.
        public internal(set) var contents: [Contents] = []
        /// How many references under this key close a cycle: they point back to an object
        /// still being decoded in a depth-first walk from `$top` (decoding order: a class's own
        /// keys before its superclass's, see ``Class/declaredKeys``).
        public internal(set) var cycleCount = 0
        /// Whether generated code decodes this key once the whole graph is built (it closes a
        /// cycle in the walk, or would once other such keys are put off).
        public internal(set) var isBackReference = false

        /// The user key (the stored key with Apple's `$` escape taken off); nil for a reserved
        /// key (`$0`, …).
        public var userKey: String? { ArchiveKeys.unescape(storedKey) }
    }

    /// One archived class name.
    public struct Class: Hashable, Sendable {
        /// The archived class name.
        public let name: String
        /// How many objects have this class (0 for a class seen only in other classes' chains).
        public internal(set) var instanceCount = 0
        /// How many of them are referenced from more than one place.
        public internal(set) var sharedCount = 0
        /// The distinct `$classes` chains archived for it, first seen first.
        public internal(set) var chains: [[String]] = []
        /// The superclass, from the first chain that names one (nil for a root such as NSObject).
        public internal(set) var superclass: String?
        /// Classes whose superclass this is.
        public internal(set) var subclasses: [String] = []
        /// Whether the package maps it to a built-in Swift type (`NSArray` → `[T]`, …) or it
        /// descends from one; such classes are never generated.
        public internal(set) var isFoundation = false
        /// The keys seen on objects of exactly this class, first seen first.
        public internal(set) var keys: [Key] = []
        /// The keys this class declares in generated code: each key seen on model classes is
        /// declared once, by the nearest common ancestor of the classes that have it; stats are
        /// those of every instance of this class and its subclasses.
        public internal(set) var declaredKeys: [Key] = []
        /// How many instances of this class and its subclasses there are (what
        /// ``declaredKeys`` presence counts compare with).
        public internal(set) var familyInstanceCount = 0

        /// Whether generated code gets a model class for it.
        public var isModel: Bool { !isFoundation && name != "NSObject" }
    }

    /// How many archives were read.
    public internal(set) var archiveCount = 0
    /// How many `$objects` entries they hold together.
    public internal(set) var objectCount = 0
    /// Every class, in the order first seen (chains included).
    public internal(set) var classes: [Class] = []
    /// The `$top` keys, as if `$top` were one object of each archive.
    public internal(set) var topKeys: [Key] = []
    /// How many cycle-closing references the walk found outside any model's key (inside
    /// Foundation collections reached from `$top`).
    public internal(set) var unattributedCycleCount = 0
    /// The archives' formats, in order (for generated round trips).
    public internal(set) var formats: [ArchiveFormat] = []

    var classIndex: [String: Int] = [:]

    /// The class named `name`, if any archive has it.
    public func `class`(named name: String) -> Class? {
        classIndex[name].map { classes[$0] }
    }

    /// Infers the schema of `graphs` together (one archive or many that share classes).
    /// - Parameters:
    ///   - graphs: the archives, read and validated.
    ///   - formats: the format of each graph's file, for generated round trips (binary when
    ///     left out).
    public init(graphs: [ArchiveGraph], formats: [ArchiveFormat] = []) {
        var builder = ArchiveSchemaBuilder()
        for graph in graphs { builder.observe(graph) }
        self = builder.finish(graphs: graphs)
        self.formats = formats
    }

    /// Infers the schema of archive files (binary or XML).
    /// - Throws: the ``ArchiveError`` of the first file that is not a valid keyed archive.
    public init(archives: [[UInt8]]) throws(ArchiveError) {
        var graphs: [ArchiveGraph] = []
        var formats: [ArchiveFormat] = []
        for bytes in archives {
            graphs.append(try ArchiveGraph(bytes: bytes))
            formats.append(bytes.starts(with: Array("bplist".utf8)) ? .binary : .xml)
        }
        self.init(graphs: graphs, formats: formats)
    }

    init() {}
}

/// The Foundation class names the package maps to Swift types.
let foundationMappedClassNames: Set<String> = Set(FoundationClass.allCases.flatMap(\.defaultNames))
