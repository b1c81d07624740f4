import PropertyList

extension ArchiveSchema {
    /// Whether `name` can name the generated namespace (an identifier, not a keyword).
    public static func isValidTypeName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
            && !SwiftSourceWriter.reservedWords.contains(name)
    }

    /// One Swift source file of models for these archives (`keyedarchive schema --swift`): a
    /// ``KeyedArchivable`` class per archived class the package has no built-in type for, with
    /// the archived superclasses under a root `NSObject`; stored properties typed from what the
    /// archives hold, with the package's types (`[T]`, `Set<T>`, `[String: T]`, `Date`, `URL`,
    /// `IndexPath`, ``ArchiveIndexSet``, ``ArchiveSpecialValue``, …) and ``ArchiveValue`` where
    /// the objects under a key differ in kind; a memberwise initializer per class; and a
    /// namespace `name` with `registry` and `roundTrip(_:)`. The file holds nothing else: what it
    /// needs is in the package. It compiles against this package as it is (Docs/Schema.md).
    /// - Parameters:
    ///   - name: the namespace (an enum); `ArchiveSchema` when not a valid type name.
    ///   - isPublic: whether the namespace, models, initializers and registry are `public`, so
    ///     that the models can form a library target used from other targets.
    public func swiftSource(name: String = "ArchiveSchema", public isPublic: Bool = false) -> String {
        var writer = SwiftSourceWriter(schema: self, namespace: Self.isValidTypeName(name) ? name : "ArchiveSchema", isPublic: isPublic)
        return writer.write()
    }
}

/// How a generated property is read and written: its Swift type and the code for each.
struct FieldMapping {
    /// The Swift type, not optional.
    let type: String
    /// The decoding expression for a required value, given the key literal.
    let decode: (String) -> String
    /// The decoding expression for an optional value (nil when absent or `$null`).
    let decodeIfPresent: (String) -> String
    /// The statement that encodes a non-optional value (the expression given) under the key
    /// literal; the third argument is the companion flag's expression, when there is one.
    let encode: (String, String, String) -> String
    /// Whether the value is stored inline in the object (a number, boolean or bytes), never `$null`.
    var isInline = false
    /// Whether `decode(_:forKey:for:)` can read it once the graph is built (an object type).
    var canBeDeferred = true
    /// Whether it is a model class (a back-reference to it may be held weakly).
    var isModel = false
    /// A flag property beside it that keeps how each object stored its value.
    var companion: Companion?
    /// Why it is not more specific, for a comment.
    var reason: String?
    /// The expression of the value's reference (the value's and the companion flag's
    /// expressions given), when it is archived with a class chain of its own: how a value
    /// without a key (`$0`) keeps that chain. Nil: `encoder.reference(for:)`.
    var reference: ((String, String) -> String)?

    /// A flag beside a property: which of two stored forms an object used.
    struct Companion {
        /// Appended to the property's name.
        let suffix: String
        let defaultValue: Bool
        let documentation: String
        /// The statement that sets the flag from `decoder`, given the user key's literal, the
        /// stored key's and the flag's name.
        let decode: (String, String, String) -> String
    }
}

