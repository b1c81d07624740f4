import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Every form of `NSTransformStruct` Apple's Foundation writes (its `-[NSAffineTransform
/// encodeWithCoder:]`: big-endian 32-bit floats, as few as the matrix needs; the identity
/// without the key), read, written for a transform built in Swift as Foundation writes it, and
/// written back as stored. The bytes are made here with the layout spelt out float by float, and
/// Fixtures/schema/make_transform_drawing.py makes the same forms with Python's `struct`.
@Suite struct AffineTransformFormTests {
    static func bigEndian(_ numbers: Float...) -> [UInt8] {
        numbers.flatMap { number in withUnsafeBytes(of: number.bitPattern.bigEndian) { Array($0) } }
    }

    struct Form: Sendable, CustomTestStringConvertible {
        var name: String
        var stored: [UInt8]?
        var transform: ArchiveAffineTransform
        var testDescription: String { name }
    }

    static let forms: [Form] = [
        Form(name: "rotation or shear: 24 bytes", stored: bigEndian(0.96363044, 0.26723838, -0.26723838, 0.96363044, 10.5, -3.25),
             transform: ArchiveAffineTransform(m11: 0.96363044, m12: 0.26723838, m21: -0.26723838, m22: 0.96363044, tX: 10.5, tY: -3.25)),
        Form(name: "scale and translation: 16 bytes", stored: bigEndian(2, 0.5, 100, 42.25),
             transform: ArchiveAffineTransform(m11: 2, m22: 0.5, tX: 100, tY: 42.25)),
        Form(name: "scale only: 9 bytes, tag 2", stored: [2] + bigEndian(1.5, -1.5), transform: ArchiveAffineTransform(m11: 1.5, m22: -1.5)),
        Form(name: "translation only: 9 bytes, tag 1", stored: [1] + bigEndian(-7, 12.5), transform: ArchiveAffineTransform(tX: -7, tY: 12.5)),
        Form(name: "identity: no NSTransformStruct", stored: nil, transform: ArchiveAffineTransform()),
    ]

    static func archive(stored: [UInt8]?) throws -> [UInt8] {
        let fields: [(String, ArchiveGenericObject.Field)] = stored.map { [("NSTransformStruct", .inline(.data($0)))] } ?? []
        return try FoundationIndexMappingTests.hostile(["NSAffineTransform", "NSObject"], fields)
    }

    /// The `NSTransformStruct` of the archive's root object, nil when it has none.
    static func storedStruct(_ bytes: [UInt8]) throws -> [UInt8]? {
        let graph = try ArchiveGraph(bytes: bytes)
        let root = try #require(graph.topUID(forKey: "root"))
        #expect(graph.className(of: root) == "NSAffineTransform")
        guard case .instance(let instance)? = graph.object(root) else {
            Issue.record("the root is not an object")
            return nil
        }
        guard case .data(let data)? = instance.value(forKey: "NSTransformStruct") else { return nil }
        return data
    }

    @Test(arguments: forms)
    func eachFormIsReadWrittenAsFoundationWritesItAndWrittenBackAsStored(_ form: Form) throws {
        let bytes = try Self.archive(stored: form.stored)
        let decoded = try FoundationDecoding.decode(ArchiveAffineTransform.self, bytes)
        #expect(decoded == form.transform)
        // Built in Swift: the form Foundation chooses for the matrix.
        #expect(try Self.storedStruct(FoundationObjectMappingTests.archive(form.transform)) == form.stored)
        // Read and written again: what was stored.
        #expect(try Self.storedStruct(FoundationObjectMappingTests.archive(decoded)) == form.stored)
    }

    /// A struct stored longer than Foundation would write it today (six floats for a plain scale)
    /// is written back as stored, until the transform changes.
    @Test func aStoredFormIsKeptEvenWhereFoundationWouldChooseAnother() throws {
        let sixFloatsForAScale = Self.bigEndian(3, 0, 0, 3, 0, 0)
        let decoded = try FoundationDecoding.decode(ArchiveAffineTransform.self, try Self.archive(stored: sixFloatsForAScale))
        #expect(decoded == ArchiveAffineTransform(m11: 3, m22: 3))
        #expect(try Self.storedStruct(FoundationObjectMappingTests.archive(decoded)) == sixFloatsForAScale)
        // Empty bytes: the identity, as Foundation reads them, and written back empty.
        let empty = try FoundationDecoding.decode(ArchiveAffineTransform.self, try Self.archive(stored: []))
        #expect(empty == ArchiveAffineTransform())
        #expect(try Self.storedStruct(FoundationObjectMappingTests.archive(empty)) == [])
        var changed = decoded
        changed.tX = 1
        #expect(try Self.storedStruct(FoundationObjectMappingTests.archive(changed)) == Self.bigEndian(3, 3, 1, 0))
    }

    @Test(arguments: [
        ([UInt8](repeating: 0, count: 12), "NSTransformStruct has 12 bytes; Foundation writes 24 (six floats), 16 (scale and translation) or 9 (one of them)"),
        ([3] + bigEndian(1, 2), "NSTransformStruct of 9 bytes starts with 3; Foundation writes 1 (a translation) or 2 (a scale)"),
        ([UInt8](repeating: 0, count: 25), "NSTransformStruct has 25 bytes; Foundation writes 24 (six floats), 16 (scale and translation) or 9 (one of them)"),
    ])
    func otherLengthsAndTagsAreRefusedWithTheirKey(_ stored: [UInt8], _ message: String) throws {
        let error = try #require(throws: ArchiveError.self) {
            try FoundationDecoding.decode(ArchiveAffineTransform.self, try Self.archive(stored: stored))
        }
        #expect(error.code == .valueOutOfRange)
        #expect(error.message.contains(message), "\(error)")
        #expect(error.keyPath.description.contains("NSTransformStruct"), "\(error)")
    }
}
