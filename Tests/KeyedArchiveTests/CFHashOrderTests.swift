import PropertyList
import Testing
@testable import KeyedArchive

/// The CFString hash and CF hash-table order against Apple's own files (format-notes §3).
@Suite struct CFHashOrderTests {
    /// The root dictionary's stored order in each era follows from the hash of its four keys.
    @Test func rootOrdersOfTheEras() {
        let keys = ["$archiver", "$version", "$top", "$objects"]
        let eraA = CFHashTableOrder.order(keys, sizing: .growth)
        #expect(eraA == ["$version", "$objects", "$archiver", "$top"])
        let eraC = CFHashTableOrder.order(keys, sizing: .fixed(buckets: 13))
        #expect(eraC == ["$version", "$archiver", "$top", "$objects"])
        let eraD = CFHashTableOrder.order(keys, sizing: .powerOfTwo, hashBits: 32)
        #expect(eraD == ["$archiver", "$version", "$top", "$objects"])
        // Any insertion order gives the same result (no collisions among these four).
        #expect(CFHashTableOrder.order(keys.reversed(), sizing: .growth) == eraA)
        #expect(CFHashTableOrder.order(keys.reversed(), sizing: .fixed(buckets: 13)) == eraC)
    }

    /// Hand-computed values of the hash for short keys (h = L, groups of four, tail, final shift).
    @Test func hashOfShortStrings() {
        // "a": h = 1; h = 1*257 + 97 = 354; h += h << 1 → 1062.
        #expect(CFStringHash.hash64("a") == 1062)
        // "": h = 0.
        #expect(CFStringHash.hash64("") == 0)
        // "abcd": h = 4*67503105 + 97*16974593 + 98*66049 + 99*257 + 100; then h += h << 4.
        let h: UInt64 = 4 * 67_503_105 + 97 * 16_974_593 + 98 * 66_049 + 99 * 257 + 100
        #expect(CFStringHash.hash64("abcd") == h &+ (h << 4))
    }

    /// Object dictionaries in Foundation-written archives (eras A and C) whose keys have distinct
    /// home buckets: the model predicts the stored order from the key set alone.
    @Test func objectDictionaryOrderInTheCorpus() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        var checked = [String: Int](), matched = [String: Int]()
        for entry in ArchiveFixtures.entries where entry.format == "binary" && entry.category != "nib" && entry.category != "apple-sample-code" && entry.category != "xcdatamodel" {
            let graph = try ArchiveGraph(bytes: try ArchiveFixtures.bytes(entry))
            let era: String
            switch graph.headerKeyOrder {
            case ["$version", "$archiver", "$top", "$objects"]: era = "C"
            case ["$version", "$objects", "$archiver", "$top"]: era = "A"
            default: continue
            }
            for object in graph.objects {
                guard case .instance(let instance) = object, instance.storage.count >= 2 else { continue }
                let keys = instance.storage.keys
                guard Set(keys).count == keys.count else { continue }
                let hashes = keys.map { CFStringHash.hash64($0) }
                var sizeIndex = 0
                while CFHashTableOrder.capacities[sizeIndex] < keys.count { sizeIndex += 1 }
                let buckets = UInt64(CFHashTableOrder.sizes[sizeIndex])
                let homes = hashes.map { $0 % buckets }
                guard Set(homes).count == homes.count else { continue }
                checked[era, default: 0] += 1
                if CFHashTableOrder.order(hashes: hashes, sizing: .growth).map({ keys[$0] }) == keys {
                    matched[era, default: 0] += 1
                }
            }
        }
        print("CF hash order, collision-free object dictionaries: era C \(matched["C", default: 0])/\(checked["C", default: 0]), era A \(matched["A", default: 0])/\(checked["A", default: 0])")
        let rateC = Double(matched["C", default: 0]) / Double(max(checked["C", default: 0], 1))
        #expect(checked["C", default: 0] > 1000)
        #expect(rateC > 0.99)
    }
}
