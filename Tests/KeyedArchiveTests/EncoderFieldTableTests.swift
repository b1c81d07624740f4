import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The archiver records every object's fields in two lists shared by the whole archive, with
/// keys numbered through a memo on the key `String`'s two words, and finds repeated strings
/// through a second such memo. These tests aim at what that could get wrong: keys built at run
/// time (new storage for every object), more keys than the memo has slots, a key set twice,
/// conditional top-level fields patched at the end, and `finish` called from inside a model.
/// Expected values come from the models' own data; the archives are read back with Python's
/// `plistlib` where it is installed, and with our generic view.
@Suite struct EncoderFieldTableTests {
    /// Encodes the given (key, value) pairs in order, through whichever accessor `kind` names.
    final class Bag: KeyedArchivable {
        let pairs: [(key: String, value: String)]
        let numbers: [(key: String, value: Int32)]

        init(pairs: [(key: String, value: String)], numbers: [(key: String, value: Int32)] = []) {
            self.pairs = pairs
            self.numbers = numbers
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            pairs = []
            numbers = []
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            for pair in pairs { try encoder.encode(pair.value, forKey: pair.key) }
            for number in numbers { try encoder.encode(number.value, forKey: number.key) }
        }
    }

    /// Makes its keys and values while it is encoded: each key is new storage, freed right
    /// after its field is set, so a later key can be made at the same address.
    final class RuntimeKeyBag: KeyedArchivable {
        static let keyCount = 700
        let salt: Int

        init(salt: Int) { self.salt = salt }
        init(from decoder: KeyedArchiveDecoder) throws { salt = 0 }

        static func key(_ index: Int) -> String { String(repeating: "k", count: 16 + index % 5) + "\(index)" }
        static func value(_ index: Int, salt: Int) -> String { "v\((index &* 7 &+ salt) % 1000)" }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            for index in 0..<Self.keyCount { try encoder.encode(Self.value(index, salt: salt), forKey: Self.key(index)) }
        }
    }

    static let registry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(Bag.self)
        registry.register(RuntimeKeyBag.self)
        return registry
    }()

    /// plistlib's view of every instance: its fields with references to strings and integers
    /// resolved, in `$objects` order, as JSON.
    static let script = #"""
import json, plistlib, sys
with open(sys.argv[1], 'rb') as f:
    p = plistlib.load(f)
objects = p['$objects']
def resolve(v):
    if isinstance(v, plistlib.UID):
        target = objects[v.data]
        if isinstance(target, (str, int)) and not isinstance(target, bool): return target
        return 'uid:%d' % v.data
    if isinstance(v, list): return [resolve(x) for x in v]
    if isinstance(v, (bytes, bytearray)): return v.hex()
    return v
out = []
for o in objects:
    if isinstance(o, dict) and '$class' in o:
        out.append({k: resolve(v) for k, v in o.items() if k != '$class'})
print(json.dumps({'instances': out, 'strings': [o for o in objects if isinstance(o, str)],
                  'top': {k: resolve(v) for k, v in p['$top'].items()}}, default=repr))