/// Writes the generated file. Names from the archives become Swift identifiers (letters,
/// digits and `_`, deduplicated), and every string taken from an archive is written as an
/// escaped Swift literal, so no archive can inject code into the file.
struct SwiftSourceWriter {
    static let reservedWords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal", "let", "open",
        "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
        "Type", "Protocol", "some", "any", "async", "weak", "unowned", "lazy", "override", "required", "final", "convenience", "dynamic",
        "encode", "decode", "description", "hashValue", "hash", "registry", "roundTrip", "_",
    ]
    /// Type names the file refers to (Swift's, Foundation's and this package's).
    static let takenTypeNames: Set<String> = [
        "String", "Data", "Date", "UUID", "URL", "IndexPath", "Int", "Int64", "UInt64", "Double", "Float", "Bool", "UInt8", "Array",
        "Dictionary", "Set", "Optional", "Error", "Hashable", "Hasher", "ObjectIdentifier", "KeyedArchivable", "KeyedArchiveDecoder",
        "KeyedArchiveEncoder", "KeyedArchiver", "ArchiveRegistry", "ArchiveValue", "ArchiveModelObject", "ArchiveIndexSet",
        "ArchiveOrderedSet", "ArchiveSpecialValue", "ArchiveNull", "ArchiveError", "PropertyListValue", "PropertyListInteger",
        "PropertyListReal",
    ]
    /// Apple's class-name prefixes: a key that starts with one followed by a capital is the
    /// prefix and the rest (`NSRGB` is `NS` + `RGB`, `NSIBObjectData` is `NS` + `IB` + …).
    static let knownPrefixes = ["IDE", "DVT", "NS", "UI", "CF", "CG", "CI", "IB", "XC", "XD", "WK", "AV"]
    /// The name of the generated root class, the archives' own root.
    static let rootName = "NSObject"

    let schema: ArchiveSchema
    let namespace: String
    let isPublic: Bool
    var typeNames: [String: String] = [:]
    var out = ""

    init(schema: ArchiveSchema, namespace: String, isPublic: Bool = false) {
        self.schema = schema
        self.namespace = namespace
        self.isPublic = isPublic
    }

    var access: String { isPublic ? "public " : "" }

    // MARK: Names

    /// The ASCII letter-and-digit runs of `text`.
    static func identifierParts(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                parts.append(current)
                current = ""
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }

    /// The words of one identifier part: a capital after a small letter or digit starts a
    /// word; in a run of capitals, the last one starts a word when a small letter follows
    /// (`NSFrame` → `NS`, `Frame`); a known prefix before a capital is a word (`NSRGB` → `NS`,
    /// `RGB`).
    static func words(_ part: String) -> [String] {
        // A known prefix before a capital, or before one small letter and a capital
        // (`NSvScroller` is `NS` + `vScroller`), is a word of its own.
        let all = Array(part.unicodeScalars)
        func isUpperScalar(_ scalar: Unicode.Scalar) -> Bool { ("A"..."Z").contains(scalar) }
        for prefix in knownPrefixes where part.hasPrefix(prefix) && all.count > prefix.count {
            let rest = all[prefix.count...]
            let next = rest[rest.startIndex]
            let afterNext = rest.count > 1 ? rest[rest.startIndex + 1] : nil
            if isUpperScalar(next) || (("a"..."z").contains(next) && afterNext.map(isUpperScalar) == true) {
                var restString = ""
                restString.unicodeScalars.append(contentsOf: rest)
                return [prefix] + words(restString)
            }
        }
        let scalars = all
        func isUpper(_ index: Int) -> Bool { ("A"..."Z").contains(scalars[index]) }
        func isLower(_ index: Int) -> Bool { ("a"..."z").contains(scalars[index]) }
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for index in scalars.indices {
            let startsWord = index > 0 && isUpper(index)
                && (!isUpper(index - 1) || (index + 1 < scalars.count && isLower(index + 1)))
            if startsWord, !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
            current.append(scalars[index])
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    /// A property name as Swift's API guidelines write one: the first word in small letters
    /// (an acronym too), each later word capitalized, an acronym kept in capitals:
    /// `NSFrameSize` → `nsFrameSize`, `NSRGB` → `nsRGB`, `NSvScroller` → `nsVScroller`,
    /// `NS.objects` → `nsObjects`, `URL` → `url`. A user key beginning with `$` (stored `$$name`)
    /// loses the `$` (`name`); a reserved key `$0`, `$1`, … (a value archived without a key)
    /// is `unkeyed0`, `unkeyed1`, ….
    static func propertyName(for storedKey: String) -> String {
        if ArchiveKeys.unescape(storedKey) == nil, let index = unkeyedIndex(storedKey) { return "unkeyed\(index)" }
        let words = identifierParts(storedKey).flatMap(Self.words)
        guard let head = words.first else { return "field" }
        var result = head.lowercased()
        for word in words.dropFirst() {
            if word.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) }) {
                result += word
            } else {
                result += word.prefix(1).uppercased() + word.dropFirst()
            }
        }
        if let first = result.unicodeScalars.first, ("0"..."9").contains(first) { result = "_" + result }
        if reservedWords.contains(result) { result += "_" }
        return result
    }

    /// The position of a reserved key `$0`, `$1`, …; nil for any other key.
    static func unkeyedIndex(_ storedKey: String) -> Int? {
        guard storedKey.hasPrefix("$"), storedKey.count > 1 else { return nil }
        let digits = storedKey.dropFirst()
        guard digits.count <= 9, digits.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return Int(digits)
    }

    static func typeName(for className: String) -> String {
        var name = identifierParts(className).joined(separator: "_")
        if name.isEmpty { name = "Class" }
        if let first = name.unicodeScalars.first, ("0"..."9").contains(first) { name = "_" + name }
        if reservedWords.contains(name) || takenTypeNames.contains(name) { name += "_" }
        return name
    }

    /// A Swift string literal of `text` (``ArchiveSchema/swiftString(_:)``).
    static func literal(_ text: String) -> String {
        ArchiveSchema.swiftString(text)
    }

    /// Text from an archive inside a `//` comment: one line, nothing that could end it early.
    static func commentText(_ text: String) -> String {
        String(text.escapedForMessage.prefix(200))
    }

    // MARK: Classes

    /// Whether the class gets a generated type: a model, or the root `NSObject`.
    func isGenerated(_ name: String) -> Bool {
        name == Self.rootName || schema.class(named: name)?.isModel == true
    }

    func ancestors(of name: String) -> [String] {
        var result = [name]
        var current = name
        while let parent = schema.class(named: current)?.superclass, !result.contains(parent), result.count <= schema.classes.count {
            result.append(parent)
            current = parent
        }
        return result
    }

    /// The nearest generated class (the root `NSObject` included) that all `names` are kinds of.
    func commonGeneratedAncestor(_ names: [String]) -> String? {
        guard let first = names.first else { return nil }
        var candidates = ancestors(of: first)
        for name in names.dropFirst() {
            let line = Set(ancestors(of: name))
            candidates = candidates.filter { line.contains($0) }
        }
        guard let common = candidates.first, typeNames[common] != nil else { return nil }
        return common
    }

    func chain(of className: String) -> [String] {
        schema.class(named: className)?.chains.first ?? [className, "NSObject"]
    }

    // MARK: Types

    /// The integer type for values of these widths (bytes): `Int` while every value fits 32
    /// bits (`Int` is 32 bits on some of Apple's platforms), `Int64` when one needs 64, `UInt64`
    /// when every value needs more (Core Foundation stores a `UInt64` above `Int64.max` in 16
    /// bytes); nil for 16-byte values mixed with others, which could be negative.
    static func integerType(_ widths: [Int]) -> String? {
        if widths.contains(where: { $0 > 8 }) { return widths.allSatisfy { $0 > 8 } ? "UInt64" : nil }
        return widths.contains(8) ? "Int64" : "Int"
    }

    /// The Swift type of elements of these kinds, and whether a `Set` can hold and order them.
    func elementType(_ kinds: ArchiveSchema.KindCounts) -> (type: String, isHashableAndComparable: Bool, isModel: Bool)? {
        let present = kinds.kinds
        guard !present.isEmpty else { return nil }
        if present.allSatisfy({ $0 == .string }) { return ("String", true, false) }
        if present.allSatisfy({ $0 == .data }) { return ("Data", false, false) }
        if present.allSatisfy({ $0 == .bool }) { return ("Bool", false, false) }
        if present.allSatisfy({ $0 == .real(bits: 64) }) { return ("Double", true, false) }
        if present.allSatisfy({ $0 == .real(bits: 32) }) { return ("Float", true, false) }
        let widths = present.compactMap { kind -> Int? in if case .integer(let width) = kind { return width } else { return nil } }
        if widths.count == present.count, let type = Self.integerType(widths) { return (type, true, false) }
        var names: [String] = []
        for kind in present {
            guard case .object(let name) = kind else { return nil }
            names.append(name)
        }
        // One Swift type for every class seen (an attributed string mutable or not).
        let leaves = Set(names.map { leafFoundationType($0) })
        if leaves.count == 1, let only = leaves.first, let leaf = only {
            return (leaf, false, false)
        }
        if names.allSatisfy(isUnmappedFoundation) { return ("ArchiveValue", false, false) }
        guard names.allSatisfy({ isGenerated($0) }), let common = commonGeneratedAncestor(names), let type = typeNames[common] else { return nil }
        return (type, false, true)
    }

    /// Whether objects of this class are Foundation's (it descends from a class the package
    /// maps) and the package cannot read them as one type: a class the registry does not know
    /// by name (a private subclass), or an `NSValue` class whose objects are not all of the
    /// kinds ``ArchiveSpecialValue`` has (some hold a structure by its Objective-C type).
    func isUnmappedFoundation(_ className: String) -> Bool {
        guard let type = schema.class(named: className), type.isFoundation else { return false }
        if className == "NSValue" {
            let special = type.keys.first { $0.storedKey == "NS.special" }
            return (special?.presentCount ?? 0) < type.instanceCount
        }
        return !foundationMappedClassNames.contains(className)
    }

    /// The Swift type of a Foundation class that is one value (not a collection).
    func leafFoundationType(_ className: String) -> String? {
        if isUnmappedFoundation(className) { return nil }
        switch className {
        case "NSDate": return "Date"
        case "NSUUID": return "UUID"
        case "NSURL": return "URL"
        case "NSIndexPath": return "IndexPath"
        case "NSValue": return "ArchiveSpecialValue"
        case "NSNull": return "ArchiveNull"
        // Types that keep the object as decoded, so that it is written back as it was.
        case "NSAttributedString", "NSMutableAttributedString": return "ArchiveAttributedString"
        case "NSDecimalNumber", "NSDecimalNumberPlaceholder": return "ArchiveDecimalNumber"
        case "NSCountedSet": return "ArchiveCountedSet"
        case "NSTimeZone": return "ArchiveTimeZone"
        case "NSLocale": return "ArchiveLocale"
        case "NSMeasurement": return "ArchiveMeasurement"
        case "NSAffineTransform": return "ArchiveAffineTransform"
        case "NSSortDescriptor": return "ArchiveSortDescriptor"
        default: return nil
        }
    }

    /// Words for a list of kinds in a comment: `strings and objects of NSCustomResource, NSView`.
    static func describe(_ kinds: [ArchiveSchema.ValueKind]) -> String {
        var plain: [String] = []
        var objects: [String] = []
        for kind in kinds {
            switch kind {
            case .object(let name): objects.append(name)
            case .string: plain.append("strings")
            case .integer, .inlineInteger: plain.append("integers")
            case .real, .inlineReal: plain.append("reals")
            case .bool, .inlineBool: plain.append("booleans")
            case .data, .inlineData: plain.append("data")
            case .date, .inlineDate: plain.append("dates")
            default: plain.append(kind.description)
            }
        }
        var parts: [String] = []
        var seen: Set<String> = []
        for part in plain where seen.insert(part).inserted { parts.append(part) }
        if !objects.isEmpty { parts.append("objects of " + objects.joined(separator: ", ")) }
        return parts.joined(separator: " and ")
    }

    /// How a key is typed, from what was stored under it.
    func mapping(for key: ArchiveSchema.Key) -> FieldMapping {
        let kinds = key.kinds.kinds.filter { $0 != .null }
        guard !kinds.isEmpty else { return opaqueValue(reason: "only $null was seen") }
        if kinds.allSatisfy(\.isInline) {
            if key.kinds.counts[.null] != nil { return inlineOrObjectValue(storedKey: key.storedKey, reason: "inline values and $null both occur") }
            return inlineMapping(kinds)
        }
        if kinds.contains(where: \.isInline) {
            return inlineOrObjectValue(storedKey: key.storedKey, reason: "inline values in some objects and references in others")
        }
        if kinds.allSatisfy({ $0 == .string || $0 == .object("NSString") || $0 == .object("NSMutableString") }) {
            return mutableValueMapping("String", key, immutable: .string, mutableName: "NSMutableString") { value, key, mutable in
                "try encoder.encode(\(value), forKey: \(key), mutable: \(mutable))"
            }
        }
        if kinds.allSatisfy({ $0 == .data || $0 == .object("NSMutableData") }) {
            return mutableValueMapping("Data", key, immutable: .data, mutableName: "NSMutableData") { value, key, mutable in
                "try encoder.encode(ArchiveValue.data([UInt8](\(value)), mutable: \(mutable)), forKey: \(key))"
            }
        }
        let widths = kinds.compactMap { kind -> Int? in if case .integer(let width) = kind { return width } else { return nil } }
        if widths.count == kinds.count, let type = Self.integerType(widths) { return numberObject(type) }
        if kinds.allSatisfy({ $0 == .real(bits: 64) }) { return numberObject("Double") }
        if kinds.allSatisfy({ $0 == .real(bits: 32) }) { return numberObject("Float") }
        if kinds.allSatisfy({ $0 == .bool }) { return numberObject("Bool") }
        var names: [String] = []
        for kind in kinds {
            guard case .object(let name) = kind else {
                return opaqueValue(reason: "\(Self.describe(kinds)): no one Swift type holds them all")
            }
            names.append(name)
        }
        let distinct = Set(names)
        if let collection = collectionMapping(key, classes: names) { return collection }
        let leaves = Set(distinct.map { leafFoundationType($0) })
        if leaves.count == 1, let only = leaves.first, let type = only { return objectMapping(type) }
        if distinct.count == 1, let only = names.first, only == "NSIndexSet" || only == "NSMutableIndexSet" {
            return objectMapping("ArchiveIndexSet")
        }
        if distinct == ["NSIndexSet", "NSMutableIndexSet"] { return objectMapping("ArchiveIndexSet") }
        if names.allSatisfy(isUnmappedFoundation) {
            var mapping = objectMapping("ArchiveValue")
            mapping.reason = "\(distinct.sorted().joined(separator: ", ")): no Swift type of the package maps \(distinct.count == 1 ? "it" : "them"); kept as stored (an ArchiveValue.instance)"
            return mapping
        }
        if names.allSatisfy({ isGenerated($0) }) {
            if let common = commonGeneratedAncestor(names), let type = typeNames[common] {
                var mapping = objectMapping(type)
                mapping.isModel = true
                return mapping
            }
            return opaqueValue(reason: "objects of classes with no common ancestor generated here (\(names.joined(separator: ", ")))")
        }
        return opaqueValue(reason: "\(Self.describe(kinds)): no one Swift type holds them all")
    }

    func objectMapping(_ type: String) -> FieldMapping {
        FieldMapping(type: type,
                     decode: { "try decoder.decode(\(type).self, forKey: \($0))" },
                     decodeIfPresent: { "try decoder.decodeIfPresent(\(type).self, forKey: \($0))" },
                     encode: { value, key, _ in "try encoder.encode(\(value), forKey: \(key))" })
    }

    func opaqueValue(reason: String) -> FieldMapping {
        var mapping = objectMapping("ArchiveValue")
        mapping.reason = reason
        return mapping
    }

    /// Values stored inline in some objects and as objects (or `$null`) in others: an
    /// ``ArchiveValue`` reads both; a flag keeps which, so each is written back as it was.
    func inlineOrObjectValue(storedKey: String, reason: String) -> FieldMapping {
        var mapping = opaqueValue(reason: reason)
        mapping.canBeDeferred = false
        let encodeObject = mapping.encode
        mapping = FieldMapping(type: mapping.type, decode: mapping.decode, decodeIfPresent: mapping.decodeIfPresent,
                               encode: { value, key, flag in
                                   "if \(flag), let raw = \(value).propertyListValue { try encoder.encodeRaw(raw, forStoredKey: \(Self.literal(storedKey))) } else { \(encodeObject(value, key, flag)) }"
                               },
                               canBeDeferred: false,
                               companion: .init(suffix: "IsInline", defaultValue: false,
                                                documentation: "Whether the value is stored inline in the object (the archives store it inline in some objects and as an object in others).",
                                                decode: { _, stored, flag in "if let stored = decoder.rawValue(forStoredKey: \(stored)) { \(flag) = !{ if case .uid = stored { return true } else { return false } }() }" }),
                               reason: reason)
        return mapping
    }

    func inlineMapping(_ kinds: [ArchiveSchema.ValueKind]) -> FieldMapping {
        func scalar(_ type: String) -> FieldMapping {
            var mapping = objectMapping(type)
            mapping.isInline = true
            mapping.canBeDeferred = false
            return mapping
        }
        let widths = kinds.compactMap { kind -> Int? in if case .inlineInteger(let width) = kind { return width } else { return nil } }
        if widths.count == kinds.count, let type = Self.integerType(widths) { return scalar(type) }
        if kinds.allSatisfy({ $0 == .inlineReal(bits: 64) }) { return scalar("Double") }
        if kinds.allSatisfy({ $0 == .inlineReal(bits: 32) }) { return scalar("Float") }
        if kinds.allSatisfy({ $0 == .inlineBool }) { return scalar("Bool") }
        if kinds.allSatisfy({ $0 == .inlineData }) {
            return FieldMapping(type: "[UInt8]", decode: { "try decoder.decodeBytes(forKey: \($0))" },
                                decodeIfPresent: { "try decoder.decodeBytesIfPresent(forKey: \($0))" },
                                encode: { value, key, _ in "try encoder.encodeBytes(\(value), forKey: \(key))" }, isInline: true, canBeDeferred: false)
        }
        if kinds.allSatisfy({ if case .inlineReal = $0 { return true } else { return false } }) {
            // 32- and 64-bit reals: a Double holds both exactly; a flag keeps each one's width.
            return FieldMapping(type: "Double", decode: { "try decoder.decode(Double.self, forKey: \($0))" },
                                decodeIfPresent: { "try decoder.decodeIfPresent(Double.self, forKey: \($0))" },
                                encode: { value, key, flag in
                                    "if \(flag) { try encoder.encode(Float(\(value)), forKey: \(key)) } else { try encoder.encode(\(value), forKey: \(key)) }"
                                },
                                isInline: true, canBeDeferred: false,
                                companion: .init(suffix: "IsFloat", defaultValue: kinds.first == .inlineReal(bits: 32),
                                                 documentation: "Whether the value is stored as a 32-bit real (the archives store 32- and 64-bit reals under this key).",
                                                 decode: { key, stored, flag in "if case .real(.float32)? = decoder.rawValue(forStoredKey: \(stored)) { \(flag) = true } else if decoder.contains(\(key)) { \(flag) = false }" }))
        }
        // Inline values of several kinds: kept as the property-list value.
        return FieldMapping(type: "PropertyListValue",
                            decode: { "try decoder.rawValue(forStoredKey: \($0)) ?? { throw ArchiveError(.valueNotFound, \"no value under \\(\($0))\", keyPath: decoder.keyPath) }()" },
                            decodeIfPresent: { "decoder.rawValue(forStoredKey: \($0))" },
                            encode: { value, key, _ in "try encoder.encodeRaw(\(value), forStoredKey: \(key))" },
                            isInline: true, canBeDeferred: false,
                            reason: "inline values of different kinds (\(kinds.map(\.description).joined(separator: ", "))): no one Swift type holds them all")
    }

    /// A plain number object (how Foundation's overlay stores optionals and `UInt64`).
    func numberObject(_ type: String) -> FieldMapping {
        FieldMapping(type: type,
                     decode: { "try decoder.decode(\(type).self, forKey: \($0))" },
                     decodeIfPresent: { "try decoder.decodeIfPresent(\(type).self, forKey: \($0))" },
                     // As an optional, so that it is stored as a number object, as the archive has it.
                     encode: { value, key, _ in "try encoder.encode(\(value) as \(type)?, forKey: \(key))" })
    }

    /// Which of a class pair (`NSString`/`NSMutableString`, …) the objects under a key are: all
    /// the first, all the second, or both (then a flag keeps each one's).
    enum Mutability {
        case immutable, mutable, mixed(mostlyMutable: Bool)
    }

    static func mutability(_ names: [String], counts: [String: Int], mutableName: String) -> Mutability {
        let mutable = names.filter { $0 == mutableName }.reduce(0) { $0 + (counts[$1] ?? 0) }
        let total = names.reduce(0) { $0 + (counts[$1] ?? 0) }
        if mutable == 0 { return .immutable }
        if mutable == total { return .mutable }
        return .mixed(mostlyMutable: mutable * 2 > total)
    }

    static func mutableCompanion(_ className: String, mostlyMutable: Bool) -> FieldMapping.Companion {
        .init(suffix: "IsMutable", defaultValue: mostlyMutable,
              documentation: "Whether the value is archived as `\(className)` (the archives store both classes under this key).",
              decode: { key, _, flag in "\(flag) = try decoder.archivedClassName(forKey: \(key)) == \(literal(className))" })
    }

    /// Strings or data, of the plain (or immutable) class and the mutable one: written as the
    /// class each was (`encode` is given the value, the key and the mutability expression).
    func mutableValueMapping(_ type: String, _ key: ArchiveSchema.Key, immutable: ArchiveSchema.ValueKind, mutableName: String,
                             encode: @escaping (String, String, String) -> String) -> FieldMapping {
        var counts: [String: Int] = [:]
        var names: [String] = []
        for kind in key.kinds.kinds where kind != .null {
            let name: String
            if kind == immutable { name = "plain" } else if case .object(let className) = kind { name = className } else { name = kind.description }
            names.append(name)
            counts[name, default: 0] += key.kinds.counts[kind] ?? 0
        }
        var mapping = objectMapping(type)
        /// The reference of a value stored without a key, mutable as `flag` says (issue 51).
        func reference(_ value: String, _ flag: String) -> String {
            type == "String" ? "try encoder.reference(for: \(value), mutable: \(flag))"
                : "try encoder.reference(for: ArchiveValue.data([UInt8](\(value)), mutable: \(flag)))"
        }
        switch Self.mutability(names, counts: counts, mutableName: mutableName) {
        case .immutable: break
        case .mutable:
            mapping = FieldMapping(type: type, decode: mapping.decode, decodeIfPresent: mapping.decodeIfPresent,
                                   encode: { value, key, _ in encode(value, key, "true") }, reference: { value, _ in reference(value, "true") })
        case .mixed(let mostlyMutable):
            mapping = FieldMapping(type: type, decode: mapping.decode, decodeIfPresent: mapping.decodeIfPresent,
                                   encode: encode, companion: Self.mutableCompanion(mutableName, mostlyMutable: mostlyMutable), reference: reference)
        }
        return mapping
    }

    /// Arrays, sets, ordered sets and dictionaries (one pair of classes under the key).
    func collectionMapping(_ key: ArchiveSchema.Key, classes names: [String]) -> FieldMapping? {
        let distinct = Array(Set(names)).sorted()
        let families: [(immutable: String, mutable: String)] = [
            ("NSArray", "NSMutableArray"), ("NSSet", "NSMutableSet"), ("NSOrderedSet", "NSMutableOrderedSet"), ("NSDictionary", "NSMutableDictionary"),
        ]
        guard let family = families.first(where: { family in distinct.allSatisfy { $0 == family.immutable || $0 == family.mutable } }) else { return nil }
        var counts: [String: Int] = [:]
        for name in distinct { counts[name] = key.kinds.counts[.object(name)] ?? 0 }
        let mutability = Self.mutability(distinct, counts: counts, mutableName: family.mutable)
        var elements = ArchiveSchema.KindCounts()
        var keys = ArchiveSchema.KindCounts()
        var truncated = false
        for contents in key.contents where distinct.contains(contents.className) {
            elements.merge(contents.elements)
            keys.merge(contents.keys)
            truncated = truncated || contents.isTruncated
        }
        let element = truncated ? nil : elementType(elements)
        let elementType = element?.type ?? "ArchiveValue"
        let opaque = element == nil
        let reason: String? = opaque ? (elements.isEmpty ? "no element was seen" : "elements of different kinds (\(Self.describe(elements.kinds)))") : nil
        let immutableChain = chain(of: family.immutable)
        let mutableChain = chain(of: family.mutable)
        /// The `classes:` argument, or nil for the package's default chain.
        func classesArgument(defaultChain: [String]) -> String? {
            func list(_ chain: [String]) -> String { "[" + chain.map(Self.literal).joined(separator: ", ") + "]" }
            switch mutability {
            case .immutable: return immutableChain == defaultChain ? nil : list(immutableChain)
            case .mutable: return list(mutableChain)
            case .mixed: return nil
            }
        }
        func mixedClasses(_ flag: String) -> String {
            func list(_ chain: [String]) -> String { "[" + chain.map(Self.literal).joined(separator: ", ") + "]" }
            return "\(flag) ? \(list(mutableChain)) : \(list(immutableChain))"
        }
        var companion: FieldMapping.Companion?
        if case .mixed(let mostlyMutable) = mutability { companion = Self.mutableCompanion(family.mutable, mostlyMutable: mostlyMutable) }
        /// The reference expression with the chain the source had, for a value stored without a key.
        func referenceWithClasses(defaultChain: [String]?) -> (String, String) -> String {
            { value, flag in
                if case .mixed = mutability { return "try encoder.reference(for: \(value), classes: \(mixedClasses(flag)))" }
                let chain = { if case .mutable = mutability { return mutableChain } else { return immutableChain } }()
                if let defaultChain, chain == defaultChain { return "try encoder.reference(for: \(value))" }
                return "try encoder.reference(for: \(value), classes: [\(chain.map(Self.literal).joined(separator: ", "))])"
            }
        }
        func encodeWithClasses(defaultChain: [String]) -> (String, String, String) -> String {
            { value, key, flag in
                if case .mixed = mutability { return "try encoder.encode(\(value), forKey: \(key), classes: \(mixedClasses(flag)))" }
                if let classes = classesArgument(defaultChain: defaultChain) { return "try encoder.encode(\(value), forKey: \(key), classes: \(classes))" }
                return "try encoder.encode(\(value), forKey: \(key))"
            }
        }
        switch family.immutable {
        case "NSArray":
            let type = "[\(elementType)]"
            return FieldMapping(type: type, decode: { "try decoder.decode(\(type).self, forKey: \($0))" },
                                decodeIfPresent: { "try decoder.decodeIfPresent(\(type).self, forKey: \($0))" },
                                encode: encodeWithClasses(defaultChain: ArchiveArray.arrayClasses), companion: companion, reason: reason,
                                reference: referenceWithClasses(defaultChain: ArchiveArray.arrayClasses))
        case "NSSet":
            if let element, element.isHashableAndComparable {
                let type = "Set<\(element.type)>"
                return FieldMapping(type: type, decode: { "try decoder.decode(\(type).self, forKey: \($0))" },
                                    decodeIfPresent: { "try decoder.decodeIfPresent(\(type).self, forKey: \($0))" },
                                    encode: encodeWithClasses(defaultChain: ArchiveArray.setClasses), companion: companion,
                                    reference: referenceWithClasses(defaultChain: ArchiveArray.setClasses))
            }
            // Elements a Set cannot hold or order (models, values of several kinds): an array in
            // the order stored, archived as the set it was.
            let type = "[\(elementType)]"
            return FieldMapping(type: type, decode: { "try decoder.decodeSetElements(\(elementType).self, forKey: \($0))" },
                                decodeIfPresent: { "try decoder.decodeSetElementsIfPresent(\(elementType).self, forKey: \($0))" },
                                encode: { value, key, flag in
                                    if case .mixed = mutability { return "try encoder.encode(\(value), forKey: \(key), classes: \(mixedClasses(flag)))" }
                                    let chain = { if case .mutable = mutability { return mutableChain } else { return immutableChain } }()
                                    return "try encoder.encode(\(value), forKey: \(key), classes: [\(chain.map(Self.literal).joined(separator: ", "))])"
                                },
                                canBeDeferred: false, companion: companion,
                                reason: reason ?? "an NSSet of elements a Swift Set cannot hold or order: an array in stored order",
                                reference: referenceWithClasses(defaultChain: nil))
        case "NSOrderedSet":
            guard let element, element.isHashableAndComparable || element.isModel, companion == nil else { return nil }
            let type = "ArchiveOrderedSet<\(element.type)>"
            return FieldMapping(type: type, decode: { "try decoder.decode(\(type).self, forKey: \($0))" },
                                decodeIfPresent: { "try decoder.decodeIfPresent(\(type).self, forKey: \($0))" },
                                encode: { value, key, _ in "try encoder.encode(\(value), forKey: \(key))" })
        default:
            guard keys.kinds.allSatisfy({ $0 == .string }) else { return nil }
            let type = "[String: \(elementType)]"
            return FieldMapping(type: type, decode: { "try decoder.decode(\(type).self, forKey: \($0))" },
                                decodeIfPresent: { "try decoder.decodeIfPresent(\(type).self, forKey: \($0))" },
                                encode: encodeWithClasses(defaultChain: ArchiveDictionary.dictionaryClasses), companion: companion, reason: reason,
                                reference: referenceWithClasses(defaultChain: ArchiveDictionary.dictionaryClasses))
        }
    }

    // MARK: Writing

    mutating func line(_ text: String = "", _ indent: Int = 0) {
        if text.isEmpty { out += "\n"; return }
        out += String(repeating: "    ", count: indent) + text + "\n"
    }

    mutating func write() -> String {
        // Superclasses first: the registry needs them registered before their subclasses.
        var ordered: [String] = []
        var done: Set<String> = []
        var used: Set<String> = [namespace]
        let models = schema.classes.filter(\.isModel).map(\.name)
        let needsRoot = models.contains { ancestors(of: $0).contains(Self.rootName) }
        if needsRoot {
            ordered.append(Self.rootName)
            done.insert(Self.rootName)
        }
        for name in models {
            for ancestor in ancestors(of: name).reversed() where !done.contains(ancestor) && schema.class(named: ancestor)?.isModel == true {
                done.insert(ancestor)
                ordered.append(ancestor)
            }
        }
        for name in ordered {
            let base = name == Self.rootName ? Self.rootName : Self.typeName(for: name)
            var typeName = base
            var suffix = 2
            while used.contains(typeName) { typeName = base + "\(suffix)"; suffix += 1 }
            used.insert(typeName)
            typeNames[name] = typeName
        }

        line("// Generated by `keyedarchive schema --swift` from \(schema.archiveCount) archive\(schema.archiveCount == 1 ? "" : "s") (\(schema.objectCount) objects).")
        line("// Every model decodes and re-encodes the keys its class was seen with; see Docs/Schema.md.")
        line("import Foundation")
        line("import KeyedArchive")
        line("import PropertyList")
        line()
        line("/// Fails to compile, saying to regenerate these models, against a release of KeyedArchive")
        line("/// whose API for generated code is not the one they were written for.")
        line("private struct GeneratedCodeVersionCheck: ArchiveGeneratedCodeVersion\(ArchiveGeneratedCode.version) {}")
        line()
        line("/// Models of the archived classes, the registry that admits them, and a round trip.")
        line("\(access)enum \(namespace) {")
        writeRegistry(ordered)
        writeRoundTrip()
        for name in ordered {
            if name == Self.rootName { writeRoot() } else if let type = schema.class(named: name) { writeClass(type) }
        }
        line("}")
        return out
    }

    mutating func writeRegistry(_ ordered: [String]) {
        line("/// Every generated class under its exact archived class name and superclass, with the", 1)
        line("/// package's built-in Foundation classes; objects of these classes in an `ArchiveValue`", 1)
        line("/// field are decoded as models.", 1)
        line("\(access)static var registry: ArchiveRegistry {", 1)
        line("var registry = ArchiveRegistry()", 2)
        line("registry.decodesModelsInArchiveValues = true", 2)
        if schema.classes.contains(where: { $0.instanceCount > 0 && isUnmappedFoundation($0.name) }) {
            // Objects of Foundation classes the package has no type for (a private subclass)
            // are kept as stored: read as their class chain and fields, nothing instantiated.
            let names = schema.classes.filter { $0.instanceCount > 0 && isUnmappedFoundation($0.name) }.map(\.name).sorted()
            line("// \(names.joined(separator: ", ")): Foundation classes no Swift type maps, read as stored", 2)
            line("// (`ArchiveValue.instance`, its class chain and fields; nothing is instantiated).", 2)
            line("registry.inspectsUnknownClasses = true", 2)
        }
        for name in ordered {
            guard let typeName = typeNames[name] else { continue }
            var call = "registry.register(\(typeName).self, className: \(Self.literal(name))"
            if let superclass = schema.class(named: name)?.superclass, let parent = typeNames[superclass] { call += ", superclass: \(parent).self" }
            line(call + ")", 2)
        }
        line("return registry", 2)
        line("}", 1)
        line()
    }

    mutating func writeRoundTrip() {
        line("/// Decodes every `$top` value of `bytes` with these models and archives the values again", 1)
        line("/// under the same keys, in the same format, with the archive's sharing kept", 1)
        line("/// (`KeyedArchiver.roundTrip`).", 1)
        line("\(access)static func roundTrip(_ bytes: [UInt8]) throws -> [UInt8] {", 1)
        line("try KeyedArchiver.roundTrip(bytes, registry: registry)", 2)
        line("}", 1)
    }

    mutating func writeRoot() {
        line()
        line("/// `NSObject`, the root of the archived classes: a field whose objects are of unrelated", 1)
        line("/// classes is typed as it (check for a class with `as?`). Compared and hashed by identity,", 1)
        line("/// as `NSObject` compares objects.", 1)
        line("\(access)class NSObject: KeyedArchivable, Hashable {", 1)
        line("\(access)init() {}", 2)
        line()
        line("\(access)required init(from decoder: KeyedArchiveDecoder) throws {}", 2)
        line()
        line("\(access)func encode(to encoder: KeyedArchiveEncoder) throws {}", 2)
        line()
        line("\(access)static func == (lhs: NSObject, rhs: NSObject) -> Bool { lhs === rhs }", 2)
        line()
        line("\(access)func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }", 2)
        line("}", 1)
    }

    struct Property {
        let key: ArchiveSchema.Key
        let name: String
        let mapping: FieldMapping
        let isOptional: Bool
        /// Absent in some objects and `$null` in others: a flag keeps which.
        let tracksPresence: Bool
        let isBackReference: Bool
        let isWeak: Bool
        var storedKey: String { key.storedKey }
        var userKey: String { key.userKey ?? key.storedKey }
        var unkeyedIndex: Int? { key.userKey == nil ? SwiftSourceWriter.unkeyedIndex(key.storedKey) : nil }
        var declaredType: String { isOptional ? "\(mapping.type)?" : mapping.type }
    }

    func properties(of type: ArchiveSchema.Class, taken: inout Set<String>) -> [Property] {
        var result: [Property] = []
        for key in type.declaredKeys {
            var mapping = mapping(for: key)
            if key.userKey == nil, SwiftSourceWriter.unkeyedIndex(key.storedKey) == nil {
                // A reserved key other than $0, $1, …: read and written as stored.
                mapping = FieldMapping(type: "PropertyListValue",
                                       decode: { "try decoder.rawValue(forStoredKey: \($0)) ?? { throw ArchiveError(.valueNotFound, \"no value under \\(\($0))\", keyPath: decoder.keyPath) }()" },
                                       decodeIfPresent: { "decoder.rawValue(forStoredKey: \($0))" },
                                       encode: { value, key, _ in "try encoder.encodeRaw(\(value), forStoredKey: \(key))" },
                                       isInline: true, canBeDeferred: false, reason: "a reserved key, read and written as stored")
            }
            let absent = key.presentCount < type.familyInstanceCount
            let null = key.kinds.counts[.null] != nil
            var isBack = key.isBackReference
            if isBack, !mapping.canBeDeferred || (key.userKey == nil && SwiftSourceWriter.unkeyedIndex(key.storedKey) == nil) {
                // Put-off decoding reads objects under a user key or at an unkeyed position only:
                // such a field is read at once.
                isBack = false
                mapping.reason = (mapping.reason.map { $0 + "; " } ?? "") + "closes a cycle, but is read at once (decoding it later takes an object type)"
            }
            var name = Self.propertyName(for: key.storedKey)
            let base = name
            var suffix = 2
            let companions = ["IsStored", "IsMutable", "IsFloat", "IsInline"]
            while taken.contains(name) || companions.contains(where: { taken.contains(name + $0) }) { name = base + "\(suffix)"; suffix += 1 }
            taken.insert(name)
            for companion in companions { taken.insert(name + companion) }
            // Weak only where every reference closes a cycle, so its target is an ancestor that
            // something else holds; a key that is sometimes a forward reference may be the only
            // owner of its object, and a weak property would drop it.
            let references = key.kinds.kinds.filter { $0 != .null }.reduce(0) { $0 + (key.kinds.counts[$1] ?? 0) }
            // (An unkeyed one is strong: a conditional reference is written under a user key.)
            let isWeak = isBack && mapping.isModel && key.cycleCount >= references && key.userKey != nil
            let optional = absent || null || isBack
            result.append(Property(key: key, name: name, mapping: mapping, isOptional: optional,
                                   tracksPresence: (absent && null) || (isBack && absent), isBackReference: isBack, isWeak: isWeak))
        }
        return result
    }

    /// The properties of `type` and of its generated superclasses, nearest last.
    func inheritedProperties(of type: ArchiveSchema.Class) -> [Property] {
        var result: [Property] = []
        var taken: Set<String> = []
        for ancestor in ancestors(of: type.name).dropFirst().reversed() {
            guard let model = schema.class(named: ancestor), model.isModel else { continue }
            result += properties(of: model, taken: &taken)
        }
        return result
    }

    mutating func writeClass(_ type: ArchiveSchema.Class) {
        guard let name = typeNames[type.name] else { return }
        let inherited = inheritedProperties(of: type)
        var taken = Set(inherited.map(\.name))
        for property in inherited { for companion in ["IsStored", "IsMutable", "IsFloat", "IsInline"] { taken.insert(property.name + companion) } }
        let properties = properties(of: type, taken: &taken)
        let parent = type.superclass.flatMap { typeNames[$0] }
        let isFinal = !type.subclasses.contains { typeNames[$0] != nil }
        line()
        line("/// Archived as `\(Self.commentText(type.name))`: \(type.instanceCount) instance\(type.instanceCount == 1 ? "" : "s") of its own, \(type.familyInstanceCount) with subclasses.", 1)
        for chain in type.chains {
            line("/// Chain: \(Self.commentText(chain.joined(separator: " < "))).", 1)
        }
        // A root other than NSObject (a chain that does not end there) is hashed by identity too.
        line("\(access)\(isFinal ? "final " : "")class \(name): \(parent ?? "KeyedArchivable, Hashable") {", 1)
        if parent == nil {
            line("\(access)static func == (lhs: \(name), rhs: \(name)) -> Bool { lhs === rhs }", 2)
            line()
            line("\(access)func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }", 2)
            line()
        }
        for property in properties {
            var facts = "`\(Self.commentText(property.storedKey))`: \(property.key.presentCount) of \(type.familyInstanceCount)"
            facts += ", " + Self.commentText(schema.kindSummary(of: property.key))
            line("/// \(facts)", 2)
            if let reason = property.mapping.reason { line("// Not more specific: \(Self.commentText(reason)).", 2) }
            if property.isBackReference {
                let holding: String
                if property.isWeak {
                    holding = ", held weakly"
                } else if property.unkeyedIndex != nil {
                    holding = "; strong, since a reference archived without a key is not written conditionally (a cycle of such objects is not freed)"
                } else {
                    holding = "; strong, since it is not always a back-reference (a cycle of such objects is not freed)"
                }
                line("// Closes a cycle (refers back to an object still being decoded): read once the whole graph is built\(holding).", 2)
            }
            line("\(access)\(property.isWeak ? "weak " : "")var \(property.name): \(property.declaredType)", 2)
            if let companion = property.mapping.companion {
                line("/// \(companion.documentation)", 2)
                line("\(access)var \(property.name)\(companion.suffix) = \(companion.defaultValue)", 2)
            }
            if property.tracksPresence {
                line("/// Whether the key is stored at all (it is absent from some objects and `$null` in others).", 2)
                line("\(access)var \(property.name)IsStored = true", 2)
            }
        }
        writeMemberwiseInit(name: name, parent: parent, inherited: inherited, own: properties)
        line()
        line("\(access)required init(from decoder: KeyedArchiveDecoder) throws {", 2)
        for property in properties where !property.isBackReference {
            writeDecode(property)
        }
        if parent != nil { line("try super.init(from: decoder)", 3) }
        for property in properties where property.isBackReference {
            if property.tracksPresence { line("\(property.name)IsStored = decoder.contains(\(Self.literal(property.userKey)))", 3) }
            if let index = property.unkeyedIndex {
                line("decoder.decodeUnkeyed(\(property.mapping.type).self, at: \(index), for: self) { object, value in object.\(property.name) = value }", 3)
            } else {
                line("decoder.decode(\(property.mapping.type).self, forKey: \(Self.literal(property.userKey)), for: self) { object, value in object.\(property.name) = value }", 3)
            }
        }
        line("}", 2)
        line()
        line("\(access)\(parent == nil ? "" : "override ")func encode(to encoder: KeyedArchiveEncoder) throws {", 2)
        if parent != nil { line("try super.encode(to: encoder)", 3) }
        // Values archived without a key are written in order of their position.
        let ordered = properties.filter { $0.unkeyedIndex == nil } + properties.filter { $0.unkeyedIndex != nil }.sorted { ($0.unkeyedIndex ?? 0) < ($1.unkeyedIndex ?? 0) }
        for property in ordered { writeEncode(property) }
        line("}", 2)
        line("}", 1)
    }

    /// `init(…)` taking every stored value, the superclasses' first; optionals default to nil.
    mutating func writeMemberwiseInit(name: String, parent: String?, inherited: [Property], own: [Property]) {
        func parameter(_ property: Property) -> String {
            "\(property.name): \(property.declaredType)\(property.isOptional ? " = nil" : "")"
        }
        let parameters = (inherited + own).map(parameter)
        line()
        line("/// An instance with these values (what a test builds to compare with a decoded one).", 2)
        // With no values of its own, the initializer has its superclass's signature.
        let overrides = parent != nil && own.isEmpty
        let opening = "\(access)\(overrides ? "override " : "")init("
        if parameters.count <= 3 {
            line(opening + parameters.joined(separator: ", ") + ") {", 2)
        } else {
            line(opening, 2)
            for (index, parameter) in parameters.enumerated() { line(parameter + (index + 1 < parameters.count ? "," : ""), 3) }
            line(") {", 2)
        }
        for property in own { line("self.\(property.name) = \(property.name)", 3) }
        if parent != nil {
            line("super.init(\(inherited.map { "\($0.name): \($0.name)" }.joined(separator: ", ")))", 3)
        }
        line("}", 2)
    }

    /// The decoding statement for a property that is read at once.
    mutating func writeDecode(_ property: Property) {
        let mapping = property.mapping
        let target = property.name
        if let index = property.unkeyedIndex {
            writeUnkeyedDecode(property, index: index)
            return
        }
        let key = mapping.isInline && mapping.type == "PropertyListValue" ? Self.literal(property.storedKey) : Self.literal(property.userKey)
        line("\(target) = \(property.isOptional ? mapping.decodeIfPresent(key) : mapping.decode(key))", 3)
        if let companion = mapping.companion {
            line(companion.decode(Self.literal(property.userKey), Self.literal(property.storedKey), "\(target)\(companion.suffix)"), 3)
        }
        if property.tracksPresence { line("\(target)IsStored = decoder.contains(\(Self.literal(property.userKey)))", 3) }
    }

    /// A value archived without a key (`$0`, …): an object decoded at its position, or an
    /// inline value read as stored.
    mutating func writeUnkeyedDecode(_ property: Property, index: Int) {
        let mapping = property.mapping
        let stored = Self.literal(property.storedKey)
        if mapping.isInline {
            if mapping.type == "PropertyListValue" {
                line("\(property.name) = \(property.isOptional ? mapping.decodeIfPresent(stored) : mapping.decode(stored))", 3)
                return
            }
            // Read as an ArchiveValue (inline or referenced), then as the property's type.
            let accessor: String
            switch mapping.type {
            case "Int": accessor = "intValue"
            case "Int64": accessor = "int64Value"
            case "UInt64": accessor = "uint64Value"
            case "Double": accessor = "doubleValue"
            case "Float": accessor = "doubleValue.map(Float.init)"
            case "Bool": accessor = "boolValue"
            default: accessor = "dataValue"
            }
            let read = "try decoder.decodeUnkeyed(ArchiveValue.self, at: \(index)).\(accessor)"
            // The key is `$` and digits (unkeyedIndex), safe inside the literal as it is.
            let fault = "{ throw ArchiveError(.typeMismatch, \"the value archived without a key at \(property.storedKey) is not \(mapping.type)\", keyPath: decoder.keyPath) }()"
            if property.isOptional {
                line("\(property.name) = decoder.rawValue(forStoredKey: \(stored)) == nil ? nil : \(read)", 3)
            } else {
                line("\(property.name) = \(read) ?? \(fault)", 3)
            }
            return
        }
        let type = mapping.type
        if property.isOptional {
            line("\(property.name) = try decoder.rawValue(forStoredKey: \(stored)).flatMap { stored -> \(type)? in", 3)
            line("if case .uid(let uid) = stored, uid.value != 0 { return try decoder.decodeUnkeyed(\(type).self, at: \(index)) } else { return nil }", 4)
            line("}", 3)
        } else {
            line("\(property.name) = try decoder.decodeUnkeyed(\(type).self, at: \(index))", 3)
        }
    }

    mutating func writeEncode(_ property: Property) {
        let mapping = property.mapping
        let name = "self.\(property.name)"
        let key: String
        var store: (String) -> String
        if let index = property.unkeyedIndex {
            let stored = Self.literal(property.storedKey)
            key = stored
            if mapping.isInline {
                store = { value in
                    switch mapping.type {
                    case "Int", "Int64": return "try encoder.encodeRaw(.integer(PropertyListInteger(Int64(\(value)))), forStoredKey: \(stored))"
                    case "UInt64": return "try encoder.encodeRaw(.integer(PropertyListInteger(\(value))), forStoredKey: \(stored))"
                    case "Double": return "try encoder.encodeRaw(.real(.float64(\(value))), forStoredKey: \(stored))"
                    case "Float": return "try encoder.encodeRaw(.real(.float32(\(value))), forStoredKey: \(stored))"
                    case "Bool": return "try encoder.encodeRaw(.bool(\(value)), forStoredKey: \(stored))"
                    case "[UInt8]": return "try encoder.encodeRaw(.data(\(value)), forStoredKey: \(stored))"
                    default: return "try encoder.encodeRaw(\(value), forStoredKey: \(stored))"
                    }
                }
            } else {
                _ = index
                // A collection (or string) keeps its class chain through its reference (issue 51).
                let flag = "self.\(property.name)\(mapping.companion?.suffix ?? "")"
                let reference = mapping.reference ?? { value, _ in "try encoder.reference(for: \(value))" }
                store = { value in "try encoder.encodeRaw(.uid(\(reference(value, flag)).uid), forStoredKey: \(stored))" }
            }
        } else {
            key = mapping.isInline && mapping.type == "PropertyListValue" ? Self.literal(property.storedKey) : Self.literal(property.userKey)
            let flag = "self.\(property.name)\(mapping.companion?.suffix ?? "")"
            store = { value in mapping.encode(value, key, flag) }
        }
        if property.isWeak {
            let call = "try encoder.encodeConditional(\(name), forKey: \(key))"
            line(property.tracksPresence ? "if \(name)IsStored { \(call) }" : call, 3)
            return
        }
        guard property.isOptional else {
            line(store(name), 3)
            return
        }
        let null = property.key.kinds.counts[.null] != nil || property.isBackReference
        let storeNull: String
        if property.unkeyedIndex != nil {
            storeNull = "try encoder.encodeRaw(.uid(PropertyListUID(0)), forStoredKey: \(key))"
        } else {
            storeNull = "try encoder.encode(ArchiveValue?.none, forKey: \(key))"
        }
        if mapping.isInline || !null {
            // Absent in some objects, never $null: stored only when there is a value.
            line("if let value = \(name) { \(store("value")) }", 3)
        } else if property.tracksPresence {
            line("if \(name)IsStored {", 3)
            line("if let value = \(name) { \(store("value")) } else { \(storeNull) }", 4)
            line("}", 3)
        } else {
            line("if let value = \(name) { \(store("value")) } else { \(storeNull) }", 3)
        }
    }
}
