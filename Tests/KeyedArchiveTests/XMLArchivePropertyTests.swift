import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Issue 26's property: for random value graphs and random models, an XML archive either reads
/// back as exactly what was archived or its write throws `unrepresentableValue`; binary always
/// writes and reads back exactly.
@Suite struct XMLArchivePropertyTests {
    typealias Generator = DirectArchiveWriterTests.Generator

    /// The value as every XML reader returns it when nothing is lost: keys in one order (XML
    /// sorts them, the archive keeps Core Foundation's hash order), 32-bit reals widened and
    /// 16-byte integers in the ordinary form — stored forms that no typed decode tells apart.
    static func storedFormErased(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .real(.float32(let float)): return .real(.float64(Double(float)))
        case .integer(let integer) where integer.isStoredAs128Bit:
            return .integer(PropertyListInteger(high: integer.high, low: integer.low, isStoredAs128Bit: false))
        case .array(let elements): return .array(elements.map(storedFormErased))
        case .set(let elements): return .set(elements.map(storedFormErased))
        case .dictionary(let dictionary):
            let sorted = dictionary.entries.sorted { $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars, by: { $0.value < $1.value }) }
            return .dictionary(PropertyListDictionary(entries: sorted.map { .init(key: $0.key, value: storedFormErased($0.value)) }))
        default: return value
        }
    }

    /// The generic graphs of `DirectArchiveWriterTests` (inline values of every kind, among them
    /// −0, NaN, 32-bit reals, 16-byte integers, dates), with the writer refusing what XML loses.
    /// The reference for "what was archived" is the archive's value tree, which binary keeps
    /// exactly; Foundation's reader of the XML must agree with ours.
    @Test(arguments: 1...60)
    func genericGraphs(seed: UInt64) throws {
        let objects = Int(seed % 11) * 3 + 1
        let tree = try DirectArchiveWriterTests.archiver(seed: seed, objects: objects, xmlValueLoss: .refuse).finishPropertyList()
        let binary = try DirectArchiveWriterTests.archiver(seed: seed, objects: objects, xmlValueLoss: .refuse).finish(format: .binary)
        #expect(try BinaryPropertyListReader.readValue(binary) == tree, "seed \(seed)")
        let xml: [UInt8]
        do {
            xml = try DirectArchiveWriterTests.archiver(seed: seed, objects: objects, xmlValueLoss: .refuse).finish(format: .xml)
        } catch let error as ArchiveError {
            #expect(error.code == .unrepresentableValue, "seed \(seed): \(error)")
            // A refusal is warranted: the lossy XML does read back as another value.
            let lossy = try DirectArchiveWriterTests.archiver(seed: seed, objects: objects).finish(format: .xml)
            #expect(Self.storedFormErased(try XMLPropertyListReader.read(lossy).value) != Self.storedFormErased(tree), "seed \(seed): refused \(error) but nothing was lost")
            return
        }
        let back = try XMLPropertyListReader.read(xml).value
        #expect(Self.storedFormErased(back) == Self.storedFormErased(tree), "seed \(seed)")
        // And Core Foundation's reader sees the same document: its top-level object count and
        // every `$objects` string agree with ours.
        let foundation = try #require(try PropertyListSerialization.propertyList(from: Data(xml), format: nil) as? [String: Any])
        let foundationObjects = try #require(foundation["$objects"] as? [Any])
        let ours = try #require(back["$objects"]?.arrayValue)
        #expect(foundationObjects.count == ours.count)
        for (theirs, mine) in zip(foundationObjects, ours) {
            if let string = mine.stringValue { #expect((theirs as? String).map { Array($0.unicodeScalars) } == Array(string.unicodeScalars), "seed \(seed)") }
        }
    }

    /// A model with strings, keys and numbers drawn to hit what XML loses.
    final class Sample: KeyedArchivable {
        let name: String
        let tags: [String: String]
        let readings: [Double]
        let ratio: Float
        let when: Date
        let child: Sample?

        init(name: String, tags: [String: String], readings: [Double], ratio: Float, when: Date, child: Sample?) {
            self.name = name
            self.tags = tags
            self.readings = readings
            self.ratio = ratio
            self.when = when
            self.child = child
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            tags = try decoder.decode([String: String].self, forKey: "tags")
            readings = try decoder.decode([Double].self, forKey: "readings")
            ratio = try decoder.decode(Float.self, forKey: "ratio")
            when = try decoder.decode(Date.self, forKey: "when")
            child = try decoder.decodeIfPresent(Sample.self, forKey: "child")
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(name, forKey: "name")
            try encoder.encode(tags, forKey: "tags")
            try encoder.encode(readings, forKey: "readings")
            try encoder.encode(ratio, forKey: "ratio")
            try encoder.encode(when, forKey: "when")
            try encoder.encode(child, forKey: "child")
        }

        /// Exact: strings by scalars, numbers by bits.
        var fingerprint: [String] {
            var parts = [Array(name.unicodeScalars).description, String(ratio.bitPattern), String(when.timeIntervalSinceReferenceDate.bitPattern)]
            parts += tags.map { "\(Array($0.key.unicodeScalars))=\(Array($0.value.unicodeScalars))" }.sorted()
            parts += readings.map { String($0.bitPattern) }
            parts += child.map { ["child"] + $0.fingerprint } ?? []
            return parts
        }

        /// Whether anything in it would read back from XML as another value (the test's own
        /// statement of the rule, independent of the writer's).
        var loses: Bool {
            func mark(_ string: String) -> Bool { string.unicodeScalars.first == "\u{FEFF}" }
            func double(_ value: Double) -> Bool { value.bitPattern == (-0.0 as Double).bitPattern || (value.isNaN && value.bitPattern != Double.nan.bitPattern) }
            let float = ratio.bitPattern == (-0.0 as Float).bitPattern || (ratio.isNaN && ratio.bitPattern != Float.nan.bitPattern)
            return mark(name) || tags.contains { mark($0.key) || mark($0.value) } || readings.contains(where: double) || float
                || double(when.timeIntervalSinceReferenceDate) || (child?.loses ?? false)
        }
    }

    /// Pieces a string is made of; one string in twelve starts with U+FEFF, which XML loses
    /// (a U+FEFF elsewhere is kept). Canonically equal pieces (`é`, `e\u{301}`) make keys that
    /// Swift merges and property lists keep apart.
    static let pieces = ["", "x", "x\u{FEFF}", "é", "e\u{301}", "$null", "a&<b>", "\r\n", "😀"]

    static func string(_ random: inout Generator) -> String {
        let text = (0..<Int.random(in: 1...2, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
        return Int.random(in: 0..<12, using: &random) == 0 ? "\u{FEFF}" + text : text
    }

    /// One real in twelve is one XML changes: −0, or a NaN other than the reader's.
    static func double(_ random: inout Generator) -> Double {
        let lost: [Double] = [-0.0, -.nan, Double(bitPattern: 0x7FF8_0000_0000_0042)]
        let kept: [Double] = [0, .nan, .infinity, -.infinity, 0.1, 1e300, .leastNonzeroMagnitude, 1.5]
        if Int.random(in: 0..<12, using: &random) == 0 { return lost.randomElement(using: &random) ?? 0 }
        return Bool.random(using: &random) ? (kept.randomElement(using: &random) ?? 0) : Double(bitPattern: random.next())
    }

    static func sample(_ random: inout Generator, depth: Int) -> Sample {
        var tags: [String: String] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &random) { tags[string(&random)] = string(&random) }
        let floats: [Float] = [0, 2.5, 0.1, .infinity, .nan, Float(bitPattern: UInt32(truncatingIfNeeded: random.next())), -0.0, -.nan]
        let seconds = [0, 1.25, -86_400.5, 600_000_000, -0.0][Int.random(in: 0..<(Int.random(in: 0..<8, using: &random) == 0 ? 5 : 4), using: &random)]
        return Sample(
            name: string(&random), tags: tags,
            readings: (0..<Int.random(in: 0...2, using: &random)).map { _ in double(&random) },
            ratio: floats[Int.random(in: 0..<(Int.random(in: 0..<8, using: &random) == 0 ? 8 : 6), using: &random)],
            when: Date(timeIntervalSinceReferenceDate: seconds),
            child: depth < 2 && Bool.random(using: &random) ? sample(&random, depth: depth + 1) : nil)
    }

    /// Random models: binary always reads back exactly; XML reads back exactly or is refused,
    /// and is refused exactly when the model holds something XML loses. Whatever XML we write,
    /// Foundation's `NSKeyedUnarchiver` reads the same dictionary of tags from it.
    @Test(arguments: 1...300)
    func randomModels(seed: UInt64) throws {
        var random = Generator(state: seed &* 0x1000_0001)
        let value = Self.sample(&random, depth: 0)
        var registry = ArchiveRegistry()
        registry.register(Sample.self)
        // Swift's String == merges canonically equal keys; the model keeps what the dictionary kept.
        let binary = try KeyedArchiver.archive(value, registry: registry)
        #expect(try KeyedUnarchiver.unarchive(Sample.self, from: binary, registry: registry).fingerprint == value.fingerprint, "seed \(seed)")
        do {
            let xml = try KeyedArchiver.archive(value, registry: registry, format: .xml)
            #expect(!value.loses, "seed \(seed): written although it loses a value")
            #expect(try KeyedUnarchiver.unarchive(Sample.self, from: xml, registry: registry).fingerprint == value.fingerprint, "seed \(seed)")
        } catch {
            #expect(error.code == .unrepresentableValue, "seed \(seed): \(error)")
            #expect(value.loses, "seed \(seed): refused \(error) though nothing would be lost")
            #expect(!error.keyPath.components.isEmpty, "seed \(seed)")
        }
    }
}
