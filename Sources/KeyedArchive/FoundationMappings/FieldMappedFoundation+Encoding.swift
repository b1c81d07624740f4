#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// The objects the field-mapped Foundation values are written as: the fields they were decoded
// from when they were, otherwise a Mac's keys, layout and order of objects (each type's
// documentation cites the archive it was learned from).

extension ArchiveAttributedString {
    /// The object Foundation writes: `NSString`, then `NSAttributes` and `NSAttributeInfo`.
    func archivedInstance() throws(ArchiveError) -> ArchiveInstance {
        if let stored { return stored }
        let length = string.utf16.count
        var covered = 0
        for run in runs {
            guard run.length > 0, run.length <= length - covered else {
                throw ArchiveError(.valueOutOfRange, "the runs of an attributed string must each cover at least one of its \(length) UTF-16 code units, and together all of them")
            }
            covered += run.length
        }
        guard covered == length else {
            throw ArchiveError(.valueOutOfRange, "the runs cover \(covered) of the attributed string's \(length) UTF-16 code units")
        }
        func dictionary(_ attributes: [String: ArchiveValue]) -> ArchiveValue {
            // Sorted, so that the bytes do not depend on Swift's per-process hash seed.
            .dictionary(attributes.sorted { $0.key < $1.key }.map { ArchiveValue.Entry(key: .string($0.key), value: $0.value) })
        }
        let chain = archivesAsMutable ? ["NSMutableAttributedString", "NSAttributedString", "NSObject"] : FoundationClass.attributedString.archivedChain
        var fields: [ArchiveInstance.Field] = [.init(key: "NSString", value: .object(.string(string, mutable: archivesAsMutable)))]
        if runs.count == 1 {
            // One run over the whole text: the dictionary itself, and no NSAttributeInfo.
            fields.append(.init(key: "NSAttributes", value: .object(dictionary(runs[0].attributes))))
        } else if runs.count > 1 {
            var distinct: [[String: ArchiveValue]] = []
            var info: [UInt8] = []
            for run in runs {
                let slot = distinct.firstIndex(of: run.attributes) ?? {
                    distinct.append(run.attributes)
                    return distinct.count - 1
                }()
                PackedIndexes.append(UInt64(run.length), to: &info)
                PackedIndexes.append(UInt64(slot), to: &info)
            }
            fields.append(.init(key: "NSAttributes", value: .object(.array(distinct.map(dictionary), mutable: true))))
            fields.append(.init(key: "NSAttributeInfo", value: .object(.data(info, mutable: true))))
        }
        return ArchiveInstance(classes: chain, fields: fields)
    }
}

