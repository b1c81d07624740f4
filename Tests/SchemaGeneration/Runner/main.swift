// Runs the round trip of every generated schema (Cases.swift, written by run.sh) and compares
// each result with its source through the generic view (ArchiveGraph), not through the
// generated types: the same values and class names, UIDs and sharing ignored.
import Foundation
import KeyedArchive
import PropertyList

/// An object in a few words: its class, or its kind and value.
func brief(_ object: ArchiveGraph.Object, _ graph: ArchiveGraph, _ uid: PropertyListUID) -> String {
    switch object {
    case .null: return "$null"
    case .instance: return "an instance of \(graph.className(of: uid) ?? "?")"
    case .string(let text): return "the string \(text.debugDescription.prefix(80))"
    default: return String("\(object)".prefix(120))
    }
}

/// Where two archives first differ, as a key path and what each side holds.
func firstDifference(_ source: ArchiveGraph, _ result: ArchiveGraph) -> String? {
    struct Pair: Hashable { let left: UInt64; let right: UInt64 }
    var seen: Set<Pair> = []
    var pending: [(PropertyListValue, PropertyListValue, String)] = []

    func pushFields(_ left: PropertyListDictionary, _ right: PropertyListDictionary, _ path: String) -> String? {
        let leftKeys = left.entries.map(\.key).filter { $0 != "$class" }
        let rightKeys = right.entries.map(\.key).filter { $0 != "$class" }
        guard Set(leftKeys) == Set(rightKeys), leftKeys.count == rightKeys.count else {
            return "\(path): keys \(leftKeys.sorted()) became \(rightKeys.sorted())"
        }
        for key in leftKeys {
            guard let l = left[key], let r = right[key] else { return "\(path).\(key): missing" }
            pending.append((l, r, path + "." + key))
        }
        return nil
    }

    /// A dictionary object's entries by plain-string key, when every key is a plain string.
    func entriesByKey(_ graph: ArchiveGraph, _ instance: ArchiveGraph.Instance) -> [String: PropertyListValue]? {
        guard case .array(let keys)? = instance.storage["NS.keys"], case .array(let values)? = instance.storage["NS.objects"],
              keys.count == values.count else { return nil }
        var result: [String: PropertyListValue] = [:]
        for (key, value) in zip(keys, values) {
            guard case .uid(let uid) = key, case .string(let text)? = graph.object(uid), result[text] == nil else { return nil }
            result[text] = value
        }
        return result
    }

    if let fault = pushFields(source.topFields, result.topFields, "$top") { return fault }
    while let (left, right, path) = pending.popLast() {
        switch (left, right) {
        case (.uid(let l), .uid(let r)):
            guard seen.insert(Pair(left: l.value, right: r.value)).inserted else { continue }
            guard let a = source.object(l), let b = result.object(r) else { return "\(path): reference out of range" }
            switch (a, b) {
            case (.null, .null): continue
            case (.instance(let ia), .instance(let ib)):
                let ca = source.classDescriptor(of: l)?.classes ?? [], cb = result.classDescriptor(of: r)?.classes ?? []
                guard ca == cb else { return "\(path): class \(ca.joined(separator: " < ")) became \(cb.joined(separator: " < "))" }
                if let name = ca.first, name.hasSuffix("Dictionary"), let ea = entriesByKey(source, ia), let eb = entriesByKey(result, ib) {
                    guard Set(ea.keys) == Set(eb.keys) else { return "\(path): dictionary keys \(ea.keys.sorted()) became \(eb.keys.sorted())" }
                    for (key, value) in ea { if let other = eb[key] { pending.append((value, other, "\(path)[\(key)]")) } }
                    continue
                }
                if let fault = pushFields(ia.storage, ib.storage, path) { return fault }
            case (.classDescriptor, .classDescriptor): continue
            default:
                guard a == b else { return "\(path): \(brief(a, source, l)) became \(brief(b, result, r))" }
            }
        case (.array(let l), .array(let r)), (.set(let l), .set(let r)):
            guard l.count == r.count else { return "\(path): \(l.count) elements became \(r.count)" }
            for (index, pair) in zip(l, r).enumerated() { pending.append((pair.0, pair.1, "\(path)[\(index)]")) }
        case (.dictionary(let l), .dictionary(let r)):
            if let fault = pushFields(l, r, path) { return fault }
        default:
            guard left == right else { return "\(path): \(left) became \(right)" }
        }
    }
    return nil
}

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--example" {
    guard let example else {
        print("no example: the corpus is absent")
        exit(0)
    }
    do {
        try example(CommandLine.arguments[2])
        exit(0)
    } catch {
        print("the example failed: \(error)")
        exit(1)
    }
}

var failures = 0
for (path, roundTrip) in cases {
    let name = URL(fileURLWithPath: path).lastPathComponent
    do {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let output = try roundTrip(bytes)
        // For comparing with other tools (run.sh --write DIR): NAME.roundtrip beside nothing else.
        if let folder = ProcessInfo.processInfo.environment["SCHEMA_ROUNDTRIP_DIR"] {
            try Data(output).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name + ".roundtrip"))
        }
        let sameFormat = bytes.starts(with: Array("bplist".utf8)) == output.starts(with: Array("bplist".utf8))
        if let difference = firstDifference(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: output)) {
            failures += 1
            print("DIFFERS \(name): \(difference)")
        } else if !sameFormat {
            failures += 1
            print("DIFFERS \(name): the format changed")
        } else {
            print("OK \(name)")
        }
    } catch {
        failures += 1
        print("FAILED \(name): \(error)")
    }
}
print("round trips: \(cases.count - failures) of \(cases.count) give the same values and class names")
exit(failures == 0 ? 0 : 1)
