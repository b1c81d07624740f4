import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

@Suite struct ZZExploreSharing {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["EXPLORE"] != nil)) func explore() throws {
        var byClass: [String: Int] = [:]
        var failing: [String] = []
        var equalTable = 0, equalRound = 0
        for entry in ArchiveFixtures.entries {
            let bytes = try ArchiveFixtures.bytes(entry)
            for mode in ["table", "roundTrip"] {
                let ours: [UInt8]
                do {
                    ours = try onThread(stackSize: 8 << 20, { Result { () throws -> [UInt8] in
                        mode == "table" ? try ArchiveValueInspectionTests.rewrite(bytes, identities: ArchiveIdentityTable())
                                        : try KeyedArchiver.roundTrip(bytes, registry: ArchiveValueInspectionTests.inspecting) } }).get()
                } catch { failing.append("\(mode) \(entry.relativePath): \(error)"); continue }
                let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: ours))
                if diff.isEqual { if mode == "table" { equalTable += 1 } else { equalRound += 1 } ; continue }
                failing.append("\(mode) \(entry.relativePath): \(diff.differences.prefix(3).map(\.description))")
                for d in diff.differences { byClass["\(mode) \(d.kind)", default: 0] += 1 }
            }
        }
        print("EXPLORE table \(equalTable) roundTrip \(equalRound) of \(ArchiveFixtures.entries.count)")
        print("EXPLORE kinds \(byClass)")
        for f in failing.prefix(40) { print("EXPLORE " + f.prefix(600)) }
    }
}

extension ZZExploreSharing {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["EXPLORE2"] != nil)) func exploreOne() throws {
        let entry = try #require(ArchiveFixtures.entries.first { $0.relativePath.hasSuffix("DateIntervalFormatter-Default.archive") })
        let bytes = try ArchiveFixtures.bytes(entry)
        let table = ArchiveIdentityTable()
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveValueInspectionTests.inspecting)
        unarchiver.identities = table
        let root = try unarchiver.decode(ArchiveValue.self)
        func show(_ v: ArchiveValue, _ path: String, depth: Int = 0) {
            guard depth < 4 else { return }
            let src = table.source(of: v)
            print("EXPLORE2 \(path): \(String(describing: v).prefix(80)) addr=\(String(describing: decodedObjectAddress(of: v))) source=\(src.map { "uid \($0.uid) bears \($0.bearsIdentity) copy \($0.copy != nil)" } ?? "nil")")
            if case .instance(let i) = v { for f in i.fields { if case .object(let o) = f.value { show(o, path + "." + f.key, depth: depth + 1) } } }
            if case .shared(let s) = v { let inner = s.value; show(inner, path + "(shared)", depth: depth + 1) }
        }
        show(root, "root")
        print("EXPLORE2 count \(table.count)")
    }
}
