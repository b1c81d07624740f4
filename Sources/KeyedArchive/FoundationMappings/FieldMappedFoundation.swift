#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// The Foundation classes ``ArchiveValue`` reads field by field — each field an ``ArchiveValue``,
/// decoded by the same walk as everything else, so that attribute dictionaries, counted
/// elements and units are held to every budget and to the registry — and then maps to their
/// typed value, keeping the fields as stored so that encoding writes them back unchanged.
enum FieldMappedFoundation {
    /// The private class `NSValue` stores an array of an Objective-C type in (and Foundation on
    /// Linux an `NSAffineTransform`'s floats): admitted only as a field of those.
    static let oldStyleArrayClass = "_NSKeyedCoderOldStyleArray"

    /// Whether the `NSValue` at `uid` holds one of the structures archived by `NS.special`
    /// (read by ``ArchiveSpecialValue``) rather than a value archived by its Objective-C type
    /// (a `$0` and no `NS.special`).
    static func isSpecialValue(uid: Int, session: ArchiveDecodingSession) -> Bool {
        guard let (instance, _) = session.store.instance(uid) else { return true }
        return instance.fields["NS.special"] != nil || instance.fields["$0"] == nil
    }

    /// The typed value of an object of the Foundation class `kind`, from its fields.
    static func value(of instance: ArchiveInstance, as kind: FoundationClass, session: ArchiveDecodingSession, uid: Int) throws(ArchiveError) -> ArchiveValue {
        let fields = FieldReader(instance: instance, session: session, uid: uid)
        switch kind {
        case .attributedString: return .attributedString(try attributedString(fields))
        case .decimalNumber: return .decimalNumber(try decimalNumber(fields))
        case .value: return .encodedValue(try encodedValue(fields))
        case .countedSet: return .countedSet(try countedSet(fields))
        case .timeZone:
            var zone = ArchiveTimeZone(name: try fields.string("NS.name"), data: try fields.dataIfPresent("NS.data") ?? [])
            zone.stored = instance
            return .timeZone(zone)
        case .locale:
            var locale = ArchiveLocale(identifier: try fields.string("NS.identifier"))
            locale.stored = instance
            return .locale(locale)
        case .measurement:
            guard case .unit(let unit) = try fields.required("NS.unit").unshared else {
                throw fields.fail(.typeMismatch, "NS.unit is \(try fields.required("NS.unit").kindName), expected an NSUnit", key: "NS.unit")
            }
            var measurement = ArchiveMeasurement(value: try fields.double("NS.value"), unit: unit)
            measurement.stored = instance
            return .measurement(measurement)
        case .unit: return .unit(try unit(fields))
        case .unitConverter:
            // Apple's Foundation stores the reciprocal as NS.reciprocalValue, Foundation on Linux
            // as NS.reciprocal: either is read.
            let reciprocalKey = instance[storedKey: "NS.reciprocalValue"] == nil && instance[storedKey: "NS.reciprocal"] != nil
                ? "NS.reciprocal" : "NS.reciprocalValue"
            let converter: ArchiveUnitConverter = instance.className == "NSUnitConverterReciprocal"
                ? .reciprocal(try fields.double(reciprocalKey))
                : .linear(coefficient: try fields.double("NS.coefficient"), constant: try fields.double("NS.constant"))
            // A converter keeps no stored fields (it is an enum): one stored otherwise than it
            // is written — another class chain, another field, a number stored as an integer —
            // is shown under inspection as what it holds, so that writing it back loses nothing.
            if session.registry.inspectsUnknownClasses, converter.archivedInstance() != instance {
                throw session.error(.typeMismatch, "this \(instance.className.excerptForMessage(64)) is not stored as Foundation writes one", uid: uid)
            }
            return .unitConverter(converter)
        case .affineTransform: return .affineTransform(try affineTransform(fields))
        case .sortDescriptor:
            var descriptor = ArchiveSortDescriptor(key: try fields.stringIfPresent("NSKey"), ascending: try fields.boolIfPresent("NSAscending") ?? false,
                                                   selector: try fields.stringIfPresent("NSSelector"))
            descriptor.stored = instance
            return .sortDescriptor(descriptor)
        default:
            throw session.error(.typeMismatch, "\(kind.rawValue) is not read field by field", uid: uid)
        }
    }