extension ArchiveDecimalNumber {
    /// `NSDecimalNumber`'s keys, all inline; the mantissa as the 16 bytes of `NSDecimal`'s
    /// eight words, little-endian (`NS.mantissa.bo` 1).
    func archivedInstance() throws(ArchiveError) -> ArchiveInstance {
        if let stored { return stored }
        guard (-128...127).contains(exponent), mantissa.count <= 8 else {
            throw ArchiveError(.valueOutOfRange, "an NSDecimal has an exponent of −128…127 and at most 8 mantissa words; this has \(exponent) and \(mantissa.count)")
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for (index, word) in mantissa.enumerated() {
            bytes[index * 2] = UInt8(truncatingIfNeeded: word)
            bytes[index * 2 + 1] = UInt8(truncatingIfNeeded: word >> 8)
        }
        return ArchiveInstance(classes: FoundationClass.decimalNumber.archivedChain, fields: [
            .init(key: "NS.exponent", value: .inline(.int(exponent))),
            .init(key: "NS.length", value: .inline(.int(mantissa.count))),
            .init(key: "NS.negative", value: .inline(.bool(isNegative))),
            .init(key: "NS.compact", value: .inline(.bool(isCompact))),
            .init(key: "NS.mantissa.bo", value: .inline(.int(1))),
            .init(key: "NS.mantissa", value: .inline(.data(bytes))),
        ])
    }
}

extension ArchiveEncodedValue {
    /// `$0` the type text, then the value's parts as unkeyed values: numbers inline, an array as
    /// a `_NSKeyedCoderOldStyleArray` (`NSKeyedUnarchiver-ConcreteValueTest.plist`).
    func archivedInstance() throws(ArchiveError) -> ArchiveInstance {
        if let stored { return stored }
        var fields: [ArchiveInstance.Field] = [.init(key: "$0", value: .object(.string(objCType)))]
        func scalar(_ element: Element) -> ArchiveValue {
            switch element {
            case .char(let value): return .int(Int(value))
            case .unsignedChar(let value): return .int(Int(value))
            case .short(let value): return .int(Int(value))
            case .unsignedShort(let value): return .int(Int(value))
            case .int(let value): return .int(Int(value))
            case .unsignedInt(let value): return .int(Int(value))
            case .long(let value): return .int(Int(value))
            case .unsignedLong(let value): return .int(Int(value))
            case .longLong(let value): return .integer(PropertyListInteger(value))
            case .unsignedLongLong(let value): return .integer(PropertyListInteger(value))
            case .float(let value): return .float(value)
            case .double(let value): return .double(value)
            case .bool(let value): return .bool(value)
            case .array, .structure: return .null
            }
        }
        // The parts in order, a structure's fields flattened (iteratively: the type bounded the nesting).
        var pending: [Element] = [value]
        while let element = pending.popLast() {
            switch element {
            case .structure(let members):
                pending.append(contentsOf: members.reversed())
            case .array(let elements):
                let letter = elements.first.flatMap(ObjCTypeEncoding.letter(of:)) ?? UInt8(ascii: "i")
                var arrayFields: [ArchiveInstance.Field] = elements.enumerated().map { .init(key: "$\($0.offset)", value: .inline(scalar($0.element))) }
                arrayFields.append(.init(key: "NS.count", value: .inline(.int(elements.count))))
                arrayFields.append(.init(key: "NS.size", value: .inline(.int(ObjCTypeEncoding.scalarSizes[letter] ?? 0))))
                arrayFields.append(.init(key: "NS.type", value: .inline(.int(Int(letter)))))
                let array = ArchiveInstance(classes: [FieldMappedFoundation.oldStyleArrayClass, "NSObject"], fields: arrayFields)
                fields.append(.init(key: "$\(fields.count)", value: .object(.instance(array))))
            default:
                fields.append(.init(key: "$\(fields.count)", value: .inline(scalar(element))))
            }
        }
        return ArchiveInstance(classes: FoundationClass.value.archivedChain, fields: fields)
    }
}

extension ArchiveCountedSet {
    /// `NS.count`, then each element and its count (`NSCountedSet-*.archive`).
    func archivedInstance() throws(ArchiveError) -> ArchiveInstance {
        if let stored { return stored }
        var fields: [ArchiveInstance.Field] = [.init(key: "NS.count", value: .inline(.int(entries.count)))]
        for (index, entry) in entries.enumerated() {
            guard entry.count > 0 else {
                throw ArchiveError(.valueOutOfRange, "element \(index) of a counted set is there \(entry.count) times; at least once is the least")
            }
            fields.append(.init(key: "NS.object\(index)", value: .object(entry.element)))
            fields.append(.init(key: "NS.count\(index)", value: .inline(.int(entry.count))))
        }
        return ArchiveInstance(classes: FoundationClass.countedSet.archivedChain, fields: fields)
    }
}

extension ArchiveTimeZone {
    /// `NS.name`, then `NS.data` as an `NSMutableData` object, or `$null` for a zone without
    /// rules (a fixed offset such as `GMT+0100`), as macOS writes them
    /// (`DateIntervalFormatter-ValuesSetWithTemplate.archive`).
    func archivedInstance() throws(ArchiveError) -> ArchiveInstance {
        if let stored { return stored }
        return ArchiveInstance(classes: FoundationClass.timeZone.archivedChain, fields: [
            .init(key: "NS.name", value: .object(.string(name))),
            .init(key: "NS.data", value: data.isEmpty ? .null : .object(.data(data, mutable: true))),
        ])
    }