"""#

    /// plistlib's reading of `bytes`, or nil when no Python is installed.
    static func plistlibView(_ bytes: [UInt8]) throws -> [String: Any]? {
        try pythonJSON(script: script, on: bytes).map { $0 as? [String: Any] } ?? nil
    }

    /// What `script` prints as JSON when run on a file of `bytes`, or nil when no Python is installed.
    static func pythonJSON(script: String, on bytes: [UInt8]) throws -> Any? {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return nil
        }
        let directory = FileManager.default.temporaryDirectory
        let archiveURL = directory.appendingPathComponent("keyedarchive-fields-\(UUID().uuidString).plist")
        let scriptURL = directory.appendingPathComponent("keyedarchive-fields-\(UUID().uuidString).py")
        try Data(bytes).write(to: archiveURL)
        try Data(script.utf8).write(to: scriptURL)
        defer {
            try? FileManager.default.removeItem(at: archiveURL)
            try? FileManager.default.removeItem(at: scriptURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [scriptURL.path, archiveURL.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONSerialization.jsonObject(with: output)
    }

    /// Keys longer than a small string, made anew for every field and freed right after it (so
    /// that a later key can be made at the same address), and more of them than the key memo has slots.
    @Test(arguments: [ArchiveFormat.binary, .xml])
    func runtimeKeysBeyondTheMemo(format: ArchiveFormat) throws {
        let keyCount = RuntimeKeyBag.keyCount
        let bags = (0..<4).map { RuntimeKeyBag(salt: $0) }
        let bytes = try KeyedArchiver.archive(bags, registry: Self.registry, format: format)
        let graph = try ArchiveGraph(bytes: bytes)
        var instances: [ArchiveGraph.Instance] = []
        for object in graph.objects { if case .instance(let instance) = object, instance.storage.count > 2 { instances.append(instance) } }
        #expect(instances.count == bags.count)
        for (bag, instance) in zip(bags, instances) {
            #expect(instance.storage.count == keyCount + 1)
            for index in 0..<keyCount {
                let key = RuntimeKeyBag.key(index)
                guard case .uid(let uid)? = instance.value(forKey: key), case .string(let text)? = graph.object(uid) else {
                    Issue.record("no string field \(key)")
                    continue
                }
                #expect(text == RuntimeKeyBag.value(index, salt: bag.salt))
            }
        }
        guard format == .binary, let view = try Self.plistlibView(bytes), let read = view["instances"] as? [[String: Any]] else { return }
        let bagsRead = read.filter { $0.count > 2 }
        #expect(bagsRead.count == bags.count)
        for (bag, fields) in zip(bags, bagsRead) {
            #expect(fields.count == keyCount)
            #expect((0..<keyCount).allSatisfy { fields[RuntimeKeyBag.key($0)] as? String == RuntimeKeyBag.value($0, salt: bag.salt) })
        }
    }

    /// Equal strings from different storage are one object; different texts never are.
    @Test func repeatedRuntimeStringsAreStoredOnce() throws {
        let texts = (0..<40).map { "shared value number \($0 % 9) with a long tail" }
        // A fresh `String` (new storage) per use.
        let bags = (0..<300).map { index in
            Bag(pairs: [(key: "a", value: String(decoding: Array(texts[index % texts.count].utf8), as: UTF8.self)),
                        (key: "short", value: "s\(index % 5)")])
        }
        let bytes = try KeyedArchiver.archive(bags, registry: Self.registry)
        guard let view = try Self.plistlibView(bytes), let strings = view["strings"] as? [String],
              let read = view["instances"] as? [[String: Any]] else {
            // No Python: the generic view checks the same.
            let graph = try ArchiveGraph(bytes: bytes)
            let stored = graph.objects.compactMap { if case .string(let text) = $0 { return text } else { return nil } }
            #expect(stored.filter { $0.hasPrefix("shared value") }.count == 9)
            return
        }
        #expect(strings.filter { $0.hasPrefix("shared value") }.count == 9)
        #expect(strings.filter { $0.hasPrefix("s") && $0.count == 2 }.count == 5)
        let bagsRead = read.filter { $0["a"] != nil }
        #expect(bagsRead.count == bags.count)
        for (index, fields) in bagsRead.enumerated() {
            #expect(fields["a"] as? String == texts[index % texts.count])
            #expect(fields["short"] as? String == "s\(index % 5)")
        }
    }

    /// A key set twice keeps one field, with the last value, where the key first stood (a
    /// CFDictionary's `setValue:forKey:`), among keys of every accessor kind.
    @Test func keySetTwiceKeepsOneField() throws {
        let bag = Bag(pairs: [(key: "first", value: "one"), (key: "second", value: "two"), (key: "first", value: "three")],
                      numbers: [(key: "second", value: 5), (key: "$dollar", value: 6)])
        let bytes = try KeyedArchiver.archive(bag, registry: Self.registry)
        let graph = try ArchiveGraph(bytes: bytes)
        guard let root = graph.topUID(forKey: "root"), case .instance(let instance)? = graph.object(root) else {
            Issue.record("no root instance")
            return
        }
        // first, second, $$dollar (escaped) and $class.
        #expect(instance.storage.count == 4)
        if case .uid(let uid)? = instance.value(forKey: "first"), case .string(let text)? = graph.object(uid) {
            #expect(text == "three")
        } else {
            Issue.record("first is not a string reference")
        }
        #expect(instance.value(forKey: "second") == .integer(PropertyListInteger(Int64(5))))
        #expect(instance.value(forStoredKey: "$$dollar") == .integer(PropertyListInteger(Int64(6))))
        if let view = try Self.plistlibView(bytes), let read = view["instances"] as? [[String: Any]] {
            #expect(read.count == 1)
            #expect(Set(read.first?.keys.map { $0 } ?? []) == ["first", "second", "$$dollar"])
        }
    }

    /// `$top` fields: a conditional one whose target is encoded later is patched to it; one
    /// whose target never is stays `$null`; setting a top key twice keeps the last value.
    @Test func conditionalTopLevelFieldsArePatchedAtTheEnd() throws {
        let pilots = Fleet.makePilots()
        let archiver = KeyedArchiver(registry: Fleet.registry)
        try archiver.encodeConditional(pilots[0], forKey: "later")
        try archiver.encodeConditional(pilots[1], forKey: "never")
        try archiver.encode("replaced", forKey: "twice")
        try archiver.encode(pilots[0], forKey: "pilot")
        try archiver.encode("kept", forKey: "twice")
        let bytes = try archiver.finish()
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(graph.top.map(\.key).sorted() == ["later", "never", "pilot", "twice"])
        #expect(graph.topUID(forKey: "later") == graph.topUID(forKey: "pilot"))
        #expect(graph.topUID(forKey: "later") != PropertyListUID(0))
        #expect(graph.topUID(forKey: "never") == PropertyListUID(0))
        if let twice = graph.topUID(forKey: "twice"), case .string(let text)? = graph.object(twice) {
            #expect(text == "kept")
        } else {
            Issue.record("twice is not a string reference")
        }
        if let view = try Self.plistlibView(bytes), let top = view["top"] as? [String: Any] {
            #expect(top["twice"] as? String == "kept")
            #expect(top["never"] as? String == "$null")
            #expect((top["later"] as? String).map { $0.hasPrefix("uid:") } == true)
        }
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: Fleet.registry)
        #expect(try unarchiver.decode(Pilot.self, forKey: "later") === (try unarchiver.decode(Pilot.self, forKey: "pilot")))
    }

    /// A key that held a conditional reference and is set again keeps the last value, as in
    /// Apple's archiver, even when the first conditional's target is encoded later: at the top,
    /// inside a model, and with two conditionals on one key. (Found by review: the pending
    /// conditional used to be patched back in at the end.)
    @Test func conditionalFieldSetAgainKeepsTheLastValue() throws {
        final class Holder: KeyedArchivable {
            let first: Pilot
            let second: Pilot
            init(first: Pilot, second: Pilot) {
                self.first = first
                self.second = second
            }
            init(from decoder: KeyedArchiveDecoder) throws { throw ArchiveError(.modelError, "not decoded here") }
            func encode(to encoder: KeyedArchiveEncoder) throws {
                try encoder.encodeConditional(first, forKey: "plain")     // first not encoded yet
                try encoder.encode(second, forKey: "plain")               // the last value: second
                try encoder.encode(second, forKey: "anchor")
                try encoder.encodeConditional(first, forKey: "twice")     // pending
                try encoder.encodeConditional(second, forKey: "twice")    // already encoded: last
            }
        }
        var registry = Fleet.registry
        registry.register(Holder.self)
        let pilots = Fleet.makePilots()
        let archiver = KeyedArchiver(registry: registry)
        try archiver.encodeConditional(pilots[0], forKey: "top")
        try archiver.encode("last", forKey: "top")
        try archiver.encode(Holder(first: pilots[0], second: pilots[1]), forKey: "holder")
        try archiver.encode(pilots[0], forKey: "pilot")
        let bytes = try archiver.finish()
        let graph = try ArchiveGraph(bytes: bytes)
        if let top = graph.topUID(forKey: "top"), case .string(let text)? = graph.object(top) {
            #expect(text == "last")
        } else {
            Issue.record("top is not the string set last")
        }
        guard let holderUID = graph.topUID(forKey: "holder"), case .instance(let holder)? = graph.object(holderUID),
              case .uid(let anchor)? = holder.value(forKey: "anchor") else {
            Issue.record("no holder")
            return
        }
        #expect(holder.value(forKey: "plain") == .uid(anchor))
        #expect(holder.value(forKey: "twice") == .uid(anchor))
        #expect(graph.className(of: anchor) == "Pilot")
        #expect(anchor != graph.topUID(forKey: "pilot"))
    }

    /// An encoder kept past its `encode(to:)` call cannot write into a later object that sits
    /// at the same depth. (Found by review: only the depth was checked.)
    @Test func keptEncoderCannotWriteIntoALaterObject() throws {
        final class Keeper: KeyedArchivable {
            nonisolated(unsafe) static var kept: KeyedArchiveEncoder?
            let writesThroughKept: Bool
            var error: ArchiveError?
            init(writesThroughKept: Bool) { self.writesThroughKept = writesThroughKept }
            init(from decoder: KeyedArchiveDecoder) throws { writesThroughKept = false }
            func encode(to encoder: KeyedArchiveEncoder) throws {
                try encoder.encode(1, forKey: "own")
                if writesThroughKept {
                    do {
                        try Self.kept?.encode(666, forKey: "injected")
                    } catch {
                        self.error = error
                    }
                } else {
                    Self.kept = encoder
                }
            }
        }
        var registry = ArchiveRegistry()
        registry.register(Keeper.self)
        let leaker = Keeper(writesThroughKept: false), victim = Keeper(writesThroughKept: true)
        let archiver = KeyedArchiver(registry: registry)
        try archiver.encode(leaker, forKey: "a")
        try archiver.encode(victim, forKey: "b")
        Keeper.kept = nil
        #expect(victim.error?.code == .invalidState)
        let graph = try ArchiveGraph(bytes: try archiver.finish())
        for key in ["a", "b"] {
            guard let uid = graph.topUID(forKey: key), case .instance(let instance)? = graph.object(uid) else {
                Issue.record("no instance under \(key)")
                continue
            }
            #expect(instance.value(forKey: "injected") == nil)
            #expect(instance.storage.count == 2)
        }
    }

    /// A model that calls `finish` while it is being encoded gets an error, and the archive it
    /// is part of still finishes whole.
    @Test func finishFromInsideAModelIsRefused() throws {
        final class Impatient: KeyedArchivable {
            weak var archiver: KeyedArchiver?
            var innerError: ArchiveError?

            init() {}
            init(from decoder: KeyedArchiveDecoder) throws {}

            func encode(to encoder: KeyedArchiveEncoder) throws {
                try encoder.encode("before", forKey: "a")
                do {
                    _ = try archiver?.finish()
                } catch {
                    innerError = error
                }
                try encoder.encode("after", forKey: "b")
            }
        }
        var registry = ArchiveRegistry()
        registry.register(Impatient.self)
        let archiver = KeyedArchiver(registry: registry)
        let model = Impatient()
        model.archiver = archiver
        try archiver.encode(model, forKey: "root")
        #expect(model.innerError?.code == .invalidState)
        let graph = try ArchiveGraph(bytes: try archiver.finish())
        guard let root = graph.topUID(forKey: "root"), case .instance(let instance)? = graph.object(root) else {
            Issue.record("no root instance")
            return
        }
        #expect(instance.storage.count == 3)
    }

    /// Holds a field of every form the archiver's table keeps: reference lists nested in
    /// reference lists (each element's object opens a list while its parent's is open), a list
    /// replaced by a later one under the same key, and inline scalars at their edges.
    final class Shelf: KeyedArchivable {
        static let rows = [["a", "b"], [], ["c"], ["d", "e", "f"]]

        init() {}
        init(from decoder: KeyedArchiveDecoder) throws {}

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(Self.rows, forKey: "rows")
            try encoder.encode(["replaced", "list"], forKey: "names")
            try encoder.encode(Int64.min, forKey: "min")
            try encoder.encode(["kept"], forKey: "names")
            try encoder.encode(Int64.max, forKey: "max")
            try encoder.encode(true, forKey: "flag")
            try encoder.encode(-0.0, forKey: "negativeZero")
            try encoder.encode(Float(2.5), forKey: "float")
            try encoder.encode(UInt64.max, forKey: "huge")
            try encoder.encodeRaw(.integer(PropertyListInteger(high: 0, low: 7, isStoredAs128Bit: true)), forStoredKey: "wide")
        }
    }

    /// plistlib's reading of the root object with every reference followed and arrays
    /// (`NS.objects`) unwrapped, as JSON; reals as `repr` so that -0.0 stays apart from 0.
    static let resolvingScript = #"""