    // MARK: NSAttributedString

    private static func attributedString(_ fields: FieldReader) throws(ArchiveError) -> ArchiveAttributedString {
        // As Foundation reads it: no NSString is the empty string, whose attributes are not read.
        let string = try fields.stringIfPresent("NSString") ?? ""
        let length = string.utf16.count
        var runs: [ArchiveAttributedString.Run] = []
        if length > 0, fields.instance[storedKey: "NSAttributes"] == nil {
            // As Foundation reads it: text without NSAttributes is plain (one run, no
            // attributes); written back as stored (issue 51).
            runs = [.init(length: length)]
        } else if length > 0 {
            let attributes = try fields.required("NSAttributes").unshared
            if let info = try fields.dataIfPresent("NSAttributeInfo") {
                guard case .array(let stored, _) = attributes else {
                    throw fields.fail(.typeMismatch, "NSAttributes is \(attributes.kindName), expected an array of attribute dictionaries (NSAttributeInfo is present)", key: "NSAttributes")
                }
                var dictionaries: [[String: ArchiveValue]] = []
                for (position, element) in stored.enumerated() {
                    dictionaries.append(try fields.attributes(element, key: "NSAttributes", position: position))
                }
                // (length, index) pairs; each number takes at least a byte, so the bytes bound the runs.
                var position = 0
                var covered = 0
                while position < info.count {
                    var pair: [Int] = []
                    for _ in 0..<2 {
                        guard case .value(let number, let next) = PackedIndexes.read(info, at: position) else {
                            throw fields.fail(.valueOutOfRange, "NSAttributeInfo has a number at byte \(position) that is cut short or does not fit 64 bits", key: "NSAttributeInfo")
                        }
                        guard let value = Int(exactly: number) else {
                            throw fields.fail(.valueOutOfRange, "NSAttributeInfo has \(number) at byte \(position), beyond Int", key: "NSAttributeInfo")
                        }
                        pair.append(value)
                        position = next
                    }
                    let (runLength, slot) = (pair[0], pair[1])
                    guard runLength > 0 else {
                        throw fields.fail(.valueOutOfRange, "NSAttributeInfo has a run of length 0", key: "NSAttributeInfo")
                    }
                    guard slot < dictionaries.count else {
                        throw fields.fail(.valueOutOfRange, "NSAttributeInfo refers to attribute dictionary \(slot), but NSAttributes has \(dictionaries.count)", key: "NSAttributeInfo")
                    }
                    guard runLength <= length - covered else {
                        throw fields.fail(.valueOutOfRange, "NSAttributeInfo's runs cover more than the text's \(length) UTF-16 code units", key: "NSAttributeInfo")
                    }
                    covered += runLength
                    runs.append(.init(length: runLength, attributes: dictionaries[slot]))
                }
                guard covered == length else {
                    throw fields.fail(.valueOutOfRange, "NSAttributeInfo's runs cover \(covered) of the text's \(length) UTF-16 code units", key: "NSAttributeInfo")
                }
            } else {
                runs = [.init(length: length, attributes: try fields.attributes(attributes, key: "NSAttributes", position: nil))]
            }
        }
        var value = ArchiveAttributedString(string, runs: runs, archivesAsMutable: fields.instance.className == "NSMutableAttributedString")
        value.stored = fields.instance
        return value
    }

    // MARK: NSDecimalNumber

