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
    /// the archived superclasses; stored properties typed from what the archives hold; and a
    /// namespace `name` with `registry` and `roundTrip(_:)`. Foundation classes map to the
    /// package's types; what cannot be typed is kept exactly as stored (`ArchivedValue`,
    /// `ArchivedField`, `PropertyListValue`), with a comment saying why. The file compiles
    /// against this package as it is (Docs/Schema.md).
    public func swiftSource(name: String = "ArchiveSchema") -> String {
        var writer = SwiftSourceWriter(schema: self, namespace: Self.isValidTypeName(name) ? name : "ArchiveSchema")
        return writer.write()
    }
}

/// How a generated property is typed, stored and read.
enum GeneratedFieldType {
    case inlineInteger, inlineDouble, inlineFloat, inlineBool, inlineBytes
    /// Inline values of several kinds: kept as the property-list value.
    case inlineRaw
    case string, data, date, uuid, url
    /// Plain number objects (Foundation's overlay stores optionals and UInt64 so).
    case integerObject, doubleObject, boolObject
    case model(String)
    case array(element: String, classes: [String])
    case dictionary(value: String, classes: [String])
    /// Any object, kept with its class and fields.
    case anyValue
    /// Inline and referenced values mixed, or a reserved key.
    case anyField

    var swiftType: String {
        switch self {
        case .inlineInteger, .integerObject: return "Int64"
        case .inlineDouble, .doubleObject: return "Double"
        case .inlineFloat: return "Float"
        case .inlineBool, .boolObject: return "Bool"
        case .inlineBytes: return "[UInt8]"
        case .inlineRaw: return "PropertyListValue"
        case .string: return "String"
        case .data: return "Data"
        case .date: return "Date"
        case .uuid: return "UUID"
        case .url: return "URL"
        case .model(let type): return type
        case .array(let element, _): return "[\(element)]"
        case .dictionary(let value, _): return "[String: \(value)]"
        case .anyValue: return "ArchivedValue"
        case .anyField: return "ArchivedField"
        }
    }

    var isInline: Bool {
        switch self {
        case .inlineInteger, .inlineDouble, .inlineFloat, .inlineBool, .inlineBytes, .inlineRaw: return true
        default: return false
        }
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
        "encode", "decode", "description", "hashValue", "classes", "fields", "isStored", "registry", "roundTrip", "_",
    ]
    /// Type names the file itself uses, and Foundation's and this package's that it refers to.
    static let takenTypeNames: Set<String> = [
        "ArchivedValue", "ArchivedField", "ArchivedInstance", "DecodingFault", "String", "Data", "Date", "UUID", "URL", "Int64", "Double",
        "Float", "Bool", "UInt8", "Array", "Dictionary", "Optional", "Error", "KeyedArchivable", "KeyedArchiveDecoder", "KeyedArchiveEncoder",
        "ArchiveRegistry", "ArchiveReference", "ArchiveArray", "ArchiveDictionary", "ArchiveSharedValue", "PropertyListValue", "TaskLocal",
        "KeyedArchiver", "KeyedUnarchiver", "ArchiveObjectEncodable", "ArchiveFormat", "ArchiveStoredObject",
    ]

    let schema: ArchiveSchema
    let namespace: String
    var typeNames: [String: String] = [:]
    var out = ""

    init(schema: ArchiveSchema, namespace: String) {
        self.schema = schema
        self.namespace = namespace
    }

    // MARK: Names

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

    /// `NSFrameSize` → `nsFrameSize`, `NS.objects` → `nsObjects`, `$$name` → `name`.
    static func propertyName(for storedKey: String) -> String {
        let parts = identifierParts(storedKey)
        guard let head = parts.first else { return "field" }
        var result = lowerLeadingCapitals(head)
        for part in parts.dropFirst() {
            result += part.prefix(1).uppercased() + part.dropFirst()
        }
        if let first = result.unicodeScalars.first, ("0"..."9").contains(first) { result = "_" + result }
        if reservedWords.contains(result) { result += "_" }
        return result
    }