import json, plistlib, sys
with open(sys.argv[1], 'rb') as f:
    p = plistlib.load(f)
objects = p['$objects']
def uid(v):
    if isinstance(v, plistlib.UID): return v.data
    # plistlib's XML reader leaves {CF$UID: n} as a dictionary.
    if isinstance(v, dict) and list(v.keys()) == ['CF$UID']: return v['CF$UID']
    return None
def res(v):
    if uid(v) is not None: return res(objects[uid(v)])
    if isinstance(v, list): return [res(x) for x in v]
    if isinstance(v, dict):
        if set(v.keys()) == {'NS.objects', '$class'}: return res(v['NS.objects'])
        return {k: res(x) for k, x in v.items() if k != '$class'}
    if isinstance(v, float): return repr(v)
    if isinstance(v, bool): return 'bool:%s' % v
    if isinstance(v, int): return str(v)
    return v
print(json.dumps(res(p['$top']['root'])))
"""#

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func nestedReferenceListsAndInlineScalarsKeepTheirValues(format: ArchiveFormat) throws {
        var registry = ArchiveRegistry()
        registry.register(Shelf.self)
        // −0 cannot be carried by XML: refused by default, written as Core Foundation writes it
        // when asked (which is what this test checks, against plistlib).
        var options = ArchiveWritingOptions()
        if format == .xml {
            let refusal = #expect(throws: ArchiveError.self) { try KeyedArchiver.archive(Shelf(), registry: registry, format: format) }
            #expect(refusal?.code == .unrepresentableValue)
            #expect(refusal?.keyPath.description == "root.negativeZero")
            options.xmlValueLoss = .acceptAsCoreFoundation
        }
        let bytes = try KeyedArchiver.archive(Shelf(), registry: registry, format: format, options: options)

        // Our generic view: the inline forms, including the 16-byte integer kept as written.
        let graph = try ArchiveGraph(bytes: bytes)
        guard let root = graph.topUID(forKey: "root"), case .instance(let instance)? = graph.object(root) else {
            Issue.record("no root instance")
            return
        }
        #expect(instance.value(forKey: "min") == .integer(PropertyListInteger(Int64.min)))
        #expect(instance.value(forKey: "max") == .integer(PropertyListInteger(Int64.max)))
        #expect(instance.value(forKey: "flag") == .bool(true))
        // XML keeps neither a real's width nor an integer's 16-byte form, and Core Foundation
        // writes -0.0 there as 0.0 (`xml-format-notes.md`): binary keeps all three.
        let binary = format == .binary
        #expect(instance.value(forKey: "float") == .real(binary ? .float32(2.5) : .float64(2.5)))
        if case .real(.float64(let zero))? = instance.value(forKey: "negativeZero") {
            #expect(zero == 0 && zero.sign == (binary ? .minus : .plus))
        } else {
            Issue.record("negativeZero is not a double")
        }
        #expect(instance.value(forStoredKey: "wide") == .integer(PropertyListInteger(high: 0, low: 7, isStoredAs128Bit: binary)))
        // rows, names, min, max, flag, negativeZero, float, huge, wide and $class.
        #expect(instance.storage.count == 10)

        // Python's plistlib, reading the bytes on its own.
        guard let view = try Self.pythonJSON(script: Self.resolvingScript, on: bytes) else { return }
        let fields = try #require(view as? [String: Any])
        #expect(fields["rows"] as? [[String]] == Shelf.rows)
        #expect(fields["names"] as? [String] == ["kept"])
        #expect(fields["min"] as? String == String(Int64.min))
        #expect(fields["max"] as? String == String(Int64.max))
        #expect(fields["flag"] as? String == "bool:True")
        #expect(fields["negativeZero"] as? String == (binary ? "-0.0" : "0.0"))
        #expect(fields["float"] as? String == "2.5")
        #expect(fields["huge"] as? String == String(UInt64.max))
        #expect(fields["wide"] as? String == "7")
        #expect(fields.count == 9)
    }
}
