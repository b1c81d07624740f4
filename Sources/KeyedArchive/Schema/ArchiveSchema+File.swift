import PropertyList

/// The schema file: ``ArchiveSchema/jsonDescription``, the JSON a team commits as its
/// compatibility contract (Docs/Compatibility.md, "The schema file"). It holds what was
/// observed — classes, chains, keys, presence counts, kinds and collection contents — and
/// nothing derived (superclasses, generated-code declarations, cycles), so that two files merge
/// by adding counts. The same observations give the same bytes on any machine, in any run and
/// in any input order: every list is sorted by the UTF-8 bytes of its names, each kind list in
/// one fixed order of kinds.
extension ArchiveSchema {
    /// The `format` member every schema file starts with.
    public static let fileFormatName = "keyedarchive-schema"
    /// The format version this package writes and the newest it reads. A later version that
    /// changes what a member means gets a new number; reading it here is refused with
    /// ``ArchiveSchemaFileError/Code/unsupportedVersion`` rather than misread.
    public static let fileFormatVersion = 1

    /// The schema file (format version ``fileFormatVersion``): one JSON document, a member per
    /// line and a class key per line, so that a review shows each changed key on its own line.
    ///
    /// `format`, `version`, `archives` (how many archives were observed), `objects` (their
    /// `$objects` entries together), `top` (the `$top` keys), and `classes`, each with `name`,
    /// `instances`, `shared`, `chains` (every distinct `$classes` chain) and `keys`. A key has
    /// `key` (as stored), `present` (in how many instances; required when it equals the class's
    /// `instances`, or `archives` for `$top`), `kinds` (each `{"kind": …}`, `{"class": …}` for
    /// an object of a class, or `{"other": …}`, with its `count`) and, for collections,
    /// `contents` (`class`, `elements`, a dictionary's `keys`, and `truncated` when more than
    /// 64 distinct kinds were met). ``init(jsonFile:)`` reads it back.
    public var jsonDescription: String {
        var out = "{\n"
        out += "  \"format\": \(Self.jsonString(Self.fileFormatName)),\n"
        out += "  \"version\": \(Self.fileFormatVersion),\n"
        out += "  \"archives\": \(archiveCount),\n"
        out += "  \"objects\": \(objectCount),\n"
        out += "  \"top\": ["
        out += Self.fileLines(Self.sortedKeys(topKeys).map(Self.fileKey), indent: "    ")
        out += "],\n  \"classes\": ["
        let sortedClasses = classes.sorted { Self.precedes($0.name, $1.name) }
        out += Self.fileLines(sortedClasses.map { type in
            var text = "{\n"
            text += "      \"name\": \(Self.jsonString(type.name)),\n"
            text += "      \"instances\": \(type.instanceCount),\n"
            text += "      \"shared\": \(type.sharedCount),\n"
            let chains = type.chains.sorted { $0.lexicographicallyPrecedes($1, by: Self.precedes) }
            text += "      \"chains\": [\(chains.map { "[\($0.map(Self.jsonString).joined(separator: ", "))]" }.joined(separator: ", "))],\n"
            text += "      \"keys\": [\(Self.fileLines(Self.sortedKeys(type.keys).map(Self.fileKey), indent: "        "))]\n"
            return text + "    }"
        }, indent: "    ")
        out += "]\n}\n"
        return out
    }

    /// Items one per line at `indent`, closed on a line of their own; nothing for no items.
    private static func fileLines(_ items: [String], indent: String) -> String {
        guard !items.isEmpty else { return "" }
        return "\n" + items.map { indent + $0 }.joined(separator: ",\n") + "\n" + indent.dropLast(2)
    }

    private static func sortedKeys(_ keys: [Key]) -> [Key] {
        keys.sorted { precedes($0.storedKey, $1.storedKey) }
    }

    private static func fileKey(_ key: Key) -> String {
        var out = "{\"key\": \(jsonString(key.storedKey)), \"present\": \(key.presentCount), \"kinds\": [\(fileKinds(key.kinds))]"
        if !key.contents.isEmpty {
            let contents = key.contents.sorted { precedes($0.className, $1.className) }
            out += ", \"contents\": [" + contents.map { contents in
                var item = "{\"class\": \(jsonString(contents.className)), \"elements\": [\(fileKinds(contents.elements))]"
                if !contents.keys.isEmpty { item += ", \"keys\": [\(fileKinds(contents.keys))]" }
                if contents.isTruncated { item += ", \"truncated\": true" }
                return item + "}"
            }.joined(separator: ", ") + "]"
        }
        return out + "}"
    }

