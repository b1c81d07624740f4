import Foundation
@testable import KeyedArchive
import Testing

/// The default registry's Foundation classes are a named set, fixed once released: adding a
/// mapping never widens what `ArchiveRegistry()` admits (issue 44).
@Suite struct FoundationClassSetTests {
    static func archived(_ object: Any) throws -> [UInt8] {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(object, forKey: "root")
        archiver.finishEncoding()
        return [UInt8](archiver.encodedData)
    }

    /// Release 0.9.0's set, written out: a class added to `FoundationClass` later must not join
    /// it, and this list is what keeps that from happening unnoticed.
    @Test func releaseSetIsFixed() {
        #expect(FoundationClassSet.release0_9.classes.map(\.rawValue).sorted() == [
            "affineTransform", "array", "attributedString", "countedSet", "data", "date", "decimalNumber", "dictionary",
            "indexPath", "indexSet", "locale", "measurement", "null", "orderedSet", "set", "sortDescriptor", "string",
            "timeZone", "unit", "unitConverter", "url", "uuid", "value",
        ])
        #expect(FoundationClassSet.propertyListClasses.classes == [.string, .array, .dictionary, .data, .date])
    }

    /// `ArchiveRegistry()` admits the release set and nothing else: every mapped class outside it
    /// (none today; every later mapping) is refused by the default registry, and each class in it
    /// is admitted. Checked by decoding archives Foundation on Linux made.
    @Test func defaultRegistryAdmitsTheReleaseSetOnly() throws {
        let locale = try Self.archived(NSLocale(localeIdentifier: "fr_CA"))
        #expect(try FoundationDecoding.decode(Locale.self, locale, registry: ArchiveRegistry()).identifier == "fr_CA")
        #expect(try FoundationDecoding.decode(Locale.self, locale, registry: ArchiveRegistry(foundation: .release0_9)).identifier == "fr_CA")
        let refused = #expect(throws: ArchiveError.self) {
            try FoundationDecoding.decode(Locale.self, locale, registry: ArchiveRegistry(foundation: .propertyListClasses))
        }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.description.contains("NSLocale") == true, "\(String(describing: refused))")

        let laterMappings = Set(FoundationClass.allCases).subtracting(FoundationClassSet.release0_9.classes)
        let byDefault = ArchiveRegistry(), byRelease = ArchiveRegistry(foundation: .release0_9)
        for kind in laterMappings {
            #expect(byDefault.foundationNames[kind] == nil, "\(kind) joined the default registry")
        }
        #expect(byDefault.foundationNames == byRelease.foundationNames)
        #expect(Set(byDefault.foundationNames.keys) == FoundationClassSet.release0_9.classes)
    }

    /// A `Codable` tree needs only the property-list classes, and the bridge asks for a registry.
    @Test func codableTreeNeedsOnlyPropertyListClasses() throws {
        let value = ["readings": [1, 2, 3], "gusts": [25]]
        let registry = ArchiveRegistry(foundation: .propertyListClasses)
        let bytes = try KeyedArchiver.archive(encodable: value, registry: registry)
        #expect(try KeyedUnarchiver.unarchive(decodable: [String: [Int]].self, from: bytes, registry: registry) == value)
        // Python's plistlib reads the same tree independently: NSMutableDictionary/NSMutableArray objects.
        let classes = try #require(try PlistlibArchiveReference.runPython("""
            import plistlib, sys
            archive = plistlib.load(open(sys.argv[1], 'rb'))
            objects = archive['$objects']
            print(sys.argv[1] + '\\t' + repr(sorted({objects[o['$class'].data]['$classname'] for o in objects if isinstance(o, dict) and '$class' in o})))
            """, over: [Self.write(bytes)])?.values.first)
        #expect(classes.trimmingCharacters(in: .whitespacesAndNewlines) == "['NSMutableArray', 'NSMutableDictionary']")
    }

    static func write(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("foundation-set-\(UUID().uuidString).plist")
        try Data(bytes).write(to: url)
        return url.path
    }
}