    private static func decimalNumber(_ fields: FieldReader) throws(ArchiveError) -> ArchiveDecimalNumber {
        let exponent = try fields.integer("NS.exponent")
        guard (-128...127).contains(exponent) else {
            throw fields.fail(.valueOutOfRange, "NS.exponent is \(exponent); an NSDecimal's exponent is −128…127", key: "NS.exponent")
        }
        let length = try fields.integer("NS.length")
        guard (0...8).contains(length) else {
            throw fields.fail(.valueOutOfRange, "NS.length is \(length); an NSDecimal's mantissa has 0…8 words", key: "NS.length")
        }
        let bytes = try fields.data("NS.mantissa")
        guard bytes.count >= Int(length) * 2 else {
            throw fields.fail(.valueOutOfRange, "NS.mantissa has \(bytes.count) bytes, fewer than the \(length * 2) of its \(length) words", key: "NS.mantissa")
        }
        // CFByteOrder: 1 little-endian (every Mac since the Intel ones), 2 big-endian. Absent, it
        // is read as Foundation's decoder reads it: big-endian (issue 51).
        let order = try fields.integerIfPresent("NS.mantissa.bo") ?? 2
        guard order == 1 || order == 2 else {
            throw fields.fail(.valueOutOfRange, "NS.mantissa.bo is \(order); 1 (little-endian) or 2 (big-endian) expected", key: "NS.mantissa.bo")
        }
        var words: [UInt16] = []
        for index in 0..<Int(length) {
            let low = UInt16(bytes[index * 2]), high = UInt16(bytes[index * 2 + 1])
            words.append(order == 1 ? high << 8 | low : low << 8 | high)
        }
        // Absent, positive, as Foundation's decoder reads it (issue 51).
        let negative = try fields.boolIfPresent("NS.negative") ?? false
        let compact = try fields.boolIfPresent("NS.compact") ?? false
        var value = ArchiveDecimalNumber(mantissa: words, exponent: Int(exponent), isNegative: negative, isCompact: compact)
        value.stored = fields.instance
        return value
    }

    // MARK: NSValue of an Objective-C type

    private static func encodedValue(_ fields: FieldReader) throws(ArchiveError) -> ArchiveEncodedValue {
        let text = try fields.string("$0")
        let type: ObjCTypeEncoding
        do {
            type = try ObjCTypeEncoding.parse(text)
        } catch {
            throw fields.fail(error.code, error.message, key: "$0")
        }
        // Every part is a field of its own, so the fields bound the work before anything is read.
        guard type.partCount < fields.instance.fields.count else {
            throw fields.fail(.valueNotFound, "the type \"\(text.excerptForMessage(64).escapedForMessage)\" takes \(type.partCount) values after $0, but the NSValue has \(fields.instance.fields.count - 1) other fields", key: "$1")
        }
        var next = 1
        let value = try element(of: type, fields, next: &next)
        return ArchiveEncodedValue(objCType: text, value: value, stored: fields.instance)
    }

    /// The value of `type` from the unkeyed fields from `$next` on.
    private static func element(of type: ObjCTypeEncoding, _ fields: FieldReader, next: inout Int) throws(ArchiveError) -> ArchiveEncodedValue.Element {
        switch type {
        case .scalar(let letter):
            let key = "$\(next)"
            next += 1
            return try scalar(letter, try fields.required(key).unshared, fields, key: key)
        case .array(let count, let letter):
            let key = "$\(next)"
            next += 1
            guard case .instance(let array) = try fields.required(key).unshared, array.className == oldStyleArrayClass else {
                throw fields.fail(.typeMismatch, "\(key) is \(try fields.required(key).kindName), expected the \(oldStyleArrayClass) of an array", key: key)
            }
            let elements = FieldReader(instance: array, session: fields.session, uid: fields.uid)
            let storedCount = try elements.integer("NS.count"), size = try elements.integer("NS.size"), storedType = try elements.integer("NS.type")
            guard storedCount == count, storedType == Int64(letter), size == Int64(ObjCTypeEncoding.scalarSizes[letter] ?? 0) else {
                throw fields.fail(.typeMismatch, "\(key) holds \(storedCount) elements of type \(storedType), size \(size); the type asks for \(count) of \"\(String(decoding: [letter], as: UTF8.self))\"", key: key)
            }
            // The count was checked against the type text, and each element is a field.
            guard count <= array.fields.count else {
                throw fields.fail(.valueNotFound, "\(key) has \(array.fields.count) fields, fewer than its \(count) elements", key: key)
            }
            var values: [ArchiveEncodedValue.Element] = []
            values.reserveCapacity(count)
            for index in 0..<count {
                values.append(try scalar(letter, try elements.required("$\(index)").unshared, elements, key: "$\(index)"))
            }
            return .array(values)
        case .structure(_, let members):
            var values: [ArchiveEncodedValue.Element] = []
            for member in members { values.append(try element(of: member, fields, next: &next)) }
            return .structure(values)
        }
    }