    private static func fileKinds(_ kinds: KindCounts) -> String {
        kinds.kinds.sorted(by: ValueKind.fileOrder).map { kind in
            let count = kinds.counts[kind] ?? 0
            switch kind {
            case .object(let name): return "{\"class\": \(jsonString(name)), \"count\": \(count)}"
            case .otherObject(let shape): return "{\"other\": \(jsonString(shape)), \"count\": \(count)}"
            default: return "{\"kind\": \(jsonString(kind.fileToken ?? "")), \"count\": \(count)}"
            }
        }.joined(separator: ", ")
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes (the same on every machine and
    /// locale, and never equal for two different spellings of one text).
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

extension ArchiveSchema.ValueKind {
    /// How a kind is spelt in a schema file's `{"kind": …}` (nil for an object of a class or
    /// another object, which the file spells `{"class": …}` and `{"other": …}`). Spelt here and
    /// not taken from ``description``, though most read alike: the tokens are a file format,
    /// which must not change when the report's wording does.
    var fileToken: String? {
        switch self {
        case .inlineInteger(let width): return "int\(width * 8)"
        case .inlineReal(let bits): return bits == 32 ? "float" : "double"
        case .inlineBool: return "bool"
        case .inlineData: return "bytes"
        case .inlineString: return "inline string"
        case .inlineDate: return "inline date"
        case .inlineContainer(let shape): return "inline \(shape)"
        case .null: return "$null"
        case .string: return "NSString"
        case .integer(let width): return "NSNumber(int\(width * 8))"
        case .real(let bits): return bits == 32 ? "NSNumber(float)" : "NSNumber(double)"
        case .bool: return "NSNumber(bool)"
        case .data: return "NSData"
        case .date: return "date"
        case .object, .otherObject: return nil
        }
    }

    /// Every kind a `{"kind": …}` token can stand for, by its token.
    static let kindsByFileToken: [String: ArchiveSchema.ValueKind] = {
        var kinds: [ArchiveSchema.ValueKind] = [.inlineBool, .inlineData, .inlineString, .inlineDate, .null, .string, .bool, .data, .date,
                                                .inlineReal(bits: 32), .inlineReal(bits: 64), .real(bits: 32), .real(bits: 64)]
        for width in [1, 2, 4, 8, 16] { kinds += [.inlineInteger(byteWidth: width), .integer(byteWidth: width)] }
        for shape in ["array", "set", "dictionary"] { kinds.append(.inlineContainer(shape)) }
        var table: [String: ArchiveSchema.ValueKind] = [:]
        for kind in kinds { if let token = kind.fileToken { table[token] = kind } }
        return table
    }()

    /// Where a kind sorts in a schema file's kind lists: inline values first, then plain
    /// referenced values, then objects by class name, then other objects.
    private var fileRank: (Int, Int) {
        switch self {
        case .inlineInteger(let width): return (0, width)
        case .inlineReal(let bits): return (1, bits)
        case .inlineBool: return (2, 0)
        case .inlineData: return (3, 0)
        case .inlineString: return (4, 0)
        case .inlineDate: return (5, 0)
        case .inlineContainer: return (6, 0)
        case .null: return (7, 0)
        case .string: return (8, 0)
        case .integer(let width): return (9, width)
        case .real(let bits): return (10, bits)
        case .bool: return (11, 0)
        case .data: return (12, 0)
        case .date: return (13, 0)
        case .object: return (14, 0)
        case .otherObject: return (15, 0)
        }
    }

    /// The fixed order of kinds in a schema file.
    static func fileOrder(_ a: ArchiveSchema.ValueKind, _ b: ArchiveSchema.ValueKind) -> Bool {
        let (rankA, rankB) = (a.fileRank, b.fileRank)
        if rankA != rankB { return rankA < rankB }
        switch (a, b) {
        case let (.inlineContainer(x), .inlineContainer(y)), let (.object(x), .object(y)), let (.otherObject(x), .otherObject(y)):
            return ArchiveSchema.precedes(x, y)
        default:
            return false
        }
    }
}
