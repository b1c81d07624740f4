import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Failing deep in a graph costs work linear in the depth (issue 31): a 64,000-level chain that
/// ends in a refused class once cost a CPU-minute to reject, because every level of the unwind
/// built the whole key path again. These tests count the work instead of timing it: the
/// components of every key path a decode or encode builds, which must stay a small multiple of
/// the depth (a quadratic unwind builds depth²/2 of them: two billion at 64,000 levels).
@Suite struct DeepFailureCostTests {
    /// How a hostile chain ends.
    enum Ending: String, CaseIterable, Sendable {
        /// The deepest node's child is an object of a class nobody registered.
        case refusedClass
        /// The deepest node's child is the first node: a cycle.
        case cycle
        /// The deepest node has no label, which its `init(from:)` requires.
        case missingField
    }

    static let registry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(ChainNode.self, className: "Node")
        return registry
    }()

    /// A chain of `levels` Node objects under `root`, ending as `ending` says. Built as a
    /// property list by hand (not by our encoder), so that the hostile endings can be written.
    static func chain(levels: Int, ending: Ending) -> PropertyListValue {
        func classDescriptor(_ name: String) -> PropertyListValue {
            var descriptor = PropertyListDictionary()
            descriptor.append(key: "$classname", value: .string(name))
            descriptor.append(key: "$classes", value: .array([.string(name), .string("NSObject")]))
            return .dictionary(descriptor)
        }
        // 0 $null, 1 Node's class, 2 Evil's class, 3 an Evil object, then node and label pairs.
        var objects: [PropertyListValue] = [.string("$null"), classDescriptor("Node"), classDescriptor("Evil")]
        var evil = PropertyListDictionary()
        evil.append(key: "$class", value: .uid(PropertyListUID(2)))
        objects.append(.dictionary(evil))
        let firstNode = objects.count
        for level in 0..<levels {
            let node = objects.count
            var fields = PropertyListDictionary()
            fields.append(key: "$class", value: .uid(PropertyListUID(1)))
            let last = level + 1 == levels
            if !(last && ending == .missingField) { fields.append(key: "label", value: .uid(PropertyListUID(UInt64(node + 1)))) }
            if !last {
                fields.append(key: "child", value: .uid(PropertyListUID(UInt64(node + 2))))
            } else if ending == .refusedClass {
                fields.append(key: "child", value: .uid(PropertyListUID(3)))
            } else if ending == .cycle {
                fields.append(key: "child", value: .uid(PropertyListUID(UInt64(firstNode))))
            }
            objects.append(.dictionary(fields))
            objects.append(.string("n\(level)"))
        }
        var top = PropertyListDictionary()
        top.append(key: "root", value: .uid(PropertyListUID(UInt64(firstNode))))
        var root = PropertyListDictionary()
        root.append(key: "$version", value: .integer(PropertyListInteger(100_000)))
        root.append(key: "$archiver", value: .string("NSKeyedArchiver"))
        root.append(key: "$top", value: .dictionary(top))
        root.append(key: "$objects", value: .array(objects))
        return .dictionary(root)
    }

    /// What a decode on a big stack ended with, and the path work it did.
    struct Outcome: Sendable {
        var code: ArchiveError.Code?
        var pathLength: Int
        var componentsBuilt: Int
    }

    static func decodeOnBigStack(_ bytes: [UInt8], options: ArchiveReadingOptions) -> Outcome {
        onThread(stackSize: 512 << 20) { () -> Outcome in
            do throws(ArchiveError) {
                let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry, options: options)
                do throws(ArchiveError) {
                    let head = try unarchiver.decode(ChainNode.self)
                    let built = unarchiver.session.pathComponentsBuilt
                    _ = ChainNode.unlinkCounting(head)
                    return Outcome(code: nil, pathLength: 0, componentsBuilt: built)
                } catch {
                    return Outcome(code: error.code, pathLength: error.keyPath.components.count, componentsBuilt: unarchiver.session.pathComponentsBuilt)
                }
            } catch {
                return Outcome(code: error.code, pathLength: -1, componentsBuilt: -1)
            }
        }
    }

    static let deepOptions: ArchiveReadingOptions = {
        var options = ArchiveReadingOptions()
        options.maximumDepth = 1 << 20
        return options
    }()

    @Test(arguments: Ending.allCases, [1_000, 8_000, 64_000])
    func rejectingADeepChainIsLinear(ending: Ending, levels: Int) throws {
        let plist = Self.chain(levels: levels, ending: ending)
        // The binary table (the fast path) and the graph (what XML takes) unwind alike.
        for bytes in [try BinaryPropertyListWriter().write(plist), try XMLPropertyListWriter().write(plist)] {
            let outcome = Self.decodeOnBigStack(bytes, options: Self.deepOptions)
            let expected: ArchiveError.Code = switch ending {
            case .refusedClass: .classNotAllowed
            case .cycle: .cyclicReference
            case .missingField: .valueNotFound
            }
            #expect(outcome.code == expected)
            // root, then `child` for every level below it (and the deepest node's own key).
            #expect(outcome.pathLength >= levels && outcome.pathLength <= levels + 1, "path of \(outcome.pathLength) components")
            #expect(outcome.componentsBuilt <= 4 * levels, "\(outcome.componentsBuilt) path components built for \(levels) levels")
        }
    }

    @Test(arguments: [1_000, 64_000])
    func unreadFieldsOfADeepChainAreLinear(levels: Int) throws {
        // A chain that decodes, with an extra field in every node for the report to list.
        var plist = Self.chain(levels: levels, ending: .missingField)
        guard case .dictionary(var root) = plist, case .array(var objects)? = root["$objects"] else { Issue.record("no $objects"); return }
        for position in objects.indices {
            guard case .dictionary(var fields) = objects[position], fields["$class"] == .uid(PropertyListUID(1)) else { continue }
            if fields["label"] == nil { fields.append(key: "label", value: .uid(PropertyListUID(UInt64(position + 1)))) }
            fields.append(key: "extra", value: .integer(PropertyListInteger(7)))
            objects[position] = .dictionary(fields)
        }
        root["$objects"] = .array(objects)
        plist = .dictionary(root)
        var options = Self.deepOptions
        options.reportsUnreadFields = true
        let bytes = try BinaryPropertyListWriter().write(plist)
        let outcome = Self.decodeOnBigStack(bytes, options: options)
        #expect(outcome.code == nil)
        // Recording where each object is may not build its path: the report builds them on request.
        #expect(outcome.componentsBuilt <= 4 * levels, "\(outcome.componentsBuilt) path components built for \(levels) levels")
    }

    @Test(arguments: [1_000, 64_000])
    func failingDeepInAnEncodeIsLinear(levels: Int) throws {
        var head: ThrowingChainNode? = nil
        for level in stride(from: levels - 1, through: 0, by: -1) {
            head = ThrowingChainNode(label: level == levels - 1 ? ThrowingChainNode.failingLabel : "n\(level)", child: head)
        }
        let chain = head
        let outcome = onThread(stackSize: 512 << 20) { () -> Outcome in
            var options = ArchiveWritingOptions()
            options.maximumDepth = 1 << 20
            var registry = ArchiveRegistry()
            registry.register(ThrowingChainNode.self, className: "Node")
            let archiver = KeyedArchiver(registry: registry, options: options)
            do throws(ArchiveError) {
                try archiver.encode(chain)
                return Outcome(code: nil, pathLength: 0, componentsBuilt: archiver.session.pathComponentsBuilt)
            } catch {
                return Outcome(code: error.code, pathLength: error.keyPath.components.count, componentsBuilt: archiver.session.pathComponentsBuilt)
            }
        }
        var next = head
        while let node = next { next = node.child; node.child = nil }
        #expect(outcome.code == .modelError)
        #expect(outcome.pathLength >= levels)
        #expect(outcome.componentsBuilt <= 4 * levels, "\(outcome.componentsBuilt) path components built for \(levels) levels")
    }
}

/// A chain whose deepest node refuses to encode.
final class ThrowingChainNode: KeyedArchivable, @unchecked Sendable {
    static let failingLabel = "boom"
    struct Refusal: Error {}
    var child: ThrowingChainNode?
    let label: String

    init(label: String, child: ThrowingChainNode?) {
        self.label = label
        self.child = child
    }

    required init(from decoder: KeyedArchiveDecoder) throws {
        label = try decoder.decode(String.self, forKey: "label")
        child = try decoder.decodeIfPresent(ThrowingChainNode.self, forKey: "child")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        if label == Self.failingLabel { throw Refusal() }
        try encoder.encode(label, forKey: "label")
        try encoder.encode(child, forKey: "child")
    }
}