    private static func scalar(_ letter: UInt8, _ value: ArchiveValue, _ fields: FieldReader, key: String) throws(ArchiveError) -> ArchiveEncodedValue.Element {
        func integer<I: FixedWidthInteger>(_ type: I.Type) throws(ArchiveError) -> I {
            var stored: PropertyListInteger?
            switch value {
            case .integer(let integer): stored = integer
            case .bool(let flag): stored = PropertyListInteger(Int64(flag ? 1 : 0))
            default: break
            }
            guard let stored else { throw fields.fail(.typeMismatch, "\(key) is \(value.kindName), expected an integer", key: key) }
            if let signed = stored.int64Value, let exact = I(exactly: signed) { return exact }
            if let unsigned = stored.uint64Value, let exact = I(exactly: unsigned) { return exact }
            throw fields.fail(.valueOutOfRange, "\(key) is \(stored), which does not fit \(I.self)", key: key)
        }
        switch letter {
        case UInt8(ascii: "c"): return .char(try integer(Int8.self))
        case UInt8(ascii: "C"): return .unsignedChar(try integer(UInt8.self))
        case UInt8(ascii: "s"): return .short(try integer(Int16.self))
        case UInt8(ascii: "S"): return .unsignedShort(try integer(UInt16.self))
        case UInt8(ascii: "i"): return .int(try integer(Int32.self))
        case UInt8(ascii: "I"): return .unsignedInt(try integer(UInt32.self))
        case UInt8(ascii: "l"): return .long(try integer(Int32.self))
        case UInt8(ascii: "L"): return .unsignedLong(try integer(UInt32.self))
        case UInt8(ascii: "q"): return .longLong(try integer(Int64.self))
        case UInt8(ascii: "Q"): return .unsignedLongLong(try integer(UInt64.self))
        case UInt8(ascii: "B"):
            if case .bool(let flag) = value { return .bool(flag) }
            let number = try integer(UInt8.self)
            guard number <= 1 else { throw fields.fail(.valueOutOfRange, "\(key) is \(number), not a boolean", key: key) }
            return .bool(number == 1)
        case UInt8(ascii: "f"), UInt8(ascii: "d"):
            let double: Double
            switch value {
            case .real(let real): double = real.doubleValue
            case .integer(let integer):
                guard let exact = integer.int64Value else { throw fields.fail(.valueOutOfRange, "\(key) is \(integer), beyond a real", key: key) }
                double = Double(exact)
            default: throw fields.fail(.typeMismatch, "\(key) is \(value.kindName), expected a real", key: key)
            }
            if letter == UInt8(ascii: "d") { return .double(double) }
            if case .real(.float32(let float)) = value { return .float(float) }
            return .float(Float(double))
        default:
            throw fields.fail(.typeMismatch, "the type letter \(letter) has no mapping", key: key)
        }
    }

    // MARK: NSCountedSet

