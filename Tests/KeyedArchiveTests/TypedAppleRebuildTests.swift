import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The macOS-made archives whose source code is public, written again with the typed API as
/// that code builds them (go-ios `createSampleArchives.swift`, nskeyedunarchiver `main.m`), in
/// Apple-faithful mode: the bytes must be Apple's.
@Suite struct TypedAppleRebuildTests {
    /// The `Note` class of nskeyedunarchiver's test program.
    struct Note: KeyedArchivable {
        var title = "Some cool title", author = "Michael Wright", date = 2025, published = true
        init() {}
        init(from decoder: KeyedArchiveDecoder) throws {
            title = try decoder.decode(String.self, forKey: "title")
            author = try decoder.decode(String.self, forKey: "author")
            date = try decoder.decode(Int.self, forKey: "date")
            published = try decoder.decode(Bool.self, forKey: "published")
        }
        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(title, forKey: "title")
            try encoder.encode(author, forKey: "author")
            try encoder.encode(date, forKey: "date")
            try encoder.encode(published, forKey: "published")
            try encoder.encode(ArchiveArray(["Hello, World!", 42, true]), forKey: "array")
        }
    }

    static func archive(_ body: (KeyedArchiver) throws -> Void) throws -> [UInt8] {
        var registry = ArchiveRegistry()
        registry.register(Note.self)
        let archiver = KeyedArchiver(registry: registry, options: .appleFaithful)
        try body(archiver)
        return try archiver.finish()
    }

    static var primitives: [any ArchiveObjectEncodable] {
        [UInt64(1), UInt32(1), 1.0, 1.5, Data("asdfasdfadsfadsf".utf8), true, "Hello, World!", "Hello, World!", "Hello, World!", false, false, 42]
    }
    static var mutableArray: ArchiveArray { ArchiveArray([true, "Hello, World!", 42], classes: ArchiveArray.mutableArrayClasses) }
    // Set order is the order Foundation's set iterated (read from the file; a set has no other).
    static var mutableSet: ArchiveArray { ArchiveArray([42, true, "Hello, World!"], classes: ArchiveArray.mutableSetClasses) }
    static var nsset: ArchiveArray { ArchiveArray([true], classes: ArchiveArray.setClasses) }

    static let cases: [(String, @Sendable (KeyedArchiver) throws -> Void)] = [
        ("go-ios/swift-generated/onevalue.bin.plist", { try $0.encodeUnkeyed(true) }),
        ("go-ios/swift-generated/primitives.bin.plist", { archiver in
            for value in primitives { try archiver.encodeUnkeyed(value) }
        }),
        ("go-ios/swift-generated/arrays.bin.plist", { archiver in
            try archiver.encodeUnkeyed(ArchiveArray(primitives))
            try archiver.encodeUnkeyed(mutableArray)
            try archiver.encodeUnkeyed(nsset)
            try archiver.encodeUnkeyed(mutableSet)
        }),
        ("go-ios/swift-generated/nestedarrays.bin.plist", { try $0.encodeUnkeyed(ArchiveArray([nsset, mutableSet])) }),
        ("go-ios/swift-generated/dict.bin.plist", { archiver in
            try archiver.encodeUnkeyed(ArchiveDictionary([("int", 1), ("string", "string"), ("array", mutableArray)]))
        }),
        ("nskeyedunarchiver-rs/plainString.plist", { try $0.encode("Some string!") }),
        ("nskeyedunarchiver-rs/nsData.plist", { archiver in
            try archiver.encode(ArchiveGenericObject(classes: ["NSMutableData", "NSData", "NSObject"], fields: [("NS.data", .inline(.data(Array("Some data!".utf8))))]))
        }),
        ("nskeyedunarchiver-rs/simpleArray.plist", { try $0.encode(ArchiveArray(["value1", "value2", ArchiveArray(["innerValue3", "innerValue4"])])) }),
        ("nskeyedunarchiver-rs/simpleDict.plist", { archiver in
            // Entry order as the __NSDictionaryI iterated it (read from the file).
            try archiver.encode(ArchiveDictionary([("Array key", [1, 2, 3]), ("First key", "First value"), ("Second key", "Second value")]))
        }),
        ("nskeyedunarchiver-rs/circularReference.plist", { archiver in
            let array = ArchiveGenericObject(classes: ArchiveArray.mutableArrayClasses)
            array.fields = [("NS.objects", .objects([array]))]
            try archiver.encode(array)
        }),
        ("nskeyedunarchiver-rs/NSAffineTransform.plist", { archiver in
            // 15.5° rotation as the 6 float32 fields of NSAffineTransformStruct, big-endian.
            let radians = Float(15.5 * Double.pi / 180)
            let fields: [Float] = [cos(radians), sin(radians), -sin(radians), cos(radians), 0, 0]
            let bytes = fields.flatMap { value -> [UInt8] in withUnsafeBytes(of: value.bitPattern.bigEndian) { Array($0) } }
            try archiver.encode(ArchiveGenericObject(classes: ["NSAffineTransform", "NSObject"], fields: [("NSTransformStruct", .inline(.data(bytes)))]))
        }),
        ("nskeyedunarchiver-rs/note.plist", { try $0.encode(Note()) }),
    ]

    @Test func typedRebuildsMatchAppleBytes() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        var identical: [String] = [], sharingOnly: [String] = [], other: [String] = []
        for (path, build) in Self.cases {
            let apple = try ArchiveFixtures.bytes(path)
            let ours = try Self.archive(build)
            switch try GraphRebuilder.compare(ours, apple) {
            case .identical: identical.append(path)
            case .sharingOnly: sharingOnly.append(path)
            default: other.append(path)
            }
        }
        print("Typed Apple-faithful rebuilds: \(identical.count)/\(Self.cases.count) byte-identical; sharing-only: \(sharingOnly); other: \(other)")
        #expect(other.isEmpty)
        // note.plist: Apple wrote the class name "Note" once for $classname and $classes; app
        // classes almost never share it (format-notes; Docs/KeyedArchiveFormat.md), so we don't.
        #expect(sharingOnly == ["nskeyedunarchiver-rs/note.plist"])
    }
}
