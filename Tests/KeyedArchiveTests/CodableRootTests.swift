import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// A nil optional through the Codable bridge, and one-call archiving of a `Codable` root, against
/// Foundation on Linux: its `NSKeyedUnarchiver` for what the archive holds under the key, and its
/// `PropertyListEncoder`/`PropertyListDecoder` for the tree (Apple's `encodeEncodable` and
/// `decodeDecodable` are those coders around `encode(_:forKey:)`/`decodeObject(of:forKey:)`).
@Suite struct CodableRootTests {
    /// All a `Codable` tree is archived as: the bridge asks for a registry, and this one is enough.
    static let registry = ArchiveRegistry(foundation: .propertyListClasses)

    struct WeatherReport: Codable, Equatable {
        var station: String
        var issued: Date
        var windKnots: Int
        var gustKnots: Int?
        var visibilityMetres: Double
        var remarks: [String]
    }

    static let report = WeatherReport(station: "EDDF", issued: Date(timeIntervalSinceReferenceDate: 780_000_000), windKnots: 12,
                                      gustKnots: nil, visibilityMetres: 9_999, remarks: ["CAVOK", "NOSIG"])

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func nilOptionalIsNullAsFoundationReadsIt(format: ArchiveFormat) throws {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encodeEncodable(WeatherReport?.none, forKey: "report")
        try archiver.encodeEncodable(Int?.none, forKey: "count")
        try archiver.encodeEncodable(Optional(Self.report), forKey: "present")
        let data = try archiver.finishData(format: format)

        let theirs = try NSKeyedUnarchiver(forReadingFrom: data)
        theirs.requiresSecureCoding = true
        // Apple's decodeDecodable is decodeObject(of:forKey:), nil for $null, then PropertyListDecoder.
        #expect(theirs.containsValue(forKey: "report"))
        #expect(theirs.decodeObject(of: CodableBridgeTests.plistClasses, forKey: "report") == nil)
        #expect(theirs.decodeObject(of: CodableBridgeTests.plistClasses, forKey: "count") == nil)
        let tree = try #require(theirs.decodeObject(of: CodableBridgeTests.plistClasses, forKey: "present"))
        let plist = try PropertyListSerialization.data(fromPropertyList: tree, format: .binary, options: 0)
        #expect(try PropertyListDecoder().decode(WeatherReport.self, from: plist) == Self.report)

        let ours = try KeyedUnarchiver(data: data, registry: ArchiveRegistry())
        #expect(try ours.decodeDecodable(WeatherReport.self, forKey: "report") == nil)
        #expect(try ours.decodeDecodable(Int.self, forKey: "count") == nil)
        #expect(try ours.decodeDecodable(WeatherReport.self, forKey: "present") == Self.report)
    }

    /// Inside a value nil stays what Foundation's PropertyListEncoder writes: the string "$null"
    /// in an array (an object of its own, not the $null reference, as Foundation's archiver
    /// stores that string), no key at all for a nil property.
    @Test func nilInsideAValueIsWhatFoundationWrites() throws {
        let readings: [Int?] = [1, nil, 3]
        let foundations = try #require(try PropertyListSerialization.propertyList(from: try PropertyListEncoder().encode(readings), format: nil) as? NSArray)
        #expect(foundations[1] as? String == "$null")
        let data = try KeyedArchiver.archivedData(encodable: readings, registry: Self.registry)
        let file = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let objects = try #require(file["$objects"] as? [Any])
        #expect(objects.dropFirst().contains { $0 as? String == "$null" })
        #expect(try KeyedUnarchiver.unarchive(decodable: [Int?].self, from: data, registry: Self.registry) == readings)
        // Foundation on Linux reads that string as nil and leaves it out of the NSArray, from its
        // own archive of the same tree too; so the comparison is of what each archive holds.
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(foundations, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let theirFile = try #require(try PropertyListSerialization.propertyList(from: archiver.encodedData, format: nil) as? [String: Any])
        #expect(((theirFile["$objects"] as? [Any]) ?? []).dropFirst().contains { $0 as? String == "$null" })
        #expect(try KeyedUnarchiver.unarchive(decodable: [Int?].self, from: archiver.encodedData, registry: Self.registry) == readings)

        let report = try KeyedArchiver.archivedData(encodable: Self.report, registry: Self.registry)
        let reader = try NSKeyedUnarchiver(forReadingFrom: report)
        reader.requiresSecureCoding = true
        let reportTree = try #require(reader.decodeObject(of: CodableBridgeTests.plistClasses, forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary)
        #expect(reportTree == (try PropertyListSerialization.propertyList(from: try PropertyListEncoder().encode(Self.report), format: nil) as? NSDictionary))
        #expect(reportTree["gustKnots"] == nil)
    }

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func oneCallRootOpensWithFoundation(format: ArchiveFormat) throws {
        let bytes = try KeyedArchiver.archive(encodable: Self.report, registry: Self.registry, format: format)
        #expect(Data(bytes) == (try KeyedArchiver.archivedData(encodable: Self.report, registry: Self.registry, format: format)))
        let theirs = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
        theirs.requiresSecureCoding = true
        let tree = try #require(theirs.decodeObject(of: CodableBridgeTests.plistClasses, forKey: NSKeyedArchiveRootObjectKey))
        let plist = try PropertyListSerialization.data(fromPropertyList: tree, format: .binary, options: 0)
        #expect(try PropertyListDecoder().decode(WeatherReport.self, from: plist) == Self.report)
        #expect(try KeyedUnarchiver.unarchive(decodable: WeatherReport.self, from: bytes, registry: Self.registry) == Self.report)
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func oneCallRootReadsFoundationsArchive(format: PropertyListSerialization.PropertyListFormat) throws {
        let tree = try PropertyListSerialization.propertyList(from: try PropertyListEncoder().encode(Self.report), format: nil)
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(tree, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        #expect(try KeyedUnarchiver.unarchive(decodable: WeatherReport.self, from: archiver.encodedData, registry: Self.registry) == Self.report)
        #expect(try KeyedUnarchiver.unarchive(decodable: WeatherReport.self, from: [UInt8](archiver.encodedData), registry: Self.registry) == Self.report)
    }

    @Test func missingOrNullRootIsValueNotFound() throws {
        let null = try KeyedArchiver.archive(encodable: WeatherReport?.none, registry: Self.registry)
        for bytes in [null, try KeyedArchiver.archive("x", registry: ArchiveRegistry()).replacingRootKey()] {
            do {
                _ = try KeyedUnarchiver.unarchive(decodable: WeatherReport.self, from: bytes, registry: Self.registry)
                Issue.record("decoded a report from nothing")
            } catch {
                #expect(error.code == .valueNotFound)
                #expect(error.keyPath.description == "root")
            }
        }
        #expect(try KeyedUnarchiver(bytes: null, registry: ArchiveRegistry()).decodeDecodable(WeatherReport?.self, forKey: "root") == nil)
    }
}

private extension [UInt8] {
    /// The same archive with its top-level key renamed, so that `root` is absent.
    func replacingRootKey() throws -> [UInt8] {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode("x", forKey: "other")
        return try archiver.finish()
    }
}