    private static func countedSet(_ fields: FieldReader) throws(ArchiveError) -> ArchiveCountedSet {
        let count = try fields.integer("NS.count")
        // Each element takes two fields: a count the fields cannot hold is refused before anything is made.
        guard count >= 0, count <= (fields.instance.fields.count - 1) / 2 else {
            throw fields.fail(.valueOutOfRange, "NS.count is \(count), but the set has \(fields.instance.fields.count) fields (two per element)", key: "NS.count")
        }
        var entries: [ArchiveCountedSet.Entry] = []
        entries.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let element = try fields.required("NS.object\(index)")
            let times = try fields.integer("NS.count\(index)")
            guard times > 0, let exact = Int(exactly: times) else {
                throw fields.fail(.valueOutOfRange, "NS.count\(index) is \(times); an element is in a counted set at least once", key: "NS.count\(index)")
            }
            entries.append(.init(element: element, count: exact))
        }
        var set = ArchiveCountedSet(entries)
        set.stored = fields.instance
        return set
    }

    // MARK: NSUnit

    private static func unit(_ fields: FieldReader) throws(ArchiveError) -> ArchiveUnit {
        let className = fields.instance.className
        var converter: ArchiveUnitConverter?
        if className != "NSUnit" {
            // A dimension converts to its base unit.
            let stored = try fields.required("NS.converter")
            guard case .unitConverter(let found) = stored.unshared else {
                throw fields.fail(.typeMismatch, "NS.converter is \(stored.kindName), expected an NSUnitConverter", key: "NS.converter")
            }
            converter = found
        }
        var specifier: Int?
        if let number = try fields.integerIfPresent("NS.specifier") {
            guard let exact = Int(exactly: number) else { throw fields.fail(.valueOutOfRange, "NS.specifier \(number) does not fit Int", key: "NS.specifier") }
            specifier = exact
        }
        var unit = ArchiveUnit(className: className, symbol: try fields.string("NS.symbol"), converter: converter, specifier: specifier)
        unit.stored = fields.instance
        return unit
    }

    // MARK: NSAffineTransform

    private static func affineTransform(_ fields: FieldReader) throws(ArchiveError) -> ArchiveAffineTransform {
        var transform: ArchiveAffineTransform
        if let bytes = try fields.dataIfPresent("NSTransformStruct") {
            transform = try ArchiveAffineTransform(transformStruct: bytes) { message throws(ArchiveError) in
                throw fields.fail(.valueOutOfRange, message, key: "NSTransformStruct")
            }
        } else if fields.instance[storedKey: "$0"] == nil {
            // Foundation writes nothing at all for the identity.
            transform = ArchiveAffineTransform()
        } else {
            // Foundation on Linux: encodeValueOfObjCType "[6f]".
            guard case .instance(let array) = try fields.required("$0").unshared, array.className == oldStyleArrayClass,
                  try FieldReader(instance: array, session: fields.session, uid: fields.uid).integer("NS.count") == 6 else {
                throw fields.fail(.typeMismatch, "an NSAffineTransform holds neither NSTransformStruct nor six floats under $0", key: "NSTransformStruct")
            }
            let elements = FieldReader(instance: array, session: fields.session, uid: fields.uid)
            var numbers: [Float] = []
            for index in 0..<6 {
                guard case .float(let number) = try scalar(UInt8(ascii: "f"), try elements.required("$\(index)").unshared, elements, key: "$\(index)") else { continue }
                numbers.append(number)
            }
            guard numbers.count == 6 else {
                throw fields.fail(.typeMismatch, "an NSAffineTransform's six floats under $0 are not all floats", key: "$0")
            }
            transform = ArchiveAffineTransform(m11: numbers[0], m12: numbers[1], m21: numbers[2], m22: numbers[3], tX: numbers[4], tY: numbers[5])
        }
        transform.stored = fields.instance
        return transform
    }
}

/// Reads the fields of an object being mapped, each fault a typed error at the field's key path.
struct FieldReader {
    let instance: ArchiveInstance
    let session: ArchiveDecodingSession
    let uid: Int

    func fail(_ code: ArchiveError.Code, _ message: String, key: String) -> ArchiveError {
        ArchiveError(code, message, keyPath: session.keyPath.appending(key: ArchiveKeys.unescape(key) ?? key), uid: PropertyListUID(UInt64(uid)),
                     classChain: instance.classes)
    }

