#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// ArchiveValue ↔ PropertyListValue, where the kinds allow: the property-list kinds are the
// classes `NSKeyedArchiver` and `PropertyListSerialization` share (strings, numbers, data, dates,
// arrays, string-keyed dictionaries; sets as binary plists hold them). Both walks keep a stack
// of their own, so that converting a value as deep as a reader accepts takes no thread stack.

extension ArchiveValue {
    /// The archive value of a property-list value: strings, numbers and data as the plain values
    /// `NSKeyedArchiver` stores, dates as `NSDate`, arrays, sets and dictionaries as `NSArray`,
    /// `NSSet` and `NSDictionary` (keys in the dictionary's order). Nil when the value holds a
    /// UID, which is a reference inside an archive, not a value.
    public init?(propertyList: PropertyListValue) {
        struct Frame {
            let children: [PropertyListValue]
            let keys: [String]?
            let isSet: Bool
            var converted: [ArchiveValue] = []
        }
        func leaf(_ value: PropertyListValue) -> ArchiveValue?? {
            switch value {
            case .string(let string): return .string(string)
            case .integer(let integer): return .integer(integer)
            case .real(let real): return .real(real)
            case .bool(let flag): return .bool(flag)
            case .date(let date): return .date(Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate))
            case .data(let bytes): return .data(bytes)
            case .uid: return .some(nil)
            case .array, .set, .dictionary: return nil
            }
        }
        func frame(_ value: PropertyListValue) -> Frame {
            switch value {
            case .dictionary(let dictionary): return Frame(children: dictionary.entries.map(\.value), keys: dictionary.entries.map(\.key), isSet: false)
            case .set(let elements): return Frame(children: elements, keys: nil, isSet: true)
            case .array(let elements): return Frame(children: elements, keys: nil, isSet: false)
            default: return Frame(children: [], keys: nil, isSet: false)
            }
        }
        if let scalar = leaf(propertyList) {
            guard let scalar else { return nil }
            self = scalar
            return
        }
        var stack = [frame(propertyList)]
        while let last = stack.indices.last {
            let position = stack[last].converted.count
            if position < stack[last].children.count {
                let child = stack[last].children[position]
                if let scalar = leaf(child) {
                    guard let scalar else { return nil }
                    stack[last].converted.append(scalar)
                } else {
                    stack.append(frame(child))
                }
                continue
            }
            let done = stack.removeLast()
            let value: ArchiveValue
            if let keys = done.keys {
                value = .dictionary(zip(keys, done.converted).map { Entry(key: .string($0.0), value: $0.1) })
            } else {
                value = done.isSet ? .set(done.converted) : .array(done.converted)
            }
            guard let parent = stack.indices.last else {
                self = value
                return
            }
            stack[parent].converted.append(value)
        }
        return nil
    }

    /// The value as a property-list value, when every kind in it has one: strings, numbers, data,
    /// dates, arrays, sets, and dictionaries whose keys are strings. Nil for `NSNull`, UUIDs, URLs,
    /// ordered sets, `NSValue`s, index sets and paths, object references and models, objects of
    /// other classes and shared objects (what `PropertyListSerialization` cannot write either; a
    /// shared object may contain itself). Which classes were mutable is not kept.
    public var propertyListValue: PropertyListValue? {
        struct Frame {
            let children: [ArchiveValue]
            let keys: [String]?
            let isSet: Bool
            var converted: [PropertyListValue] = []
        }
        enum Step { case leaf(PropertyListValue), container(Frame), none }
        func step(_ value: ArchiveValue) -> Step {
            switch value {
            case .string(let string, _): return .leaf(.string(string))
            case .bool(let flag): return .leaf(.bool(flag))
            case .integer(let integer): return .leaf(.integer(integer))
            case .real(let real): return .leaf(.real(real))
            case .data(let bytes, _): return .leaf(.data(bytes))
            case .date(let date): return .leaf(.date(PropertyListDate(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)))
            case .array(let elements, _): return .container(Frame(children: elements, keys: nil, isSet: false))
            case .set(let elements, _): return .container(Frame(children: elements, keys: nil, isSet: true))
            case .dictionary(let entries, _):
                var keys: [String] = []
                keys.reserveCapacity(entries.count)
                for entry in entries {
                    guard case .string(let key, _) = entry.key else { return .none }
                    keys.append(key)
                }
                return .container(Frame(children: entries.map(\.value), keys: keys, isSet: false))
            case .null, .uuid, .url, .orderedSet, .special, .indexSet, .indexPath, .object, .model, .instance, .shared, .backReference,
                 .attributedString, .decimalNumber, .encodedValue, .countedSet, .timeZone, .locale, .measurement, .unit, .unitConverter, .affineTransform, .sortDescriptor:
                return .none
            }
        }
        var stack: [Frame] = []
        switch step(self) {
        case .leaf(let value): return value
        case .none: return nil
        case .container(let frame): stack.append(frame)
        }
        while let last = stack.indices.last {
            let position = stack[last].converted.count
            if position < stack[last].children.count {
                switch step(stack[last].children[position]) {
                case .leaf(let value): stack[last].converted.append(value)
                case .container(let frame): stack.append(frame)
                case .none: return nil
                }
                continue
            }
            let done = stack.removeLast()
            let value: PropertyListValue
            if let keys = done.keys {
                value = .dictionary(PropertyListDictionary(entries: zip(keys, done.converted).map { PropertyListDictionary.Entry(key: $0.0, value: $0.1) }))
            } else {
                value = done.isSet ? .set(done.converted) : .array(done.converted)
            }
            guard let parent = stack.indices.last else { return value }
            stack[parent].converted.append(value)
        }
        return nil
    }
}

extension PropertyListValue {
    /// The property-list value of an archive value (``ArchiveValue/propertyListValue``); nil when
    /// it holds a kind a property list cannot.
    public init?(_ value: ArchiveValue) {
        guard let converted = value.propertyListValue else { return nil }
        self = converted
    }
}
