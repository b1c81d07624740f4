#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// Typed decoding and encoding of the field-mapped Foundation values: the class is checked
// against the registry first, as for every mapping, then the object is read as an
// `ArchiveValue` (one walk, every budget) and the typed value taken from it.

enum FieldMappedDecoding {
    static func decode<T>(_ reference: ArchiveReference, from decoder: KeyedArchiveDecoder, kind: FoundationClass, requested: @autoclosure () -> String,
                          _ extract: (ArchiveValue) -> T?) throws(ArchiveError) -> T {
        let session = decoder.session
        let uid = try session.index(reference)
        guard try session.foundationInstance(uid, kind: kind, requested: requested()) != nil else {
            throw session.error(.typeMismatch, "expected an \(kind.defaultNames.first ?? kind.rawValue) for \(requested()), found \(session.describe(uid))", uid: uid)
        }
        let value = try ArchiveValueDecoding.decode(reference: reference, decoder: decoder)
        if let typed = extract(value.unshared) {
            // So that fields sharing the object share it again when encoded (the value keeps
            // the object as decoded).
            if session.identities != nil { session.recordIdentity(typed, uid: uid) }
            return typed
        }
        throw session.error(.typeMismatch, "expected \(requested()), found \(value.unshared.kindNameWithArticle)", uid: uid)
    }

    static func encode(_ value: ArchiveValue, in encoder: KeyedArchiveEncoder) throws(ArchiveError) -> ArchiveReference {
        try ArchiveValueEncoding.reference(for: value, in: encoder)
    }
}

/// A field-mapped value that keeps the object it was decoded from, to write it back as it was
/// while no property has changed.
protocol KeepsDecodedObject {
    var stored: ArchiveInstance? { get }
}

extension KeepsDecodedObject {
    /// Where the decoded object's fields are: storage the decode made, so one object's alone.
    var decodedObjectAddress: Int? {
        stored?.fields.withUnsafeBufferPointer { $0.baseAddress.map { Int(bitPattern: $0) } }
    }
}

/// The address of the object a field-mapped value (typed, or in an ``ArchiveValue``) keeps, or
/// nil for another value or one made or changed since it was decoded.
func decodedObjectAddress<T>(of value: T) -> Int? {
    switch value {
    case let keeping as any KeepsDecodedObject: return keeping.decodedObjectAddress
    case let archiveValue as ArchiveValue:
        switch archiveValue {
        case .attributedString(let value): return value.decodedObjectAddress
        case .decimalNumber(let value): return value.decodedObjectAddress
        case .encodedValue(let value): return value.decodedObjectAddress
        case .countedSet(let value): return value.decodedObjectAddress
        case .timeZone(let value): return value.decodedObjectAddress
        case .locale(let value): return value.decodedObjectAddress
        case .measurement(let value): return value.decodedObjectAddress
        case .unit(let value): return value.decodedObjectAddress
        case .affineTransform(let value): return value.decodedObjectAddress
        case .sortDescriptor(let value): return value.decodedObjectAddress
        default: return nil
        }
    default: return nil
    }
}

extension ArchiveAttributedString: KeepsDecodedObject {}
extension ArchiveDecimalNumber: KeepsDecodedObject {}
extension ArchiveEncodedValue: KeepsDecodedObject {}
extension ArchiveCountedSet: KeepsDecodedObject {}
extension ArchiveTimeZone: KeepsDecodedObject {}
extension ArchiveLocale: KeepsDecodedObject {}
extension ArchiveUnit: KeepsDecodedObject {}
extension ArchiveMeasurement: KeepsDecodedObject {}
extension ArchiveAffineTransform: KeepsDecodedObject {}
extension ArchiveSortDescriptor: KeepsDecodedObject {}

extension ArchiveValue {
    /// "an attributed string", "a counted set", …
    var kindNameWithArticle: String {
        let name = kindName
        return (name.first.map { "aeiouAEIOU".contains($0) } ?? false ? "an " : "a ") + name
    }
}

extension ArchiveAttributedString: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.attributedString(self), in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveAttributedString {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .attributedString, requested: "ArchiveAttributedString") { $0.attributedStringValue }
    }
}

extension ArchiveDecimalNumber: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.decimalNumber(self), in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveDecimalNumber {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .decimalNumber, requested: "ArchiveDecimalNumber") { $0.decimalNumberValue }
    }
}

extension Decimal: ArchiveObjectCodable {
    /// An `NSDecimalNumber` of the decimal's exact value.
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.decimalNumber(ArchiveDecimalNumber(self)), in: encoder)
    }

    /// The exact value of an `NSDecimalNumber` (`Decimal.nan` for `notANumber`).
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Decimal {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .decimalNumber, requested: "Decimal") { $0.decimalNumberValue?.decimalValue }
    }
}

extension ArchiveEncodedValue: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.encodedValue(self), in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveEncodedValue {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .value, requested: "ArchiveEncodedValue") { $0.encodedValue }
    }
}

extension ArchiveCountedSet: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.countedSet(self), in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveCountedSet {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .countedSet, requested: "ArchiveCountedSet") { $0.countedSetValue }
    }
}

extension ArchiveTimeZone: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.timeZone(self), in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveTimeZone {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .timeZone, requested: "ArchiveTimeZone") { $0.timeZoneValue }
    }
}

extension TimeZone: ArchiveObjectCodable {
    /// An `NSTimeZone` of the identifier, with the system's TZif data for it (see
    /// ``ArchiveTimeZone/init(_:)``).
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.timeZone(ArchiveTimeZone(self)), in: encoder)
    }

    /// The time zone an `NSTimeZone` names.
    /// - Throws: ``ArchiveError/Code/valueOutOfRange`` when this platform's Foundation does not
    ///   know the name (decode ``ArchiveTimeZone`` to keep it anyway).
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> TimeZone {
        let zone = try FieldMappedDecoding.decode(reference, from: decoder, kind: .timeZone, requested: "TimeZone") { $0.timeZoneValue }
        guard let timeZone = zone.timeZone else {
            throw ArchiveError(.valueOutOfRange, "the time zone \"\(zone.name.excerptForMessage(64).escapedForMessage)\" is not known to this platform's Foundation; decode ArchiveTimeZone to keep it",
                               keyPath: decoder.session.keyPath)
        }
        return timeZone
    }
}

extension ArchiveLocale: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.locale(self), in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveLocale {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .locale, requested: "ArchiveLocale") { $0.localeValue }
    }
}

extension Locale: ArchiveObjectCodable {
    /// An `NSLocale` of the identifier.
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.locale(ArchiveLocale(identifier: identifier)), in: encoder)
    }

    /// The locale an `NSLocale` names.
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Locale {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .locale, requested: "Locale") { $0.localeValue?.locale }
    }
}

extension ArchiveMeasurement: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.measurement(self), in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveMeasurement {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .measurement, requested: "ArchiveMeasurement") { $0.measurementValue }
    }
}

extension ArchiveUnit: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.unit(self), in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveUnit {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .unit, requested: "ArchiveUnit") { $0.unitValue }
    }
}

extension ArchiveAffineTransform: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.affineTransform(self), in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveAffineTransform {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .affineTransform, requested: "ArchiveAffineTransform") { $0.affineTransformValue }
    }
}

extension ArchiveSortDescriptor: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try FieldMappedDecoding.encode(.sortDescriptor(self), in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveSortDescriptor {
        try FieldMappedDecoding.decode(reference, from: decoder, kind: .sortDescriptor, requested: "ArchiveSortDescriptor") { $0.sortDescriptorValue }
    }
}