    /// The value under a stored key; nil when absent or `$null`.
    func value(_ key: String) -> ArchiveValue? {
        instance[storedKey: key]?.value
    }

    func required(_ key: String) throws(ArchiveError) -> ArchiveValue {
        guard let value = value(key) else {
            throw fail(.valueNotFound, instance[storedKey: key] == nil ? "\(instance.className.excerptForMessage(64)) has no \(key)" : "\(key) is $null", key: key)
        }
        return value
    }

    func stringIfPresent(_ key: String) throws(ArchiveError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let string, _) = value.unshared else { throw fail(.typeMismatch, "\(key) is \(value.kindName), expected a string", key: key) }
        return string
    }

    func string(_ key: String) throws(ArchiveError) -> String {
        _ = try required(key)
        return try stringIfPresent(key) ?? ""
    }

    func dataIfPresent(_ key: String) throws(ArchiveError) -> [UInt8]? {
        guard let value = value(key) else { return nil }
        guard case .data(let bytes, _) = value.unshared else { throw fail(.typeMismatch, "\(key) is \(value.kindName), expected data", key: key) }
        return bytes
    }

    func data(_ key: String) throws(ArchiveError) -> [UInt8] {
        _ = try required(key)
        return try dataIfPresent(key) ?? []
    }

    func integerIfPresent(_ key: String) throws(ArchiveError) -> Int64? {
        guard let value = value(key) else { return nil }
        switch value.unshared {
        case .integer(let integer):
            guard let exact = integer.int64Value else { throw fail(.valueOutOfRange, "\(key) is \(integer), beyond Int64", key: key) }
            return exact
        default:
            throw fail(.typeMismatch, "\(key) is \(value.kindName), expected an integer", key: key)
        }
    }

    func integer(_ key: String) throws(ArchiveError) -> Int64 {
        _ = try required(key)
        return try integerIfPresent(key) ?? 0
    }

    /// A boolean, or the integer 0 or 1 (an `NSNumber` answers `boolValue`).
    func boolIfPresent(_ key: String) throws(ArchiveError) -> Bool? {
        guard let value = value(key) else { return nil }
        switch value.unshared {
        case .bool(let flag): return flag
        case .integer(let integer) where integer.int64Value == 0 || integer.int64Value == 1: return integer.int64Value == 1
        default: throw fail(.typeMismatch, "\(key) is \(value.kindName), expected a boolean", key: key)
        }
    }

    func bool(_ key: String) throws(ArchiveError) -> Bool {
        _ = try required(key)
        return try boolIfPresent(key) ?? false
    }

    /// A real, or an integer (as `decodeDouble:` reads one).
    func double(_ key: String) throws(ArchiveError) -> Double {
        let value = try required(key)
        switch value.unshared {
        case .real(let real): return real.doubleValue
        case .integer(let integer):
            guard let exact = integer.int64Value else { throw fail(.valueOutOfRange, "\(key) is \(integer), beyond a real", key: key) }
            return Double(exact)
        default: throw fail(.typeMismatch, "\(key) is \(value.kindName), expected a real", key: key)
        }
    }

    /// An attribute dictionary: string keys, any values.
    func attributes(_ value: ArchiveValue, key: String, position: Int?) throws(ArchiveError) -> [String: ArchiveValue] {
        let which = position.map { "\(key)[\($0)]" } ?? key
        guard case .dictionary(let entries, _) = value.unshared else {
            throw fail(.typeMismatch, "\(which) is \(value.kindName), expected an attribute dictionary", key: key)
        }
        var result: [String: ArchiveValue] = [:]
        for entry in entries {
            guard case .string(let name, _) = entry.key.unshared else {
                throw fail(.typeMismatch, "\(which) has a key that is \(entry.key.kindName), expected a string", key: key)
            }
            result[name] = entry.value
        }
        return result
    }
}
