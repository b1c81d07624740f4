import Foundation
import PropertyList
@testable import KeyedArchive

/// `keyedarchive json`'s rendering of an archive (``ArchiveJSONRenderer``, the generic view, which
/// knows no Foundation class), read back with Foundation's `JSONSerialization` and interpreted here by
/// the shapes Foundation writes, independently of the typed mappings: the reference an
/// ``ArchiveValue`` decode is compared with.
enum ArchiveJSONReference {
    indirect enum JSON {
        case null
        case bool(Bool)
        case int(Int64)
        case uint(UInt64)
        case double(Double)
        case string(String)
        case array([JSON])
        case object([String: JSON])

        /// What `JSONSerialization` made of a JSON value (it keeps booleans apart from integers:
        /// they are `NSNumber`s of type `c`).
        init(_ object: Any) throws {
            switch object {
            case is NSNull: self = .null
            case let string as String: self = .string(string)
            case let array as [Any]: self = .array(try array.map(JSON.init))
            case let members as [String: Any]: self = .object(try members.mapValues(JSON.init))
            case let decimal as NSDecimalNumber:
                let text = decimal.stringValue
                if let integer = Int64(text) { self = .int(integer) } else if let integer = UInt64(text) { self = .uint(integer) } else { self = .double(decimal.doubleValue) }
            case let number as NSNumber:
                switch String(cString: number.objCType) {
                case "c": self = .bool(number.boolValue)
                case "d", "f": self = .double(number.doubleValue)
                case "Q": self = .uint(number.uint64Value)
                default: self = .int(number.int64Value)
                }
            default: throw ReferenceError.unreadable("\(type(of: object))")
            }
        }

        subscript(key: String) -> JSON? {
            if case .object(let members) = self { return members[key] }
            return nil
        }

        var string: String? { if case .string(let value) = self { return value } else { return nil } }
        var array: [JSON]? { if case .array(let value) = self { return value } else { return nil } }
        var int: Int64? {
            switch self {
            case .int(let value): return value
            case .uint(let value): return Int64(exactly: value)
            default: return nil
            }
        }
        var real: Double? {
            switch self["$real"] {
            case .double(let value)?: return value
            case .int(let value)?: return Double(value)
            case .uint(let value)?: return Double(value)
            case .string("nan")?: return .nan
            case .string("inf")?: return .infinity
            case .string("-inf")?: return -.infinity
            case .string(let text)?: return Double(text)
            default: return nil
            }
        }
        var bytes: [UInt8]? { self["$data"]?.string.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } }
    }

    /// The rendering of `bytes` and every object in it by its `$id`.
    struct Document {
        let top: [String: JSON]
        let objects: [Int64: JSON]
        let classes: [Int64: [String]]

        init(bytes: [UInt8]) throws {
            let graph = try ArchiveGraph(bytes: bytes)
            // Reals as strings, read by Swift's exact parser: JSONSerialization's is not exact to
            // the last digit. (`{"$real"` cannot occur inside a string: its quotes would be escaped.)
            let text = ArchiveJSONRenderer.render(graph)
                .replacingOccurrences(of: #"\{"\$real": (-?[0-9][0-9.eE+-]*)\}"#, with: #"{"\$real": "$1"}"#, options: .regularExpression)
            let json = try JSON(JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
            guard case .object(let top)? = json["$top"] else { throw ReferenceError.unreadable("no $top") }
            self.top = top
            var objects: [Int64: JSON] = [:]
            var pending: [JSON] = [json]
            while let next = pending.popLast() {
                switch next {
                case .array(let elements): pending.append(contentsOf: elements)
                case .object(let members):
                    if let id = members["$id"]?.int { objects[id] = next }
                    pending.append(contentsOf: members.values)
                default: break
                }
            }
            self.objects = objects
            var classes: [Int64: [String]] = [:]
            if case .object(let members)? = json["$classes"] {
                for (uid, descriptor) in members {
                    classes[Int64(uid) ?? -1] = descriptor["$classes"]?.array?.compactMap(\.string) ?? []
                }
            }
            self.classes = classes
        }

        /// The object a `{"$ref": N}` names, or the value itself.
        func resolved(_ json: JSON) -> JSON {
            if let id = json["$ref"]?.int, let object = objects[id] { return object }
            return json
        }
    }

    enum ReferenceError: Error { case unreadable(String) }

    /// Why `value` differs from what the rendering `json` says the archive holds; nil when it
    /// matches. Sets are compared as multisets, everything else in archive order, mutable
    /// classes by their names.
    static func mismatch(_ value: ArchiveValue, _ json: JSON, in document: Document, path: String = "root") -> String? {
        let json = document.resolved(json)
        func fail(_ what: String) -> String { "\(path): \(what); ours \(value.description.prefix(200))" }
        switch json {
        case .null: return fail("$null")
        case .bool(let flag): return value == .bool(flag) ? nil : fail("expected \(flag)")
        case .int(let integer): return value.int64Value == integer ? nil : fail("expected \(integer)")
        case .uint(let integer): return value.uint64Value == integer ? nil : fail("expected \(integer)")
        case .double: return fail("bare JSON real")
        case .string(let string):
            if case .string(let ours, false) = value, ours == string { return nil }
            return fail("expected the plain string \(string.prefix(80))")
        case .array: return fail("inline array")
        case .object(let members):
            if let real = json.real {
                guard let ours = value.doubleValue, ours == real || (ours.isNaN && real.isNaN) else { return fail("expected the real \(real)") }
                return nil
            }
            if let bytes = json.bytes { return value == .data(bytes) && !value.isMutable ? nil : fail("expected plain data") }
            if let seconds = members["$date"], case .double(let interval) = seconds {
                return value.dateValue?.timeIntervalSinceReferenceDate == interval ? nil : fail("expected a plain date")
            }
            if let string = members["$string"]?.string {
                return value == .string(string) && !value.isMutable ? nil : fail("expected the long plain string")
            }
            guard let className = members["$class"]?.string, let fields = members["fields"] else { return fail("unexpected JSON \(members.keys.sorted())") }
            return mismatch(value, className: className, fields: fields, in: document, path: path)
        }
    }

    private static func mismatch(_ value: ArchiveValue, className: String, fields: JSON, in document: Document, path: String) -> String? {
        func fail(_ what: String) -> String { "\(path) (\(className)): \(what); ours \(value.description.prefix(200))" }
        let mutable = className.hasPrefix("NSMutable")
        switch className {
        case "NSArray", "NSMutableArray":
            guard case .array(let elements, mutable) = value, let stored = fields["NS.objects"]?.array, stored.count == elements.count else { return fail("array shape") }
            for (position, element) in stored.enumerated() {
                if let found = mismatch(elements[position], element, in: document, path: "\(path)[\(position)]") { return found }
            }
            return nil
        case "NSSet", "NSMutableSet":
            guard case .set(let elements, mutable) = value, let stored = fields["NS.objects"]?.array, stored.count == elements.count else { return fail("set shape") }
            var unmatched = elements
            for element in stored {
                guard let position = unmatched.firstIndex(where: { mismatch($0, element, in: document, path: path) == nil }) else { return fail("no element matches \(element)") }
                unmatched.remove(at: position)
            }
            return nil
        case "NSOrderedSet", "NSMutableOrderedSet":
            guard case .orderedSet(let set) = value, set.archivesAsMutable == mutable else { return fail("ordered set shape") }
            var stored: [JSON] = []
            while let element = fields["NS.object.\(stored.count)"] { stored.append(element) }
            guard stored.count == set.count else { return fail("\(stored.count) elements stored") }
            for (position, element) in stored.enumerated() {
                if let found = mismatch(set[position], element, in: document, path: "\(path)[\(position)]") { return found }
            }
            return nil
        case "NSDictionary", "NSMutableDictionary":
            guard case .dictionary(let entries, mutable) = value, let keys = fields["NS.keys"]?.array, let objects = fields["NS.objects"]?.array,
                  keys.count == entries.count, objects.count == entries.count else { return fail("dictionary shape") }
            for position in entries.indices {
                if let found = mismatch(entries[position].key, keys[position], in: document, path: "\(path).keys[\(position)]") { return found }
                if let found = mismatch(entries[position].value, objects[position], in: document, path: "\(path).\(entries[position].key)") { return found }
            }
            return nil
        case "NSMutableString":
            return value == .string(fields["NS.string"]?.string ?? "\u{0}", mutable: true) && value.isMutable ? nil : fail("expected NS.string")
        case "NSMutableData", "NSData":
            let stored = document.resolved(fields["NS.data"] ?? .null).bytes
            return stored.map { value == .data($0) } == true && value.isMutable == mutable ? nil : fail("expected NS.data")
        case "NSDate":
            return value.dateValue?.timeIntervalSinceReferenceDate == fields["NS.time"]?.real ? nil : fail("expected NS.time")
        case "NSNull":
            return value == .null ? nil : fail("expected NSNull")
        case "NSUUID":
            guard let bytes = fields["NS.uuidbytes"]?.bytes, bytes.count == 16, let uuid = value.uuidValue else { return fail("expected NS.uuidbytes") }
            return withUnsafeBytes(of: uuid.uuid) { Array($0) } == bytes ? nil : fail("UUID bytes differ")
        case "NSURL":
            guard let url = value.urlValue, let relative = string(fields["NS.relative"], in: document) else { return fail("expected NS.relative") }
            guard url.relativeString == relative else { return fail("relative \(relative)") }
            switch fields["NS.base"].map(document.resolved) {
            case nil, .null?: return url.baseURL == nil ? nil : fail("has a base")
            case let base?:
                guard let ours = url.baseURL else { return fail("has no base") }
                return mismatch(.url(ours), base, in: document, path: "\(path).NS.base")
            }
        case "NSIndexPath":
            guard let path = value.indexPathValue, let length = fields["NSIndexPathLength"]?.int else { return fail("expected an index path") }
            let indexes: [UInt64]
            switch length {
            case 0: indexes = []
            case 1: indexes = [UInt64(bitPattern: fields["NSIndexPathValue"]?.int ?? -1)]
            default: indexes = leb128(document.resolved(document.resolved(fields["NSIndexPathData"] ?? .null)["fields"]?["NS.data"] ?? .null).bytes ?? [])
            }
            return path.map { UInt64(UInt(bitPattern: $0)) } == indexes ? nil : fail("indexes \(indexes)")
        case "NSIndexSet", "NSMutableIndexSet":
            guard let set = value.indexSetValue, set.archivesAsMutable == mutable else { return fail("expected an index set") }
            let count = fields["NSRangeCount"]?.int ?? 0
            var pairs: [UInt64] = []
            switch count {
            case 0: break
            case 1: pairs = [UInt64(fields["NSLocation"]?.int ?? -1), UInt64(fields["NSLength"]?.int ?? -1)]
            default: pairs = leb128(document.resolved(document.resolved(fields["NSRangeData"] ?? .null)["fields"]?["NS.data"] ?? .null).bytes ?? [])
            }
            var ranges: [Range<Int>] = []
            for pair in stride(from: 0, to: pairs.count - 1, by: 2) { ranges.append(Int(pairs[pair])..<Int(pairs[pair] + pairs[pair + 1])) }
            // Foundation's writers store sorted, separate ranges (NSIndexSet's own form).
            return set.ranges == ranges ? nil : fail("ranges \(ranges)")
        case "NSValue" where fields["NS.special"] == nil:
            // By Objective-C type: $0 the type, $1 an old-style array of inline numbers.
            guard let encoded = value.encodedValue, let type = string(fields["$0"], in: document), encoded.objCType == type else { return fail("expected an NSValue of its type") }
            let array = document.resolved(fields["$1"] ?? .null)["fields"]
            let count = array?["NS.count"]?.int ?? -1
            let stored = (0..<max(0, Int(count))).map { array?["$\($0)"]?.int }
            guard case .array(let elements) = encoded.value, elements.count == stored.count else { return fail("array of \(count)") }
            for (element, expected) in zip(elements, stored) {
                guard case .int(let number) = element, Int64(number) == expected else { return fail("element \(element)") }
            }
            return nil
        case "NSAttributedString", "NSMutableAttributedString":
            guard let text = value.attributedStringValue, text.archivesAsMutable == mutable, text.string == string(fields["NSString"], in: document) ?? "" else {
                return fail("expected the attributed string's text")
            }
            let attributes = document.resolved(fields["NSAttributes"] ?? .null)
            var expected: [(length: Int, attributes: JSON)] = []
            if let info = document.resolved(fields["NSAttributeInfo"] ?? .null)["fields"]?["NS.data"].flatMap({ document.resolved($0).bytes }) ?? document.resolved(fields["NSAttributeInfo"] ?? .null).bytes {
                let numbers = leb128(info)
                let dictionaries = attributes["fields"]?["NS.objects"]?.array ?? []
                for pair in stride(from: 0, to: numbers.count - 1, by: 2) where Int(numbers[pair + 1]) < dictionaries.count {
                    expected.append((Int(numbers[pair]), dictionaries[Int(numbers[pair + 1])]))
                }
            } else if text.string.utf16.count > 0 {
                expected = [(text.string.utf16.count, attributes)]
            }
            guard expected.count == text.runs.count else { return fail("\(expected.count) runs stored") }
            for (run, stored) in zip(text.runs, expected) {
                guard run.length == stored.length else { return fail("run length \(stored.length)") }
                let dictionary = ArchiveValue.dictionary(run.attributes.map { .init(key: .string($0.key), value: $0.value) })
                guard let resolved = document.resolved(stored.attributes)["fields"], let keys = resolved["NS.keys"]?.array, keys.count == run.attributes.count else { return fail("attributes") }
                for (position, key) in keys.enumerated() {
                    guard let name = string(key, in: document), let ours = dictionary[name],
                          let theirs = resolved["NS.objects"]?.array?[position] else { return fail("attribute \(key)") }
                    if let found = mismatch(ours, theirs, in: document, path: "\(path).\(name)") { return found }
                }
            }
            return nil
        case "NSCountedSet":
            guard let set = value.countedSetValue, let count = fields["NS.count"]?.int, set.entries.count == count else { return fail("expected a counted set") }
            for (index, entry) in set.entries.enumerated() {
                guard entry.count == fields["NS.count\(index)"]?.int.map(Int.init), let stored = fields["NS.object\(index)"] else { return fail("count \(index)") }
                if let found = mismatch(entry.element, stored, in: document, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case "NSMeasurement":
            guard let measurement = value.measurementValue, measurement.value == fields["NS.value"]?.real else { return fail("expected NS.value") }
            let unit = document.resolved(fields["NS.unit"] ?? .null)
            guard unit["$class"]?.string == measurement.unit.className, string(unit["fields"]?["NS.symbol"], in: document) == measurement.unit.symbol else { return fail("unit") }
            return nil
        case "NSAffineTransform":
            guard let transform = value.affineTransformValue, let bytes = fields["NSTransformStruct"]?.bytes, bytes.count == 24 else { return fail("expected NSTransformStruct") }
            let floats = (0..<6).map { index in Float(bitPattern: bytes[(index * 4)..<(index * 4 + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
            return floats == [transform.m11, transform.m12, transform.m21, transform.m22, transform.tX, transform.tY] ? nil : fail("floats \(floats)")
        case "NSValue":
            guard let special = value.specialValue, let code = fields["NS.special"]?.int else { return fail("expected an NSValue with NS.special") }
            func numbers(_ key: String) -> [Double] {
                let text = document.resolved(fields[key] ?? .null).string ?? ""
                return text.split(whereSeparator: { !"0123456789.eE+-".contains($0) }).compactMap { Double($0) }
            }
            switch (code, special) {
            case (1, .point(let point)): return numbers("NS.pointval") == [point.x, point.y] ? nil : fail("point")
            case (2, .size(let size)): return numbers("NS.sizeval") == [size.width, size.height] ? nil : fail("size")
            case (3, .rect(let rect)): return numbers("NS.rectval") == [rect.origin.x, rect.origin.y, rect.size.width, rect.size.height] ? nil : fail("rect")
            case (4, .range(let range)):
                let location = document.resolved(fields["NS.rangeval.location"] ?? .null).int
                let length = document.resolved(fields["NS.rangeval.length"] ?? .null).int
                return location == Int64(range.location) && length == Int64(range.length) ? nil : fail("range")
            case (12, .edgeInsets(let insets)):
                let stored = ["top", "left", "bottom", "right"].map { fields["NS.edgeval.\($0)"]?.real }
                return stored == [insets.top, insets.left, insets.bottom, insets.right] ? nil : fail("edge insets")
            default: return fail("NS.special \(code)")
            }
        default:
            guard case .object(let object) = value, object.className == className else { return fail("expected an object reference") }
            return nil
        }
    }

    /// The text of a plain string, a long one printed with its `$id`, or an `NSMutableString`.
    static func string(_ json: JSON?, in document: Document) -> String? {
        guard let json = json.map(document.resolved) else { return nil }
        if let string = json.string ?? json["$string"]?.string { return string }
        guard json["$class"]?.string == "NSMutableString" else { return nil }
        return string(json["fields"]?["NS.string"], in: document)
    }

    /// Unsigned LEB128 numbers, as Foundation packs index paths and sets.
    static func leb128(_ bytes: [UInt8]) -> [UInt64] {
        var numbers: [UInt64] = []
        var value: UInt64 = 0
        var shift: UInt64 = 0
        for byte in bytes {
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                numbers.append(value)
                value = 0
                shift = 0
            } else {
                shift += 7
            }
        }
        return numbers
    }
}