    /// The time zone of `timeZone`'s identifier, with the TZif data of the system's time zone
    /// database (`/usr/share/zoneinfo`, what `NSTimeZone.data` holds) when it has that zone; none
    /// for a fixed offset.
    public init(_ timeZone: TimeZone) {
        let name = timeZone.identifier
        var data: [UInt8] = []
        // Only a plain zone name is looked up: no "..", no absolute path.
        let plain = !name.isEmpty && !name.hasPrefix("/") && !name.contains("..")
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/_-+".unicodeScalars.contains($0)) }
        if plain, let contents = FileManager.default.contents(atPath: "/usr/share/zoneinfo/" + name), contents.starts(with: Array("TZif".utf8)) {
            data = [UInt8](contents)
        }
        self.init(name: name, data: data)
    }
}

extension ArchiveLocale {
    func archivedInstance() throws(ArchiveError) -> ArchiveInstance {
        if let stored { return stored }
        return ArchiveInstance(classes: FoundationClass.locale.archivedChain, fields: [.init(key: "NS.identifier", value: .object(.string(identifier)))])
    }
}

extension ArchiveMeasurement {
    /// `NS.value` inline, then `NS.unit` (`NSMeasurement-*.archive`).
    func archivedInstance() throws(ArchiveError) -> ArchiveInstance {
        if let stored { return stored }
        return ArchiveInstance(classes: FoundationClass.measurement.archivedChain, fields: [
            .init(key: "NS.value", value: .inline(.double(value))),
            .init(key: "NS.unit", value: .object(.unit(unit))),
        ])
    }
}

extension ArchiveUnit {
    /// `NS.symbol`, then a dimension's `NS.converter` and `NS.specifier`.
    func archivedInstance() throws(ArchiveError) -> ArchiveInstance {
        if let stored { return stored }
        guard className == "NSUnit" || converter != nil else {
            throw ArchiveError(.valueNotFound, "a \(className.excerptForMessage(64)) is a dimension and needs a converter")
        }
        guard FoundationClass.unit.defaultNames.contains(className) else {
            throw ArchiveError(.typeMismatch, "\(className.excerptForMessage(64)) is not one of Foundation's unit classes")
        }
        var fields: [ArchiveInstance.Field] = [.init(key: "NS.symbol", value: .object(.string(symbol)))]
        if let converter { fields.append(.init(key: "NS.converter", value: .object(.unitConverter(converter)))) }
        if let specifier { fields.append(.init(key: "NS.specifier", value: .inline(.int(specifier)))) }
        return ArchiveInstance(classes: classes, fields: fields)
    }
}

extension ArchiveUnitConverter {
    func archivedInstance() -> ArchiveInstance {
        switch self {
        case .linear(let coefficient, let constant):
            return ArchiveInstance(classes: FoundationClass.unitConverter.archivedChain, fields: [
                .init(key: "NS.coefficient", value: .inline(.double(coefficient))),
                .init(key: "NS.constant", value: .inline(.double(constant))),
            ])
        case .reciprocal(let reciprocal):
            return ArchiveInstance(classes: ["NSUnitConverterReciprocal", "NSUnitConverter", "NSObject"], fields: [
                .init(key: "NS.reciprocalValue", value: .inline(.double(reciprocal))),
            ])
        }
    }
}

extension ArchiveAffineTransform {
    /// `NSTransformStruct` in the shortest form Foundation writes for the matrix (``transformStruct``);
    /// nothing at all for the identity, as Foundation writes it.
    func archivedInstance() throws(ArchiveError) -> ArchiveInstance {
        if let stored { return stored }
        let fields: [ArchiveInstance.Field] = transformStruct.map { [.init(key: "NSTransformStruct", value: .inline(.data($0)))] } ?? []
        return ArchiveInstance(classes: FoundationClass.affineTransform.archivedChain, fields: fields)
    }
}

extension ArchiveSortDescriptor {
    /// `NSKey`, `NSAscending` inline, then `NSSelector`.
    func archivedInstance() throws(ArchiveError) -> ArchiveInstance {
        if let stored { return stored }
        return ArchiveInstance(classes: FoundationClass.sortDescriptor.archivedChain, fields: [
            .init(key: "NSKey", value: key.map { .object(.string($0)) } ?? .null),
            .init(key: "NSAscending", value: .inline(.bool(ascending))),
            .init(key: "NSSelector", value: selector.map { .object(.string($0)) } ?? .null),
        ])
    }
}