    /// Lower-cases the leading run of capitals, keeping the last when a lower-case letter
    /// follows (it begins the next word): `NSFrame` → `nsFrame`, `URL` → `url`.
    static func lowerLeadingCapitals(_ word: String) -> String {
        let scalars = Array(word.unicodeScalars)
        var run = 0
        while run < scalars.count, ("A"..."Z").contains(scalars[run]) { run += 1 }
        if run == 0 { return word }
        var keep = run
        if run < scalars.count, run > 1, ("a"..."z").contains(scalars[run]) { keep = run - 1 }
        var result = ""
        for (index, scalar) in scalars.enumerated() {
            if index < keep { result += String(scalar).lowercased() } else { result.unicodeScalars.append(scalar) }
        }
        return result
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

    var models: [ArchiveSchema.Class] { schema.classes.filter(\.isModel) }

    func ancestors(of name: String) -> [String] {
        var result = [name]
        var current = name
        while let parent = schema.class(named: current)?.superclass, !result.contains(parent), result.count <= schema.classes.count {
            result.append(parent)
            current = parent
        }
        return result
    }

    /// The nearest model class that all `names` are kinds of; nil when there is none.
    func commonModelAncestor(_ names: [String]) -> String? {
        guard let first = names.first else { return nil }
        var candidates = ancestors(of: first)
        for name in names.dropFirst() {
            let line = Set(ancestors(of: name))
            candidates = candidates.filter { line.contains($0) }
        }
        guard let common = candidates.first, schema.class(named: common)?.isModel == true else { return nil }
        return common
    }

    func chain(of className: String) -> [String] {
        schema.class(named: className)?.chains.first ?? [className, "NSObject"]
    }

    /// The element type of collections whose elements have these kinds.
    func elementType(_ kinds: ArchiveSchema.KindCounts) -> String {
        let present = kinds.kinds
        guard !present.isEmpty else { return "ArchivedValue" }
        if present.allSatisfy({ $0 == .string }) { return "String" }
        if present.allSatisfy({ $0 == .data }) { return "Data" }
        if present.allSatisfy({ $0 == .bool }) { return "Bool" }
        if present.allSatisfy({ $0 == .real(bits: 64) }) { return "Double" }
        if present.allSatisfy({ if case .integer(let width) = $0 { return width <= 8 } else { return false } }) { return "Int64" }
        if present.allSatisfy({ $0 == .object("NSDate") }) { return "Date" }
        var names: [String] = []
        for kind in present {
            guard case .object(let name) = kind, schema.class(named: name)?.isModel == true else { return "ArchivedValue" }
            names.append(name)
        }
        if let common = commonModelAncestor(names), let type = typeNames[common] { return type }
        return "ArchivedValue"
    }

    /// The type for a key, and why it is not more specific when it is not.
    func fieldType(for key: ArchiveSchema.Key) -> (GeneratedFieldType, reason: String?) {
        let kinds = key.kinds.kinds.filter { $0 != .null }
        if key.userKey == nil {
            return (.anyField, "a reserved key (unkeyed value), read as stored")
        }
        guard !kinds.isEmpty else { return (.anyValue, "only $null was seen") }
        if kinds.allSatisfy(\.isInline) {
            if key.kinds.counts[.null] != nil { return (.anyField, "inline values and $null both occur") }
            if kinds.allSatisfy({ if case .inlineInteger(let width) = $0 { return width <= 8 } else { return false } }) { return (.inlineInteger, nil) }
            if kinds.allSatisfy({ $0 == .inlineReal(bits: 64) }) { return (.inlineDouble, nil) }
            if kinds.allSatisfy({ $0 == .inlineReal(bits: 32) }) { return (.inlineFloat, nil) }
            if kinds.allSatisfy({ $0 == .inlineBool }) { return (.inlineBool, nil) }
            if kinds.allSatisfy({ $0 == .inlineData }) { return (.inlineBytes, nil) }
            return (.inlineRaw, "inline values of different kinds (\(kinds.map(\.description).joined(separator: ", "))): no one Swift type holds them all")
        }
        if kinds.contains(where: \.isInline) {
            return (.anyField, "inline values in some objects and references in others")
        }
        if kinds.allSatisfy({ $0 == .string }) { return (.string, nil) }
        if kinds.allSatisfy({ $0 == .data }) { return (.data, nil) }
        if kinds.allSatisfy({ if case .integer(let width) = $0 { return width <= 8 } else { return false } }) { return (.integerObject, nil) }
        if kinds.allSatisfy({ $0 == .real(bits: 64) }) { return (.doubleObject, nil) }
        if kinds.allSatisfy({ $0 == .bool }) { return (.boolObject, nil) }
        var names: [String] = []
        for kind in kinds {
            guard case .object(let name) = kind else {
                return (.anyValue, "plain values of different kinds (\(kinds.map(\.description).joined(separator: ", ")))")
            }
            names.append(name)
        }
        if names.count == 1, let only = names.first {
            switch only {
            case "NSDate": return (.date, nil)
            case "NSUUID": return (.uuid, nil)
            case "NSURL": return (.url, nil)
            case "NSArray", "NSMutableArray":
                let contents = key.contents.first { $0.className == only }
                return (.array(element: elementType(contents?.elements ?? .init()), classes: chain(of: only)), nil)
            case "NSDictionary", "NSMutableDictionary":
                if let contents = key.contents.first(where: { $0.className == only }), contents.keys.kinds.allSatisfy({ $0 == .string }) {
                    return (.dictionary(value: elementType(contents.elements), classes: chain(of: only)), nil)
                }
                return (.anyValue, "a dictionary whose keys are not all strings")
            default: break
            }
        }
        if names.allSatisfy({ schema.class(named: $0)?.isModel == true }) {
            if let common = commonModelAncestor(names), let type = typeNames[common] { return (.model(type), nil) }
            return (.anyValue, "objects of unrelated classes (\(names.joined(separator: ", ")))")
        }
        if names.count == 1 {
            return (.anyValue, "\(names[0]) has no typed mapping here; kept with its class and fields")
        }
        return (.anyValue, "objects of different classes (\(names.joined(separator: ", ")))")
    }

    // MARK: Writing

    mutating func line(_ text: String = "", _ indent: Int = 0) {
        if text.isEmpty { out += "\n"; return }
        out += String(repeating: "    ", count: indent) + text + "\n"
    }

    mutating func write() -> String {
        // Superclasses first: the registry needs them registered before their subclasses.
        var ordered: [ArchiveSchema.Class] = []
        var done: Set<String> = []
        var used: Set<String> = [namespace]
        for type in models {
            for name in ancestors(of: type.name).reversed() where !done.contains(name) {
                guard let model = schema.class(named: name), model.isModel else { continue }
                done.insert(name)
                ordered.append(model)
            }
        }
        for type in ordered {
            var name = Self.typeName(for: type.name)
            var suffix = 2
            while used.contains(name) { name = Self.typeName(for: type.name) + "\(suffix)"; suffix += 1 }
            used.insert(name)
            typeNames[type.name] = name
        }

        line("// Generated by `keyedarchive schema --swift` from \(schema.archiveCount) archive\(schema.archiveCount == 1 ? "" : "s") (\(schema.objectCount) objects).")
        line("// Every model decodes and re-encodes the keys its class was seen with; see Docs/Schema.md.")
        line("import Foundation")
        line("import KeyedArchive")
        line("import PropertyList")
        line()
        line("/// Models of the archived classes, the registry that admits them, and a round trip.")
        line("enum \(namespace) {")
        writeRegistry(ordered)
        writeRoundTrip()
        for type in ordered { writeClass(type) }
        writeSupport()
        line("}")
        return out
    }

    mutating func writeRegistry(_ ordered: [ArchiveSchema.Class]) {
        line("/// Every generated class under its exact archived class name and superclass, with the", 1)
        line("/// package's built-in Foundation classes.", 1)
        line("static var registry: ArchiveRegistry {", 1)
        guard ordered.contains(where: { typeNames[$0.name] != nil }) else {
            line("ArchiveRegistry()", 2)
            line("}", 1)
            line()
            return
        }
        line("var registry = ArchiveRegistry()", 2)
        for type in ordered {
            guard let name = typeNames[type.name] else { continue }
            var call = "registry.register(\(name).self, className: \(Self.literal(type.name))"
            if let superclass = type.superclass, let parent = typeNames[superclass] { call += ", superclass: \(parent).self" }
            line(call + ")", 2)
        }
        line("return registry", 2)
        line("}", 1)
        line()
    }

    mutating func writeRoundTrip() {
        line("/// Decodes every `$top` key of `bytes` with the generated types and archives the values", 1)
        line("/// again under the same keys, in the same format (binary or XML).", 1)
        line("static func roundTrip(_ bytes: [UInt8]) throws -> [UInt8] {", 1)
        line("try ArchivedInstance.memo.withValue(ArchivedInstance.Memo()) {", 2)
        line("let registry = self.registry", 3)
        line("let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry)", 3)
        line("let archiver = KeyedArchiver(registry: registry)", 3)
        line("let top = unarchiver.topLevelDecoder", 3)
        line("for key in top.allKeys {", 3)
        line("let storedKey = key.hasPrefix(\"$\") ? \"$\" + key : key", 4)
        line("guard let stored = top.rawValue(forStoredKey: storedKey) else { continue }", 4)
        line("if case .uid = stored {", 4)
        line("try archiver.encode(try unarchiver.decodeIfPresent(ArchivedValue.self, forKey: key), forKey: key)", 5)
        line("} else {", 4)
        line("// A number stored in $top itself (compiled nibs do this).", 5)
        line("try archiver.topLevelEncoder.encodeRaw(stored, forStoredKey: storedKey)", 5)
        line("}", 4)
        line("}", 3)
        line("// Values archived without a key ($0, $1, …), in order.", 3)
        line("var index = 0", 3)
        line("while let stored = top.rawValue(forStoredKey: \"$\\(index)\") {", 3)
        line("if case .uid(let uid) = stored {", 4)
        line("try archiver.encodeUnkeyed(uid.value == 0 ? ArchivedValue.null : try unarchiver.decodeUnkeyed(ArchivedValue.self, at: index))", 5)
        line("} else {", 4)
        line("try archiver.topLevelEncoder.encodeRaw(stored, forStoredKey: \"$\\(index)\")", 5)
        line("}", 4)
        line("index += 1", 4)
        line("}", 3)
        line("return try archiver.finish(format: bytes.starts(with: Array(\"bplist\".utf8)) ? .binary : .xml)", 3)
        line("}", 2)
        line("}", 1)
    }

    struct Property {
        let key: ArchiveSchema.Key
        let name: String
        let type: GeneratedFieldType
        let reason: String?
        let isOptional: Bool
        /// Absent in some objects and `$null` in others: a flag keeps which.
        let tracksPresence: Bool
        let isBackReference: Bool
        let isWeak: Bool
        var storedKey: String { key.storedKey }
        var userKey: String { key.userKey ?? key.storedKey }
    }

    func properties(of type: ArchiveSchema.Class, taken: inout Set<String>) -> [Property] {
        var result: [Property] = []
        for key in type.declaredKeys {
            var (fieldType, reason) = fieldType(for: key)
            let absent = key.presentCount < type.familyInstanceCount
            let null = key.kinds.counts[.null] != nil
            var isBack = key.isBackReference
            if isBack, fieldType == .anyField || fieldType.isInline {
                // Put-off decoding reads objects only; a field that also holds inline values is read at once.
                isBack = false
                reason = (reason ?? "") + "; closes a cycle but mixes inline values, so it is read at once"
            }
            var name = Self.propertyName(for: key.storedKey)
            let base = name
            var suffix = 2
            while taken.contains(name) { name = base + "\(suffix)"; suffix += 1 }
            taken.insert(name)
            // Weak only where every reference closes a cycle, so its target is an ancestor that
            // something else holds; a key that is sometimes a forward reference may be the only
            // owner of its object, and a weak property would drop it.
            var isWeak = false
            let references = key.kinds.kinds.filter { $0 != .null }.reduce(0) { $0 + (key.kinds.counts[$1] ?? 0) }
            if isBack, case .model = fieldType, key.cycleCount >= references { isWeak = true }
            let optional = absent || null || isBack
            result.append(Property(key: key, name: name, type: fieldType, reason: reason, isOptional: optional,
                                   tracksPresence: (absent && null) || (isBack && absent), isBackReference: isBack, isWeak: isWeak))
        }
        return result
    }

    mutating func writeClass(_ type: ArchiveSchema.Class) {
        guard let name = typeNames[type.name] else { return }
        var taken: Set<String> = []
        for ancestor in ancestors(of: type.name).dropFirst() {
            guard let model = schema.class(named: ancestor), model.isModel else { continue }
            var scratch: Set<String> = []
            for property in properties(of: model, taken: &scratch) { taken.insert(property.name); taken.insert(property.name + "IsStored") }
        }
        let properties = properties(of: type, taken: &taken)
        let parent = type.superclass.flatMap { typeNames[$0] }
        let isFinal = !type.subclasses.contains { typeNames[$0] != nil }
        line()
        line("/// Archived as `\(Self.commentText(type.name))`: \(type.instanceCount) instance\(type.instanceCount == 1 ? "" : "s") of its own, \(type.familyInstanceCount) with subclasses.", 1)
        for chain in type.chains {
            line("/// Chain: \(Self.commentText(chain.joined(separator: " < "))).", 1)
        }
        line("\(isFinal ? "final " : "")class \(name): \(parent ?? "KeyedArchivable") {", 1)
        for property in properties {
            var facts = "`\(Self.commentText(property.storedKey))`: \(property.key.presentCount) of \(type.familyInstanceCount)"
            facts += ", " + Self.commentText(schema.kindSummary(of: property.key))
            line("/// \(facts)", 2)
            if let reason = property.reason { line("// Not more specific: \(Self.commentText(reason)).", 2) }
            if property.isBackReference {
                line("// Closes a cycle (refers back to an object still being decoded): read once the whole graph is built\(property.isWeak ? ", held weakly" : "; strong, since it is not always a back-reference (a cycle of such objects is not freed)").", 2)
            }
            let declared = property.isOptional ? "\(property.type.swiftType)?" : property.type.swiftType
            line("\(property.isWeak ? "weak " : "")var \(property.name): \(declared)", 2)
            if property.tracksPresence {
                line("/// Whether the key was stored at all (it is absent from some objects and `$null` in others).", 2)
                line("var \(property.name)IsStored = true", 2)
            }
        }
        line()
        line("\(parent == nil ? "" : "")required init(from decoder: KeyedArchiveDecoder) throws {", 2)
        for property in properties where !property.isBackReference {
            writeDecode(property)
        }
        if parent != nil { line("try super.init(from: decoder)", 3) }
        for property in properties where property.isBackReference {
            if property.tracksPresence { line("\(property.name)IsStored = decoder.contains(\(Self.literal(property.userKey)))", 3) }
            line("decoder.decode(\(property.type.swiftType).self, forKey: \(Self.literal(property.userKey)), for: self) { object, value in object.\(property.name) = value }", 3)
        }
        line("}", 2)
        line()
        line("\(parent == nil ? "" : "override ")func encode(to encoder: KeyedArchiveEncoder) throws {", 2)
        if parent != nil { line("try super.encode(to: encoder)", 3) }
        for property in properties { writeEncode(property) }
        line("}", 2)
        line("}", 1)
    }

    mutating func writeDecode(_ property: Property) {
        let key = Self.literal(property.userKey)
        let stored = Self.literal(property.storedKey)
        let target = property.name
        switch property.type {
        case .inlineBytes:
            line("\(target) = try decoder.decodeBytes\(property.isOptional ? "IfPresent" : "")(forKey: \(key))", 3)
        case .inlineRaw:
            if property.isOptional {
                line("\(target) = decoder.rawValue(forStoredKey: \(stored))", 3)
            } else {
                line("guard let \(target) = decoder.rawValue(forStoredKey: \(stored)) else {", 3)
                line("throw DecodingFault(\"no value for \\(\(stored)) at \\(decoder.keyPath)\")", 4)
                line("}", 3)
                line("self.\(target) = \(target)", 3)
            }
        case .anyField:
            if property.isOptional {
                line("\(target) = try ArchivedField(from: decoder, storedKey: \(stored))", 3)
            } else {
                line("guard let \(target) = try ArchivedField(from: decoder, storedKey: \(stored)) else {", 3)
                line("throw DecodingFault(\"no value for \\(\(stored)) at \\(decoder.keyPath)\")", 4)
                line("}", 3)
                line("self.\(target) = \(target)", 3)
            }
        default:
            line("\(target) = try decoder.decode\(property.isOptional ? "IfPresent" : "")(\(property.type.swiftType).self, forKey: \(key))", 3)
        }
        if property.tracksPresence { line("\(target)IsStored = decoder.contains(\(key))", 3) }
    }

    /// The expression that encodes `value` (a non-optional property value) as an object.
    func objectExpression(_ value: String, _ type: GeneratedFieldType) -> String {
        switch type {
        case .integerObject, .doubleObject, .boolObject:
            // An optional, so that it is stored as a number object, as the archive has it.
            return "Optional(\(value))"
        case .array(_, let classes):
            return "ArchiveArray(\(value).map { $0 as any ArchiveObjectEncodable }, classes: [\(classes.map(Self.literal).joined(separator: ", "))])"
        case .dictionary(_, let classes):
            return "ArchiveDictionary(\(value).sorted { $0.key < $1.key }.map { (key: $0.key as any ArchiveObjectEncodable, value: $0.value as any ArchiveObjectEncodable) }, "
                + "classes: [\(classes.map(Self.literal).joined(separator: ", "))])"
        default:
            return value
        }
    }

    mutating func writeEncode(_ property: Property) {
        let key = Self.literal(property.userKey)
        let stored = Self.literal(property.storedKey)
        let name = "self.\(property.name)"
        func store(_ value: String) -> String {
            switch property.type {
            case .inlineInteger, .inlineDouble, .inlineFloat, .inlineBool:
                return "try encoder.encode(\(value), forKey: \(key))"
            case .inlineBytes:
                return "try encoder.encodeBytes(\(value), forKey: \(key))"
            case .inlineRaw:
                return "try encoder.encodeRaw(\(value), forStoredKey: \(stored))"
            case .anyField:
                return "try \(value).encode(to: encoder, storedKey: \(stored))"
            default:
                return "try encoder.encode(\(objectExpression(value, property.type)), forKey: \(key))"
            }
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
        if property.type.isInline || property.type == .anyField || !null {
            // Absent in some objects, never $null: stored only when there is a value.
            line("if let value = \(name) { \(store("value")) }", 3)
        } else if property.tracksPresence {
            line("if \(name)IsStored {", 3)
            line("if let value = \(name) { \(store("value")) } else { try encoder.encode(ArchivedValue?.none, forKey: \(key)) }", 4)
            line("}", 3)
        } else {
            line("if let value = \(name) { \(store("value")) } else { try encoder.encode(ArchivedValue?.none, forKey: \(key)) }", 3)
        }
    }

    mutating func writeSupport() {
        line()
        line("/// A fault the generated code finds (the package's own faults are `ArchiveError`s).", 1)
        line("struct DecodingFault: Error, CustomStringConvertible {", 1)
        line("let description: String", 2)
        line("init(_ description: String) { self.description = description }", 2)
        line("}", 1)
        line()
        line("/// Any object of the archive: a generated model, a plain value, or an object of another class", 1)
        line("/// (Foundation's collections, NSValue, …) kept with its class chain and fields, so that", 1)
        line("/// it archives again exactly as stored. For keys whose objects differ in kind.", 1)
        line("enum ArchivedValue: ArchiveObjectEncodable, ArchiveObjectDecodable {", 1)
        line("case null", 2)
        line("case plain(PropertyListValue)", 2)
        line("case model(any KeyedArchivable & AnyObject)", 2)
        line("case instance(ArchivedInstance)", 2)
        line()
        line("static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchivedValue {", 2)
        line("switch try decoder.storedObject(reference) {", 3)
        line("case .null: return .null", 3)
        line("case .plain(let value): return .plain(value)", 3)
        line("case .other(let value): throw DecodingFault(\"object \\(reference) at \\(decoder.keyPath) is a bare \\(value.kindName), not an archived object\")", 3)
        line("case .instance(let classes, let fields):", 3)
        line("switch classes.first ?? \"\" {", 4)
        for type in models {
            guard let name = typeNames[type.name] else { continue }
            line("case \(Self.literal(type.name)): return .model(try decoder.decode(\(name).self, reference: reference))", 4)
        }
        line("default:", 4)
        line("// Within roundTrip, one instance per object: sharing is kept, and an object that", 5)
        line("// contains itself (an NSMutableArray holding itself) refers to the instance being filled.", 5)
        line("let memo = ArchivedInstance.memo.get()", 5)
        line("if let known = memo?.instances[reference.uid.value] { return .instance(known) }", 5)
        line("let instance = ArchivedInstance(classes: classes)", 5)
        line("memo?.instances[reference.uid.value] = instance", 5)
        line("try instance.decodeFields(fields, decoder: decoder)", 5)
        line("return .instance(instance)", 5)
        line("}", 4)
        line("}", 3)
        line("}", 2)
        line()
        line("func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {", 2)
        line("switch self {", 3)
        line("case .null: return .null", 3)
        line("case .plain(let value): return try encoder.reference(for: ArchiveSharedValue(value))", 3)
        line("case .model(let object): return try object.archiveReference(in: encoder)", 3)
        line("case .instance(let instance): return try instance.archiveReference(in: encoder)", 3)
        line("}", 3)
        line("}", 2)
        line("}", 1)
        line()
        line("/// An object of a class with no generated model, kept as stored: its `$classes` and fields.", 1)
        line("/// A class, so that encoding it twice in one archive stores it once.", 1)
        line("final class ArchivedInstance: ArchiveObjectEncodable {", 1)
        line("/// Nesting of instances decoded here, bounded so that a hostile archive cannot exhaust the stack.", 2)
        line("static let depth = TaskLocal<Int>(wrappedValue: 0)", 2)
        line("static let maximumDepth = 256", 2)
        line("let classes: [String]", 2)
        line("var fields: [(storedKey: String, value: ArchivedField)] = []", 2)
        line()
        line("/// The instances decoded so far, by UID, during one `roundTrip` (nil elsewhere).", 2)
        line("static let memo = TaskLocal<Memo?>(wrappedValue: nil)", 2)
        line()
        line("/// One decode's instances. Unchecked: it lives in one `roundTrip` call, on its thread.", 2)
        line("final class Memo: @unchecked Sendable {", 2)
        line("var instances: [UInt64: ArchivedInstance] = [:]", 3)
        line("}", 2)
        line()
        line("init(classes: [String]) {", 2)
        line("self.classes = classes", 3)
        line("}", 2)
        line()
        line("func decodeFields(_ stored: PropertyListDictionary, decoder: KeyedArchiveDecoder) throws {", 2)
        line("let depth = Self.depth.get()", 3)
        line("guard depth < Self.maximumDepth else {", 3)
        line("throw DecodingFault(\"objects nest deeper than \\(Self.maximumDepth) at \\(decoder.keyPath)\")", 4)
        line("}", 3)
        line("fields = try Self.depth.withValue(depth + 1) {", 3)
        line("try stored.entries.map { (storedKey: $0.key, value: try ArchivedField($0.value, decoder: decoder)) }", 4)
        line("}", 3)
        line("}", 2)
        line()
        line("func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {", 2)
        line("try encoder.encodeObject(classes: classes, identity: self) { object in", 3)
        line("for field in self.fields { try field.value.encode(to: object, storedKey: field.storedKey) }", 4)
        line("}", 3)
        line("}", 2)
        line("}", 1)
        line()
        line("/// A field kept as stored: an inline value, an object, or an inline array of objects.", 1)
        line("enum ArchivedField {", 1)
        line("case inline(PropertyListValue)", 2)
        line("case object(ArchivedValue)", 2)
        line("case objects([ArchivedValue])", 2)
        line()
        line("init?(from decoder: KeyedArchiveDecoder, storedKey: String) throws {", 2)
        line("guard let stored = decoder.rawValue(forStoredKey: storedKey) else { return nil }", 3)
        line("try self.init(stored, decoder: decoder)", 3)
        line("}", 2)
        line()
        line("init(_ stored: PropertyListValue, decoder: KeyedArchiveDecoder) throws {", 2)
        line("func object(_ uid: PropertyListUID) throws -> ArchivedValue {", 3)
        line("uid.value == 0 ? .null : try decoder.decode(ArchivedValue.self, reference: ArchiveReference(uid: uid))", 4)
        line("}", 3)
        line("switch stored {", 3)
        line("case .uid(let uid):", 3)
        line("self = .object(try object(uid))", 4)
        line("case .array(let elements) where !elements.isEmpty && elements.allSatisfy({ if case .uid = $0 { return true } else { return false } }):", 3)
        line("self = .objects(try elements.map { element in", 4)
        line("guard case .uid(let uid) = element else { throw DecodingFault(\"expected a reference at \\(decoder.keyPath)\") }", 5)
        line("return try object(uid)", 5)
        line("})", 4)
        line("default:", 3)
        line("guard !Self.containsReference(stored) else {", 4)
        line("throw DecodingFault(\"a reference nested in an inline \\(stored.kindName) at \\(decoder.keyPath) is not supported\")", 5)
        line("}", 4)
        line("self = .inline(stored)", 4)
        line("}", 3)
        line("}", 2)
        line()
        line("static func containsReference(_ value: PropertyListValue) -> Bool {", 2)
        line("var pending = [value]", 3)
        line("while let next = pending.popLast() {", 3)
        line("switch next {", 4)
        line("case .uid: return true", 4)
        line("case .array(let elements), .set(let elements): pending += elements", 4)
        line("case .dictionary(let dictionary): pending += dictionary.entries.map(\\.value)", 4)
        line("default: break", 4)
        line("}", 4)
        line("}", 3)
        line("return false", 3)
        line("}", 2)
        line()
        line("func encode(to encoder: KeyedArchiveEncoder, storedKey: String) throws {", 2)
        line("switch self {", 3)
        line("case .inline(let value):", 3)
        line("try encoder.encodeRaw(value, forStoredKey: storedKey)", 4)
        line("case .object(let value):", 3)
        line("try encoder.encodeRaw(.uid(try encoder.reference(for: value).uid), forStoredKey: storedKey)", 4)
        line("case .objects(let values):", 3)
        line("try encoder.encodeRaw(.array(try values.map { .uid(try encoder.reference(for: $0).uid) }), forStoredKey: storedKey)", 4)
        line("}", 3)
        line("}", 2)
        line("}", 1)
    }
}

extension GeneratedFieldType: Equatable {}
