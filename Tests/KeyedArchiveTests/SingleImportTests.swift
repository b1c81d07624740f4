// Only KeyedArchive (and the test framework): the types its API takes and returns must be
// usable without `import PropertyList`. This file does not compile if they are not exported.
import KeyedArchive
import Testing

@Suite struct SingleImportTests {
    @Test func propertyListTypesComeWithKeyedArchive() throws {
        let tree: PropertyListValue = ["name": "Ka 8", "seats": 1, "tags": ["club", "wood"]]
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(tree, forKey: "root")
        let bytes = try archiver.finish()
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry())
        #expect(try unarchiver.decode(PropertyListValue.self) == tree)
        let uid: PropertyListUID? = try unarchiver.topLevelDecoder.reference(forKey: "root")?.uid
        #expect(uid != nil)
        var options = ArchiveReadingOptions()
        options.propertyList = PropertyListReadingOptions()
        let raw: PropertyListValue? = try ArchiveGraph(bytes: bytes, options: options).topFields["root"]
        #expect(raw?.uidValue == uid)
        do {
            _ = try ArchiveGraph(bytes: Array("bplist00".utf8))
            Issue.record("a header alone was read")
        } catch {
            let underlying: PropertyListError? = error.propertyListError
            #expect(underlying != nil)
        }
        #expect(PropertyListDate(secondsSinceReferenceDate: 1).secondsSinceReferenceDate == 1)
    }
}
