import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Shapes that blow up naive walkers: shared-reference explosions, very deep nesting, cycles.
/// Built as property lists directly, since our encoder refuses to nest this deep.
@Suite struct HostileShapeTests {
    static func archive(objects: [PropertyListValue]) -> PropertyListValue {
        [
            "$archiver": "NSKeyedArchiver",
            "$version": 100000,
            "$top": ["root": .uid(PropertyListUID(1))],
            "$objects": .array(objects),
        ]
    }

    static let arrayClass: PropertyListValue = ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]]

    /// 64 arrays, each holding the next one twice: 2^64 paths, 130 objects.
    static func laughs(levels: Int) -> PropertyListValue {
        var objects: [PropertyListValue] = ["$null"]
        let classUID = PropertyListUID(UInt64(levels + 1))
        for level in 0..<levels {
            let next = PropertyListValue.uid(PropertyListUID(UInt64(level + 2 <= levels ? level + 2 : 0)))
            objects.append(["$class": .uid(classUID), "NS.objects": level + 1 < levels ? [next, next] : []])
        }
        objects.append(arrayClass)
        return archive(objects: objects)
    }

    /// A chain of `depth` arrays, each holding the next once.
    static func chain(depth: Int) -> PropertyListValue {
        var objects: [PropertyListValue] = ["$null"]
        let classUID = PropertyListUID(UInt64(depth + 1))
        for level in 0..<depth {
            objects.append(["$class": .uid(classUID), "NS.objects": level + 1 < depth ? [.uid(PropertyListUID(UInt64(level + 2)))] : []])
        }
        objects.append(arrayClass)
        return archive(objects: objects)
    }

    @Test func sharedReferenceExplosionRendersLinearly() throws {
        let graph = try ArchiveGraph(propertyList: Self.laughs(levels: 64))
        let dump = ArchiveDumper.dump(graph)
        let json = ArchiveJSONRenderer.render(graph)
        // About 64 short lines per level at most: linear, where a naive walk prints 2^64 arrays.
        #expect(dump.utf8.count < 64 * 600)
        #expect(json.utf8.count < 64 * 600)
        #expect(dump.contains("-> #3 NSArray"))
        _ = try JSONSerialization.jsonObject(with: Data(json.utf8))
        // Typed decoding shares the decoded arrays instead of expanding them.
        indirect enum Nest: ArchiveObjectDecodable {
            case node([Nest])
            static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Nest {
                .node(try [Nest].decode(archiveReference: reference, from: decoder))
            }
        }
        let unarchiver = KeyedUnarchiver(graph: graph, registry: ArchiveRegistry())
        #expect(throws: Never.self) { _ = try unarchiver.decode(Nest.self) }
    }

    @Test func deepNestingIsIterativeOrRefused() throws {
        let depth = 20_000
        let graph = try ArchiveGraph(propertyList: Self.chain(depth: depth))
        // Walks are iterative, and indentation is capped, so the output stays linear.
        let dump = ArchiveDumper.dump(graph)
        #expect(dump.utf8.count < depth * 400)
        let json = ArchiveJSONRenderer.render(graph)
        #expect(json.utf8.count < depth * 400)
        indirect enum Nest: ArchiveObjectDecodable {
            case node([Nest])
            static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Nest {
                .node(try [Nest].decode(archiveReference: reference, from: decoder))
            }
        }
        // Decoded on a stack of the test's choosing (Swift Testing's threads have 512 KiB on Darwin).
        let decodedGraph = graph
        let code = onThread(stackSize: 8 << 20) { () -> ArchiveError.Code? in
            do {
                _ = try KeyedUnarchiver(graph: decodedGraph, registry: ArchiveRegistry()).decode(Nest.self)
                return nil
            } catch {
                return (error as? ArchiveError)?.code
            }
        }
        #expect(code == .depthLimitExceeded, "\(depth) levels: \(String(describing: code))")
    }

    @Test func arrayContainingItselfIsACycleErrorForTypedDecoding() throws {
        let graph = try ArchiveGraph(propertyList: Self.archive(objects: ["$null", ["$class": .uid(PropertyListUID(2)), "NS.objects": [.uid(PropertyListUID(1))]], Self.arrayClass]))
        indirect enum Nest: ArchiveObjectDecodable {
            case node([Nest])
            static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Nest {
                .node(try [Nest].decode(archiveReference: reference, from: decoder))
            }
        }
        do {
            _ = try KeyedUnarchiver(graph: graph, registry: ArchiveRegistry()).decode(Nest.self)
            Issue.record("a self-containing array decoded")
        } catch {
            #expect(error.code == .cyclicReference)
            #expect(error.uid == PropertyListUID(1))
        }
        #expect(ArchiveDumper.dump(graph).contains("[0]: -> #1 NSArray"))
    }

    /// A self-containing array reached as alternating types: each level is a different
    /// `(UID, type)` pair until the third, which repeats the first, so the cycle is only seen by
    /// searching the collections under way for that UID (not by the per-UID first-type record).
    @Test func arrayContainingItselfAsAlternatingTypesIsACycleError() throws {
        let graph = try ArchiveGraph(propertyList: Self.archive(objects: ["$null", ["$class": .uid(PropertyListUID(2)), "NS.objects": [.uid(PropertyListUID(1))]], Self.arrayClass]))
        indirect enum Even: ArchiveObjectDecodable {
            case node([Odd])
            static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Even {
                .node(try [Odd].decode(archiveReference: reference, from: decoder))
            }
        }
        indirect enum Odd: ArchiveObjectDecodable {
            case node([Even])
            static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Odd {
                .node(try [Even].decode(archiveReference: reference, from: decoder))
            }
        }
        do {
            _ = try KeyedUnarchiver(graph: graph, registry: ArchiveRegistry()).decode(Even.self)
            Issue.record("a self-containing array decoded")
        } catch {
            #expect(error.code == .cyclicReference)
            #expect(error.uid == PropertyListUID(1))
            #expect(error.message.hasSuffix("as Array<Odd>"))
        }
    }

    /// One array decoded as two element types, from three keys: each request gets its own
    /// type's elements, and the second request for the first type gets the same elements again.
    @Test func oneArrayDecodesAsTwoTypes() throws {
        struct Tag: ArchiveObjectDecodable, Equatable {
            let text: String
            static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Tag {
                Tag(text: "#" + (try String.decode(archiveReference: reference, from: decoder)))
            }
        }
        let plist: PropertyListValue = [
            "$archiver": "NSKeyedArchiver",
            "$version": 100000,
            "$top": ["plain": .uid(PropertyListUID(1)), "tagged": .uid(PropertyListUID(1)), "again": .uid(PropertyListUID(1))],
            "$objects": ["$null", ["$class": .uid(PropertyListUID(2)), "NS.objects": [.uid(PropertyListUID(3)), .uid(PropertyListUID(4))]], Self.arrayClass, "SEP", "TMG"],
        ]
        let unarchiver = KeyedUnarchiver(graph: try ArchiveGraph(propertyList: plist), registry: ArchiveRegistry())
        #expect(try unarchiver.decode([String].self, forKey: "plain") == ["SEP", "TMG"])
        #expect(try unarchiver.decode([Tag].self, forKey: "tagged") == [Tag(text: "#SEP"), Tag(text: "#TMG")])
        #expect(try unarchiver.decode([String].self, forKey: "again") == ["SEP", "TMG"])
        #expect(try unarchiver.decode([Tag].self, forKey: "again") == [Tag(text: "#SEP"), Tag(text: "#TMG")])
    }

    @Test func structuralFaultsNameTheObject() throws {
        func fault(_ objects: [PropertyListValue]) -> ArchiveError? {
            do {
                _ = try ArchiveGraph(propertyList: Self.archive(objects: objects))
                return nil
            } catch {
                return error
            }
        }
        let dangling = fault(["$null", ["$class": .uid(PropertyListUID(2)), "x": .uid(PropertyListUID(7))], Self.arrayClass])
        #expect(dangling?.code == .invalidReference)
        #expect(dangling?.uid == PropertyListUID(1))
        #expect(fault(["$null", ["$class": .uid(PropertyListUID(0))]])?.code == .invalidClassReference)
        #expect(fault(["$null", ["$class": 5]])?.code == .invalidClassReference)
        #expect(fault(["$null", ["$class": .uid(PropertyListUID(2))], ["$classname": 3, "$classes": []]])?.code == .invalidClassDescriptor)
        #expect(fault(["$null", ["$class": .uid(PropertyListUID(2))], ["$classname": "A", "$classes": [1]]])?.code == .invalidClassDescriptor)
        #expect(fault(["nil"])?.code == .invalidArchiveHeader)
        #expect(fault([])?.code == .invalidArchiveHeader)
        let wrongVersion: PropertyListValue = ["$archiver": "NSKeyedArchiver", "$version": "100000", "$top": [:], "$objects": ["$null"]]
        #expect(throws: ArchiveError.self) { _ = try ArchiveGraph(propertyList: wrongVersion) }
        let topOutOfRange: PropertyListValue = ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(PropertyListUID(9))], "$objects": ["$null"]]
        do {
            _ = try ArchiveGraph(propertyList: topOutOfRange)
        } catch {
            #expect(error.code == .invalidReference)
            #expect(error.keyPath.description == "root")
        }
    }
}
